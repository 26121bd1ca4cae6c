"""``pubfetch.search``: a query's hits as a lazy stream of IDs, for library users.

The call assembles its own run (:class:`~pubfetch.engine.assembly.FetchRun`: the client, its retries and the rate
limits shared with every other pubfetch process) from the environment and its keyword options, as ``fetch_many``
does, and closes it when the stream ends or is dropped.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

from pubfetch.config import FetchConfig
from pubfetch.engine.assembly import FetchRun
from pubfetch.ids import PublicationIds
from pubfetch.resources.base import Context
from pubfetch.searching.base import SOURCES, Search, Source
from pubfetch.searching.europepmc import EuropePmcSearch
from pubfetch.searching.pubmed import PubMedSearch

__all__ = ["as_day", "open_search", "search"]


def as_day(value: date | datetime | str | None, what: str = "since") -> date | None:
    """A day given as a date, a datetime (its UTC day when it has a zone) or ISO text (``2024-03-01``)."""
    if value is None or (isinstance(value, date) and not isinstance(value, datetime)):
        return value
    if isinstance(value, datetime):
        return value.date()
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        raise ValueError(f"{what} must be a date such as 2024-03-01, got {value!r}") from None


def open_search(ctx: Context, source: Source | str, query: str, *, since: date | None = None,
                until: date | None = None, preprints: bool = True, synonyms: bool = False) -> Search:
    """The search of ``query`` at ``source`` (``europepmc`` or ``pubmed``) in a run's context; nothing is asked yet.
    ``preprints=False`` leaves out Europe PMC's preprints (PubMed's query syntax says that itself:
    ``NOT preprint[pt]``); ``synonyms=True`` has Europe PMC expand the terms with their synonyms (PubMed maps terms
    itself)."""
    if not query.strip():
        raise ValueError("the search query is empty")
    if source == "europepmc":
        return EuropePmcSearch(ctx, query, preprints=preprints, since=since, until=until, synonyms=synonyms)
    if source == "pubmed":
        return PubMedSearch(ctx, query, since=since, until=until)
    raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")


def search(query: str, source: Source | str = "europepmc", since: date | datetime | str | None = None, *,
           until: date | datetime | str | None = None, preprints: bool = True, synonyms: bool = False,
           config: FetchConfig | None = None, **options: object) -> Iterator[PublicationIds]:
    """Every hit of ``query`` at ``source``, yielded as it is got: each publication's PMID, PMCID and DOI together.

    Args:
        query: the service's own query syntax.
        source: ``"europepmc"`` (cursor paging, 1,000 a page) or ``"pubmed"`` (esearch with the history server,
            split by Entrez date beyond 9,999 hits).
        since, until: only records created (Europe PMC) or entered (PubMed) on these days or between them.
        preprints: False leaves Europe PMC's preprints (``SRC:PPR``) out.
        synonyms: Europe PMC expands the terms with their synonyms, as its web site does.
        config: the run's configuration (default: the environment and the config file).
        options: settings by name (``ncbi_api_key=...``, ``rate_limits=False``), as ``fetch_many`` takes them.

    Raises at once ``ValueError`` for an empty query, an unknown source or a bad date (``TypeError`` for an unknown
    option); from the iteration, where the IDs stop, :class:`~pubfetch.searching.SearchError`: a page that could not
    be got after the client's retries (``SearchIncomplete``), fewer hits than announced (``SearchShortfall``), a day
    of PubMed over 9,999 hits (``DayOverLimit``).
    """
    first, last = as_day(since), as_day(until, "until")
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    if not query.strip():
        raise ValueError("the search query is empty")
    cfg = (config or FetchConfig.from_env()).with_options(dict(options), "search", none_keeps=True)
    return _hits(cfg, source, query, since=first, until=last, preprints=preprints, synonyms=synonyms)


def _hits(config: FetchConfig, source: Source | str, query: str, **how: Any) -> Iterator[PublicationIds]:
    """The search's IDs in a run of its own, closed when they end or the stream is dropped."""
    with FetchRun(config) as run:
        yield from open_search(run.context, source, query, **how)
