"""The searches of the pipeline's first step: ``-search-europepmc``, ``-search-pubmed`` and ``-search-update`` add the
IDs of every hit of a query, as ``-pub`` adds the IDs given on the command line.

Each search says its hit count on stderr before anything is fetched and is refused (exit 2) when that is over
``--max-hits``. A search that stops short (a page failing after the client's retries, fewer hits than announced, a
PubMed day over 9,999 hits) keeps the IDs got by then, says why, and makes the command end with exit status 3.
``--save-search NAME`` keeps the query in the fetching step's database; ``-search-update NAME`` asks only for the
records created (Europe PMC) or entered (PubMed) since the saved search's last complete run, less an overlap of
:data:`OVERLAP_DAYS` days for records dated late, and adds only the hits the database does not know yet. The saved
day is moved at the end of the command, and only when every search was complete: an interrupted run asks for the
same days again next time.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from pubfetch.cli.errors import EXIT_SOME_FAILED, InputError, UsageError
from pubfetch.cli.fetching import Session
from pubfetch.cli.idsource import with_source
from pubfetch.cli.parser import SEARCH_OPTIONS, ParsedArgs
from pubfetch.ids import PublicationIds
from pubfetch.searching import Identified, Search, SearchError, open_search
from pubfetch.snowball import DEFAULT_MAX_HITS
from pubfetch.store import StoreError, open_or_init_store, open_store
from pubfetch.store.saved import SavedSearch, SavedSearches

log = logging.getLogger("pubfetch.cli")

__all__ = ["DEFAULT_MAX_HITS", "OVERLAP_DAYS", "SEARCH_OPTIONS", "SearchStep"]

#: Searches of more hits than this are refused unless ``--max-hits`` allows more.
#: An update run asks again for this many days before the last complete run: records dated a day or two late (a
#: record created just before midnight in another time zone, an index updated overnight) are not missed.
OVERLAP_DAYS = 2
#: The fetching steps whose database a saved search lives in.
_DATABASE_STEPS = ("db-fetch-end", "db-fetch", "fetch-put")


def _today() -> date:
    return datetime.now(UTC).date()


def _query(args: ParsedArgs, option: str) -> str:
    """The query of ``-search-...``: its argument, or the text of ``--query-file`` (lines joined, # comments out)."""
    given, path = args.get(option) or "", args.get("query-file")
    if given and path:
        raise UsageError(f"option -{option} is given a query and --query-file; give one of them")
    if path:
        try:
            with open(path, encoding="utf-8-sig") as f:
                lines = [line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")]
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"cannot read query file '{path}': {getattr(e, 'strerror', None) or e}") from None
        given = " ".join(lines)
        if not given:
            raise InputError(f"query file '{path}' holds no query")
    if not given.strip():
        raise UsageError(f"option -{option} needs a query (QUERY, or --query-file FILE)")
    return given.strip()


@dataclass
class SearchStep:
    """The command's searches, their counts and the saved days to move when the command ends well."""

    args: ParsedArgs
    sess: Session
    failed: bool = False
    _moves: list[SavedSearch] = field(default_factory=list)

    @property
    def database(self) -> str | None:
        return next((self.args.get(o) for o in _DATABASE_STEPS if o in self.args), None)

    def check(self) -> None:
        """Before anything is asked: the options fit together."""
        a = self.args
        if "query-file" in a and not any(o in a for o in SEARCH_OPTIONS):
            raise UsageError("option --query-file needs -search-europepmc or -search-pubmed")
        if sum(o in a for o in SEARCH_OPTIONS) > 1 and "query-file" in a:
            raise UsageError("option --query-file stands for the query of one search; give the other one its QUERY")
        if ("save-search" in a or "search-update" in a) and self.database is None:
            what = "--save-search" if "save-search" in a else "-search-update"
            raise UsageError(f"option {what} needs the database the search is kept in: add -db-fetch-end DATABASE "
                             "(or -db-fetch)")
        if "save-search" in a and sum(o in a for o in SEARCH_OPTIONS) != 1:
            raise UsageError("option --save-search saves one search: give one of -search-europepmc, -search-pubmed")
        if "no-preprints" in a and "search-europepmc" not in a:
            raise UsageError("option --no-preprints needs -search-europepmc (in PubMed, say NOT preprint[pt])")
        if "synonyms" in a and "search-europepmc" not in a:
            raise UsageError("option --synonyms needs -search-europepmc (PubMed maps a query's terms itself)")

    def run(self) -> Iterator[tuple[list[PublicationIds], str]]:
        """Each search's IDs and where they came from, as the pipeline adds them."""
        self.check()
        a = self.args
        for option, source in SEARCH_OPTIONS.items():
            if option not in a:
                continue
            query = _query(a, option)
            preprints, synonyms = "no-preprints" not in a, "synonyms" in a
            started = _today()
            ids, complete = self._search(source, query, preprints=preprints, synonyms=synonyms)
            if "save-search" in a and complete:
                self._moves.append(SavedSearch(a.get("save-search"), source, query, preprints, started, synonyms))
            elif "save-search" in a:
                log.warning("search not saved as %s: it did not get every hit", a.get("save-search"))
            yield ids, self.sess.identified[-1].line()
        if "search-update" in a:
            yield self._update(a.get("search-update"))

    def _update(self, name: str) -> tuple[list[PublicationIds], str]:
        path = self.database
        assert path is not None
        with _saved_searches(path, create=False) as store:
            saved = store.saved_search(name)
            if saved is None:
                known = ", ".join(s.name for s in store.saved_searches()) or "none"
                raise UsageError(f"no saved search named '{name}' in database {path} (saved: {known}); save one with "
                                 "--save-search NAME")
            started = _today()
            since = saved.last_run - timedelta(days=OVERLAP_DAYS) if saved.last_run else None
            ids, complete = self._search(saved.source, saved.query, preprints=saved.preprints, since=since,
                                         synonyms=saved.synonyms)
            new = [i for i in ids if not store.knows_any(i)]
        when = f"since {since}" if since else "ever (no complete run saved yet)"
        print(f"pubfetch: saved search {name}: {len(ids):,} hits {when}, {len(new):,} new", file=sys.stderr)
        if complete:
            self._moves.append(SavedSearch(saved.name, saved.source, saved.query, saved.preprints, started,
                                           saved.synonyms))
        return new, f"saved search {name}"

    def _search(self, source: str, query: str, *, preprints: bool, synonyms: bool,
                since: date | None = None) -> tuple[list[PublicationIds], bool]:
        """Every ID of one search (or those got before it stopped) and whether it was complete."""
        try:
            search: Search = open_search(self.sess.context(), source, query, since=since, preprints=preprints,
                                         synonyms=synonyms)
        except ValueError as e:
            raise UsageError(str(e)) from None
        self.sess.identified.append(search.identified)
        got: list[PublicationIds] = []
        try:
            count = search.count()
            print(f"pubfetch: {search.identified.name}: {count:,} hits for {search.identified.query}",
                  file=sys.stderr)
            limit = self.args.get("max-hits", DEFAULT_MAX_HITS)
            if count > limit:
                raise UsageError(f"{search.identified.name} search has {count:,} hits, more than --max-hits {limit:,} "
                                 "allows; narrow the query or raise --max-hits")
            for ids in search:
                got.append(with_source(ids))
        except SearchError as e:
            log.error("%s; the %d IDs got by then are kept", e, len(got))
            self.failed = True
            self.sess.search_exit = EXIT_SOME_FAILED
            return got, False
        finally:
            _without_ids(search.identified)
            found = search.identified
            self.sess.summary.identified[f"{found.name} search {found.query}"] = found.publications
        return got, True

    def finish(self) -> None:
        """The command ended well: move the saved searches' days (a run that stopped short moves none)."""
        if not self._moves or self.failed:
            return
        path = self.database
        assert path is not None
        with _saved_searches(path, create=True) as store:
            for saved in self._moves:
                store.put_saved_search(saved)
                log.info("saved search %s: last complete run %s", saved.name, saved.last_run)


def _without_ids(identified: Identified) -> None:
    """Hits with no PMID, PMCID or DOI (a preprint known by its PPR id alone) are counted, not added: said once."""
    missing = identified.without_ids
    if missing:
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        log.warning("%s search: %d hits have no PMID, PMCID or DOI and are not added (%s)", identified.name,
                    len(missing), shown)


@contextmanager
def _saved_searches(path: str, *, create: bool) -> Iterator[SavedSearches]:
    """The database of saved searches (created when ``create``), as its store."""
    store = open_or_init_store(path) if create else open_store(path)
    try:
        if not isinstance(store, SavedSearches):
            raise StoreError(f"database {path} keeps no saved searches")
        yield store
    finally:
        store.close()


def list_saved(path: str) -> list[SavedSearch]:
    """``-search-list DATABASE``."""
    with _saved_searches(path, create=False) as store:
        return store.saved_searches()


def remove_saved(name: str, path: str) -> None:
    """``-search-remove NAME DATABASE``: an unknown name is an error (a typo would otherwise pass unseen)."""
    with _saved_searches(path, create=False) as store:
        if not store.remove_saved_search(name):
            raise UsageError(f"no saved search named '{name}' in database {path}")
