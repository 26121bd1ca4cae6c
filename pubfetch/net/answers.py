"""Answers already received in a run, so that no answered request is sent twice.

The same request comes back within one run when a publication restarts after an ID changed, when two entries share a
DOI or a publisher page, or when the retry re-resolves a DOI whose page failed. An answer (a response with a status that
is not a passing condition: 2xx/3xx, 404, other HTTP errors, skipped media types) is kept under the request's method,
URL, body and headers and handed out again as a copy. Failures that may pass (503/429, timeouts, connection errors)
are never kept, so they are asked again. The memory is bounded (entries and bytes, least recently used first out), so
a long run keeps the recent answers, where repeats happen, in constant memory. Every byte an answer keeps counts:
body, text, headers, URLs, message and the request key; a server can send kilobytes of headers with an empty body.
"""

from __future__ import annotations

import dataclasses
import sys
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
            request.read_body, request.accept_pdf, request.publication, request.untrusted, request.any_media)


class AnswerMemory:
    """Answered results by request, bounded.

    Args:
        max_entries: answers kept.
        max_bytes: bytes kept in all (:func:`answer_size`).
        max_body: larger answers are not kept (a PDF is rarely asked twice; it would push out many small answers).
    """

    def __init__(self, max_entries: int = 4096, max_bytes: int = 32 * 1024 * 1024,
                 max_body: int = 2 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_body = max_body
        self.hits = 0
        self._answers: OrderedDict[Hashable, FetchResult] = OrderedDict()
        #: each kept answer's size as counted when it was put (the same number comes off when it goes)
        self._sizes: dict[Hashable, int] = {}
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
        if result.status is None or result.kind not in ANSWER_KINDS:
            return
        size = answer_size(key, result)
        if size > self.max_body:
            return
        with self._lock:
            old = self._answers.pop(key, None)
            if old is not None:
                self._bytes -= self._sizes.pop(key)
            self._answers[key] = dataclasses.replace(result)
            self._sizes[key] = size
            self._bytes += size
            while self._answers and (len(self._answers) > self.max_entries or self._bytes > self.max_bytes):
                dropped, _ = self._answers.popitem(last=False)
                self._bytes -= self._sizes.pop(dropped)

    @property
    def kept_bytes(self) -> int:
        """Bytes the kept answers count (:func:`answer_size`)."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._answers)


#: What an entry costs beyond its strings and bytes (the result object, dictionaries, the key's tuple).
ENTRY_OVERHEAD: Final = 1024


def answer_size(key: Hashable, result: FetchResult) -> int:
    """Bytes an answer holds: body, text, headers, URLs, message and its request key, and the objects around them."""
    headers = sum(_held(name) + _held(value) for name, value in result.headers.items())
    strings = (result.url, result.final_url, result.content_type, result.text, result.encoding, result.location,
               result.message, *result.redirects)
    return ENTRY_OVERHEAD + len(result.body) + headers + sum(_held(s) for s in strings) + _held(key)


def _held(value: object) -> int:
    """Bytes of the strings and bytes in a value (recursing into tuples, as request keys are)."""
    if isinstance(value, str):
        return sys.getsizeof(value)
    if isinstance(value, bytes):
        return len(value)
    if isinstance(value, tuple):
        return sum(_held(v) for v in value)
    return 0
