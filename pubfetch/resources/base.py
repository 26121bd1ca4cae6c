"""What every resource shares: the run context, the per-publication run state, and the finality tests of the chain.

A resource module knows one service: which publications of a batch it can still help, how to ask for all of them in as
few requests as the service allows, and which part types the answers are worth. The chain
(``pubfetch.engine.chain``) only decides the order. The flags of :class:`PubRun` are PubFetcher's
FetcherPublicationState: they make each resource ask for a publication at most once per ID kind within one fetch,
whatever the batch around it.
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, Self, TypeVar

from pubfetch.config import FetchConfig
from pubfetch.extract.workerpool import WorkerPool
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication
from pubfetch.net.answers import AnswerMemory
from pubfetch.net.client import HttpClient
from pubfetch.net.config import http_config
from pubfetch.net.outcome import FetchResult, OutcomeKind
from pubfetch.resources.links import Links, QueuedLink

log = logging.getLogger(__name__)


class PubfetchWarning(UserWarning):
    """A setting that makes services answer less well (an e-mail address missing or invalid): filter it as any
    Python warning, e.g. ``warnings.simplefilter("ignore", pubfetch.PubfetchWarning)``."""


def email_address(value: str) -> str:
    """The address if ``value`` looks like one (text on both sides of one @), else "" (PubFetcher's default "@")."""
    value = value.strip()
    local, at, domain = value.partition("@")
    return value if at and local and domain and "@" not in domain and not any(c.isspace() for c in value) else ""

T = TypeVar("T")
R = TypeVar("R")

CONTENT_PARTS = (PartName.title, PartName.keywords, PartName.mesh, PartName.efo, PartName.go, PartName.theAbstract,
                 PartName.fulltext)
ID_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi)
#: Failures of a configured service (Europe PMC, annotations, E-utilities, PubMed, Unpaywall, the DOI resolver) that
#: PubFetcher only logs but that say nothing lasting about the publication: the answer was lost on the way (reset, cut
#: short, looping, oversized, mislabelled). Left unrecorded, a final entry would keep the hole for good.
SERVICE_GLITCHES = frozenset({OutcomeKind.IO_ERROR, OutcomeKind.TOO_LARGE, OutcomeKind.REDIRECT_LOOP,
                              OutcomeKind.TOO_MANY_REDIRECTS, OutcomeKind.UNSUPPORTED_TYPE, OutcomeKind.DNS,
                              OutcomeKind.SSL})


class RunFlag(StrEnum):
    """What happened to a publication in this fetch (PubFetcher's FetcherPublicationState): a resource sets its flag
    when it asks, and skips a publication whose flag is set, so nothing is asked twice for the same ID kind."""

    #: Europe PMC search asked by PMID / PMCID / DOI, and answered (any ID)
    EPMC_PMID = "epmc_pmid"
    EPMC_PMCID = "epmc_pmcid"
    EPMC_DOI = "epmc_doi"
    EUROPEPMC = "europepmc"
    #: what the Europe PMC search answer says is available
    EPMC_HAS_FULLTEXT_XML = "epmc_has_fulltext_xml"
    EPMC_HAS_FULLTEXT_HTML = "epmc_has_fulltext_html"
    EPMC_HAS_PDF = "epmc_has_pdf"
    EPMC_HAS_MINED = "epmc_has_mined"
    EPMC_HAS_REFERENCES = "epmc_has_references"
    #: Europe PMC fullTextXML asked by PMCID, and answered
    EPMC_FULLTEXT_PMCID = "epmc_fulltext_pmcid"
    EPMC_FULLTEXT_XML = "epmc_fulltext_xml"
    #: text-mined EFO / GO terms asked by PMCID, by PMID, and answered
    EFO_PMCID = "efo_pmcid"
    EFO_PMID = "efo_pmid"
    EFO = "efo"
    GO_PMCID = "go_pmcid"
    GO_PMID = "go_pmid"
    GO = "go"
    #: PubMed XML (efetch) asked by PMID, and answered; the PubMed page asked by PMID
    PUBMED_XML_PMID = "pubmed_xml_pmid"
    PUBMED_XML = "pubmed_xml"
    PUBMED_HTML_PMID = "pubmed_html_pmid"
    #: PMC XML (efetch) asked by PMCID, and answered
    PMC_XML_PMCID = "pmc_xml_pmcid"
    PMC_XML = "pmc_xml"
    #: PubMed XML asked only for the unique IDs of MeSH terms taken from Europe PMC (which gives names only)
    MESH_IDS = "mesh_ids"
    #: the DOI resolved to the publisher's page; Unpaywall asked
    DOI = "doi"
    OADOI = "oadoi"
    #: Europe PMC's references endpoint asked (``--references`` only)
    EPMC_REFERENCES = "epmc_references"


@dataclass
class PubRun:
    """One publication being fetched, with the flags that stop a resource from asking twice."""

    pub: Publication
    links: Links = field(default_factory=Links)
    flags: set[RunFlag] = field(default_factory=set)
    id_count: int = 0
    goon: bool = True
    start_ids: PublicationIds | None = None
    #: the publication of the batch this one turned out to be (its PMID, PMCID or DOI is the same): fetched only there
    same_as: Publication | None = None
    #: what failed in a way worth asking once more in this run (flags of the resources that asked, links followed),
    #: and when it may be asked again (epoch seconds; the servers' Retry-After)
    again_flags: set[RunFlag] = field(default_factory=set)
    again_links: list[QueuedLink] = field(default_factory=list)
    not_before: float = 0.0

    def restart(self) -> None:
        """Start the publication again from nothing but its IDs (an ID changed under it)."""
        self.pub.reset()
        self.links = Links()
        self.flags = set()
        self.id_count = 0
        self.goon = True
        self.start_ids = None
        self.again_flags = set()
        self.again_links = []
        self.not_before = 0.0

    def has(self, flag: RunFlag | str) -> bool:
        return RunFlag(flag) in self.flags

    def set(self, *flags: RunFlag | str) -> None:
        """Set flags; a string must be a flag's value (a misspelt one raises ValueError instead of never matching)."""
        self.flags.update(RunFlag(flag) for flag in flags)

    def fail(self, result: FetchResult, again: RunFlag | QueuedLink) -> None:
        """Record a failed request: transient failures make the entry retryable later (fetchException).

        ``again`` is what asked: the flag the resource set when it asked, or the link it followed. When the failure
        may pass within minutes (:func:`worth_asking_again`), the end-of-run retry asks it, and only it, once more.
        """
        if result.fetch_exception:
            self.pub.state.failed(failure_word(result.kind))
            self._again(result, again)

    def fail_service(self, result: FetchResult, again: RunFlag | QueuedLink) -> None:
        """Record a failed request to a configured service: as :meth:`fail`, and also for an answer lost on the way
        (:data:`SERVICE_GLITCHES`), so that the entry is retried instead of silently missing what that service gives."""
        if result.fetch_exception or result.kind in SERVICE_GLITCHES:
            self.pub.state.failed(failure_word(result.kind))
            self._again(result, again)

    def _again(self, result: FetchResult, again: RunFlag | QueuedLink) -> None:
        if not worth_asking_again(result):
            return
        if isinstance(again, RunFlag):
            self.again_flags.add(again)
        else:
            self.again_links.append(again)
        if result.retry_after:
            self.not_before = max(self.not_before, time.time() + result.retry_after)

    def blocked(self, url: str, reason: str) -> None:
        """A bot gate, browser challenge or refusal came back instead of the page: nothing is taken from it, and the
        entry is retried later (fetchException), as for any transient failure."""
        log.warning("%s instead of the page at %s: nothing taken from it, retried later", reason, url)
        self.pub.state.failed("blocked")

    def unreadable(self) -> None:
        """A configured service answered with a body that is not what it serves (cut short, an error page with status
        200): a glitch of the service, so the entry is retried later."""
        self.pub.state.failed("transient")


#: The words a failure is told in (FetchError, the run's problems): what the user can act on, not the mechanism.
_FAILURE_WORDS: Final = {
    OutcomeKind.NOT_FOUND: "not found",
    OutcomeKind.HTTP_ERROR: "refused",
    OutcomeKind.TIMEOUT: "timed out",
    OutcomeKind.FORBIDDEN_ADDRESS: "blocked",
    OutcomeKind.BAD_URL: "blocked",
    OutcomeKind.BAD_SCHEME: "blocked",
}


def failure_word(kind: OutcomeKind) -> str:
    """A failure in the words of :data:`_FAILURE_WORDS`; any other (busy, no connection, cut short) is transient."""
    return _FAILURE_WORDS.get(kind, "transient")


def worth_asking_again(result: FetchResult) -> bool:
    """Whether a failed request may well succeed if asked again in a minute: no answer came (timeout, connection,
    the server busy, an answer cut short) or the server failed (5xx). An answer that says something about the record
    (404 "no such record", 4xx refusals, oversized or unsupported bodies, redirect loops) is not asked again in the
    same run, whatever it means for fetchException."""
    if result.kind.transient or result.kind is OutcomeKind.IO_ERROR:
        return True
    return result.kind is OutcomeKind.HTTP_ERROR and (result.status or 0) >= 500


class Context:
    """The shared machinery of one fetch run: client, parameters, rules, renderer, PDF extractor, workers.

    Built once per run (or per library call) and shared by every thread; resources reach everything through it so
    that tests can replace a piece (a client pointing at a loopback server, a fake renderer).
    """

    def __init__(
        self,
        config: FetchConfig | None = None,
        client: HttpClient | None = None,
        rules: object | None = None,
        renderer: object | None = None,
    ) -> None:
        self.config = config or FetchConfig()
        self.client = client or HttpClient(http_config(self.config), answers=AnswerMemory())
        self._rules = rules
        self._renderer = renderer
        self._pool: ThreadPoolExecutor | None = None
        self._pdf_workers: WorkerPool | None = None
        self._lock = threading.Lock()
        #: CPU-heavy work (PDF extraction workers) at most ``threads`` at a time, however many publications flow
        self.cpu_slots = threading.BoundedSemaphore(self.config.run.threads)
        self._warned: set[str] = set()

    @property
    def args(self) -> FetcherArgs:
        return self.config.fetching

    def warn_once(self, key: str, message: str) -> None:
        """A warning about the run's settings (:class:`PubfetchWarning`): issued once per run however many requests
        it concerns, and shown once per process by Python's warning filters however many library calls make it (the
        command line shows it once per command)."""
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        warnings.warn(message, PubfetchWarning, stacklevel=2)

    @property
    def halted(self) -> bool:
        """Whether the client sends nothing more (the network was found down, or the run is stopping): a failure
        then is no news for the console, where the run's last line says why it stopped."""
        watch = getattr(self.client, "watch", None)
        return watch is not None and watch.halted

    @property
    def endpoints(self):
        return self.config.endpoints

    @property
    def parts(self) -> frozenset[PartName] | None:
        return self.config.run.parts

    @property
    def rules(self):
        """Scraping rules, loaded on first use (shipped files plus the user's from journalsYaml/webpagesYaml)."""
        with self._lock:
            if self._rules is None:
                from pubfetch.rules import ScrapingRules, default_rules

                if self.args.journals_yaml or self.args.webpages_yaml:
                    self._rules = ScrapingRules.load(self.args.journals_yaml or None, self.args.webpages_yaml or None)
                else:  # the built-in rules are loaded once per process, whatever the number of library calls
                    self._rules = default_rules()
            return self._rules

    @property
    def renderer(self):
        """The JavaScript renderer, started on first use; ``None`` when JavaScript is switched off."""
        if not self.config.run.javascript:
            return None
        with self._lock:
            if self._renderer is None:
                from pubfetch.net.browser import BrowserRenderer, page_timeout_ms

                self._renderer = BrowserRenderer(
                    user_agent=self.args.user_agent,
                    timeout_ms=page_timeout_ms(self.args.timeout),
                    max_bytes=self.client.config.max_bytes,
                    executable=self.config.run.chromium,
                    allow_private_addresses=self.config.http.allow_private_addresses,
                    counts=self.client.counts,
                )
            return self._renderer

    @property
    def pdf_workers(self) -> WorkerPool:
        """The run's PDF worker processes, reused from file to file (a process per file cost more than PDFium's
        extraction): at most ``threads`` of them, like the CPU slots, started on first need, ended by :meth:`close`."""
        with self._lock:
            if self._pdf_workers is None:
                from pubfetch.extract.pdf import pdf_workers  # pdfminer.six and lxml: only for runs that meet a PDF

                self._pdf_workers = pdf_workers(self.config.run.threads)
            return self._pdf_workers

    def wants(self, name: PartName) -> bool:
        """Whether a part is asked for (``--fetch-part`` / ``--not-fetch-part``)."""
        return self.parts is None or name in self.parts

    def is_final(self, pub: Publication, names: Iterable[PartName], oa: bool = False) -> bool:
        """PubFetcher's isFinal: every asked-for part among ``names`` is final (and with ``oa``, the publication is
        open access when full text is asked for, since only then can more full text come)."""
        for name in names:
            if self.wants(name) and not pub.part(name).is_final(self.args):
                return False
        return not (oa and not pub.oa and self.wants(PartName.fulltext))

    def id_only(self) -> bool:
        """Only IDs are asked for (PubFetcher's idOnly)."""
        if self.parts is None:
            return False
        if any(p in self.parts for p in CONTENT_PARTS):
            return False
        return any(p in self.parts for p in ID_PARTS)

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """Run ``fn`` over items on the worker threads (in order of the results); inline for one item."""
        if len(items) <= 1 or self.config.run.threads <= 1:
            return [fn(item) for item in items]
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.config.run.threads, thread_name_prefix="pubfetch")
            pool = self._pool
        return list(pool.map(fn, items))

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            renderer, self._renderer = self._renderer, None
            workers, self._pdf_workers = self._pdf_workers, None
        watch = getattr(self.client, "watch", None)
        if pool is not None:
            if watch is not None:  # after an interrupt: requests not yet sent are not sent, only those in flight end
                watch.stopped = True
            pool.shutdown(wait=True, cancel_futures=True)
        if workers is not None:
            workers.close()
        close = getattr(renderer, "close", None)
        if close is not None:
            close()
        self.client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Consecutive slices of at most ``size`` items."""
    for start in range(0, len(items), size):
        yield items[start:start + size]
