"""Saved searches: a query kept in the database under a name, with the day of its last complete run, so that an update
run asks only for what entered the service since (``-search-update NAME``).

The day moves only when a run got every hit and ended: a run stopped half-way (a failing page, Ctrl-C) leaves it where
it was, so the next run asks for the same days again and nothing is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pubfetch.ids import PublicationIds
from pubfetch.store.sql import SqlStore, Tx, lookup_key

__all__ = ["SAVED_COLUMNS", "SavedSearch", "SavedSearches"]


@dataclass(frozen=True)
class SavedSearch:
    """A search kept under ``name``: ``source`` (``europepmc`` or ``pubmed``), the query, whether Europe PMC's
    preprints are kept, the day of the last complete run (None before the first), and whether Europe PMC expands
    the terms with their synonyms."""

    name: str
    source: str
    query: str
    preprints: bool = True
    last_run: date | None = None
    synonyms: bool = False


SAVED_COLUMNS = "name, source, query, preprints, last_run, synonyms"


def _row(row: tuple) -> SavedSearch:
    name, source, query, preprints, last_run, synonyms = row
    return SavedSearch(str(name), str(source), str(query), bool(preprints),
                       date.fromisoformat(last_run) if last_run else None, bool(synonyms))


class SavedSearches(SqlStore):
    """The saved searches of an SQL store (SQLite and PostgreSQL alike)."""

    def put_saved_search(self, saved: SavedSearch) -> None:
        """Keep ``saved`` under its name, replacing the search of that name."""
        values = (saved.source, saved.query, int(saved.preprints),
                  saved.last_run.isoformat() if saved.last_run else "", int(saved.synonyms), saved.name)

        def put(tx: Tx) -> None:
            done = tx.execute("UPDATE saved_searches SET source = ?, query = ?, preprints = ?, last_run = ?, "
                              "synonyms = ? WHERE name = ?", values)
            if not done.rowcount:
                tx.execute(f"INSERT INTO saved_searches ({SAVED_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                           (saved.name, *values[:-1]))

        self._transact(put)

    def saved_search(self, name: str) -> SavedSearch | None:
        rows = self._read(f"SELECT {SAVED_COLUMNS} FROM saved_searches WHERE name = ?", (name,))
        return _row(rows[0]) if rows else None

    def saved_searches(self) -> list[SavedSearch]:
        """Every saved search, in the order they were first saved."""
        return [_row(r) for r in self._read(f"SELECT {SAVED_COLUMNS} FROM saved_searches ORDER BY seq")]

    def remove_saved_search(self, name: str) -> bool:
        """Forget the search of that name; False when there was none."""
        return self._transact(lambda tx: tx.execute("DELETE FROM saved_searches WHERE name = ?", (name,)).rowcount > 0)

    def knows_any(self, ids: PublicationIds) -> bool:
        """Whether any of the IDs is one of a stored publication's: a hit an update run does not add again."""
        keys = [lookup_key(i) for i in ids.non_empty()]
        if not keys:
            return False
        marks = ", ".join("?" * len(keys))
        return bool(self._read(f"SELECT 1 FROM publication_ids WHERE id IN ({marks}) LIMIT 1", tuple(keys)))
