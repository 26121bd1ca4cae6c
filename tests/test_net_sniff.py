"""What a body is (pubfetch/net/sniff.py): the bytes decide over the Content-Type, since publishers label PDFs as
HTML or octet streams and HTML interstitials as PDFs; media types never worth downloading are skipped."""

from __future__ import annotations

import pytest

from pubfetch.net import sniff

PDF = b"%PDF-1.7\n1 0 obj\n"


@pytest.mark.parametrize(("content_type", "body", "pdf"), [
    ("application/pdf", PDF, True),
    ("text/html; charset=utf-8", PDF, True),  # mislabelled PDF: the magic wins
    ("application/octet-stream", b"\xef\xbb\xbf \r\n" + PDF, True),  # after a BOM and blank space
    ("application/pdf", b"<!DOCTYPE html><html>Your download will start</html>", False),  # an interstitial
    ("application/pdf", b"\n  <html>", False),
    ("application/pdf", b"", False),
    ("application/pdf", b"binary without the header", True),  # nothing says otherwise: the type is believed
    ("text/html", b"<html></html>", False),
    (None, b"%PDF", False),  # not the full magic
])
def test_a_pdf_is_told_by_its_bytes_and_its_type_only_where_the_bytes_allow(content_type, body, pdf) -> None:
    assert sniff.is_pdf(content_type, body) is pdf


def test_media_types_are_read_without_parameters_and_case() -> None:
    assert sniff.media_type("Text/HTML ; charset=UTF-8") == "text/html"
    assert sniff.media_type(None) == sniff.media_type("") == ""


def test_images_audio_video_and_fonts_are_skipped_but_not_image_pdf() -> None:
    assert all(sniff.is_skipped_media(t) for t in ("image/png", "audio/mpeg", "video/mp4", "font/woff2"))
    assert not sniff.is_skipped_media("image/pdf")
    assert not sniff.is_skipped_media("text/html") and not sniff.is_skipped_media("application/pdf")


@pytest.mark.parametrize(("mtype", "textual"), [
    ("", True), ("text/plain", True), ("application/json", True), ("application/jats+xml", True),
    ("application/ld+json", True), ("application/pdf", False), ("application/octet-stream", False),
    ("nonsense", False)])
def test_which_bodies_are_decoded_to_text(mtype: str, textual: bool) -> None:
    assert sniff.is_textual_media(mtype) is textual
