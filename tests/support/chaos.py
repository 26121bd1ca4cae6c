"""The synthetic services in chaos mode: a seeded mix of the ways real services fail, injected into their answers.

Real runs last days and meet every failure a web service can produce: 503 and 429 (with Retry-After), answers slower
than the client's timeout, connections reset mid-request, bodies cut short (with and without a Content-Length that
says so), XML and JSON that do not parse, HTML error pages served with status 200, the right body under the wrong
Content-Type, redirect loops and bodies over the client's size cap. :class:`ChaosServices` serves the same synthetic
publications as :class:`~synthetic.SyntheticServices` (plus DOI redirects, publisher pages and Unpaywall records, so
that every kind of request of the chain can fail) and replaces a seeded fraction of its answers by one of those faults.

Which request fails is a pure function of the seed, the request (method, target, body) and how often that same request
was seen before, so a run is reproducible whatever the thread interleaving, and a retried request draws again.
``heal()`` turns the chaos off (the "server turns healthy" of the reliability tests).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from html import escape as html_escape

from support.loopback import Reply, Request
from support.synthetic import Article, SyntheticServices

#: Every fault kind, in the order the hash picks from.
FAULTS: tuple[str, ...] = (
    "503", "429", "timeout", "reset", "truncated", "cut", "invalid", "html200", "content_type", "skipped_type",
    "redirect_loop", "oversized",
)
#: Faults after which the client reports a transient failure (PubFetcher's fetchException causes).
TRANSIENT_FAULTS: frozenset[str] = frozenset({"503", "429", "timeout"})
#: Faults that hand over a plausible page with status 200. From a publisher page nothing can tell them from the
#: article, and its webpage-type parts are never replaced by the same type later (PubFetcher's merge rule).
PLAUSIBLE_PAGE_FAULTS: frozenset[str] = frozenset({"html200", "cut"})

_DOI_PATH = re.compile(r"^/(?:doi|unpaywall)/(10\.5555/synth\.(\d+))$", re.IGNORECASE)
_PUBLISHER_PATH = re.compile(r"^/publisher/(\d+)$")
_PUBMED_PATH = re.compile(r"^/pubmed/(\d+)/$")
_ERROR_PAGE = ("<!DOCTYPE html><html><head><title>Service temporarily unavailable</title></head><body>"
               "<h1>We'll be back soon</h1><p>The service is down for maintenance. Please try again later.</p>"
               "</body></html>")


class ChaosServices(SyntheticServices):
    """Synthetic services whose answers fail with probability ``rate`` (a seeded, per-request draw).

    Args:
        n: publications 0..n-1 (as SyntheticServices).
        seed: the seed of the draws.
        rate: fraction of requests answered with a fault.
        faults: the fault kinds to draw from (default: all of :data:`FAULTS`).
        page_faults: the fault kinds for publisher pages (default: ``faults``).
        slow_s: how long a "timeout" answer waits (more than the client's read timeout).
        oversize: bytes of an "oversized" body (more than the client's ``max_bytes``).
    """

    def __init__(self, n: int, *, seed: int, rate: float = 0.15, faults: tuple[str, ...] = FAULTS,
                 page_faults: tuple[str, ...] | None = None, slow_s: float = 1.5, oversize: int = 3 * 1024 * 1024,
                 latency: float = 0.0) -> None:
        super().__init__(n, latency=latency)
        page_faults = faults if page_faults is None else page_faults
        unknown = (set(faults) | set(page_faults)) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown fault kinds: {sorted(unknown)}")
        self.seed = seed
        self.rate = rate
        self.faults = tuple(faults)
        self.page_faults = tuple(page_faults)
        self.slow_s = slow_s
        self.oversize = oversize
        self.chaotic = True
        #: faults injected, by kind, and by (service, kind)
        self.injected: Counter[str] = Counter()
        self.injected_by_service: Counter[tuple[str, str]] = Counter()
        self._seen: Counter[str] = Counter()
        self._chaos_lock = threading.Lock()

    def heal(self) -> None:
        """From now on every answer is the healthy one."""
        self.chaotic = False

    # ------------------------------------------------------------------ the extra services of a full chain

    def _service(self, path: str) -> str:
        if path.startswith("/publisher/"):
            return "publisher"
        if path.startswith("/pubmed/"):
            return "pubmed_html"
        return super()._service(path)

    def healthy(self, req: Request) -> Reply:
        """The answer of a healthy server."""
        service = self._service(req.path)
        if service == "doi":
            return self._doi(req)
        if service == "unpaywall":
            return self._unpaywall(req)
        if service == "publisher":
            return self._publisher(req)
        if service == "pubmed_html":
            return self._pubmed_page(req)
        return super().handle(req)

    def _article_of(self, path: str) -> Article | None:
        m = _DOI_PATH.match(path)
        return self.article(doi=m.group(1)) if m else None

    def _doi(self, req: Request) -> Reply:
        a = self._article_of(req.path)
        if a is None:
            return Reply(404, "DOI not found", "text/plain")
        return Reply(302, "", "text/html", {"Location": self.server.url(f"/publisher/{a.index}")})

    def publisher_page(self, a: Article) -> str:
        paras = "".join(f"<p>{html_escape(p)}</p>" for p in a.body_paragraphs())
        return (f"<!DOCTYPE html><html><head><title>{html_escape(a.title)} | Synthetic Journal</title>"
                f'<meta name="citation_title" content="{html_escape(a.title)}">'
                f'<meta name="citation_doi" content="{a.doi}">'
                f'<meta name="citation_keywords" content="{"; ".join(a.keywords)}">'
                f"</head><body><nav><a href='/'>Home</a></nav><main><article><h1>{html_escape(a.title)}</h1>"
                f"<section><h2>Abstract</h2><p>{html_escape(a.abstract)}</p></section>"
                f"<section><h2>Main text</h2>{paras}</section></article></main>"
                f"<footer>Copyright Synthetic Publisher</footer></body></html>")

    def _publisher(self, req: Request) -> Reply:
        m = _PUBLISHER_PATH.match(req.path)
        if m is None or int(m.group(1)) >= self.n:
            return Reply(404, "no such article", "text/plain")
        return Reply(200, self.publisher_page(Article(int(m.group(1)))))

    def pubmed_page(self, a: Article) -> str:
        """The parts of a PubMed article page that pubfetch reads (heading, title, identifiers, abstract)."""
        return (f"<!DOCTYPE html><html><head><title>{html_escape(a.title)} - PubMed</title></head><body>"
                f'<header id="heading"><div id="full-view-heading"><h1 class="heading-title">{html_escape(a.title)}'
                f'</h1><ul id="full-view-identifiers"><li><span class="identifier pubmed"><span class="id-label">'
                f'PMID: </span><strong class="current-id">{a.pmid}</strong></span></li></ul></div></header>'
                f'<div id="abstract"><div class="abstract-content selected" id="eng-abstract"><p>'
                f"{html_escape(a.abstract)}</p></div></div></body></html>")

    def _pubmed_page(self, req: Request) -> Reply:
        m = _PUBMED_PATH.match(req.path)
        a = self.article(pmid=m.group(1)) if m else None
        if a is None:
            return Reply(404, "Page not available", "text/html")
        return Reply(200, self.pubmed_page(a))

    def _unpaywall(self, req: Request) -> Reply:
        a = self._article_of(req.path)
        if a is None:
            return Reply(404, json.dumps({"error": True, "message": "not found"}), "application/json")
        body = {"doi": a.doi.lower(), "title": a.title, "is_oa": False, "journal_name": "Journal of Synthetic Biology",
                "best_oa_location": None, "oa_locations": [], "z_authors": [{"given": "Jane", "family": "Doe"}]}
        return Reply(200, json.dumps(body), "application/json")

    # ------------------------------------------------------------------ chaos

    def draw(self, req: Request) -> str | None:
        """The fault for this request, or None: a function of seed, request and how often it was seen."""
        key = f"{req.method} {req.target} {hashlib.sha256(req.body).hexdigest()}"
        with self._chaos_lock:
            self._seen[key] += 1
            nth = self._seen[key]
        digest = hashlib.sha256(f"{self.seed}|{key}|{nth}".encode()).digest()
        faults = self.page_faults if self._service(req.path) == "publisher" else self.faults
        if not faults or int.from_bytes(digest[:8], "big") / 2**64 >= self.rate:
            return None
        return faults[int.from_bytes(digest[8:12], "big") % len(faults)]

    def handle(self, req: Request) -> Reply:
        fault = self.draw(req) if self.chaotic else None
        service = self._service(req.path)
        if fault is None:
            if service in ("doi", "unpaywall", "publisher", "pubmed_html"):  # the base class counts the others
                with self._chaos_lock:
                    self.counts[service] += 1
            return self.healthy(req)
        with self._chaos_lock:
            self.counts[service] += 1
            self.injected[fault] += 1
            self.injected_by_service[(service, fault)] += 1
        return self.fault_reply(fault, req)

    def fault_reply(self, fault: str, req: Request) -> Reply:
        """The answer of one fault kind to a request."""
        if fault == "503":
            return Reply(503, _ERROR_PAGE, "text/html", {"Retry-After": "0"})
        if fault == "429":
            return Reply(429, "Too Many Requests", "text/plain", {"Retry-After": "0"})
        if fault == "reset":
            return Reply(reset=True)
        if fault == "html200":
            return Reply(200, _ERROR_PAGE, "text/html; charset=utf-8")
        if fault == "redirect_loop":
            return Reply(302, "", "text/html", {"Location": req.target})
        if fault == "oversized":
            block = b"<p>" + b"x" * 65_530 + b"</p>\n"
            count = self.oversize // len(block) + 1
            return Reply(200, b"", "text/html", chunks=[b"<html><body>"] + [block] * count)
        healthy = self.healthy(req)
        payload = healthy.body.encode("utf-8") if isinstance(healthy.body, str) else healthy.body
        if fault == "timeout":
            return Reply(healthy.status, payload, healthy.content_type, dict(healthy.headers), delay=self.slow_s)
        if fault == "content_type":
            return Reply(healthy.status, payload, "application/octet-stream", dict(healthy.headers))
        if fault == "skipped_type":
            return Reply(healthy.status, payload, "image/png", dict(healthy.headers))
        if fault == "invalid":
            if "json" in (healthy.content_type or ""):
                return Reply(200, payload[: max(1, len(payload) // 3)] + b',,]}"', healthy.content_type)
            return Reply(200, b'<?xml version="1.0"?><root><unclosed attr="1>&undefined;</root', healthy.content_type)
        if fault in ("truncated", "cut"):
            half = payload[: len(payload) // 2]
            headers = dict(healthy.headers)
            if fault == "truncated":  # the declared length says more is coming: the client sees the cut
                headers["Content-Length"] = str(len(payload))
            return Reply(healthy.status, b"", healthy.content_type, headers, chunks=[half])
        raise ValueError(f"unknown fault {fault!r}")
