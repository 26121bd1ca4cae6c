"""Queries to ID streams: every hit of a Europe PMC query (cursor paging) or a PubMed query (esearch with the history
server, split by date beyond 9,999 hits), counted against what the service announced; pure of storage (saved searches
live in the store, update runs in the command line)."""

from __future__ import annotations

from pubfetch.searching.base import (
    SOURCE_NAMES,
    SOURCES,
    DayOverLimit,
    Identified,
    Search,
    SearchError,
    SearchIncomplete,
    SearchShortfall,
    Source,
)
from pubfetch.searching.europepmc import EuropePmcSearch
from pubfetch.searching.library import as_day, open_search, search
from pubfetch.searching.pubmed import PubMedSearch

__all__ = ["SOURCES", "SOURCE_NAMES", "DayOverLimit", "EuropePmcSearch", "Identified", "PubMedSearch", "Search",
           "SearchError", "SearchIncomplete", "SearchShortfall", "Source", "as_day", "open_search", "search"]
