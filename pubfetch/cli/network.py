"""The single door from the command line to the network: every operation that fetches goes through
:func:`run_fetch_step`, so the CLI never needs to know how fetching is done (chain, batching, threads, browser).

The pipeline steps (``-fetch``, ``-fetch-put``, ``-db-fetch``, ``-db-fetch-end``), ``-update-citations-count``, the
one-off page operations (``-fetch-document``, ``-post-document``, ``-fetch-webpage-selector``, ...) and the test
operations (``-print-europepmc-xml``, ...) are all calls of this function with a different ``mode``.

The work is done in :mod:`pubfetch.cli.fetching`, within the run's network session (one HTTP client, rate limiter,
scraping rules, browser and WARC recorder for the whole command).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from pubfetch.ids import PublicationIds
from pubfetch.model import PartName, Publication, Webpage
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.store import Store

EntryKind = Literal["publications", "webpages", "docs"]

PipelineMode = Literal["fetch", "fetch-put", "db-fetch", "db-fetch-end"]
OneOffMode = Literal[
    "update-citations-count",
    "fetch-document", "fetch-document-javascript", "post-document", "fetch-webpage-selector",
    "print-europepmc-xml", "print-pmc-xml", "print-pubmed-xml",
    "print-pubmed-html", "print-europepmc", "print-europepmc-mined", "print-oadoi", "print-site", "print-webpage",
]
FetchMode = PipelineMode | OneOffMode

PIPELINE_MODES: tuple[str, ...] = get_args(PipelineMode)
FETCH_MODES: tuple[str, ...] = PIPELINE_MODES + get_args(OneOffMode)

Entry = Publication | Webpage


@dataclass
class FetchStepResult:
    """What a fetch step hands back to the CLI.

    ``entries``: the publications, webpages or docs got, in the order of ``ids`` (entries with a fetch exception are
    retried once at the end and keep their place); empty for ``db-fetch-end``, which keeps nothing in memory.
    ``text``: the raw output of the document operations (``fetch-document``, ``post-document``), printed as is.
    ``not_found``: how many IDs gave no entry (invalid, or nothing fetched), for the CLI's summary line.
    """

    entries: list[Entry] = field(default_factory=list)
    text: str | None = None
    not_found: int = 0


def run_fetch_step(
    kind: EntryKind,
    ids: Sequence[PublicationIds] | Sequence[str] | Sequence[Publication],
    mode: FetchMode,
    store: Store | None,
    fetcher_args: FetcherArgs,
    *,
    threads: int = 8,
    limit: int = 0,
    progress: bool = False,
    parts: frozenset[PartName] | None = None,
    keep: Callable[[Entry], bool] | None = None,
    extra: Sequence[str] = (),
) -> FetchStepResult:
    """Fetch (or get-and-fetch) the entries of one kind, as PubFetcher's CLI does for ``mode``.

    - ``kind``: "publications" (``ids`` are :class:`PublicationIds`), "webpages" or "docs" (``ids`` are URLs).
      For ``update-citations-count``, ``ids`` are the :class:`Publication` objects to update in place.
    - ``mode``: "fetch" (no database), "fetch-put" (put each entry into ``store`` right after fetching, ignoring
      filters), "db-fetch" (get from ``store``, fetch if ``can_fetch`` allows, put back if changed, ``threads`` at a
      time), "db-fetch-end" (as db-fetch, returning no entries), "update-citations-count" (put updated publications
      into ``store``), or a one-off mode named after its option (``fetch-document``, ``print-pubmed-xml``, ...).
    - ``store``: the open database of the modes that use one, else None.
    - ``fetcher_args``: the fetching parameters (cooldowns, retry limit, finality thresholds, timeout, user agent).
    - ``threads``: concurrent entries for db-fetch and db-fetch-end (``--threads``, default 8).
    - ``limit``: at most this many entries are returned (0: no limit); counted after ``keep``.
    - ``progress``: show progress on stderr (``--progress``).
    - ``parts``: the publication parts to fetch (``--fetch-part``/``--not-fetch-part``); None means all parts.
    - ``keep``: the content filters of ``--pre-filter``; entries it rejects are not returned (but still stored).
    - ``extra``: further arguments of one-off modes: the NAME VALUE pairs of post-document, the title selector,
      content selector and JavaScript flag ("true", "false" or "") of fetch-webpage-selector.
    """
    if mode not in FETCH_MODES:
        raise ValueError(f"unknown fetch mode '{mode}': expected one of {', '.join(FETCH_MODES)}")
    if kind not in get_args(EntryKind):
        raise ValueError(f"unknown entry kind '{kind}': expected publications, webpages or docs")
    from pubfetch.cli import fetching

    return fetching.run(kind, ids, mode, store, fetcher_args, threads=threads, limit=limit, progress=progress,
                        parts=parts, keep=keep, extra=extra)
