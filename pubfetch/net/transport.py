"""The transport seam: what one hop sends and receives, and the one-method protocol every layer implements.

:class:`~pubfetch.net.client.HttpClient` hands a :class:`Request` to a :class:`Transport` and gets a :class:`Response`
back, or one of the two classified exceptions of :mod:`pubfetch.net.retry` (``ExchangeFailed``, ``ServerBusy``, each
carrying the :class:`Response` received so far as ``payload`` when there was one). The network is one transport
(:class:`~pubfetch.net.requests_transport.RequestsTransport`, or :class:`~pubfetch.net.ftp.FtpTransport`); redirects,
retries, per-host slots, rate limits and recording are transports wrapping another one (:mod:`pubfetch.net.layers`),
the way httpx transports and Scrapy downloader middlewares stack. Tests put an in-process transport
(:class:`~pubfetch.net.mapping_transport.MappingTransport`) at the bottom and keep every layer above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pubfetch.net.record import ExchangeRecord

#: A request body: form fields, raw bytes or text, or nothing.
Data = Mapping[str, str] | bytes | str | None


@dataclass
class Request:
    """What one call asks for. The redirect layer changes ``method``/``url``/``data`` hop by hop and appends to
    ``redirects``; the other layers only read it.

    Attributes:
        method, url, data, headers: what is sent.
        untrusted: the URL came from a page, a redirect or a third-party API (the SSRF guard checks it).
        accept_pdf: a PDF may be downloaded (when false it is skipped by its Content-Type).
        any_media: a file is asked for whatever it holds (a supplementary file, a bulk file): no media type is skipped
            and any body is an answer, kept as bytes.
        publication: fetching for a publication (PubFetcher's fetchException rule depends on it).
        follow: follow redirects (false for doi.org resolution, which wants the Location).
        read_body: read the body in full (false: a bounded piece only, then dropped).
        record: fill :attr:`Response.exchange` for a recorder (set by the recording layer).
        redirects: URLs that redirected so far, in order.
        spent_s: seconds this hop's attempts have spent in the network transport so far: a hop's retries share one
            exchange deadline (the transport adds to it, the retry layer stops retrying once it is used up).
    """

    method: str
    url: str
    data: Data = None
    headers: dict[str, str] = field(default_factory=dict)
    untrusted: bool = False
    accept_pdf: bool = True
    any_media: bool = False
    publication: bool = False
    follow: bool = True
    read_body: bool = True
    record: bool = False
    redirects: list[str] = field(default_factory=list)
    spent_s: float = 0.0


@dataclass
class Response:
    """One received response, reduced to what the client decides on.

    Attributes:
        url: the URL it answered.
        status: HTTP status (``None`` for ftp, which has none).
        headers: response headers (case-insensitive mapping from the requests transport).
        body: the body as read (content-decoded), empty when not read.
        location: the absolute redirect target, for a redirect status with a Location.
        skipped: the body was deliberately not downloaded (its media type).
        attempts: requests sent for this hop (set by the retry layer).
        retry_after: seconds a 503/429 asked to wait.
        exchange: the exchange as a recorder sees it (only when the request asked for it).
    """

    url: str
    status: int | None
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    location: str | None = None
    skipped: bool = False
    attempts: int = 0
    retry_after: float | None = None
    exchange: ExchangeRecord | None = None


class Transport(Protocol):
    """Sends one request, returns one response, or raises ``ExchangeFailed``/``ServerBusy`` (pubfetch.net.retry)."""

    def send(self, request: Request) -> Response: ...

    def close(self) -> None: ...


def time_left(total_s: float | None, request: Request) -> float | None:
    """The exchange deadline of an attempt: what the hop's earlier attempts left of ``total_s`` (``None``: none)."""
    return None if total_s is None else round(max(0.0, total_s - request.spent_s), 3)
