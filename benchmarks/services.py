"""The benchmark's stand-in for the real services: tests/support/synthetic.py answered on one loopback address per real host.

pubfetch keeps one connection per host (PubFetcher's politeness), so services that live on different hosts in
production (www.ebi.ac.uk, eutils.ncbi.nlm.nih.gov, pubmed.ncbi.nlm.nih.gov, doi.org, api.unpaywall.org) must be on
different addresses here too, or every request would queue behind one connection and the benchmark would measure the
test server instead of pubfetch. Linux answers on all of 127.0.0.0/8, so each host gets its own 127.0.0.x.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Self

TESTS = Path(__file__).resolve().parents[1] / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from support.synthetic import SyntheticServices

#: Endpoint field -> (loopback address, path prefix). Europe PMC's REST and annotations APIs share www.ebi.ac.uk.
HOSTS: dict[str, tuple[str, str]] = {
    "europepmc": ("127.0.0.1", "/epmc/rest/"),
    "europepmc_annotations": ("127.0.0.1", "/epmc/annotations/"),
    "eutils": ("127.0.0.2", "/eutils/"),
    "pubmed": ("127.0.0.3", "/pubmed/"),
    "doi": ("127.0.0.4", "/doi/"),
    "unpaywall": ("127.0.0.5", "/unpaywall/"),
    "crossref": ("127.0.0.7", "/crossref/"),
    "openalex": ("127.0.0.8", "/openalex/"),
    "datacite": ("127.0.0.9", "/datacite/"),
}
#: Publisher pages (the second-pass scenario's DOIs resolve to them) on a host of their own.
PAGES = "127.0.0.6"

#: Requests per second each synthetic service accepts before answering 429 (the services' documented limits, the same
#: numbers as pubfetch.config.limits; Crossref's polite pool, DataCite's 1,000 per 5 minutes with a contact address). The synthetic server counts Europe PMC's search and full-text
#: requests separately, so together they may reach twice the 10/s that pubfetch allows itself for the pair.
SERVER_LIMITS: dict[str, float | tuple[tuple[float, float], ...]] = {
    "ncbi": 3.0,
    "europepmc_search": 10.0,
    "europepmc_fulltext": 10.0,
    "annotations": 10.0,
    "unpaywall": 10.0,
    "doi": 20.0,
    "doi_ra": 20.0,
    "crossref": 10.0,
    "openalex": 100.0,
    "datacite": ((1000.0, 300.0),),
}

#: Requests kept for inspection; the counters of SyntheticServices hold the totals (a 100,000-ID run makes ~150,000).
KEPT_REQUESTS = 10_000


class HostedServices:
    """SyntheticServices for ``n`` publications, one listening address per real host; a context manager.

    Args:
        n: publications 0..n-1 exist.
        latency: seconds every answer is delayed.
        limits: per-service 429 thresholds (None: :data:`SERVER_LIMITS`; ``{}``: none).
        services: these services (a subclass: the snowball's citation graph) instead of new ones of ``n``, ``latency``
            and ``limits``.
    """

    def __init__(self, n: int, latency: float = 0.1,
                 limits: dict[str, float | tuple[tuple[float, float], ...]] | None = None,
                 services: SyntheticServices | None = None) -> None:
        self.services = services or SyntheticServices(n, latency=latency,
                                                      limits=SERVER_LIMITS if limits is None else limits)
        self.services.server.requests = deque(maxlen=KEPT_REQUESTS)  # type: ignore[assignment]
        # the LoopbackServer's handler class serves any listening socket and records into the same server object
        handler = self.services.server._server.RequestHandlerClass
        self._servers: dict[str, ThreadingHTTPServer] = {}
        for address in sorted({a for a, _ in HOSTS.values()} | {PAGES}):
            server = ThreadingHTTPServer((address, 0), handler)
            server.daemon_threads = True
            self._servers[address] = server

    def __enter__(self) -> Self:
        for server in self._servers.values():
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        self.services.page_base = f"http://{PAGES}:{self._servers[PAGES].server_address[1]}"
        return self

    def __exit__(self, *exc: object) -> None:
        for server in self._servers.values():
            server.shutdown()
            server.server_close()

    def endpoint_env(self) -> dict[str, str]:
        """``PUBFETCH_*_URL`` variables pointing pubfetch at these hosts."""
        env = {}
        for name, (address, prefix) in HOSTS.items():
            port = self._servers[address].server_address[1]
            env[f"PUBFETCH_{name.upper()}_URL"] = f"http://{address}:{port}{prefix}"
        return env

    def reset(self) -> None:
        """Forget the counts (between runs; the rate windows are kept, as a real service keeps them)."""
        self.services.counts.clear()
        self.services.server.requests.clear()
        self.services.too_many.clear()
        self.services.ids_asked.clear()
        self.services.repeats.clear()
        self.services.injected.clear()
        self.services._answered.clear()
        self.services._failed_once.clear()
