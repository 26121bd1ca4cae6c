"""The run context every resource reaches everything through, and the helpers the resources share around it.

A resource module knows one service: which publications of a batch it can still help, how to ask for all of them in as
few requests as the service allows (in slices of the service's batch size, :func:`chunks`), and which part types the
answers are worth; the chain (``pubfetch.engine.chain``) only decides the order. :class:`Context` holds the run's
client, settings, rules, renderer and workers, and warns once per run about a setting that makes services answer less
well (:class:`PubfetchWarning`, such as a configured e-mail address that is not one, :func:`email_address`). One
publication's state in the run, its flags and failures, is :mod:`pubfetch.resources.pubstate`.
"""

from __future__ import annotations

import copy
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Self, TypeVar

from pubfetch import console
from pubfetch.config import Endpoints, FetchConfig
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from pubfetch.extract.workerpool import WorkerPool
    from pubfetch.net.client import HttpClient
    from pubfetch.net.outcome import EntryPolicy, FetchResult
    from pubfetch.rules import ScrapingRules


class Renderer(Protocol):
    """What the resources ask of a JavaScript renderer: :class:`~pubfetch.net.browser.BrowserRenderer`, or a
    stand-in given to the :class:`Context` (a test's)."""

    def render(self, url: str, wait_until: str | None = None, *, publication: bool = False,
               entry: EntryPolicy | None = None) -> FetchResult: ...


class AgencyCache(Protocol):
    """Where the DOI registration agencies found in earlier runs are kept, by DOI prefix (the database)."""

    def get_agencies(self, prefixes: Sequence[str]) -> dict[str, str]: ...

    def put_agencies(self, agencies: dict[str, str]) -> None: ...


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


@dataclass(frozen=True)
class RunMakers:
    """How a run's heavier parts are made on first need, handed to its :class:`Context` by the one place that assembles
    a run (:mod:`pubfetch.engine.assembly`): a run that meets no PDF starts no PDF worker, one with JavaScript off no
    browser, and what the context was given is all it can make."""

    #: the scraping rules (the built-in ones are shared by every run of the process)
    rules: Callable[[], ScrapingRules]
    #: the JavaScript renderer
    renderer: Callable[[], Renderer]
    #: the PDF worker processes
    pdf_workers: Callable[[], WorkerPool]
    #: the page-reading worker processes, each with the rules given
    page_workers: Callable[[ScrapingRules], WorkerPool]
    #: the worker threads
    pool: Callable[[], ThreadPoolExecutor]


class Lookups:
    """The keys some thread of the run is looking up now: a thread needing one of them waits for that answer instead
    of asking for it again (two batches of a run at the DOI agency step while the first lookup of their prefixes is
    out)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, threading.Event] = {}

    def claim(self, keys: Iterable[str]) -> tuple[list[str], list[threading.Event]]:
        """The keys this thread looks up (it must :meth:`release` them), and the answers of other threads to wait
        for."""
        mine: list[str] = []
        theirs: list[threading.Event] = []
        with self._lock:
            for key in keys:
                pending = self._pending.get(key)
                if pending is None:
                    self._pending[key] = threading.Event()
                    mine.append(key)
                else:
                    theirs.append(pending)
        return mine, theirs

    def release(self, keys: Iterable[str]) -> None:
        """This thread's lookups are done (found or not): the threads waiting for them go on."""
        with self._lock:
            for key in keys:
                self._pending.pop(key).set()


class _Made:
    """What a run's makers made, shared by the run's context and every step's view of it (:meth:`Context.step`)."""

    def __init__(self) -> None:
        self.rules: ScrapingRules | None = None
        self.renderer: Renderer | None = None
        self.pool: ThreadPoolExecutor | None = None
        self.pdf_workers: WorkerPool | None = None
        self.page_workers: WorkerPool | None = None


class Context:
    """The shared machinery of one fetch run: client, parameters, rules, renderer, PDF extractor, workers.

    Assembled once per run by :class:`~pubfetch.engine.assembly.FetchRun` (the command line, the library calls, the
    workers and the tests' runs alike) and shared by every thread: the context is given its client and the makers of
    the rest, and makes each piece on first need.
    """

    def __init__(self, config: FetchConfig, client: HttpClient, makers: RunMakers) -> None:
        self.config = config
        self.client = client
        self._makers = makers
        self._made = _Made()
        self._parts = config.run.parts
        self._lock = threading.Lock()
        #: CPU-heavy work (PDF extraction workers) at most ``threads`` at a time, however many publications flow
        self.cpu_slots = threading.BoundedSemaphore(self.config.run.threads)
        self._warned: set[str] = set()
        #: DOI registration agencies by DOI prefix, looked up once per run (``pubfetch.resources.agency``)
        self.doi_agencies: dict[str, str] = {}
        #: the prefixes being looked up now (a batch of the run waits for another's answer rather than ask again)
        self.agency_lookups = Lookups()
        #: where they are kept between runs (the run's database), if anywhere
        self.agency_cache: AgencyCache | None = None
        console.install()  # the run's warnings say they are pubfetch's, in a program that set up no logging

    def step(self, parts: frozenset[PartName] | None) -> Context:
        """This run's machinery for one step asking for ``parts`` (the command line's steps each ask for their own):
        the same client, rules, renderer, workers and warnings; closing the step's view closes the run's."""
        if parts == self._parts:
            return self
        view = copy.copy(self)
        view._parts = parts
        return view

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
    def endpoints(self) -> Endpoints:
        return self.config.endpoints

    @property
    def parts(self) -> frozenset[PartName] | None:
        """The publication parts asked for: the run's (``parts``), or the step's (:meth:`step`)."""
        return self._parts

    @property
    def rules(self) -> ScrapingRules:
        """Scraping rules, loaded on first use (shipped files plus the user's from journalsYaml/webpagesYaml)."""
        with self._lock:
            if self._made.rules is None:
                self._made.rules = self._makers.rules()
            return self._made.rules

    @property
    def renderer(self) -> Renderer | None:
        """The JavaScript renderer, started on first use; ``None`` when JavaScript is switched off or the run is
        stopping (no Chromium is started, no page rendered, after an interrupt)."""
        if not self.config.run.javascript or self.halted:
            return None
        with self._lock:
            if self._made.renderer is None:
                self._made.renderer = self._makers.renderer()
            return self._made.renderer

    @property
    def pdf_workers(self) -> WorkerPool:
        """The run's PDF worker processes, reused from file to file (a process per file cost more than PDFium's
        extraction): at most ``threads`` of them, like the CPU slots, started on first need, ended by :meth:`close`."""
        with self._lock:
            if self._made.pdf_workers is None:
                self._made.pdf_workers = self._makers.pdf_workers()
            return self._made.pdf_workers

    @property
    def page_workers(self) -> WorkerPool:
        """The run's page-reading worker processes (``pubfetch.extract.reader_workers``: publisher pages, webpages and
        docs), each with the run's rules, reused from page to page: at most one per CPU (reading is CPU work) and never
        more than ``threads``, started on first need, ended by :meth:`close`."""
        rules = self.rules
        with self._lock:
            if self._made.page_workers is None:
                self._made.page_workers = self._makers.page_workers(rules)
            return self._made.page_workers

    def interrupt(self) -> Callable[[], None]:
        """The run was interrupted: nothing more is sent, waited for (rate limits, retry pauses) or rendered, and the
        exchanges and the page render in flight end now instead of at their deadlines. Returns what lets the context
        serve its owner again once the interrupted work has ended (a library caller may go on using it)."""
        watch = getattr(self.client, "watch", None)
        was_stopped = watch.stopped if watch is not None else False
        if watch is not None:
            watch.stopped = True
        cut = getattr(self.client, "cut_in_flight", None)
        if cut is not None:
            cut()
        with self._lock:
            renderer = self._made.renderer
        halt = getattr(renderer, "halt", None)
        if halt is not None:
            halt()

        def resume() -> None:
            if watch is not None:
                watch.stopped = was_stopped
            go_on = getattr(renderer, "resume", None)
            if not was_stopped and go_on is not None:
                go_on()

        return resume

    @property
    def rich_parts(self) -> bool:
        """Whether the run reads and stores the rich parts (``--no-rich-parts`` off): when not, the parsers leave them
        out of what they read (the costlier part of a PubMed record with its reference list) and no entry keeps any."""
        return self.config.run.rich_parts

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
            if self._made.pool is None:
                self._made.pool = self._makers.pool()
            pool = self._made.pool
        return list(pool.map(fn, items))

    def close(self) -> None:
        with self._lock:
            made = self._made
            pool, made.pool = made.pool, None
            renderer, made.renderer = made.renderer, None
            workers, made.pdf_workers = made.pdf_workers, None
            page_workers, made.page_workers = made.page_workers, None
        watch = getattr(self.client, "watch", None)
        if pool is not None:
            if watch is not None:  # after an interrupt: requests not yet sent are not sent, only those in flight end
                watch.stopped = True
            pool.shutdown(wait=True, cancel_futures=True)
        for owned in (workers, page_workers):
            if owned is not None:
                owned.close()
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
