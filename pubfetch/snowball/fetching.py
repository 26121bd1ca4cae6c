"""A fetch run's snowball: the run's database opened once for every level (held against other fetching runs, as a
run opening it itself does), each level fetched through :meth:`~pubfetch.engine.assembly.FetchRun.fetch`, the
progress counted on across levels."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import replace

from pubfetch.engine.assembly import DbLike, FetchRun
from pubfetch.engine.options import FetchOptions
from pubfetch.engine.run_batch import IdsLike, valid_ids
from pubfetch.engine.summary import BatchSummary
from pubfetch.ids import PublicationIds
from pubfetch.model.publication import Publication
from pubfetch.snowball.walk import SnowballPlan, snowball
from pubfetch.store import Store, open_or_init_store

__all__ = ["snowball_fetch"]


def snowball_fetch(run: FetchRun, ids: Iterable[IdsLike], db: DbLike, plan: SnowballPlan,
                   options: FetchOptions) -> Iterator[Publication]:
    """The publications of ``ids`` and of ``plan``'s links from them, as ``options`` ask (see
    :func:`pubfetch.fetcher.fetch_many`)."""
    counted = options.summary if options.summary is not None else BatchSummary()
    seeds = list(valid_ids(list(ids), options.errors))
    with ExitStack() as stack:
        store = _held(stack, db)
        done = 0
        progress = options.progress

        def shown(n: int, pub: Publication) -> None:
            if progress is not None:
                progress(done + n, pub)

        level_options = replace(options, progress=shown, summary=counted)

        def fetch_level(level: list[PublicationIds]) -> Iterator[Publication]:
            nonlocal done
            yield from run.fetch(level, store, level_options)
            done += len(level)

        yield from snowball(run.context, seeds, plan, fetch_level, store=store, summary=counted, edges=options.edges)


def _held(stack: ExitStack, db: DbLike) -> Store | None:
    """The store of ``db``, opened for the whole snowball when given as a path and held for this run."""
    if db is None or isinstance(db, Store):
        return db
    store = open_or_init_store(db)
    stack.callback(store.close)
    stack.enter_context(store.fetch_run())
    return store
