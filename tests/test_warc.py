"""Recording a run into a WARC file: every hop is a response record with its request, readable by warcio."""

from __future__ import annotations

import gzip

from warcio.archiveiterator import ArchiveIterator

from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.warc import WarcRecorder, redact
from support.loopback import LoopbackServer, Reply


def test_every_exchange_is_recorded_with_decoded_bodies(tmp_path):
    page = "<html><head><title>Tool</title></head><body><p>Caf\u00e9 docs</p></body></html>"
    routes = {
        "/old": Reply(301, "", "text/plain", {"Location": "/page"}),
        "/page": Reply(200, gzip.compress(page.encode("utf-8")), "text/html; charset=utf-8",
                       {"Content-Encoding": "gzip"}),
    }
    path = tmp_path / "run.warc.gz"
    with LoopbackServer(routes) as server, WarcRecorder(path) as recorder:
        client = HttpClient(HttpConfig(allow_private_addresses=True), response_hook=recorder)
        result = client.get(server.url("/old") + "?api_key=SECRET123")
        assert result.ok and result.text == page
        assert recorder.records == 2
    with open(path, "rb") as f:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"), r.http_headers,
                    r.content_stream().read()) for r in ArchiveIterator(f)]
    types = [r[0] for r in records]
    assert types == ["warcinfo", "response", "request", "response", "request"]
    redirect, redirect_request, final = records[1], records[2], records[3]
    assert redirect[1].endswith("/old?api_key=REDACTED")
    assert redirect[2].get_statuscode() == "301"
    assert (redirect_request[2].protocol, redirect_request[2].statusline) == ("GET", "/old?api_key=REDACTED HTTP/1.1")
    assert final[1] == server.url("/page")
    assert final[2].get_header("Content-Encoding") is None
    assert final[2].get_header("Content-Length") == str(len(page.encode("utf-8")))
    assert final[3].decode("utf-8") == page
    assert b"SECRET123" not in path.read_bytes() and b"SECRET123" not in gzip.decompress(path.read_bytes())


def test_redact_keeps_other_parameters():
    assert redact("https://e/efetch.fcgi?db=pubmed&api_key=abc&id=1") == (
        "https://e/efetch.fcgi?db=pubmed&api_key=REDACTED&id=1")
