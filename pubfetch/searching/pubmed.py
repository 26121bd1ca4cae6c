"""A PubMed query, every hit: esearch with the history server, split by Entrez date until every range fits.

esearch hands out at most 9,999 IDs of one query (``retstart`` cannot pass 9,998), however it is paged; a larger
query asked as is loses the rest without a word. So the query is asked first whole (its ``Count`` is the total to
reach); when that is over 9,999 it is asked again over ranges of Entrez dates (``datetype=edat``, ``mindate``,
``maxdate``), each range over 9,999 split again in proportion to its count, until every range fits. Each range's
esearch (``usehistory=y``, ``retmax`` 9,999) gives its PMIDs and its place on the history server (``WebEnv``,
``query_key``), from which esummary is read in batches for the PMCIDs and DOIs. A single day of more than 9,999 hits
cannot be split and is an error naming the day; the PMIDs of all the ranges together are checked against the whole
query's ``Count``.

The Entrez date is when a record entered PubMed: it never changes (the modification date does, and the publication
date can lie years before the record existed or after it), so the ranges of a query, and an update run's ``since``,
select the same records each time they are asked.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime

from pubfetch.extract.errors import ParseError
from pubfetch.extract.searchpages import EsearchAnswer, parse_esearch, parse_esummary_ids
from pubfetch.ids import PublicationIds
from pubfetch.resources.base import Context
from pubfetch.resources.ncbi import eutils_call
from pubfetch.searching.base import DayOverLimit, Identified, read_answer, settle
from pubfetch.searching.dates import DayRange, eutils_date

log = logging.getLogger(__name__)

__all__ = ["FIRST_DAY", "RETMAX", "SUMMARY_BATCH", "PubMedSearch"]

#: The most IDs esearch hands out for one query.
RETMAX = 9999
#: DocSums asked of esummary at a time (a DocSum is about 2 kB: a megabyte an answer).
SUMMARY_BATCH = 500
#: Before PubMed's oldest Entrez date: where a split of an open range starts.
FIRST_DAY = date(1700, 1, 1)
#: A range is split into parts of about this many hits (below RETMAX, as the hits are not spread evenly).
_PART_TARGET = 0.6 * RETMAX
#: Queries longer than this are POSTed.
_LONG_TERM = 1500


@dataclass
class _Siblings:
    """The parts of one split range: its hits not found yet in the parts asked, and how many parts are not asked."""

    left: int
    parts: int


class PubMedSearch:
    """Every hit of a PubMed query (see the module docstring).

    Args:
        ctx: the run's context (its client waits for NCBI's rate limit and retries failed requests).
        query: PubMed's query syntax (``"hart rk"[author] AND 2020:2024[dp]``).
        since, until: only records that entered PubMed on these days or between them (update runs).
        today: the last day of an open range (default: today, UTC).
    """

    def __init__(self, ctx: Context, query: str, *, since: date | None = None, until: date | None = None,
                 today: date | None = None) -> None:
        self.ctx = ctx
        self.term = query
        last = until or today or datetime.now(UTC).date()
        self.whole: DayRange | None = DayRange(since, last) if since is not None else None
        self.open_end = last
        shown = query if self.whole is None else f"{query} (entered {self.whole})"
        self.identified = Identified("pubmed", shown)
        self._first: EsearchAnswer | None = None

    def count(self) -> int:
        """The whole query's count, from its first esearch (which gives its IDs too when they fit)."""
        if self._first is None:
            self._first = self._esearch(self.whole)
            self.identified.hit_count = self._first.count
        return self._first.count

    def __iter__(self) -> Iterator[PublicationIds]:
        total = self.count()
        tally = self.identified
        first = self._first
        assert first is not None
        if total <= RETMAX:
            yield from self._summarised(first)
        else:
            yield from self._split(DayRange(FIRST_DAY, self.open_end) if self.whole is None else self.whole, total)
        settle(tally, total, "counted")

    def _split(self, whole: DayRange, total: int) -> Iterator[PublicationIds]:
        """The hits of a range of more than 9,999, range by range, newest first. The parts of a split range are asked
        newest first, and the count of the range they split is known: once the parts asked hold all of it, the older
        ones are not asked (most queries' hits lie in recent years, and the split starts in 1700), and the count of
        the last part is the rest (a last part over 9,999 is split without asking its count)."""
        todo: list[tuple[DayRange, _Siblings]] = [(whole, _Siblings(total, 1))]
        while todo:
            span, siblings = todo.pop()
            siblings.parts -= 1
            if siblings.left <= 0:
                continue
            if siblings.parts == 0 and siblings.left > RETMAX and span.days > 1:
                count = siblings.left
            else:
                answer = self._esearch(span)
                siblings.left -= answer.count
                if answer.count <= RETMAX:
                    yield from self._summarised(answer)
                    continue
                if span.days == 1:
                    raise DayOverLimit(f"PubMed holds {answer.count:,} hits entered on {span.first} for "
                                       f"{self.term!r}, more than esearch hands out for one query ({RETMAX:,}); "
                                       "narrow the query", self.identified, span.first, answer.count)
                count = answer.count
            parts = span.split(math.ceil(count / _PART_TARGET))
            log.info("PubMed: %d hits entered %s: split into %d ranges", count, span, len(parts))
            group = _Siblings(count, len(parts))
            todo.extend((part, group) for part in parts)  # popped newest first

    def _summarised(self, answer: EsearchAnswer) -> Iterator[PublicationIds]:
        """The PMIDs of a range, each with the PMCID and DOI its esummary DocSum gives (PMIDs alone where esummary
        fails: the PMIDs are what the search is about, and fetching finds the rest)."""
        tally = self.identified
        for start in range(0, len(answer.pmids), SUMMARY_BATCH):
            pmids = answer.pmids[start:start + SUMMARY_BATCH]
            known = {ids.pmid: ids for ids in self._esummary(answer, start, len(pmids))}
            tally.retrieved += len(pmids)
            tally.publications += len(pmids)
            for pmid in pmids:
                yield known.get(pmid) or PublicationIds(pmid)

    def _esearch(self, span: DayRange | None) -> EsearchAnswer:
        params = {"db": "pubmed", "term": self.term, "usehistory": "y", "retmax": str(RETMAX), "retstart": "0"}
        if span is not None:
            params.update(datetype="edat", mindate=eutils_date(span.first), maxdate=eutils_date(span.last))
        result = eutils_call(self.ctx, "esearch.fcgi", params, long=len(self.term) > _LONG_TERM)
        where = "" if span is None else f" (entered {span})"
        return read_answer(result, parse_esearch, self.identified,
                           f"PubMed search stopped after {self.identified.retrieved:,} hits", f"esearch{where}")

    def _esummary(self, answer: EsearchAnswer, start: int, size: int) -> list[PublicationIds]:
        if not answer.web_env or not answer.query_key:
            return []
        params = {"db": "pubmed", "query_key": answer.query_key, "WebEnv": answer.web_env, "retstart": str(start),
                  "retmax": str(size)}
        result = eutils_call(self.ctx, "esummary.fcgi", params)
        if result.ok:
            try:
                return parse_esummary_ids(result.text or result.body)
            except ParseError as e:
                log.warning("PubMed esummary answer unreadable (%s): %d PMIDs kept without PMCID or DOI", e, size)
                return []
        log.warning("PubMed esummary failed (%s): %d PMIDs kept without PMCID or DOI", result.brief(), size)
        return []
