"""Answers already received in a run, so that no answered request is sent twice.

The same request comes back within one run when a publication restarts after an ID changed, when two entries share a
DOI or a publisher page, or when the retry re-resolves a DOI whose page failed. An answer (a response with a status that
is not a passing condition: 2xx/3xx, 404, other HTTP errors, skipped media types) is kept under the request's method,
URL, body and headers and handed out again as a copy. Failures that may pass (503/429, timeouts, connection errors)
are never kept, so they are asked again. The memory is bounded (entries and bytes, least recently used first out), so
a long run keeps the recent answers, where repeats happen, in constant memory.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Final
from urllib.parse import urlencode

from pubfetch.net.outcome import FetchResult, OutcomeKind
from pubfetch.net.transport import Request

ANSWER_KINDS: Final = frozenset({OutcomeKind.OK, OutcomeKind.NOT_FOUND, OutcomeKind.HTTP_ERROR,
                                 OutcomeKind.UNSUPPORTED_TYPE})


def request_key(request: Request) -> Hashable:
    """What makes two requests the same: method, URL, body, headers and how the answer is read."""
    data = request.data
    body = data if isinstance(data, bytes | str) or data is None else urlencode(sorted(dict(data).items()))
    return (request.method, request.url, body, tuple(sorted(request.headers.items())), request.follow,
            request.read_body, request.accept_pdf, request.publication, request.untrusted)


class AnswerMemory:
    """Answered results by request, bounded.

    Args:
        max_entries: answers kept.
        max_bytes: body bytes kept in all.
        max_body: larger bodies are not kept (a PDF is rarely asked twice; it would push out many small answers).
    """

    def __init__(self, max_entries: int = 4096, max_bytes: int = 32 * 1024 * 1024,
                 max_body: int = 2 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_body = max_body
        self.hits = 0
        self._answers: OrderedDict[Hashable, FetchResult] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> FetchResult | None:
        """A copy of the answer to an earlier identical request, or ``None``."""
        with self._lock:
            result = self._answers.get(key)
            if result is None:
                return None
            self._answers.move_to_end(key)
            self.hits += 1
        return dataclasses.replace(result)

    def put(self, key: Hashable, result: FetchResult) -> None:
        """Keep a result if it is an answer (see module docstring)."""
        size = _size(result)
        if result.status is None or result.kind not in ANSWER_KINDS or size > self.max_body:
            return
        with self._lock:
            old = self._answers.pop(key, None)
            if old is not None:
                self._bytes -= _size(old)
            self._answers[key] = dataclasses.replace(result)
            self._bytes += size
            while self._answers and (len(self._answers) > self.max_entries or self._bytes > self.max_bytes):
                _, dropped = self._answers.popitem(last=False)
                self._bytes -= _size(dropped)

    def __len__(self) -> int:
        return len(self._answers)


def _size(result: FetchResult) -> int:
    """Bytes an answer holds: its body and the text decoded from it."""
    return len(result.body) + len(result.text or "")
