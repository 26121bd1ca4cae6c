"""Tests for pubfetch.extract.pdf_text: a page's text from PDFium's raw calls, and the scan for presentation forms."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pubfetch.extract.pdf_text import has_forms, page_text

pypdfium2 = pytest.importorskip("pypdfium2")
pdfium_c = pytest.importorskip("pypdfium2.raw")


def _forms_in(text: str) -> bool:
    return any("\ufb00" <= char <= "\ufeff" for char in text)


def test_a_ligature_is_found_and_latin_letters_sharing_its_bytes_are_not() -> None:
    assert has_forms("ﬁnd".encode("utf-16-le"))
    assert has_forms("\ufeff".encode("utf-16-le"))
    assert not has_forms("Müller, Þór, Ýr, Fûr".encode("utf-16-le"))  # U+00FC...: the bytes, as low bytes
    assert not has_forms("\u01fb\ufafe".encode("utf-16-le"))  # 0xFB as a low byte, 0xFA as a high one
    assert not has_forms(b"")


@given(st.text(alphabet=st.sampled_from("aü\u00fb\u01fc\ufb01\ufc00\ufeff\u0afe\ufffe\n ")))
def test_the_scan_says_what_the_characters_say(text: str) -> None:
    assert has_forms(text.encode("utf-16-le")) is _forms_in(text)


def test_corpus_pages_read_as_pypdfium2s_own_text_page_reads_them(corpus_dir: Path) -> None:
    data = (corpus_dir / "files" / "pdf" / "s41467-023-44678-x.pdf").read_bytes()
    pdf = pypdfium2.PdfDocument(data)
    try:
        pages = [page_text(pdfium_c, pdf.raw, index) for index in range(len(pdf))]
        assert [text for text, _ in pages] == [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
        assert [forms for _, forms in pages] == [_forms_in(text) for text, _ in pages]
        assert len(pages) == 9 and sum(len(text) for text, _ in pages) > 40_000
        with pytest.raises(ValueError, match="cannot load the page"):
            page_text(pdfium_c, pdf.raw, len(pdf))
    finally:
        pdf.close()
