"""The task a worker runs: fetch one batch of publications into the shared database.

A batch is walked through the chain together exactly as in a single process (``fetch_many`` with the batch as one
chain batch), so the batchable services (Europe PMC search, efetch, annotations) are asked once per batch, as they
would be by one process. The task is idempotent: an entry the database already holds complete enough is not fetched
again (the fetcher's can-fetch rules), so a batch delivered twice, after a worker was killed, only finishes what the
first delivery left undone; every entry is written in its own transaction.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
from typing import Any

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds

log = logging.getLogger(__name__)

#: The worker's own defaults, set by ``pubfetch worker`` before it starts taking tasks.
WORKER_ENV_DB = "PUBFETCH_WORKER_DB"
WORKER_ENV_RATE_DB = "PUBFETCH_WORKER_RATE_DB"
WORKER_ENV_ALLOW_PRIVATE = "PUBFETCH_WORKER_ALLOW_PRIVATE_ADDRESSES"


def encode_summary(summary: Any) -> dict[str, Any]:
    """A batch's :class:`~pubfetch.fetcher.BatchSummary` as JSON: its counts, and its sets as sorted lists (what else it
    carries for the process that made it, such as live request counters, stays behind)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(summary):
        value = getattr(summary, f.name)
        if isinstance(value, set):
            out[f.name] = sorted(value)
        elif isinstance(value, int):
            out[f.name] = value
    return out


def add_summary(into: Any, counts: dict[str, Any]) -> None:
    """Add a batch's counts (from :func:`encode_summary`) to a job's summary: counts add up, the time a retry is
    possible is the latest of the batches', the options that allow one are all of theirs."""
    for f in dataclasses.fields(into):
        value, current = counts.get(f.name), getattr(into, f.name)
        if value is None or not isinstance(current, set | int):
            continue
        if isinstance(current, set):
            current.update(value)
        elif f.name == "eligible_at":
            setattr(into, f.name, max(current, int(value)))
        else:
            setattr(into, f.name, current + int(value))


def encode_ids(ids: PublicationIds) -> list[str]:
    return list(ids.ids)


def encode_options(args: FetcherArgs | None, parts: list[str] | None) -> dict[str, Any]:
    """The fetching parameters of a job, as JSON for the task messages."""
    return {"args": dataclasses.asdict(args) if args is not None else None, "parts": parts}


@functools.cache
def _config() -> Any:
    """The worker process's configuration (endpoints and keys from its environment) with the shared rate limits:
    ``--rate-db`` of the worker, which defaults to the broker's Redis, so every worker of a cluster shares them."""
    from pubfetch.config import FetchConfig
    from pubfetch.net.ratelimit import ServiceMap, default_limits
    from pubfetch.net.ratelimit_redis import shared_limiter

    cfg = FetchConfig.from_env()
    limiter = shared_limiter(os.environ.get(WORKER_ENV_RATE_DB) or None, default_limits(bool(cfg.ncbi_api_key)))
    overrides = cfg.http_overrides.copy()
    overrides["rate_limiter"] = limiter
    overrides["rate_key"] = ServiceMap.for_endpoints(cfg.endpoints).key
    private = os.environ.get(WORKER_ENV_ALLOW_PRIVATE) == "1"
    return cfg.replace(http_overrides=overrides, allow_private_addresses=private or cfg.allow_private_addresses)


def fetch_batch(ids: list[list[str]], db: str | None, options: dict[str, Any]) -> dict[str, Any]:
    """Fetch ``ids`` (each ``[pmid, pmcid, doi]``) into the database ``db`` (else the worker's ``--db``); return the
    batch's counts (a :class:`~pubfetch.fetcher.BatchSummary` as a dict)."""
    from pubfetch.fetcher import BatchSummary, fetch_many

    target = db or os.environ.get(WORKER_ENV_DB)
    if not target:
        raise ValueError("no database: give the job one (-db-fetch) or the worker one (--db)")
    args = FetcherArgs(**options["args"]) if options.get("args") else None
    summary = BatchSummary()
    pubs = fetch_many([PublicationIds(*i) for i in ids], db=target, args=args, parts=options.get("parts"),
                      config=_config(), summary=summary, batch_size=max(1, len(ids)))
    for _ in pubs:
        pass
    log.info("batch of %d done: %d fetched, %d already complete", len(ids), summary.fetched, summary.skipped)
    return encode_summary(summary)
