"""One page's text from PDFium's raw API (pypdfium2's bindings), for :mod:`pubfetch.extract.pdf`.

The raw calls, not pypdfium2's page and text-page objects: their bookkeeping cost 5 % of the extraction. What PDFium
does for a page (parsing its content, analysing its characters) is most of a PDF's time; what happens here around it
is kept to copies and scans of the page's bytes that run at memory speed.
"""

from __future__ import annotations

import codecs
import ctypes
from typing import Any

__all__ = ["FORM_HIGH_BYTES", "has_forms", "page_text"]

#: The high bytes (UTF-16LE) of the presentation forms (ligatures such as U+FB01 "fi", U+FB00-U+FEFF) that
#: ``pubfetch.extract.pdf`` decomposes.
FORM_HIGH_BYTES = (0xFB, 0xFC, 0xFD, 0xFE)


def page_text(pdfium_c: Any, document: Any, index: int) -> tuple[str, bool]:
    """The text of page ``index`` of the open ``document``, and whether it may hold presentation forms
    (:func:`has_forms`); raises ValueError when PDFium cannot load the page. The buffer holds two UTF-16 units per
    character (characters outside the BMP) and the terminating NUL, its size rounded up to a power of two so that
    ctypes builds (and keeps) few array types."""
    page = pdfium_c.FPDF_LoadPage(document, index)
    if not page:
        raise ValueError("PDFium cannot load the page")
    try:
        textpage = pdfium_c.FPDFText_LoadPage(page)
        if not textpage:
            raise ValueError("PDFium cannot load the page's text")
        try:
            count = pdfium_c.FPDFText_CountChars(textpage)
            if count <= 0:
                return "", False
            buffer = (ctypes.c_ushort * (1 << (2 * count + 1).bit_length()))()
            written = pdfium_c.FPDFText_GetText(textpage, 0, count, buffer)
        finally:
            pdfium_c.FPDFText_ClosePage(textpage)
    finally:
        pdfium_c.FPDF_ClosePage(page)
    raw = memoryview(buffer).cast("B")[: 2 * max(written - 1, 0)].tobytes()
    return codecs.utf_16_le_decode(raw, "ignore")[0], has_forms(raw)


def has_forms(raw: bytes) -> bool:
    """Whether UTF-16LE text ``raw`` has a character whose high byte is one of :data:`FORM_HIGH_BYTES`.

    Each byte is first looked for anywhere (a memchr): most pages have none of them, and only a page with one (ü is
    U+00FC, its low byte 0xFC) has its high bytes taken apart. A memoryview's strided copy of every page's high bytes
    took 4 % of a PDF's extraction; a bytes object's is a tenth of that, and rarely needed."""
    if not any(byte in raw for byte in FORM_HIGH_BYTES):
        return False
    high = raw[1::2]
    return any(byte in high for byte in FORM_HIGH_BYTES)
