"""An in-process transport answering from a mapping, for tests of the chain and the resources without a server.

Put under the client's layers (``HttpClient(config, transport=MappingTransport({...}))``), it gets exactly what the
network would: redirects, retries, slots, rate limits and recording all run above it, and its answers go through the
same body rules as real responses (redirect Location, 503/429, skipped media types, the size cap).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urlsplit

from requests.structures import CaseInsensitiveDict

from pubfetch.net.body import BodyTooLarge
from pubfetch.net.record import ExchangeRecord
from pubfetch.net.requests_transport import read_response
from pubfetch.net.transport import Request, Response


@dataclass(frozen=True)
class Canned:
    """An answer: status, body (text is sent as UTF-8) and headers (``content_type`` is the Content-Type)."""

    status: int = 200
    body: bytes | str = b""
    content_type: str | None = "text/html; charset=utf-8"
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def payload(self) -> bytes:
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body


Answer = Canned | Callable[[Request], Canned]
NOT_FOUND = Canned(404, "not found", "text/plain")


class MappingTransport:
    """Answers each request from ``answers``: keyed by URL (query included), or by a URL prefix ending in ``*``
    (the longest prefix wins); a value is a :class:`Canned` answer or a function of the request returning one.
    Unknown URLs get 404. Every request is kept in ``sent`` and counted by URL without query in ``counts``.

    Args:
        answers: URL or prefix -> answer.
        max_bytes: the body cap (as :attr:`HttpConfig.max_bytes`).
    """

    def __init__(self, answers: Mapping[str, Answer] | None = None, *, max_bytes: int = 50 * 1024 * 1024) -> None:
        self.answers: dict[str, Answer] = dict(answers or {})
        self.max_bytes = max_bytes
        self.sent: list[Request] = []
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def answer_for(self, request: Request) -> Canned:
        answer = self.answers.get(request.url)
        if answer is None:
            prefixes = [p for p in self.answers if p.endswith("*") and request.url.startswith(p[:-1])]
            answer = self.answers[max(prefixes, key=len)] if prefixes else NOT_FOUND
        return answer(request) if callable(answer) else answer

    def send(self, request: Request) -> Response:
        with self._lock:
            self.sent.append(request)
            split = urlsplit(request.url)
            self.counts[f"{split.scheme}://{split.netloc}{split.path}"] += 1
        canned = self.answer_for(request)
        headers: CaseInsensitiveDict[str] = CaseInsensitiveDict(canned.headers)
        if canned.content_type is not None:
            headers.setdefault("Content-Type", canned.content_type)
        payload = canned.payload
        hop = Response(request.url, canned.status, headers)

        def some(limit: int) -> tuple[bytes, bool]:
            return payload[:limit], len(payload) > limit

        def whole() -> bytes:
            if len(payload) > self.max_bytes:
                raise BodyTooLarge(f"body exceeds the cap of {self.max_bytes} bytes")
            return payload

        def record(body: bytes, truncated: bool) -> None:
            hop.exchange = ExchangeRecord(
                method=request.method, url=request.url, request_headers=tuple(request.headers.items()),
                request_body=_body_bytes(request), status=canned.status, reason="", http_version="HTTP/1.1",
                response_headers=tuple(headers.items()), body=body, truncated=truncated,
                started=datetime.now(UTC), elapsed_s=0.0)

        return read_response(request, hop, some, whole, record)

    def close(self) -> None:
        pass


def _body_bytes(request: Request) -> bytes | None:
    data = request.data
    if data is None:
        return None
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        return data.encode("utf-8")
    from urllib.parse import urlencode

    return urlencode(dict(data)).encode("ascii")
