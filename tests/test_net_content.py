"""What the client does with response bodies: size caps, decompression bombs, PDFs whatever their label, media types
that are skipped or decoded."""

from __future__ import annotations

import gzip
import zlib

import pytest

from pubfetch.net.outcome import OutcomeKind
from support.loopback import Reply
from support.netsupport import FastServer as LoopbackServer
from support.netsupport import both, make_client

PAGE = "<html><head><title>Article</title></head><body><p>Text.</p></body></html>"
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


# ---------------------------------------------------------------------------------------------------- size cap


def test_body_over_cap_with_content_length() -> None:
    with LoopbackServer({"/big": Reply(200, b"a" * 5000, "text/html")}) as server:
        pub, page = both(make_client(max_bytes=4000), server.url("/big"))
        assert server.count("/big") == 2  # not retried
    for r in (pub, page):
        assert (r.kind, r.status, r.attempts, r.body, r.text, r.fetch_exception) == (
            OutcomeKind.TOO_LARGE, 200, 1, b"", None, False)
        assert r.message == "Content-Length 5000 exceeds the cap of 4000 bytes"
        assert r.content_type == "text/html"


def test_body_over_cap_without_content_length() -> None:
    """Streamed until the cap is passed: a missing (or lying) Content-Length does not get past it."""
    streamed = Reply(200, b"", "text/html", chunks=[b"a" * 1000] * 10)
    with LoopbackServer({"/big": streamed}) as server:
        r = make_client(max_bytes=4000).get(server.url("/big"), publication=True)
        assert "Content-Length" not in dict(r.headers)
    assert (r.kind, r.status, r.attempts, r.body, r.fetch_exception) == (OutcomeKind.TOO_LARGE, 200, 1, b"", False)
    assert r.message == "body exceeds the cap of 4000 bytes"


def test_body_at_the_cap_is_fine() -> None:
    streamed = Reply(200, b"", "text/plain", chunks=[b"a" * 1000] * 4)
    with LoopbackServer({"/fits": streamed, "/fits-cl": Reply(200, b"b" * 4000, "text/plain")}) as server:
        client = make_client(max_bytes=4000)
        a, b = client.get(server.url("/fits")), client.get(server.url("/fits-cl"))
    assert (a.kind, a.body) == (OutcomeKind.OK, b"a" * 4000)
    assert (b.kind, b.body) == (OutcomeKind.OK, b"b" * 4000)


def test_cap_applies_to_error_pages_and_pdfs_too() -> None:
    big_pdf = PDF + b"0" * 10_000
    with LoopbackServer({"/paper.pdf": Reply(200, big_pdf, "application/pdf")}) as server:
        r = make_client(max_bytes=5000).get(server.url("/paper.pdf"))
    assert (r.kind, r.is_pdf) == (OutcomeKind.TOO_LARGE, False)


# ---------------------------------------------------------------------------------------------------- compression


def test_gzip_page_is_decoded() -> None:
    with LoopbackServer({"/z": Reply(200, gzip.compress(PAGE.encode()), headers={"Content-Encoding": "gzip"})}) as s:
        r = make_client().get(s.url("/z"))
    assert (r.kind, r.text) == (OutcomeKind.OK, PAGE)


def test_deflate_page_is_decoded() -> None:
    with LoopbackServer({"/z": Reply(200, zlib.compress(PAGE.encode()), headers={"Content-Encoding": "deflate"})}) as s:
        r = make_client().get(s.url("/z"))
    assert (r.kind, r.text) == (OutcomeKind.OK, PAGE)


BOMB = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)  # ~64 KB on the wire, 64 MB decoded


def test_gzip_bomb_is_stopped_by_the_ratio_guard() -> None:
    """Under the default 50 MB cap the bomb is caught as soon as 1 MB decoded outgrows its wire size 100 times."""
    assert len(BOMB) < 100_000
    with LoopbackServer({"/bomb": Reply(200, BOMB, "text/html", headers={"Content-Encoding": "gzip"})}) as server:
        pub, page = both(make_client(), server.url("/bomb"))
    for r in (pub, page):
        assert (r.kind, r.status, r.attempts, r.body, r.fetch_exception) == (
            OutcomeKind.TOO_LARGE, 200, 1, b"", False)
        assert r.message.startswith("decompression bomb: ")


def test_gzip_bomb_is_stopped_by_the_cap_when_the_ratio_is_not_checked() -> None:
    with LoopbackServer({"/bomb": Reply(200, BOMB, "text/html", headers={"Content-Encoding": "gzip"})}) as server:
        r = make_client(max_bytes=2_000_000, max_compression_ratio=1e9).get(server.url("/bomb"))
    assert (r.kind, r.status, r.message) == (OutcomeKind.TOO_LARGE, 200, "body exceeds the cap of 2000000 bytes")


def test_bad_gzip_is_an_io_error() -> None:
    with LoopbackServer({"/z": Reply(200, b"this is not gzip at all", headers={"Content-Encoding": "gzip"})}) as s:
        r = make_client().get(s.url("/z"), publication=True)
    assert (r.kind, r.status, r.body, r.fetch_exception) == (OutcomeKind.IO_ERROR, 200, b"", False)


# ---------------------------------------------------------------------------------------------------- PDFs


@pytest.mark.parametrize("content_type", ["application/octet-stream", "application/download", "text/html",
                                          "application/pdf", "application/x-pdf", None])
def test_pdf_recognised_by_its_bytes_whatever_the_label(content_type: str | None) -> None:
    with LoopbackServer({"/download": Reply(200, PDF, content_type)}) as server:
        r = make_client().get(server.url("/download"))
    assert (r.kind, r.is_pdf, r.body, r.text) == (OutcomeKind.OK, True, PDF, None)


def test_pdf_after_leading_whitespace() -> None:
    with LoopbackServer({"/p": Reply(200, b"\r\n  " + PDF, "application/octet-stream")}) as server:
        r = make_client().get(server.url("/p"))
    assert (r.kind, r.is_pdf) == (OutcomeKind.OK, True)


def test_html_labelled_pdf_is_not_a_pdf() -> None:
    """Publishers' "your download will start" pages come labelled application/pdf."""
    with LoopbackServer({"/p.pdf": Reply(200, PAGE, "application/pdf")}) as server:
        r = make_client().get(server.url("/p.pdf"))
    assert (r.kind, r.is_pdf) == (OutcomeKind.UNSUPPORTED_TYPE, False)


def test_pdf_refused_when_not_accepted() -> None:
    """accept_pdf=False: a PDF label is not downloaded at all; a PDF found by its bytes is reported, not returned."""
    routes = {"/labelled": Reply(200, PDF, "application/pdf"), "/sniffed": Reply(200, PDF, "application/octet-stream")}
    with LoopbackServer(routes) as server:
        client = make_client()
        labelled = client.get(server.url("/labelled"), accept_pdf=False)
        sniffed = client.get(server.url("/sniffed"), accept_pdf=False)
    assert (labelled.kind, labelled.is_pdf, labelled.body) == (OutcomeKind.UNSUPPORTED_TYPE, True, b"")
    assert labelled.message == "application/pdf not downloaded (PDFs not accepted here)"
    assert (sniffed.kind, sniffed.is_pdf) == (OutcomeKind.UNSUPPORTED_TYPE, True)
    assert sniffed.message == "a PDF, and PDFs are not accepted here"


# ---------------------------------------------------------------------------------------------------- media types


@pytest.mark.parametrize("content_type", ["image/png", "image/svg+xml", "video/mp4", "audio/mpeg", "font/woff2"])
def test_images_and_other_media_are_skipped(content_type: str) -> None:
    with LoopbackServer({"/fig": Reply(200, b"\x89PNG\r\n\x1a\n" + b"\0" * 50_000, content_type)}) as server:
        pub, page = both(make_client(), server.url("/fig"))
    for r in (pub, page):
        assert (r.kind, r.status, r.is_pdf, r.body, r.text, r.fetch_exception) == (
            OutcomeKind.UNSUPPORTED_TYPE, 200, False, b"", None, False)
        assert r.message == f"{content_type} not downloaded"


def test_image_pdf_is_not_skipped() -> None:
    with LoopbackServer({"/fig": Reply(200, PDF, "image/pdf")}) as server:
        r = make_client().get(server.url("/fig"))
    assert (r.kind, r.is_pdf, r.body) == (OutcomeKind.OK, True, PDF)


def test_binary_that_is_neither_text_nor_pdf() -> None:
    with LoopbackServer({"/data.zip": Reply(200, b"PK\x03\x04rest", "application/zip")}) as server:
        r = make_client().get(server.url("/data.zip"), publication=True)
    assert (r.kind, r.is_pdf, r.text, r.fetch_exception) == (OutcomeKind.UNSUPPORTED_TYPE, False, None, False)
    assert r.message == "application/zip is neither text nor PDF"


@pytest.mark.parametrize("content_type", ["text/plain", "text/plain; charset=utf-8", None, "application/xhtml+xml",
                                          "application/xml", "application/json"])
def test_textual_types_are_decoded(content_type: str | None) -> None:
    with LoopbackServer({"/page": Reply(200, PAGE, content_type)}) as server:
        r = make_client().get(server.url("/page"))
    assert (r.kind, r.is_pdf, r.text) == (OutcomeKind.OK, False, PAGE)


def test_empty_body() -> None:
    with LoopbackServer({"/empty": Reply(200, b"", "text/html"), "/204": Reply(204, b"", None)}) as server:
        client = make_client()
        empty, none = client.get(server.url("/empty")), client.get(server.url("/204"))
    assert (empty.kind, empty.body, empty.text) == (OutcomeKind.OK, b"", "")
    assert (none.kind, none.status, none.body, none.text) == (OutcomeKind.OK, 204, b"", "")
