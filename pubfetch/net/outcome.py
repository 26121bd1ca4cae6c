"""The classified result of one fetch, and PubFetcher's rule for when a failure sets ``fetchException``.

Every call of the HTTP client ends in exactly one :class:`FetchResult`; nothing raises to the caller. The kind tells
the caller what happened, :func:`sets_fetch_exception` tells it whether the database entry should be retried after
``fetchExceptionCooldown`` (PubFetcher's ``fetchException``).

Mapping of PubFetcher's exception handling (Fetcher.getDoc / fetchPdf) onto kinds:

=====================================  ====================  ==========================================================
PubFetcher                             kind                  fetchException
=====================================  ====================  ==========================================================
HttpStatusException 503                SERVER_BUSY           always (429 is treated the same way here)
HttpStatusException other              NOT_FOUND/HTTP_ERROR  publications only, and not for ``https://doi.org/10.`` or
                                                             URLs ending in .pdf/.ps/.gz
ConnectException, NoRouteToHost        CONNECTION            always
SocketTimeoutException (after retry)   TIMEOUT               always
SSLHandshake/SSLProtocolException      SSL                   no: the caller retries with the browser
MalformedURLException                  BAD_URL / BAD_SCHEME  no (ftp is tried as a PDF first)
UnsupportedMimeTypeException           UNSUPPORTED_TYPE      no
IOException (reset, too many           IO_ERROR, DNS,        no: only logged
redirects, unknown host)               TOO_MANY_REDIRECTS,
                                       REDIRECT_LOOP
any other Exception                    OTHER                 always
=====================================  ====================  ==========================================================

Kinds new in pubfetch (TOO_LARGE, FORBIDDEN_ADDRESS) are permanent: retrying cannot change them.

PubFetcher's resources then decide for themselves (Unpaywall's 404 is an unknown DOI, not a failure; a configured
service's garbled answer is retried too): an :class:`EntryPolicy` declares that decision with the request, so that the
entry is marked (``fetch_exception``) and the request's line promises a retry from one and the same verdict.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from pubfetch.console import retry_note
from pubfetch.net.proxies import PROXY_FAILURE
from pubfetch.net.sniff import media_type


class OutcomeKind(enum.Enum):
    """How a fetch ended."""

    OK = "ok"
    NOT_FOUND = "not_found"  # 404, 410
    HTTP_ERROR = "http_error"  # any other status >= 400 (but 503 and 429)
    SERVER_BUSY = "server_busy"  # 503 or 429, still after the allowed retries
    TIMEOUT = "timeout"  # connect/read timeout (after the retry) or the exchange deadline
    CONNECTION = "connection"  # connection refused, no route, proxy unreachable
    DNS = "dns"  # the host name does not resolve
    SSL = "ssl"  # TLS handshake or certificate failure
    IO_ERROR = "io_error"  # connection reset, truncated or undecodable body
    TOO_LARGE = "too_large"  # body over max_bytes, or a decompression bomb
    REDIRECT_LOOP = "redirect_loop"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    BAD_URL = "bad_url"  # malformed URL, no host
    BAD_SCHEME = "bad_scheme"  # not http(s) (ftp only for PDFs)
    FORBIDDEN_ADDRESS = "forbidden_address"  # loopback/private/link-local/metadata target from an untrusted source
    UNSUPPORTED_TYPE = "unsupported_type"  # images, audio, video, other binaries; PDFs when not accepted
    OTHER = "other"  # an unexpected exception

    @property
    def transient(self) -> bool:
        """Whether this failure is worth retrying later whatever was being fetched (it sets fetchException)."""
        return self in _TRANSIENT

    @property
    def is_http_status(self) -> bool:
        """Whether the server answered with an error status (NOT_FOUND, HTTP_ERROR, SERVER_BUSY)."""
        return self in (OutcomeKind.NOT_FOUND, OutcomeKind.HTTP_ERROR, OutcomeKind.SERVER_BUSY)


_TRANSIENT: Final = frozenset({OutcomeKind.SERVER_BUSY, OutcomeKind.TIMEOUT, OutcomeKind.CONNECTION, OutcomeKind.OTHER})

#: Failures of a configured service (Europe PMC, annotations, E-utilities, PubMed, Unpaywall, the DOI resolver) that
#: PubFetcher only logs but that say nothing lasting about the publication: the answer was lost on the way (reset, cut
#: short, looping, oversized, mislabelled). Left unrecorded, a final entry would keep the hole for good.
SERVICE_GLITCHES: Final = frozenset({OutcomeKind.IO_ERROR, OutcomeKind.TOO_LARGE, OutcomeKind.REDIRECT_LOOP,
                                     OutcomeKind.TOO_MANY_REDIRECTS, OutcomeKind.UNSUPPORTED_TYPE, OutcomeKind.DNS,
                                     OutcomeKind.SSL})

_BRIEF: Final = {
    OutcomeKind.NOT_FOUND: "not found",
    OutcomeKind.HTTP_ERROR: "refused",
    OutcomeKind.SERVER_BUSY: "server busy",
    OutcomeKind.TIMEOUT: "timed out",
    OutcomeKind.CONNECTION: "could not connect",
    OutcomeKind.DNS: "host name does not resolve",
    OutcomeKind.SSL: "TLS handshake or certificate failed",
    OutcomeKind.IO_ERROR: "connection broken or body unreadable",
    OutcomeKind.TOO_LARGE: "body over the size cap",
    OutcomeKind.REDIRECT_LOOP: "redirect loop",
    OutcomeKind.TOO_MANY_REDIRECTS: "too many redirects",
    OutcomeKind.BAD_URL: "malformed URL",
    OutcomeKind.BAD_SCHEME: "scheme not fetched",
    OutcomeKind.FORBIDDEN_ADDRESS: "internal address refused",
    OutcomeKind.UNSUPPORTED_TYPE: "content type not fetched",
    OutcomeKind.OTHER: "unexpected failure",
}

#: PubFetcher's EXCEPTION_EXCEPTION: failing URLs that never set fetchException of a publication.
_NO_EXCEPTION_URL: Final = re.compile(r"(?i)^https://doi\.org/10\.|\.pdf$|\.ps$|\.gz$")


@dataclass
class FetchResult:
    """The outcome of one ``get``/``post``/``resolve_redirect`` call.

    Attributes:
        url: the URL asked for (with query parameters applied).
        final_url: the last URL requested: where the body came from or where the failure happened.
        kind: how it ended.
        status: HTTP status of the last response (``None`` if none was received).
        content_type: the Content-Type header of the last response, as sent.
        headers: headers of the last response (case-insensitive mapping).
        body: body bytes (content-decoded); empty on failure or when not read.
        text: the body decoded to ``str`` for textual responses (``None`` for PDFs and binaries).
        encoding: codec used for ``text``, and ``encoding_source``: bom/header/document/detected/default.
        is_pdf: the body is a PDF (by ``%PDF`` magic, or by a PDF Content-Type on a body that is not markup).
        location: absolute Location of the last response (what ``resolve_redirect`` is for).
        redirects: the URLs that redirected, in order (``final_url`` not included).
        retry_after: seconds the server asked to wait (last 503/429).
        attempts: requests sent for the last hop (retries included).
        message: why it failed, for logs.
        fetch_exception: :func:`sets_fetch_exception` for the ``publication`` flag the call was made with.
        not_sent: the request was not sent (the network seems down, the run is stopping, or its host did not answer
            before anything answered in the run: :mod:`pubfetch.net.reachability`); a consequence, not news.
    """

    url: str
    final_url: str
    kind: OutcomeKind
    status: int | None = None
    content_type: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    text: str | None = None
    encoding: str | None = None
    encoding_source: str | None = None
    is_pdf: bool = False
    location: str | None = None
    redirects: tuple[str, ...] = ()
    retry_after: float | None = None
    attempts: int = 0
    message: str = ""
    fetch_exception: bool = False
    not_sent: bool = False

    @property
    def ok(self) -> bool:
        """Whether the fetch succeeded."""
        return self.kind is OutcomeKind.OK

    def brief(self) -> str:
        """What went wrong in a few words, for the one-line console warning (``message`` has the whole story)."""
        if self.message.startswith(PROXY_FAILURE):  # "proxy: the proxy URL (VARIABLE); what requests said"
            return "could not connect through " + self.message[len(PROXY_FAILURE):].split("; ", 1)[0]
        phrase = _BRIEF.get(self.kind, self.kind.value.replace("_", " "))
        return f"{phrase} (HTTP {self.status})" if self.status and self.kind.is_http_status else phrase

    @property
    def transient(self) -> bool:
        """Whether the failure is a passing condition regardless of context (see :attr:`OutcomeKind.transient`)."""
        return self.kind.transient

    @property
    def permanent(self) -> bool:
        """Failed, and not transient (HTTP errors may still set fetchException for publications)."""
        return not self.ok and not self.transient

    @property
    def media_type(self) -> str:
        """The Content-Type without parameters, lower-cased (``""`` if none)."""
        return media_type(self.content_type)

    def sets_fetch_exception(self, *, publication: bool) -> bool:
        """Shortcut for :func:`sets_fetch_exception`."""
        return sets_fetch_exception(self, publication=publication)

    def __repr__(self) -> str:  # bodies can be 50 MB: keep them out of logs
        return (
            f"FetchResult(kind={self.kind.name}, status={self.status}, url={self.url!r}, final_url={self.final_url!r}, "
            f"content_type={self.content_type!r}, body={len(self.body)} bytes, is_pdf={self.is_pdf}, "
            f"message={self.message!r})"
        )


def sets_fetch_exception(result: FetchResult, *, publication: bool) -> bool:
    """PubFetcher's rule: does this outcome set ``fetchException`` of the entry being fetched?

    Args:
        result: the outcome.
        publication: ``True`` when fetching for a publication, ``False`` for a webpage or doc.

    503 (and 429) always do; other HTTP error statuses only for publications and only when the failing URL is not a
    ``https://doi.org/10.`` URL nor ends in ``.pdf``, ``.ps`` or ``.gz`` (those fail for lasting reasons: unregistered
    DOIs, dead file links). Connection failures, timeouts and unexpected errors always do; the rest never does.
    """
    kind = result.kind
    if kind.transient:
        return True
    if kind in (OutcomeKind.NOT_FOUND, OutcomeKind.HTTP_ERROR):
        return publication and not _NO_EXCEPTION_URL.search(result.final_url or result.url)
    return False


def kind_for_status(status: int) -> OutcomeKind:
    """Kind of a final response with this status (redirects are handled before)."""
    if status < 400:
        return OutcomeKind.OK
    if status in (404, 410):
        return OutcomeKind.NOT_FOUND
    if status in (429, 503):
        return OutcomeKind.SERVER_BUSY
    return OutcomeKind.HTTP_ERROR


@dataclass(frozen=True)
class EntryPolicy:
    """What a failed request means for the database entry it was asked for, declared by whoever asks.

    The client sets ``FetchResult.fetch_exception`` from :meth:`marks` and words the request's line from the same
    verdict (:meth:`retry_words`); the entry is marked from ``fetch_exception`` alone. So a line promises a retry
    exactly when the entry is marked for one, and a service's ordinary "no such ID" is told as an answer, not a
    failure.

    Attributes:
        publication: PubFetcher's rule for a publication (any HTTP error status marks it, but for doi.org and file
            URLs) rather than for a webpage or doc (only transient failures do).
        service: a configured service: an answer lost on the way (:data:`SERVICE_GLITCHES`) marks the entry too.
        answers: failures that are the service's answer, by status or kind (a 404 of a service that does not know
            the ID), with what the answer means; they never mark the entry and are not warnings.
        marks: False for a lookup the entry does not depend on: nothing marks it.
        later: a marked entry is fetched again by a later run (PubFetcher's retry rules: a non-negative
            fetchExceptionCooldown, or retries left under retryLimit).
    """

    publication: bool = True
    service: bool = False
    answers: Mapping[OutcomeKind | int, str] = field(default_factory=dict)
    marks: bool = True
    later: bool = True

    def answer(self, result: FetchResult) -> str | None:
        """What the failure means when it is an expected answer of the service (``None``: it is a failure)."""
        if result.ok:
            return None
        if result.status is not None and result.status in self.answers:
            return self.answers[result.status]
        return self.answers.get(result.kind)

    def marks_entry(self, result: FetchResult) -> bool:
        """Whether this outcome marks the entry for a later fetch (fetchException)."""
        if result.ok or not self.marks or self.answer(result) is not None:
            return False
        return (sets_fetch_exception(result, publication=self.publication)
                or (self.service and result.kind in SERVICE_GLITCHES))

    def retry_words(self, result: FetchResult) -> str:
        """The end of the request's line: the promise of a later fetch when this outcome marked the entry
        (:func:`~pubfetch.console.retry_note`, which says when the retry rules let none come); nothing otherwise."""
        return "; " + retry_note(self.later) if result.fetch_exception else ""


#: A request for no entry of its own (a search, a file beside a paper): its failure marks nothing and promises nothing.
NO_ENTRY: Final = EntryPolicy(marks=False)
