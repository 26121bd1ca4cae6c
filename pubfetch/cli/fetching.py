"""What the fetching operations of the command line do, inside one network session per command.

A session holds the run's :class:`~pubfetch.resources.base.Context` (HTTP client with the shared rate limiter and the
optional WARC recorder, scraping rules, browser) and the totals that decide the exit status: 0 when every entry got is
final, 1 when some are not (a summary line says how many and why), 2 for usage errors.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pubfetch.cli.errors import EXIT_USAGE, CliError, InputError, Unavailable, UsageError
from pubfetch.cli.progress import Progress
from pubfetch.config import FetchConfig
from pubfetch.fetcher import BatchSummary, fetch_many, init_publication, to_ids
from pubfetch.ids import PublicationIds
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.resources.base import Context, PubRun, RunFlag
from pubfetch.store import Store

if TYPE_CHECKING:
    from pubfetch.net.warc import WarcRecorder

log = logging.getLogger("pubfetch.cli")

Entry = Publication | Webpage


@dataclass
class Session:
    """The network state of one command: settings, the context built from them on first use, and run totals."""

    config: FetchConfig
    warc: str | None = None
    rate_db: str | None = None
    rate_limits: bool = True
    quiet: bool = False
    #: the fetching parameters given on the command line; they override the config file and environment
    given: dict | None = None
    summary: BatchSummary = field(default_factory=BatchSummary)
    pages_not_final: int = 0
    #: a publication fetching step ran (so the run closes with the summary line, even when it had nothing to do)
    fetched_publications: bool = False
    extraction_failures: int = 0
    _context: Context | None = None
    _closers: list[Callable[[], None]] = field(default_factory=list)
    _recorder: WarcRecorder | None = None

    def context(self, args: FetcherArgs, threads: int, parts: frozenset[PartName] | None) -> Context:
        if self.given is not None:
            import dataclasses

            args = dataclasses.replace(self.config.args, **self.given)
        config = self.config.replace(args=args, threads=threads, parts=parts)
        if self._context is None:
            overrides = dict(config.http_overrides)
            if self.warc:
                from pubfetch.net.warc import WarcRecorder

                try:
                    recorder = WarcRecorder(self.warc, secrets=[config.ncbi_api_key] if config.ncbi_api_key else ())
                except OSError as e:
                    raise InputError(f"cannot write WARC file '{self.warc}': {e.strerror or e}") from None
                self._closers.append(recorder.close)
                self._recorder = recorder
                overrides["response_hook"] = recorder
            if self.rate_limits:
                from pubfetch.net.ratelimit import ServiceMap, default_limits
                from pubfetch.net.ratelimit_redis import shared_limiter

                try:
                    limiter = shared_limiter(self.rate_db, default_limits(bool(config.ncbi_api_key)))
                except (sqlite3.Error, OSError) as e:
                    where = self.rate_db or "the default rate-limit file"
                    raise InputError(f"cannot use rate-limit database '{where}': {e}; give --rate-db a new file or "
                                     "one written by pubfetch") from None
                except ValueError as e:  # a redis:// URL: no driver, or the server does not answer
                    raise InputError(f"cannot use rate-limit database: {e}") from None
                overrides["rate_limiter"] = limiter
                overrides["rate_key"] = ServiceMap.for_endpoints(config.endpoints).key
            config = config.replace(http_overrides=overrides)
            # read the rule files now: a bad --journalsYaml is a usage error before anything is fetched, not an
            # internal error when the first publisher page needs the rules
            from pubfetch.rules import RuleError, ScrapingRules

            try:
                rules = ScrapingRules.load(args.journals_yaml or None, args.webpages_yaml or None)
            except RuleError as e:
                raise UsageError(str(e)) from None
            self._context = Context(config, rules=rules)
        else:
            # same client, rules and browser; the step's own parameters
            self._context.config = config.replace(http_overrides=self._context.config.http_overrides)
        return self._context

    def close(self) -> None:
        if self._context is not None:
            self._context.close()
        for close in self._closers:
            close()

    def exit_status(self) -> int:
        """2 when the WARC file could not be written to the end, 1 when some fetched entry is not final, else 0; a run
        that fetched publications ends with its summary. What was fetched is stored either way."""
        s = self.summary
        if self.fetched_publications:
            print(f"pubfetch: {s.line()}", file=sys.stderr)
        if self.pages_not_final:
            print(f"pubfetch: {self.pages_not_final} webpages/docs not final", file=sys.stderr)
        if self.extraction_failures:
            print("pubfetch: some articles of the archival unit could not be extracted (see the warnings)",
                  file=sys.stderr)
        if self._recorder is not None and self._recorder.error is not None:
            print(f"pubfetch: error: {self._recorder.error}; the fetched entries were stored", file=sys.stderr)
            return EXIT_USAGE
        return 1 if s.not_final or self.pages_not_final or self.extraction_failures else 0


_session: Session | None = None


@contextmanager
def session(config: FetchConfig, **options: object) -> Iterator[Session]:
    """Make a network session current for the duration of a command."""
    global _session
    previous = _session
    _session = Session(config, **options)  # type: ignore[arg-type]
    try:
        yield _session
    finally:
        _session.close()
        _session = previous


def current() -> Session:
    global _session
    if _session is None:  # library use of run_fetch_step without main(): defaults from the environment
        _session = Session(FetchConfig.from_env())
    return _session


def run(kind: str, ids: Sequence, mode: str, store: Store | None, args: FetcherArgs, *, threads: int, limit: int,
        progress: bool, parts: frozenset[PartName] | None, keep: Callable[[Entry], bool] | None,
        extra: Sequence[str]):
    from pubfetch.cli.network import FetchStepResult

    sess = current()
    ctx = sess.context(args, threads, parts)
    show = (progress or sys.stderr.isatty()) and not sess.quiet
    if mode in ("fetch", "fetch-put", "db-fetch", "db-fetch-end"):
        total = len(ids) if hasattr(ids, "__len__") else 0
        if kind == "publications":
            s = sess.summary
            bar = Progress(kind, total, show, lambda: {"final": s.final, "partial": s.partial, "failed": s.failed})
            entries = _publications(ctx, sess, ids, mode, store, limit, keep, bar)
        else:
            entries = _pages(ctx, sess, kind, ids, mode, store, limit, keep, Progress(kind, total, show))
        return FetchStepResult(entries=[] if mode == "db-fetch-end" else entries)
    if mode == "update-citations-count":
        from pubfetch.resources.europepmc import update_citations

        update_citations(ctx, list(ids))
        if store is not None:
            for pub in ids:
                store.put_publication(pub)
            store.commit()
        return FetchStepResult(entries=list(ids))
    return _oneoff(ctx, kind, ids, mode, extra)


def _publications(ctx: Context, sess: Session, ids: Sequence, mode: str, store: Store | None, limit: int,
                  keep: Callable[[Entry], bool] | None, progress: Progress) -> list[Entry]:
    reading = store if mode in ("db-fetch", "db-fetch-end") else None
    out: list[Entry] = []
    sess.fetched_publications = True
    stream = fetch_many((i if isinstance(i, PublicationIds) else to_ids(str(i)) for i in ids), db=reading,
                        config=ctx.config, context=ctx, progress=progress, summary=sess.summary)
    for pub in stream:
        if mode == "fetch-put" and store is not None:
            store.put_publication(pub)
            store.commit()
        if keep is not None and not keep(pub):
            continue
        if mode != "db-fetch-end":
            out.append(pub)
        if limit and len(out) >= limit:
            break
    progress.finish()
    return out


def _pages(ctx: Context, sess: Session, kind: str, urls: Sequence, mode: str, store: Store | None, limit: int,
           keep: Callable[[Entry], bool] | None, progress: Progress) -> list[Entry]:
    from pubfetch.webfetch import fetch_pages

    reading = store if mode in ("db-fetch", "db-fetch-end") else None
    out: list[Entry] = []
    for page in fetch_pages([str(u) for u in urls], kind, reading, config=ctx.config, context=ctx,
                            progress=progress):
        if mode == "fetch-put" and store is not None:
            store.put_page(kind, page)
            store.commit()
        if not page.is_final(ctx.args):
            sess.pages_not_final += 1
        if keep is not None and not keep(page):
            continue
        if mode != "db-fetch-end":
            out.append(page)
        if limit and len(out) >= limit:
            break
    progress.finish()
    return out


# ---------------------------------------------------------------------------------------------------- one-off modes


def _oneoff(ctx: Context, kind: str, ids: Sequence, mode: str, extra: Sequence[str]):
    from pubfetch.cli.network import FetchStepResult

    target = str(ids[0])
    if mode in ("fetch-document", "fetch-document-javascript", "post-document"):
        if mode == "post-document":
            if len(extra) % 2:
                raise UsageError("-post-document needs NAME VALUE pairs after the URL")
            result = ctx.client.post(target, dict(zip(extra[::2], extra[1::2], strict=True)))
        elif mode == "fetch-document-javascript":
            renderer = ctx.renderer
            if renderer is None:
                raise Unavailable("-fetch-document-javascript", "JavaScript (switched off with --no-javascript)")
            result = renderer.render(target)
        else:
            result = ctx.client.get(target)
        if not result.ok:
            raise CliError(f"fetching {target} failed: {result.kind.name} {result.message}".rstrip())
        return FetchStepResult(text=result.text if result.text is not None else result.body.decode("utf-8", "replace"))
    if mode == "fetch-webpage-selector":
        from pubfetch.webfetch import Selectors, get_webpage

        title, content, javascript = (list(extra) + ["", "", ""])[:3]
        selectors = Selectors(title or None, content or None,
                              {"true": True, "false": False}.get(javascript.lower()) if javascript else None)
        page, _ = get_webpage(ctx, None, target, selectors)
        return FetchStepResult(entries=[page])
    if mode == "print-webpage":
        from pubfetch.webfetch import get_webpage

        page, _ = get_webpage(ctx, None, target)
        return FetchStepResult(entries=[page])
    return FetchStepResult(entries=[_print_resource(ctx, mode, target)])


def _print_resource(ctx: Context, mode: str, target: str) -> Publication:
    """Fetch one publication from one resource only (PubFetcher's test operations)."""
    from pubfetch.resources import europepmc, mined, ncbi, site, unpaywall

    try:
        ids = to_ids(target) if mode != "print-site" else None
    except ValueError as e:
        raise UsageError(f"-{mode}: {e}") from None
    pub = init_publication(ids, ctx.args) if ids is not None else Publication()
    run = PubRun(pub)
    if mode == "print-europepmc":
        europepmc.fetch_search(ctx, [run])
    elif mode == "print-europepmc-xml":
        run.set(RunFlag.EPMC_HAS_FULLTEXT_XML)
        europepmc.fetch_fulltext_xml(ctx, [run])
    elif mode == "print-europepmc-mined":
        run.set(RunFlag.EPMC_HAS_MINED)
        mined.fetch_mined(ctx, [run], PartName.efo)
        mined.fetch_mined(ctx, [run], PartName.go)
    elif mode == "print-pubmed-xml":
        ncbi.fetch_pubmed_xml(ctx, [run])
    elif mode == "print-pubmed-html":
        ncbi.fetch_pubmed_html(ctx, [run])
    elif mode == "print-pmc-xml":
        ncbi.fetch_pmc_xml(ctx, [run])
    elif mode == "print-oadoi":
        unpaywall.fetch_unpaywall(ctx, [run])
    elif mode == "print-site":
        site.fetch_site(ctx, run, target, PartType.link, "", meta=True, keywords=True)
    return pub


def fetch_config(values: dict) -> FetchConfig:
    """The FetchConfig of the command-line modifiers over the config file (``--config``, ``$PUBFETCH_CONFIG`` or
    ``~/.config/pubfetch/config.yaml``) and the environment."""
    overrides: dict[str, object] = {}
    if values.get("batch-size"):
        overrides["batch_size"] = values["batch-size"]
    if values.get("connections-per-host"):
        overrides["per_host_connections"] = values["connections-per-host"]
    if values.get("allow-private-addresses"):
        overrides["allow_private_addresses"] = True
    if values.get("no-javascript"):
        overrides["javascript"] = False
    if values.get("chromium"):
        overrides["chromium"] = values["chromium"]
    if values.get("ncbi-email"):
        overrides["ncbi_email"] = values["ncbi-email"]
    if values.get("ncbi-api-key"):
        overrides["ncbi_api_key"] = values["ncbi-api-key"].strip()
    try:
        return FetchConfig.from_env(None, config_file=values.get("config"), **overrides)
    except ValueError as e:
        raise UsageError(str(e)) from None
