"""Recording every HTTP exchange of a run into a WARC file (``--warc FILE``), so a fetch can be audited or replayed.

warcio writes standard WARC 1.0 records that every archive tool (pywb, the LOCKSS metadata layer of pubfetch) reads.
Each exchange becomes a request record and a response record bound by WARC-Concurrent-To. The client hands over bodies
already content-decoded, so Content-Encoding and Transfer-Encoding are dropped and Content-Length is set to what is
stored; a body that was not read in full is marked with WARC-Truncated. An NCBI ``api_key`` never reaches the file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO, Self
from urllib.parse import quote, urlsplit

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pubfetch._version import __version__
from pubfetch.net.record import ExchangeRecord
from pubfetch.net.urls import redact

__all__ = ["WarcRecorder", "redact"]

log = logging.getLogger(__name__)

_DROPPED = {"content-encoding", "transfer-encoding", "content-length"}


def _redact_body(body: bytes | None) -> bytes:
    """A request body without secrets: a POSTed efetch form carries the api_key as a field."""
    if not body or b"api_key=" not in body.lower():
        return body or b""
    return redact(body.decode("latin-1")).encode("latin-1")


def destination(path: str | Path) -> str:
    """Where the records of ``--warc PATH`` go, in the words of an error line: ``-`` is standard output, no file."""
    return "the WARC records to standard output" if str(path) == "-" else f"WARC file '{path}'"


class WarcRecorder:
    """A response hook writing a (gzipped) WARC file; thread-safe. Use as ``HttpConfig(response_hook=recorder)``."""

    def __init__(self, path: str | Path, *, gzip: bool | None = None, secrets: Iterable[str] = ()) -> None:
        """Open (append to) the file, creating missing parent directories, and write the warcinfo record through to
        the disk: a path that cannot be written raises OSError here, before anything is fetched. Every occurrence of
        a ``secrets`` value (the NCBI api_key) in a URL, header or body is replaced by REDACTED: services echo the key
        in error answers (NCBI's JSON errors do), where no ``api_key=`` pattern finds it."""
        self.path = Path(path)
        self._secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)
        use_gzip = self.path.suffix == ".gz" if gzip is None else gzip
        #: ``-`` is standard output (flushed, never closed), as for the command's other output files
        self._stdout = str(path) == "-"
        self._stdout_done = False
        self._file: BinaryIO
        if self._stdout:
            self._file = sys.stdout.buffer
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab")  # noqa: SIM115 - closed by close()
        self._writer = WARCWriter(self._file, gzip=use_gzip)
        self._lock = threading.Lock()
        self.records = 0
        #: why recording stopped (a full disk): the run goes on and the caller reports it; ``None`` while all is well
        self.error: str | None = None
        info = self._writer.create_warcinfo_record(self.path.name, {"software": f"pubfetch/{__version__}",
                                                                    "format": "WARC File Format 1.0"})
        try:
            with self._lock:
                self._writer.write_record(info)
                self._file.flush()
        except OSError:
            self._close_quietly()
            raise

    def __call__(self, exchange: ExchangeRecord) -> None:
        if self._secrets:
            exchange = self._without_secrets(exchange)
        url = redact(exchange.url)
        date = exchange.started.strftime("%Y-%m-%dT%H:%M:%SZ")
        headers = [(k, v) for k, v in exchange.response_headers if k.lower() not in _DROPPED]
        headers.append(("Content-Length", str(len(exchange.body))))
        http_headers = StatusAndHeaders(f"{exchange.status} {exchange.reason}".strip(), headers,
                                        protocol=exchange.http_version)
        warc_headers = {"WARC-Date": date}
        if exchange.peer:
            warc_headers["WARC-IP-Address"] = exchange.peer.rsplit(":", 1)[0]
        if exchange.truncated:
            warc_headers["WARC-Truncated"] = "length"
        response = self._writer.create_warc_record(url, "response", payload=io.BytesIO(exchange.body),
                                                   http_headers=http_headers, warc_headers_dict=warc_headers)
        split = urlsplit(url)
        target = (split.path or "/") + (f"?{split.query}" if split.query else "")
        request_headers = [(k, redact(v) if k.lower() == "referer" else v) for k, v in exchange.request_headers]
        request = self._writer.create_warc_record(
            url, "request", payload=io.BytesIO(_redact_body(exchange.request_body)),
            http_headers=StatusAndHeaders(f"{exchange.method} {target} {exchange.http_version}", request_headers,
                                          is_http_request=True),
            warc_headers_dict={"WARC-Date": date,
                               "WARC-Concurrent-To": response.rec_headers.get_header("WARC-Record-ID")},
        )
        with self._lock:
            if self.error is not None:
                return
            try:
                self._writer.write_record(response)
                self._writer.write_record(request)
                self._file.flush()
            except OSError as e:
                self.error = f"cannot write {destination(self.path)}: {e.strerror or e}"
                log.error("%s; no more exchanges are recorded", self.error)
                self._close_quietly()
                return
            self.records += 1

    def _without_secrets(self, exchange: ExchangeRecord) -> ExchangeRecord:
        def text(value: str) -> str:
            for secret in self._secrets:
                value = value.replace(secret, "REDACTED")
            return value

        def data(value: bytes | None) -> bytes | None:
            if not value:
                return value
            for secret in self._secrets:
                for encoded in {secret.encode("utf-8"), quote(secret).encode("ascii")}:
                    value = value.replace(encoded, b"REDACTED")
            return value

        return dataclasses.replace(
            exchange, url=text(exchange.url), body=data(exchange.body) or b"",
            request_body=data(exchange.request_body),
            request_headers=tuple((k, text(v)) for k, v in exchange.request_headers),
            response_headers=tuple((k, text(v)) for k, v in exchange.response_headers))

    def _close_quietly(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # the final flush of a full disk; the error is already known
            if self._stdout:
                self._file.flush()
                self._stdout_done = True
            else:
                self._file.close()

    def close(self) -> None:
        with self._lock:
            if not self._file.closed and not self._stdout_done:
                self._close_quietly()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
