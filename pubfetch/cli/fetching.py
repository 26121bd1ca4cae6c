"""What the fetching operations of the command line do, inside the one session of the command.

:func:`open_session` (called once, by ``cli/main.py``) builds the :class:`Session`: the run's configuration
(environment < config file < command line, built once), the :class:`~pubfetch.resources.base.Context` made from it on
first use (HTTP client with the shared rate limiter and the optional WARC recorder, scraping rules, browser) and the
totals that decide the exit status: 0 when the run did what was asked (every publication final, or partial only in
parts no service had), 3 when some failed (a summary line says how many and why), 2 for usage errors. The session is
passed to every function here; nothing is kept in a module global.

The pipeline's fetch options map to :func:`get_publications` and :func:`get_pages` (``-fetch``: no database;
``-fetch-put``: fetch afresh, write to the database; ``-db-fetch``, ``-db-fetch-end``: the database first); the one-off
operations have their own functions. Entries are written by :mod:`pubfetch.fetcher` and :mod:`pubfetch.webfetch` only.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from pubfetch import fetcher
from pubfetch.cli.errors import EXIT_OK, EXIT_SOME_FAILED, EXIT_USAGE, CliError, InputError, Unavailable, UsageError
from pubfetch.cli.progress import Progress
from pubfetch.cli.setting_options import command_line_settings
from pubfetch.config import FetchConfig
from pubfetch.engine.assembly import FetchRun
from pubfetch.fetcher import BatchSummary, fetch_many, init_publication, to_ids
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage
from pubfetch.net.outcome import FetchResult
from pubfetch.resources import europepmc, mined, ncbi, site, unpaywall
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubFlag, PubState
from pubfetch.searching import Identified
from pubfetch.snowball import SnowballPlan, SnowballTooLarge
from pubfetch.store import Store
from pubfetch.webfetch import Selectors, fetch_pages, get_webpage

log = logging.getLogger("pubfetch.cli")

Entry = Publication | Webpage
E = TypeVar("E", Publication, Webpage)


@dataclass
class Session:
    """The network state of one command: settings, the context built from them on first use, and run totals."""

    #: the run's configuration: environment < config file < command line (fetching parameters included)
    config: FetchConfig
    warc: str | None = None
    quiet: bool = False
    summary: BatchSummary = field(default_factory=BatchSummary)
    pages_not_final: int = 0
    #: webpages and docs a fetching step got (stored, when it has a database), once such a step ran (``None`` before)
    pages_got: int | None = None
    #: a publication fetching step ran (so the run closes with the summary line, even when it had nothing to do)
    fetched_publications: bool = False
    extraction_failures: int = 0
    #: the exit status a queued job's state asks for (-job-status, a submitter that waited: cli/queued.job_exit)
    job_exit: int = 0
    #: the exit status the searches ask for (3: one stopped short, pubfetch.cli.searchstep)
    search_exit: int = 0
    #: what each search of the command identified, per source and query (the run summary's "identified" rows)
    identified: list[Identified] = field(default_factory=list)
    _run: FetchRun | None = None

    @property
    def args(self) -> FetcherArgs:
        """PubFetcher's fetching parameters of the run (finality, cooldowns, timeout, ...)."""
        return self.config.fetching

    def context(self, parts: frozenset[PartName] | None = None) -> Context:
        """The run's context, assembled on first use (:class:`~pubfetch.engine.assembly.FetchRun`), for a step
        fetching ``parts`` (the same client, rules and browser for every step; the configuration is the command's)."""
        if self._run is None:
            self._run = _assemble(self.config, self.warc)
        return self._run.context.step(parts)

    def close(self) -> None:
        if self._run is not None:
            self._run.close()

    def report(self) -> None:
        """The summary lines of what was fetched (and stored): at the end of a run, or when it is interrupted."""
        if self.fetched_publications:
            print(f"pubfetch: {self.summary.line()}", file=sys.stderr)
        if self.pages_got is not None:
            print(f"pubfetch: {self.pages_got} webpages/docs: {self.pages_got - self.pages_not_final} final, "
                  f"{self.pages_not_final} not final", file=sys.stderr)
        if self.extraction_failures:
            print("pubfetch: some articles of the archival unit could not be extracted (see the warnings)",
                  file=sys.stderr)

    def exit_status(self) -> int:
        """2 when the WARC file could not be written to the end, 3 when some publication failed (nothing usable, or a
        failed request a later run retries, unless it is final), a webpage or doc is not final or an archival unit's
        article could not be extracted, else 0; a run that fetched publications ends with its summary. What was
        fetched is stored either way."""
        s = self.summary
        self.report()
        recorder = self._run.recorder if self._run is not None else None
        if recorder is not None and recorder.error is not None:
            print(f"pubfetch: error: {recorder.error}; the fetched entries were stored", file=sys.stderr)
            return EXIT_USAGE
        return EXIT_SOME_FAILED if s.failed or self.pages_not_final or self.extraction_failures else EXIT_OK


def _assemble(config: FetchConfig, warc: str | None) -> FetchRun:
    """The command's run; what cannot be built is a one-line error of the command line."""
    from pubfetch.rules import RuleError

    recorder = None
    if warc:
        from pubfetch.net.warc import WarcRecorder, destination

        try:
            if os.path.dirname(warc):  # as for every output file (pubfetch.cli.preflight)
                os.makedirs(os.path.dirname(warc), exist_ok=True)
            key = config.run.ncbi_api_key
            recorder = WarcRecorder(warc, secrets=[key] if key else ())
        except OSError as e:
            raise InputError(f"cannot write {destination(warc)}: {e.strerror or e}") from None
    try:
        return FetchRun(config, recorder=recorder)
    except RuleError as e:  # a bad --journalsYaml: a usage error before anything is fetched
        raise UsageError(str(e)) from None
    except (sqlite3.Error, OSError) as e:
        raise _rate_db_error(config.run.rate_db, e) from None
    except ValueError as e:  # a redis:// URL: no driver, or the server does not answer
        raise InputError(f"cannot use rate-limit database: {e}") from None


def _rate_db_error(rate_db: str | None, e: Exception) -> InputError:
    where = rate_db or "the default rate-limit file"
    return InputError(f"cannot use rate-limit database '{where}': {e}; give --rate-db a new file or one written by "
                      "pubfetch")


@contextmanager
def open_session(values: dict, fetching: dict, *, warc: str | None = None,
                 quiet: bool = False) -> Iterator[Session]:
    """The session of one command, closed (browser, thread pool, WARC file) when the command ends.

    ``values``: the parsed options (the modifiers that set settings of the configuration); ``fetching``: the fetching
    parameters given on the command line, over those of the config file and environment."""
    sess = Session(fetch_config(values, fetching), warc=warc, quiet=quiet)
    try:
        yield sess
    finally:
        sess.close()


def _progress(sess: Session, label: str, items: object, asked: bool) -> Progress:
    """The bar of a fetching step: on a terminal or when asked, never with --quiet; publications show their counts."""
    total = len(items) if isinstance(items, Sized) else 0
    shown = (asked or sys.stderr.isatty()) and not sess.quiet
    if label != "publications":
        return Progress(label, total, shown)
    s = sess.summary
    return Progress(label, total, shown, lambda: {"final": s.final, "partial": s.partial, "failed": s.failed})


# ------------------------------------------------------------------------------------------------ the pipeline's fetch


def get_publications(sess: Session, ids: Iterable[PublicationIds | str], store: Store | None = None, *,
                     use_stored: bool = True, keep_entries: bool = True, limit: int = 0, progress: bool = False,
                     parts: frozenset[PartName] | None = None,
                     keep: Callable[[Entry], bool] | None = None,
                     snowball: SnowballPlan | None = None) -> list[Publication]:
    """Publications for ``ids``, fetched as ``can_fetch`` allows; with a ``store``, read from it first
    (``use_stored``) and written back (all of them when not ``use_stored``).

    ``keep``: the content filters of ``--pre-filter`` (entries it rejects are not returned, but still stored);
    ``limit``: at most this many are returned (0: no limit), counted after ``keep``; ``keep_entries`` off: none
    are returned (``-db-fetch-end`` keeps nothing in memory); ``snowball``: the links followed from them (a depth
    that would exceed its ``max_hits`` is a usage error, after what earlier depths fetched is stored)."""
    ctx = sess.context(parts)
    plan = snowball or SnowballPlan()
    # a snowball's total is not known before its last depth: its bar counts without one
    shown = _progress(sess, "publications", None if plan.follows else ids, progress)
    sess.fetched_publications = True
    stream = fetch_many((i if isinstance(i, PublicationIds) else to_ids(str(i)) for i in ids), db=store,
                        parts=parts, config=sess.config, context=ctx, progress=shown, summary=sess.summary,
                        use_stored=use_stored,
                        citations=plan.citations, expand_references=plan.expand_references, depth=plan.depth,
                        max_hits=plan.max_hits)
    try:
        return _taken(stream, shown, keep, keep_entries, limit)
    except SnowballTooLarge as e:
        raise UsageError(str(e)) from None


def get_pages(sess: Session, kind: str, urls: Iterable[str], store: Store | None = None, *,
              use_stored: bool = True, keep_entries: bool = True, limit: int = 0, progress: bool = False,
              keep: Callable[[Entry], bool] | None = None) -> list[Webpage]:
    """Webpages or docs (``kind``) for ``urls``, as :func:`get_publications` gets publications."""
    ctx = sess.context()
    shown = _progress(sess, kind, urls, progress)
    sess.pages_got = sess.pages_got or 0  # the run ends with the pages' summary line, also when interrupted

    def counted(done: int, page: Webpage) -> None:
        # as each page is got (and stored), so an interrupted run says what it stored
        sess.pages_got = (sess.pages_got or 0) + 1
        if not page.is_final(ctx.args):
            sess.pages_not_final += 1
        shown(done, page)

    pages = fetch_pages([str(u) for u in urls], kind, store, config=ctx.config, context=ctx, progress=counted,
                        use_stored=use_stored)
    return _taken(pages, shown, keep, keep_entries, limit)


def _taken(entries: Iterable[E], shown: Progress, keep: Callable[[Entry], bool] | None, keep_entries: bool,
           limit: int) -> list[E]:
    """The entries of a fetching step that ``keep`` keeps, up to ``limit`` (none when not ``keep_entries``); the
    step's bar ends before the summary line, also when interrupted."""
    out: list[E] = []
    with shown:
        for entry in entries:
            if keep is not None and not keep(entry):
                continue
            if keep_entries:
                out.append(entry)
            if limit and len(out) >= limit:
                break
    return out


def update_citations_count(sess: Session, pubs: Sequence[Publication], store: Store | None) -> None:
    """Refresh the citation counts of ``pubs`` in place and put them into ``store`` when given."""
    fetcher.update_citations_count(pubs, store, context=sess.context())


# ---------------------------------------------------------------------------------------------- one-off operations


def fetch_document(sess: Session, url: str, javascript: bool = False) -> str:
    """The raw text of a document (``-fetch-document``, ``-fetch-document-javascript``)."""
    ctx = sess.context()
    if javascript:
        renderer = ctx.renderer
        if renderer is None:
            raise Unavailable("-fetch-document-javascript", "JavaScript (switched off with --no-javascript)")
        return _text(url, renderer.render(url))
    return _text(url, ctx.client.get(url))


def post_document(sess: Session, url: str, pairs: Sequence[str]) -> str:
    """The raw answer to a form POST of NAME VALUE ``pairs`` (``-post-document``)."""
    if len(pairs) % 2:
        raise UsageError("-post-document needs NAME VALUE pairs after the URL")
    return _text(url, sess.context().client.post(url, dict(zip(pairs[::2], pairs[1::2], strict=True))))


def _text(url: str, result: FetchResult) -> str:
    if not result.ok:
        raise CliError(f"fetching {url} failed: {result.kind.name} {result.message}".rstrip())
    return result.text if result.text is not None else result.body.decode("utf-8", "replace")


def fetch_webpage_selector(sess: Session, url: str, title: str = "", content: str = "",
                           javascript: str = "") -> Webpage:
    """A webpage scraped with the given selectors instead of the rules (``-fetch-webpage-selector``); ``javascript``
    is "true", "false" or "" (the rules decide)."""
    selectors = Selectors(title or None, content or None,
                          {"true": True, "false": False}.get(javascript.lower()) if javascript else None)
    page, _ = get_webpage(sess.context(), None, url, selectors)
    return page


# ------------------------------------------------------------------------------------------------- test operations


def _europepmc_xml(ctx: Context, state: PubState) -> None:
    state.set(PubFlag.EPMC_HAS_FULLTEXT_XML)
    europepmc.fetch_fulltext_xml(ctx, [state])


def _europepmc_mined(ctx: Context, state: PubState) -> None:
    state.set(PubFlag.EPMC_HAS_MINED)
    mined.fetch_mined(ctx, [state], PartName.efo)
    mined.fetch_mined(ctx, [state], PartName.go)


#: PubFetcher's test operations that ask one resource about one publication ID
_ONE_RESOURCE: dict[str, Callable[[Context, PubState], None]] = {
    "print-europepmc": lambda ctx, state: europepmc.fetch_search(ctx, [state]),
    "print-europepmc-xml": _europepmc_xml,
    "print-europepmc-mined": _europepmc_mined,
    "print-pubmed-xml": lambda ctx, state: ncbi.fetch_pubmed_xml(ctx, [state]),
    "print-pubmed-html": lambda ctx, state: ncbi.fetch_pubmed_html(ctx, [state]),
    "print-pmc-xml": lambda ctx, state: ncbi.fetch_pmc_xml(ctx, [state]),
    "print-oadoi": lambda ctx, state: unpaywall.fetch_unpaywall(ctx, [state]),
}


def test_operation(sess: Session, operation: str, target: str) -> Publication | Webpage:
    """What one resource alone gives for an ID or URL (PubFetcher's test operations, ``-print-*``)."""
    ctx = sess.context()
    if operation == "print-webpage":
        page, _ = get_webpage(ctx, None, target)
        return page
    if operation in ("print-europepmc-html", "print-pmc-html"):
        raise Unavailable(f"-{operation}", "an HTML resource that pubfetch (like PubFetcher) does not fetch, because "
                          "the services forbid automated bulk download of their pages")
    if operation == "print-site":
        state = PubState(Publication())
        site.fetch_site(ctx, state, target, PartType.link, "", meta=True, keywords=True)
        return state.pub
    try:
        ids = to_ids(target)
    except ValueError as e:
        raise UsageError(f"-{operation}: {e}") from None
    state = PubState(init_publication(ids, ctx.args))
    _ONE_RESOURCE[operation](ctx, state)
    return state.pub


def fetch_config(values: dict, fetching: dict | None = None) -> FetchConfig:
    """The configuration of the command: the environment, then the config file (``--config``, ``$PUBFETCH_CONFIG`` or
    ``~/.config/pubfetch/config.yaml``), then the command line: its options of settings
    (:func:`~pubfetch.cli.setting_options.command_line_settings`) and its fetching parameters (``fetching``, by
    :class:`~pubfetch.fetcher_args.FetcherArgs` field)."""
    try:
        return FetchConfig.from_env(None, config_file=values.get("config"), **command_line_settings(values),
                                    **(fetching or {}))
    except ValueError as e:
        raise UsageError(str(e)) from None

