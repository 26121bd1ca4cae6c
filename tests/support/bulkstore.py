"""What a bulk import left in a database, read back for the bulk tests: the entries by PMID and the import ledger."""

from __future__ import annotations

from pubfetch.store import open_store
from pubfetch.store.sql import SqlStore


def entries(db: str) -> dict[str, dict]:
    """Every entry of ``db`` as stored (its JSON without computed fields), by PMID."""
    with open_store(db, readonly=True) as store:
        return {ids.pmid: store.get_publication(ids).to_json(computed=False)  # type: ignore[union-attr]
                for ids in store.publication_ids()}


def ledger(db: str, sql: str) -> list[tuple]:
    """The rows ``sql`` reads from ``db`` (the ledger's tables, bulk_files and pubmed_versions, are not in the store's
    interface)."""
    with open_store(db) as store:
        assert isinstance(store, SqlStore)
        return [tuple(r) for r in store.transact(lambda tx: tx.execute(sql).fetchall())]
