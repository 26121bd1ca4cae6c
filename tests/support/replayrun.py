"""A fetch run whose every service is the recorded corpus: pubfetch asks the real services' URLs through the replay
proxy on 127.0.0.1 (tests/support/replay.py, HTTPS through tests/support/tlsintercept.py), as in production.

The conformance tests share this; the ``replay_server`` fixture of tests/conftest.py starts the proxy once per module.
"""

from __future__ import annotations

import fcntl
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pubfetch.config import Endpoints, FetchConfig
from pubfetch.fetcher import fetch_many, init_publication
from pubfetch.ids import classify
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.resources.pubstate import PubState
from pubfetch.resources.site import fetch_site
from support.fetchrun import run_context
from support.loopback import LoopbackServer
from support.replay import CorpusReplay
from support.synthetic import SCHOLARLY_OFF
from support.tlsintercept import TlsInterceptor

#: The services' own URLs (over http: the proxy is asked for them as they are, and the recordings are keyed by them).
REAL_ENDPOINTS = Endpoints(
    europepmc="http://www.ebi.ac.uk/europepmc/webservices/rest/",
    europepmc_annotations="http://www.ebi.ac.uk/europepmc/annotations_api/",
    eutils="http://eutils.ncbi.nlm.nih.gov/entrez/eutils/",
    pubmed="http://pubmed.ncbi.nlm.nih.gov/",
    doi="http://doi.org/",
    unpaywall="http://api.unpaywall.org/v2/",
    crossref="http://api.crossref.org/",
    openalex="http://api.openalex.org/",
    datacite="http://api.datacite.org/",
    biorxiv="http://api.biorxiv.org/",
)


@contextmanager
def replay_proxy(corpus: Path) -> Iterator[tuple[CorpusReplay, LoopbackServer]]:
    """The corpus's replay and the proxy serving it; the proxy's ``ca_file`` is the certificate authority its HTTPS
    tunnels are signed by."""
    replay = CorpusReplay(corpus)
    tls = TlsInterceptor()
    try:
        with LoopbackServer({"/*": replay}, tls=tls) as server:
            server.ca_file = tls.ca_file
            yield replay, server
    finally:
        tls.close()


def config_for(server: LoopbackServer, **changes: object) -> FetchConfig:
    """The configuration of a run through the proxy ``server``, with ``changes`` on top."""
    proxies = {"http": server.base, "https": server.base}
    # a batched service's request waits for every publication on its way to it (released together by the step
    # before), however slow the machine, not at most a linger
    # the scholarly APIs only where a test asks for them (SCHOLARLY_OFF): the other tests' expectations predate them
    changes = {"linger_ms": 600_000, **SCHOLARLY_OFF, **changes}
    return FetchConfig().with_changes(endpoints=REAL_ENDPOINTS, allow_private_addresses=True, javascript=False,
                                      threads=4, proxies=proxies, timeout=10000, ca_bundle=server.ca_file, **changes)


def fetch_all(server: LoopbackServer, ids: list[str], db: object = None, **changes: object) -> list[Publication]:
    """The publications of ``ids`` fetched through the proxy ``server`` (into the database ``db`` when given),
    failures not retried."""
    cfg = config_for(server, **changes)
    with run_context(cfg) as ctx:
        return list(fetch_many(ids, db=db, config=cfg, context=ctx, retry_exceptions=False))


def read_at_url(server: LoopbackServer, pages: list[tuple[str, str]]) -> list[Publication]:
    """For each ``(url, doi)``, the publication of ``doi`` after the DOI-page code (``resources.site.fetch_site``) read
    the page at ``url`` through the proxy ``server``: how a page no recorded doi.org redirect leads to (a PMC page,
    whose DOI leads to the publisher; a second page of an article) is read as its DOI's page."""
    cfg = config_for(server)
    out = []
    with run_context(cfg) as ctx:
        for url, doi in pages:
            state = PubState(init_publication(classify(doi), cfg.fetching))
            fetch_site(ctx, state, url, PartType.doi, "https://doi.org/" + doi, meta=True, keywords=True)
            out.append(state.pub)
    return out


class CorpusPageFetches:
    """The corpus's publisher pages, fetched once per test process and shared by the conformance modules that only
    read them (tests/test_conformance_pages.py, _pages3.py and _content.py ask for the same 75 DOIs and some of the same
    pages at their URLs: 20 to 150 s each on a loaded machine when every module fetched its own).

    Every DOI a recorded doi.org redirect leads from is fetched in one run, whichever module asks first, so what a
    module sees does not depend on which modules the same pytest-xdist worker ran before it."""

    def __init__(self, replay: CorpusReplay, server: LoopbackServer, shared: Path | None = None) -> None:
        self.replay, self.server, self.shared = replay, server, shared
        self._by_doi: dict[str, Publication] | None = None
        self._at_url: dict[tuple[str, str], Publication] = {}

    def by_doi(self) -> dict[str, Publication]:
        """Upper-cased DOI -> its publication, for every DOI of the corpus's doi.org redirects."""
        if self._by_doi is None:
            dois = sorted({e["ids"]["doi"] for e in self.replay.by_resource("doi_redirect")})
            self._by_doi = self._once_per_run(lambda: {p.doi.content: p for p in fetch_all(self.server, dois)})
        return self._by_doi

    def _once_per_run(self, fetch: Callable[[], dict[str, Publication]]) -> dict[str, Publication]:
        """What ``fetch`` gives, fetched by the first process of the run that asks and read from ``shared`` by the
        others (pytest-xdist's workers each needed it: about 25 CPU-seconds of page reading each, in page-reader
        processes the run's own CPU count leaves out). The pages are the same recorded ones whichever proxy serves
        them, and the publications hold the pages' own addresses, not the proxy's. Without ``shared``: fetched here."""
        if self.shared is None:
            return fetch()
        with open(self.shared.with_name(self.shared.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the others wait for the first: they need the same pages
            if self.shared.exists():
                return pickle.loads(self.shared.read_bytes())
            fetched = fetch()
            partial = self.shared.with_name(self.shared.name + ".partial")
            partial.write_bytes(pickle.dumps(fetched))
            partial.replace(self.shared)
            return fetched

    def at_url(self, pages: list[tuple[str, str]]) -> list[Publication]:
        """:func:`read_at_url` of each ``(url, doi)``, each pair read once per process."""
        missing = list(dict.fromkeys(pair for pair in pages if pair not in self._at_url))
        self._at_url.update(zip(missing, read_at_url(self.server, missing), strict=True))
        return [self._at_url[pair] for pair in pages]
