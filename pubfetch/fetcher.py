"""The library's front door: fetch publications (one, or a stream of many), webpages and docs, with or without a
database.

PubFetcher's getPublication consults the database, fetches when can_fetch allows, and stores. The same here, but
``fetch_many`` does it for a stream of IDs in batches: IDs are read lazily, each batch is walked through the resource
chain together, written to the database (one transaction per entry) and yielded; memory stays flat for any number of
IDs and a killed run re-run with the same arguments skips what is already complete.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, TypeVar, Unpack

from pubfetch import ids as idmod
from pubfetch.chain import fetch_publications
from pubfetch.config import FetchConfig, FetchOptions
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.resources.base import Context
from pubfetch.resources.europepmc import update_citations
from pubfetch.store import Store, open_or_init_store

if TYPE_CHECKING:
    from pubfetch.net.counts import RequestCounts

log = logging.getLogger(__name__)

IdsLike = str | idmod.PublicationIds
DbLike = str | os.PathLike[str] | Store | None
Progress = Callable[[int, Publication], None]
T = TypeVar("T", idmod.PublicationIds, Publication)


@dataclass
class BatchSummary:
    """How a run ended: counts of entries by outcome (what the CLI's summary line and exit status report).

    ``failed`` entries got nothing usable or ended with a transient failure (fetchException); ``partial`` ones are
    neither final nor failed. ``retry_limited`` entries are incomplete and used up their retries: a re-run skips them
    until ``eligible_at`` (epoch ms), or at once with the cooldown options of ``eligible_options`` set to 0.
    """

    total: int = 0
    fetched: int = 0
    skipped: int = 0
    final: int = 0
    not_final: int = 0
    fetch_exception: int = 0
    empty: int = 0
    failed: int = 0
    retry_limited: int = 0
    eligible_at: int = 0
    eligible_options: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        #: requests, failures and 429s per host of the client that fetched (set by fetch_many; for the run report).
        #: Not a field: the counts are plain numbers that dataclasses.asdict turns into JSON for the distributed
        #: workers, and these live counters are neither copyable nor JSON.
        self.requests: RequestCounts | None = None

    @property
    def partial(self) -> int:
        return self.not_final - self.failed

    def count(self, pub: Publication, args: FetcherArgs, fetched: bool) -> None:
        self.total += 1
        if fetched:
            self.fetched += 1
        else:
            self.skipped += 1
        if pub.is_final(args):
            self.final += 1
        else:
            self.not_final += 1
            if pub.state.fetch_exception or pub.is_empty():
                self.failed += 1
            if not pub.state.can_fetch(pub, args):
                self._retry_limited(pub.state.eligible_again(pub, args))
        if pub.state.fetch_exception:
            self.fetch_exception += 1
        if pub.is_empty():
            self.empty += 1

    def _retry_limited(self, eligible: tuple[int, str] | None) -> None:
        self.retry_limited += 1
        if eligible is not None:
            at, option = eligible
            self.eligible_at = min(self.eligible_at, at) if self.eligible_at else at
            self.eligible_options.add(option)

    def line(self) -> str:
        """The line that closes a fetching run: ``37 publications: 30 fetched, 7 skipped; 24 final, 13 partial, 0
        failed``, and when some reached the retry limit, when they become eligible again."""
        text = (f"{self.total} publications: {self.fetched} fetched, {self.skipped} skipped; {self.final} final, "
                f"{self.partial} partial, {self.failed} failed")
        if self.retry_limited:
            text += f"; {self.retry_limited} reached the retry limit"
            if self.eligible_at:
                when = datetime.fromtimestamp(self.eligible_at / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
                options = " ".join(f"{o} 0" for o in sorted(self.eligible_options))
                text += f"; eligible again after {when} or with {options}"
        return text


def to_ids(value: IdsLike) -> idmod.PublicationIds:
    """A PMID, PMCID, DOI (or a link to one) or PublicationIds, as PublicationIds; InvalidId (a ValueError) says why
    a string is none of them."""
    if isinstance(value, idmod.PublicationIds):
        return value
    return idmod.classify(str(value))


def init_publication(ids: idmod.PublicationIds, args: FetcherArgs) -> Publication:
    """A new publication holding the given IDs as ``external`` parts (PubFetcher's initPublication)."""
    pub = Publication()
    pub.set_pmid(ids.pmid, PartType.external, ids.pmid_url, args)
    pub.set_pmcid(ids.pmcid, PartType.external, ids.pmcid_url, args)
    pub.set_doi(ids.doi, PartType.external, ids.doi_url, args)
    if pub.id_count() < 1:
        raise ValueError(f"no valid ID in {ids}")
    return pub


def _config(config: FetchConfig | None, args: FetcherArgs | None, parts: Iterable[PartName | str] | None,
            options: FetchOptions, caller: str) -> FetchConfig:
    """The run's configuration: ``config`` (default: from the config file and environment), then the call's
    ``args``, ``parts`` and keyword options."""
    cfg = (config or FetchConfig.from_env()).with_options(options, caller)
    return cfg.with_options({"args": args, "parts": None if parts is None else frozenset(
        p if isinstance(p, PartName) else PartName.parse(p) for p in parts)}, caller)


def _open(stack: ExitStack, db: DbLike) -> Store | None:
    if db is None or isinstance(db, Store):
        return db
    store = open_or_init_store(db)
    stack.callback(store.close)
    return store


def fetch_many(
    ids: Iterable[IdsLike],
    db: DbLike = None,
    parts: Iterable[PartName | str] | None = None,
    args: FetcherArgs | None = None,
    *,
    config: FetchConfig | None = None,
    context: Context | None = None,
    progress: Progress | None = None,
    summary: BatchSummary | None = None,
    retry_exceptions: bool = True,
    use_stored: bool = True,
    **options: Unpack[FetchOptions],
) -> Iterator[Publication]:
    """Fetch publications for a stream of IDs, yielding each when its batch is done (in input order within a batch).

    Args:
        ids: PMIDs, PMCIDs, DOIs (or their URLs), or PublicationIds; read lazily.
        db: a database path/URL or open Store: entries are read from it, fetched only when can_fetch allows, and
            written back after each batch. Without a database every publication is fetched.
        parts: fetch only these parts (PubFetcher's --fetch-part).
        args: PubFetcher's fetching parameters.
        config: everything else (endpoints, credentials, threads, batch size); default from the environment.
        progress: called with (number done, publication) after each one.
        summary: filled in as publications complete.
        retry_exceptions: fetch entries that ended with fetchException once more at the end (PubFetcher's final retry).
        use_stored: read entries from ``db`` (off: every publication is fetched afresh and written to ``db``, as
            PubFetcher's -fetch-put does).
        options: FetchConfig fields to override (``threads=4``, ``batch_size=1``, ...).
    """
    cfg = _config(config, args, parts, options, "fetch_many")
    with ExitStack() as stack:
        store = _open(stack, db)
        ctx = context or stack.enter_context(Context(cfg))
        if summary is not None and summary.requests is None:
            summary.requests = ctx.client.counts
        done = 0
        retry: list[Publication] = []

        def finish(pub: Publication, fetched: bool) -> Publication:
            nonlocal done
            done += 1
            if summary is not None:
                summary.count(pub, ctx.args, fetched)
            if progress is not None:
                progress(done, pub)
            return pub

        iterator = iter(ids)
        while True:
            batch = list(islice(iterator, cfg.batch_size))
            if not batch:
                break
            loaded = [_load(store if use_stored else None, to_ids(i), ctx.args) for i in batch]
            for pub, fetched in _fetch_batch(ctx, store, loaded):
                if fetched and pub.state.fetch_exception and retry_exceptions:
                    retry.append(pub)
                else:
                    yield finish(pub, fetched)
        if retry:
            log.info("retrying %d publications that ended with a fetch exception", len(retry))
            for start in range(0, len(retry), cfg.batch_size):
                for pub, fetched in _fetch_batch(ctx, store, retry[start:start + cfg.batch_size]):
                    yield finish(pub, fetched)


def _load(store: Store | None, ids: idmod.PublicationIds, args: FetcherArgs) -> Publication:
    pub = store.get_publication(ids) if store is not None else None
    return pub if pub is not None else init_publication(ids, args)


def _fetch_batch(ctx: Context, store: Store | None, batch: list[Publication]) -> list[tuple[Publication, bool]]:
    """Fetch the publications can_fetch allows, store them, return (publication, fetched) in input order."""
    args = ctx.args
    entries: list[tuple[Publication, bool]] = []
    to_fetch: list[Publication] = []
    for pub in batch:
        fetched = pub.state.can_fetch(pub, args)
        if fetched:
            pub.state.update_counters(pub, args)
            to_fetch.append(pub)
        entries.append((pub, fetched))
    if to_fetch:
        fetch_publications(ctx, to_fetch)
        if store is not None:
            for pub in to_fetch:
                store.put_publication(pub)
            store.commit()
    return entries


def fetch(
    id_or_ids: IdsLike,
    db: DbLike = None,
    parts: Iterable[PartName | str] | None = None,
    args: FetcherArgs | None = None,
    *,
    config: FetchConfig | None = None,
    **options: Unpack[FetchOptions],
) -> Publication:
    """One publication, from the database when it holds a complete enough entry: ``fetch("10.1093/nar/gkz369")``."""
    pubs = list(fetch_many([id_or_ids], db=db, config=_config(config, args, parts, options, "fetch")))
    return pubs[0]


# --- writing publications: this module is the only one that does (webfetch writes pages) ---------------------------


def put_publications(store: Store, pubs: Iterable[Publication]) -> int:
    """Put publications into a database as they are (PubFetcher's -put); return how many could not be put."""
    failed = sum(1 for pub in pubs if not store.put_publication(pub))
    store.commit()
    return failed


def remove_publications(store: Store, ids: Iterable[T]) -> list[T]:
    """Remove publications from a database (PubFetcher's -remove, -remove-ids); return the IDs that were not there."""
    missing = [i for i in ids if not store.remove_publication(i)]
    store.commit()
    return missing


def update_citations_count(pubs: Sequence[Publication], store: Store | None, *, context: Context) -> int:
    """Refresh the citation counts of publications from Europe PMC and put them all into ``store`` when given
    (PubFetcher's -update-citations-count); return how many counts changed."""
    updated = update_citations(context, pubs)
    if store is not None:
        put_publications(store, pubs)
    return updated
