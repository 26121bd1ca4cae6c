"""FTP downloads, for PDFs only.

PubFetcher retries a non-HTTP URL as a PDF because a few publication links are ``ftp://`` PDFs (old PMC and
institutional archives), and java.net.URL opens those natively. The standard library does the same through urllib's
FTP handler (passive mode, anonymous login, ``ftp_proxy`` honoured by the proxy handler), so supporting it costs no
dependency. The size cap and deadline of HTTP apply; the caller checks the result is a PDF.
"""

from __future__ import annotations

import ftplib
import socket
import time
import urllib.error
import urllib.request
from typing import Final

from pubfetch.net.body import BodyTooLarge, DeadlineExceeded
from pubfetch.net.errors import classify_exception
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.retry import ExchangeFailed
from pubfetch.net.transport import Request, Response

_CHUNK: Final = 64 * 1024


def fetch_ftp(url: str, *, timeout: float | None, max_bytes: int, deadline: float | None) -> tuple[bytes, str | None]:
    """Download an ftp URL; returns ``(body, guessed content type)``.

    Raises:
        BodyTooLarge, DeadlineExceeded, ExchangeFailed (classified; timeouts are retryable like HTTP's).
    """
    opener = urllib.request.build_opener(urllib.request.ProxyHandler())
    try:
        with opener.open(url, timeout=timeout) as stream:
            length = stream.headers.get("Content-length")
            if length and length.isdigit() and int(length) > max_bytes:
                raise BodyTooLarge(f"size {length} exceeds the cap of {max_bytes} bytes")
            chunks: list[bytes] = []
            total = 0
            while chunk := stream.read(_CHUNK):
                total += len(chunk)
                if total > max_bytes:
                    raise BodyTooLarge(f"body exceeds the cap of {max_bytes} bytes")
                if deadline is not None and time.monotonic() > deadline:
                    raise DeadlineExceeded(f"body not read within the deadline ({total} bytes read)")
                chunks.append(chunk)
            return b"".join(chunks), stream.headers.get("Content-type")
    except (BodyTooLarge, DeadlineExceeded):
        raise
    except urllib.error.URLError as e:
        raise _classify(e.reason, url) from e
    except (OSError, EOFError, ftplib.Error) as e:
        raise _classify(e, url) from e


def _classify(reason: object, url: str) -> ExchangeFailed:
    """Map what urllib/ftplib raised to an outcome kind (as java.net would have surfaced it to PubFetcher)."""
    text = str(reason)
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return ExchangeFailed(OutcomeKind.TIMEOUT, f"ftp timeout: {text}", retryable=True)
    if isinstance(reason, socket.gaierror):
        return ExchangeFailed(OutcomeKind.DNS, f"ftp host not found: {text}")
    if isinstance(reason, (ConnectionRefusedError, ConnectionAbortedError)) or "No route" in text:
        return ExchangeFailed(OutcomeKind.CONNECTION, f"ftp connection failed: {text}")
    if isinstance(reason, ftplib.error_perm) or "550" in text:
        return ExchangeFailed(OutcomeKind.NOT_FOUND, f"ftp: {text}")
    if isinstance(reason, ftplib.error_temp):
        return ExchangeFailed(OutcomeKind.SERVER_BUSY, f"ftp: {text}")
    return ExchangeFailed(OutcomeKind.IO_ERROR, f"ftp error for {url}: {text}")


class FtpTransport:
    """The ftp transport: one download per request; the response has no status, its Content-Type is a guess."""

    def __init__(self, timeout: float | None, max_bytes: int, total_timeout: float | None) -> None:
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.total_timeout = total_timeout

    def send(self, request: Request) -> Response:
        deadline = time.monotonic() + self.total_timeout if self.total_timeout is not None else None
        try:
            body, content_type = fetch_ftp(request.url, timeout=self.timeout, max_bytes=self.max_bytes,
                                           deadline=deadline)
        except BodyTooLarge as e:
            raise ExchangeFailed(OutcomeKind.TOO_LARGE, str(e)) from e
        except DeadlineExceeded as e:
            raise ExchangeFailed(OutcomeKind.TIMEOUT, str(e)) from e
        except ExchangeFailed:
            raise
        except Exception as e:
            raise classify_exception(e) from e
        return Response(request.url, None, {"Content-Type": content_type} if content_type else {}, body)

    def close(self) -> None:
        pass
