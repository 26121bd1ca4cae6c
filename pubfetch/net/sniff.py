"""Content-Type helpers and PDF sniffing.

Publishers label PDFs as text/html, application/octet-stream or application/download, and label HTML interstitials
(cookie walls, "download will start" pages) as application/pdf. So the bytes decide: ``%PDF`` magic wins whatever the
header says, and a PDF Content-Type is believed only when the body does not start like markup.
"""

from __future__ import annotations

from typing import Final

PDF_MEDIA_TYPES: Final = frozenset({"application/pdf", "application/x-pdf", "application/acrobat", "image/pdf"})

#: Media types never worth downloading: nothing in them is text or PDF.
_SKIPPED_PREFIXES: Final = ("image/", "audio/", "video/", "font/", "model/")

_TEXTUAL_SUBTYPES: Final = frozenset(
    {"json", "xml", "javascript", "x-javascript", "ecmascript", "x-json", "x-www-form-urlencoded", "x-tex", "rtf"}
)

#: Acrobat accepts the header anywhere in the first 1024 bytes; leading junk is mostly whitespace or a BOM.
_PDF_MAGIC_WINDOW: Final = 1024


def media_type(content_type: str | None) -> str:
    """``"text/html; charset=utf-8"`` -> ``"text/html"``; ``None`` -> ``""``."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def is_pdf_media(mtype: str) -> bool:
    """Whether the media type claims a PDF."""
    return mtype in PDF_MEDIA_TYPES


def is_skipped_media(mtype: str) -> bool:
    """Whether the body need not be downloaded at all (images, audio, video, fonts; not image/pdf)."""
    return mtype.startswith(_SKIPPED_PREFIXES) and not is_pdf_media(mtype)


def is_textual_media(mtype: str) -> bool:
    """Whether a body of this media type should be decoded to text (an absent type counts as text)."""
    if not mtype or mtype.startswith("text/"):
        return True
    if "/" not in mtype:
        return False
    _, sub = mtype.split("/", 1)
    return sub in _TEXTUAL_SUBTYPES or sub.endswith(("+xml", "+json"))


def has_pdf_magic(body: bytes) -> bool:
    """Whether ``%PDF-`` occurs at the start of the body, after whitespace, NULs or a UTF-8 BOM."""
    head = body[:_PDF_MAGIC_WINDOW].lstrip(b"\xef\xbb\xbf\x00 \t\r\n\x0c")
    return head.startswith(b"%PDF-")


def looks_like_markup(body: bytes) -> bool:
    """Whether the body starts like HTML/XML (so a PDF Content-Type on it is a lie)."""
    return body[:_PDF_MAGIC_WINDOW].lstrip(b"\xef\xbb\xbf\x00 \t\r\n\x0c").startswith(b"<")


def is_pdf(content_type: str | None, body: bytes) -> bool:
    """PDF by magic whatever the type says; by Content-Type only when the body does not start like markup."""
    if has_pdf_magic(body):
        return True
    return is_pdf_media(media_type(content_type)) and bool(body) and not looks_like_markup(body)
