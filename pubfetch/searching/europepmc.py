"""A Europe PMC query, every hit: ``cursorMark`` paging to the end, 1,000 IDs a page (``resultType=idlist``).

Europe PMC's search pages by cursor: each answer names the cursor of the next page, and the last page is the one that
brings the count of hits handed out up to ``hitCount`` (after it, the service answers the same cursor with an empty
page, a request this client saves). Page numbers are not a parameter of the search (a client sending ``page=2`` gets
the first page again), so a cursor is the only way to every hit. The number of hits retrieved is compared with
``hitCount``: fewer is a :class:`~pubfetch.searching.base.SearchShortfall`, never a silent end.

Update runs ask for ``CREATION_DATE`` ranges: a record's creation date in Europe PMC never changes, so the same range
asked again gives the same records (``INDEX_DATE`` moves whenever a record is indexed again, and ``FIRST_PDATE`` can lie
before the record existed), which is what Pub2Tools relies on for its month-by-month reruns.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from pubfetch.extract.searchpages import HitPage, parse_idlist_page
from pubfetch.ids import PublicationIds
from pubfetch.resources.base import Context
from pubfetch.resources.europepmc import MAX_GET_QUERY
from pubfetch.searching.base import Identified, read_answer, settle

__all__ = ["PAGE_SIZE", "EuropePmcSearch", "europepmc_query"]

#: The largest page Europe PMC's search hands out.
PAGE_SIZE = 1000
#: A date no creation date reaches: the open end of a range ``since`` an update run's date.
_OPEN_END = "3000-12-31"


def europepmc_query(query: str, *, preprints: bool = True, since: date | None = None,
                    until: date | None = None) -> str:
    """The query as sent: ``query`` alone, or in parentheses with the preprint exclusion (``SRC:PPR``, Europe PMC's
    preprint source) and the creation-date range."""
    clauses = []
    if not preprints:
        clauses.append("NOT SRC:PPR")
    if since is not None or until is not None:
        start = since.isoformat() if since is not None else "1000-01-01"
        end = until.isoformat() if until is not None else _OPEN_END
        clauses.append(f"AND CREATION_DATE:[{start} TO {end}]")
    return f"({query}) " + " ".join(clauses) if clauses else query


class EuropePmcSearch:
    """Every hit of a Europe PMC query (see the module docstring).

    Args:
        ctx: the run's context (its client waits for Europe PMC's rate limits and retries failed requests).
        query: Europe PMC's query syntax (``TITLE:"..." AND PUB_YEAR:2024``).
        preprints: keep preprints (``SRC:PPR``) among the hits; False excludes them.
        synonyms: expand the query's terms with their synonyms, as Europe PMC's web site does (the REST search does
            not by default, so without it a query can have fewer hits than the web site shows).
        since, until: only records created in Europe PMC on these days or between them (update runs).
    """

    def __init__(self, ctx: Context, query: str, *, preprints: bool = True, since: date | None = None,
                 until: date | None = None, synonyms: bool = False) -> None:
        self.ctx = ctx
        self.synonyms = synonyms
        self.query = europepmc_query(query, preprints=preprints, since=since, until=until)
        self.identified = Identified("europepmc", self.query)
        self._first: HitPage | None = None

    def count(self) -> int:
        """The hit count, from the first page (which iterating then starts with rather than asking again)."""
        if self._first is None:
            self._first = self._page("*")
            self.identified.hit_count = self._first.hit_count
        return self._first.hit_count or 0

    def __iter__(self) -> Iterator[PublicationIds]:
        total = self.count()
        tally = self.identified
        page, cursor = self._first, "*"
        assert page is not None
        while True:
            tally.retrieved += page.hits
            tally.publications += len(page.ids)
            tally.without_ids.extend(page.without_ids)
            yield from page.ids
            if not page.hits or not page.next_cursor or page.next_cursor == cursor or tally.retrieved >= total:
                break
            cursor = page.next_cursor
            page = self._page(cursor)
        settle(tally, total, "announced")

    def _page(self, cursor: str) -> HitPage:
        params = {"query": self.query, "resultType": "idlist", "pageSize": str(PAGE_SIZE), "format": "json",
                  "cursorMark": cursor}
        if self.synonyms:
            params["synonym"] = "TRUE"
        if self.ctx.args.europepmc_email:
            params["email"] = self.ctx.args.europepmc_email
        client, base = self.ctx.client, self.ctx.endpoints.europepmc
        headers = {"Accept": "application/json"}
        if len(self.query) > MAX_GET_QUERY:
            result = client.post(base + "searchPOST", params, headers=headers)
        else:
            result = client.get(base + "search", params=params, headers=headers)
        got, count = self.identified.retrieved, self.identified.hit_count
        of = "" if count is None else f" of {count:,}"
        return read_answer(result, parse_idlist_page, self.identified,
                           f"Europe PMC search stopped after {got:,}{of} hits", f"the page at cursor {cursor}")
