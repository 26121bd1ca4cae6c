"""What the response hook receives: one request/response exchange, as a WARC writer needs it.

Kept separate from the outcome so that recording (every hop, every retried 503) and classification (one result per
call) can evolve independently.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExchangeRecord:
    """One HTTP exchange.

    Attributes:
        method: request method.
        url: request URL.
        request_headers: headers as sent (name, value) pairs.
        request_body: request body (``None`` for GET).
        status: response status code.
        reason: response reason phrase.
        http_version: e.g. ``"HTTP/1.1"``.
        response_headers: response headers as received, repeated names kept, in order.
        body: the response body as read. It is content-DECODED (gzip etc. undone); a WARC writer should drop or rewrite
            Content-Encoding. Only part of the body of redirects, 503/429 and skipped media types is read.
        truncated: ``body`` is not the whole body (cap reached, or not read in full on purpose).
        started: when the request was sent (UTC).
        elapsed_s: seconds from sending to the end of reading.
        peer: the address actually connected to (``"ip:port"``), when known (urllib3 releases the connection of a
            response without a body before it can be asked); through a proxy it is the proxy's.
    """

    method: str
    url: str
    request_headers: tuple[tuple[str, str], ...]
    request_body: bytes | None
    status: int
    reason: str
    http_version: str
    response_headers: tuple[tuple[str, str], ...]
    body: bytes
    truncated: bool
    started: datetime
    elapsed_s: float
    peer: str | None = None


def call_hook(hook: Callable[[ExchangeRecord], None] | None, record: ExchangeRecord) -> None:
    """Call the hook; a failing recorder must never fail the fetch, so its errors are logged and swallowed."""
    if hook is None:
        return
    try:
        hook(record)
    except Exception:
        logger.exception("response hook failed for %s", record.url)
