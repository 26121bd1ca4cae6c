"""What every search shares: the count of what it identified, the ways it can fail, and the shape of a search.

A search announces its hit count before it hands out any ID (so that a caller can refuse a query that is too broad
before anything is fetched), then yields the publications it found lazily, each hit's PMID, PMCID and DOI together.
Whatever goes wrong after the first ID is an exception raised where the IDs stop, carrying how far it got: the IDs
handed out by then are the caller's to keep, and the caller can tell an incomplete search from a complete one.
:class:`Identified` is the record of one search that a run summary or a PRISMA table shows ("identified" per source
and query).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Literal, Protocol, TypeVar

from pubfetch.extract.errors import ParseError
from pubfetch.ids import PublicationIds
from pubfetch.net.outcome import FetchResult

T = TypeVar("T")
log = logging.getLogger(__name__)

__all__ = ["DayOverLimit", "Identified", "Search", "SearchError", "SearchIncomplete", "SearchShortfall", "Source",
           "SOURCES", "SOURCE_NAMES"]

Source = Literal["europepmc", "pubmed"]
SOURCES: tuple[Source, ...] = ("europepmc", "pubmed")
SOURCE_NAMES: dict[str, str] = {"europepmc": "Europe PMC", "pubmed": "PubMed"}


@dataclass
class Identified:
    """What one search identified: the row a run summary (and a PRISMA flow diagram) shows for a source and query.

    Attributes:
        source: ``europepmc`` or ``pubmed``.
        query: the query as sent (with its date range and preprint clause, when it has them).
        hit_count: the service's count of hits (None until the first answer).
        retrieved: hits handed out so far (those without a usable ID included).
        publications: publications handed out (hits with a PMID, PMCID or DOI).
        without_ids: hits without a usable ID, as ``SOURCE:id`` (a preprint known only by its PPR id).
        complete: every hit was retrieved.
    """

    source: Source
    query: str
    hit_count: int | None = None
    retrieved: int = 0
    publications: int = 0
    without_ids: list[str] = field(default_factory=list)
    complete: bool = False

    @property
    def name(self) -> str:
        return SOURCE_NAMES[self.source]

    def line(self) -> str:
        """One sentence for the console."""
        count = "?" if self.hit_count is None else f"{self.hit_count:,}"
        state = "" if self.complete else f", stopped after {self.retrieved:,}"
        without = f", {len(self.without_ids):,} without a PMID, PMCID or DOI" if self.without_ids else ""
        return f"{self.name} search: {count} hits{state}{without} ({self.query})"


class SearchError(Exception):
    """A search that did not hand out every hit; ``identified`` says how far it got."""

    def __init__(self, message: str, identified: Identified) -> None:
        super().__init__(message)
        self.identified = identified


class SearchIncomplete(SearchError):
    """A page of hits could not be got (after the client's retries), or its answer could not be read."""


class SearchShortfall(SearchError):
    """The service handed out fewer hits than it announced."""


class DayOverLimit(SearchError):
    """A single day of a PubMed query holds more hits than esearch hands out (9,999), so no date split can fit."""

    def __init__(self, message: str, identified: Identified, day: date, count: int) -> None:
        super().__init__(message, identified)
        self.day = day
        self.count = count


def settle(identified: Identified, total: int, what: str) -> None:
    """The end of a search's hits: fewer than the ``total`` announced is a :class:`SearchShortfall`; more (records
    added while it ran) are kept, with a warning; then it is complete."""
    got = identified.retrieved
    if got < total:
        raise SearchShortfall(f"{identified.name} handed out {got:,} of the {total:,} hits it {what} for "
                              f"{identified.query!r}; run the search again later", identified)
    if got > total:
        log.warning("%s handed out %d hits for %r, more than the %d it %s (records added meanwhile); all are kept",
                    identified.name, got, identified.query, total, what)
    identified.complete = True


def read_answer(result: FetchResult, parse: Callable[[str | bytes], T], identified: Identified, stopped: str,
                what: str) -> T:
    """The parsed answer of a search request, or :class:`SearchIncomplete` saying where the search ``stopped`` and
    which ``what`` (a page, an esearch range) failed (after the client's retries) or could not be read."""
    if not result.ok:
        raise SearchIncomplete(f"{stopped}: {what} failed ({result.brief()}); run the search again later", identified)
    try:
        return parse(result.text or result.body)
    except ParseError as e:
        raise SearchIncomplete(f"{stopped}: {what} could not be read ({e})", identified) from None


class Search(Protocol):
    """A query at one service: :meth:`count` asks for the first answer (the hit count); iterating yields the
    publications found, lazily, and raises a :class:`SearchError` where it stops short."""

    identified: Identified

    def count(self) -> int: ...

    def __iter__(self) -> Iterator[PublicationIds]: ...
