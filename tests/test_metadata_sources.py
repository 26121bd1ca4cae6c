"""Tests for pubfetch.metadata.sources: wget mirrors, WARC files and in-memory content as archival-unit sources."""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pubfetch.metadata.sources import (
    CachedUrl,
    DirectorySource,
    MemorySource,
    SourceError,
    WarcSource,
    guess_content_type,
    open_source,
    parse_header_block,
)
from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.warc import WarcRecorder
from support.loopback import LoopbackServer, Reply

FIXTURES = Path(__file__).parent / "data" / "archival_units"
OJS_MIRROR = FIXTURES / "ojs_mirror"
JOE = "https://journal.example.org/ojs/index.php/joe/"


# --- wget mirrors --------------------------------------------------------------------------------------------------


def test_mirror_urls_are_host_and_path_with_the_given_scheme_sorted() -> None:
    source = DirectorySource(OJS_MIRROR)
    assert source.urls() == [
        JOE + "article/download/17/43",
        JOE + "article/view/17",
        JOE + "article/view/18",
        JOE + "article/view/19/50",
        JOE + "article/view/20",
        JOE + "issue/view/3",
    ]
    assert DirectorySource(OJS_MIRROR, scheme="http").urls()[0] == "http://journal.example.org/ojs/index.php/joe/" \
                                                                   "article/download/17/43"
    assert len(source) == 6
    assert JOE + "article/view/17" in source and JOE + "article/view/99" not in source


def test_mirror_sidecar_headers_give_content_type_and_status() -> None:
    source = DirectorySource(OJS_MIRROR)
    pdf = source.get(JOE + "article/download/17/43")
    assert pdf is not None
    assert (pdf.content_type, pdf.mime_type, pdf.status) == ("application/pdf", "application/pdf", 200)
    assert pdf.header("date") == "Mon, 04 May 2020 10:00:00 GMT"
    assert pdf.content() == (FIXTURES / "tiny_article.pdf").read_bytes()
    missing = source.get(JOE + "article/view/20")
    assert missing is not None and missing.status == 404 and not missing.has_content()
    assert not source.has_content(JOE + "article/view/20")


def test_mirror_inline_saved_headers_are_parsed_and_stripped() -> None:
    cu = DirectorySource(OJS_MIRROR).get(JOE + "article/view/19/50")
    assert cu is not None
    assert (cu.content_type, cu.charset, cu.status) == ("text/html; charset=utf-8", "utf-8", 200)
    assert cu.content().startswith(b'<html><head><meta name="citation_title" content="Galley without landing page">')


def test_mirror_without_headers_sniffs_extensionless_files_and_uses_extensions(tmp_path: Path) -> None:
    cu = DirectorySource(OJS_MIRROR).get(JOE + "article/view/17")
    assert cu is not None and cu.content_type == "text/html" and cu.status is None and cu.has_content()
    site = tmp_path / "example.org"
    (site / "papers").mkdir(parents=True)
    (site / "papers" / "a.pdf").write_bytes(b"%PDF-1.4\n")
    (site / "papers" / "b.xml").write_text("<article/>")
    (site / "papers" / "c").write_text("<?xml version='1.0'?><article/>")
    (site / "papers" / "d").write_bytes(b"%PDF-1.7\n")
    (site / "papers" / "e").write_bytes(b"\x00\x01binary")
    source = DirectorySource(tmp_path)
    types = {url.rsplit("/", 1)[1]: source.get(url).content_type for url in source.urls()}
    assert types == {"a.pdf": "application/pdf", "b.xml": "application/xml", "c": "application/xml",
                     "d": "application/pdf", "e": "application/octet-stream"}


def test_mirror_index_html_stands_for_its_directory_and_queries_are_unescaped(tmp_path: Path) -> None:
    site = tmp_path / "journals.example.org"
    (site / "plosone").mkdir(parents=True)
    (site / "index.html").write_text("<html></html>")
    (site / "plosone" / "article?id=10.1371%2Fjournal.pone.0213978").write_text("<html></html>")
    source = DirectorySource(tmp_path, scheme="http")
    assert source.urls() == ["http://journals.example.org/",
                             "http://journals.example.org/plosone/article?id=10.1371/journal.pone.0213978"]
    assert source.get("http://journals.example.org/index.html").url == "http://journals.example.org/"


def test_mirror_with_base_url_has_no_host_directories(tmp_path: Path) -> None:
    (tmp_path / "vol1").mkdir()
    (tmp_path / "vol1" / "a b.html").write_text("<html></html>")
    source = DirectorySource(tmp_path, base_url="https://example.org/journal")
    assert source.urls() == ["https://example.org/journal/vol1/a%20b.html"]


def test_mirror_fetch_time_is_the_file_time(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    page = tmp_path / "h" / "p.html"
    page.write_text("<html></html>")
    os.utime(page, (1_600_000_000, 1_600_000_000))
    assert DirectorySource(tmp_path).get("https://h/p.html").fetch_time == 1_600_000_000_000


def test_mirror_files_outside_host_directories_are_ignored(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "stray.html").write_text("<html></html>")
    assert DirectorySource(tmp_path).urls() == []
    assert "stray.html is not under a host directory" in caplog.text


def test_mirror_malformed_sidecar_raises_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "p.html").write_text("<html></html>")
    (tmp_path / "h" / "p.html.headers").write_text("HTTP/1.1 200 OK\nthis is not a header\n")
    source = DirectorySource(tmp_path)
    with pytest.raises(SourceError, match=r"p\.html\.headers:2: not a 'Name: value' header line"):
        source.get("https://h/p.html")


def test_mirror_inline_headers_without_end_raise(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "p").write_bytes(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n")
    with pytest.raises(SourceError, match="header block does not end"):
        DirectorySource(tmp_path).get("https://h/p")


def test_mirror_file_removed_after_scan_raises_source_error(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    page = tmp_path / "h" / "p.html"
    page.write_text("<html></html>")
    cu = DirectorySource(tmp_path).get("https://h/p.html")
    page.unlink()
    with pytest.raises(SourceError, match="cannot read"):
        cu.content()


def test_mirror_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist or is not a directory"):
        DirectorySource(tmp_path / "nope")
    with pytest.raises(ValueError, match="scheme must be"):
        DirectorySource(tmp_path, scheme="ftp")
    with pytest.raises(ValueError, match="absolute URL"):
        DirectorySource(tmp_path, base_url="vol1/")


# --- header blocks and content types -------------------------------------------------------------------------------


def test_parse_header_block() -> None:
    status, headers = parse_header_block("HTTP/1.0 301 Moved\r\nLocation: /x\r\nX-Long: a\r\n  b\r\n\r\nbody", "f")
    assert status == 301
    assert headers == [("Location", "/x"), ("X-Long", "a b")]
    assert parse_header_block("Content-Type: text/html\n", "f") == (None, [("Content-Type", "text/html")])
    with pytest.raises(SourceError, match="f:1: malformed status line"):
        parse_header_block("HTTP/1.1 OK\n", "f")


def test_guess_content_type() -> None:
    assert guess_content_type("https://x/a.PDF") == "application/pdf"
    assert guess_content_type("https://x/a.htm?x=1.pdf") == "text/html"
    assert guess_content_type("https://x/a.png") == "image/png"
    assert guess_content_type("https://x/a", b"  <!DOCTYPE html><html>") == "text/html"
    assert guess_content_type("https://x/a", b"<?xml version='1.0'?><html xmlns='x'>") == "text/html"
    assert guess_content_type("https://x/a", b"<pmc-articleset>") == "application/xml"
    assert guess_content_type("https://x/a", b"plain") == "application/octet-stream"


def test_cached_url_media_type_and_charset() -> None:
    cu = CachedUrl("u", 'Text/HTML; Charset="ISO-8859-1"', lambda: b"")
    assert (cu.mime_type, cu.charset) == ("text/html", "ISO-8859-1")
    assert CachedUrl("u", None, lambda: b"").mime_type == ""
    assert CachedUrl("u", "text/html", lambda: b"", status=302).has_content() is False


def test_cached_url_loader_errors_become_source_errors() -> None:
    def broken() -> bytes:
        raise PermissionError("denied")

    with pytest.raises(SourceError, match="cannot read u from memory: denied"):
        CachedUrl("u", "text/html", broken, source_name="memory").content()
    with pytest.raises(SourceError, match="content of u is str, not bytes"):
        CachedUrl("u", "text/html", lambda: "text").content()  # type: ignore[arg-type,return-value]


# --- memory --------------------------------------------------------------------------------------------------------


def test_memory_source_forms() -> None:
    source = MemorySource({
        "https://x/b.pdf": b"%PDF-1.4",
        "https://x/a": ("<html></html>", "text/html; charset=utf-8"),
        "https://x/c": (lambda: b"late", "text/plain"),
    })
    assert source.urls() == ["https://x/a", "https://x/b.pdf", "https://x/c"]
    assert source.get("https://x/b.pdf").content_type == "application/pdf"
    assert source.get("https://x/a").content() == b"<html></html>"
    assert source.get("https://x/c").content() == b"late"
    assert source.get("https://x/none") is None
    assert [cu.url for cu in source] == source.urls()
    gone = source.add("https://x/d", b"", "text/html", status=410)
    assert not gone.has_content() and not source.has_content("https://x/d")
    with pytest.raises(ValueError, match="expected \\(body, content_type\\)"):
        source.add("https://x/e", (b"", "text/html", 200))
    with pytest.raises(TypeError, match="content must be bytes"):
        source.add("https://x/e", 42)


# --- WARC ----------------------------------------------------------------------------------------------------------


def test_warc_written_by_the_recorder_is_read_by_target_uri(tmp_path: Path) -> None:
    page = "<html><head><meta name='citation_title' content='Caf\u00e9'></head></html>"
    routes = {
        "/old": Reply(301, "", "text/plain", {"Location": "/article"}),
        "/article": Reply(200, gzip.compress(page.encode("utf-8")), "text/html; charset=utf-8",
                          {"Content-Encoding": "gzip"}),
        "/paper.pdf": Reply(200, (FIXTURES / "tiny_article.pdf").read_bytes(), "application/pdf"),
        "/gone": Reply(404, "gone", "text/plain"),
    }
    path = tmp_path / "crawl.warc.gz"
    with LoopbackServer(routes) as server, WarcRecorder(path) as recorder:
        client = HttpClient(HttpConfig(allow_private_addresses=True), response_hook=recorder)
        for route in ("/old", "/paper.pdf", "/gone"):
            client.get(server.url(route))
        base = server.base
    source = WarcSource(path)
    assert source.urls() == [base + "/article", base + "/gone", base + "/old", base + "/paper.pdf"]
    article = source.get(base + "/article")
    assert (article.content_type, article.status, article.has_content()) == ("text/html; charset=utf-8", 200, True)
    assert article.content().decode("utf-8") == page
    assert article.fetch_time is not None and article.fetch_time > 1_600_000_000_000
    pdf = source.get(base + "/paper.pdf")
    assert pdf.mime_type == "application/pdf"
    assert pdf.content() == (FIXTURES / "tiny_article.pdf").read_bytes()
    assert source.get(base + "/old").status == 301 and not source.has_content(base + "/old")
    assert not source.has_content(base + "/gone")
    assert source.get(base + "/none") is None
    assert isinstance(open_source(path), WarcSource)


def _write_warc(path: Path, records: list[tuple[str, str, int | None, bytes, str]]) -> None:
    with open(path, "wb") as f:
        writer = WARCWriter(f, gzip=False)
        for rec_type, url, status, body, content_type in records:
            if rec_type == "response":
                http = StatusAndHeaders(f"{status} X", [("Content-Type", content_type)], protocol="HTTP/1.1")
                record = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http)
            else:
                record = writer.create_warc_record(url, rec_type, payload=io.BytesIO(body),
                                                   warc_content_type=content_type)
            writer.write_record(record)


def test_warc_last_success_wins_and_resource_records_count(tmp_path: Path) -> None:
    path = tmp_path / "multi.warc"
    _write_warc(path, [
        ("response", "https://x/a", 200, b"first", "text/html"),
        ("response", "https://x/a", 200, b"second", "text/html"),
        ("response", "https://x/a", 503, b"busy", "text/plain"),
        ("response", "https://x/b", 500, b"error", "text/plain"),
        ("response", "https://x/b", 404, b"missing", "text/plain"),
        ("resource", "file:///notes/c.xml", None, b"<article/>", "application/xml"),
        ("metadata", "https://x/a", None, b"k: v", "application/warc-fields"),
    ])
    source = WarcSource(path)
    assert source.urls() == ["file:///notes/c.xml", "https://x/a", "https://x/b"]
    assert source.get("https://x/a").content() == b"second"
    assert source.get("https://x/b").status == 404
    resource = source.get("file:///notes/c.xml")
    assert (resource.content_type, resource.status, resource.content()) == ("application/xml", None, b"<article/>")


def test_warc_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read WARC file"):
        WarcSource(tmp_path / "missing.warc")
    bogus = tmp_path / "bogus.warc"
    bogus.write_bytes(b"<html><body>not a WARC file</body></html>\n")
    with pytest.raises(SourceError, match="not a readable WARC file"):
        WarcSource(bogus)


def test_open_source_dispatch(tmp_path: Path) -> None:
    assert isinstance(open_source(OJS_MIRROR, scheme="http"), DirectorySource)
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(SourceError, match="not a directory and not a .warc or .warc.gz file"):
        open_source(tmp_path / "x.txt")
    with pytest.raises(SourceError, match="does not exist"):
        open_source(tmp_path / "nothing")
