"""New bulk records written together (pubfetch/bulk/fresh.py): more of them than one insert statement holds, each
readable afterwards by any of its IDs as if it had been put alone, and the ID map answering which IDs it holds."""

from __future__ import annotations

from pubfetch.bulk.fresh import _ROWS, existing_ids, insert_new, keys_of
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.store import open_or_init_store, open_store
from pubfetch.store.sql import SqlStore, lookup_key

#: more entries than one multi-row statement takes, so that the last statement is a short one
COUNT = _ROWS + 7


def new_entry(store: SqlStore, n: int) -> tuple:
    pub = Publication()
    pmid, doi = str(80_000_000 + n), f"10.9999/Bulk.{n}"
    pub.set_pmid(pmid, PartType.pubmed_xml, f"https://pubmed/{pmid}", FetcherArgs())
    if n % 2:
        pub.set_doi(doi, PartType.pubmed_xml, f"https://doi.org/{doi}", FetcherArgs())
    pub.set_title(f"Bulk record {n}", PartType.pubmed_xml, f"https://pubmed/{pmid}", FetcherArgs())
    return (keys_of(pub.pmid.content, pub.pmcid.content, pub.doi.content),
            (pub.pmid.url, pub.pmcid.url, pub.doi.url), store.encode_utf8(pub.to_json(computed=False)))


def test_new_entries_written_together_are_found_by_each_of_their_ids(either_db: str) -> None:
    with open_or_init_store(either_db) as store:
        assert isinstance(store, SqlStore)
        entries = [new_entry(store, n) for n in range(COUNT)]
        doi = lookup_key("10.9999/Bulk.1")  # IDs are asked in the form they are stored under, as keys_of gives them
        asked = ["80000000", "80000001", doi, "80000000"]
        assert store.transact(lambda tx: existing_ids(tx, asked)) == set()
        store.transact(lambda tx: insert_new(store, tx, entries))
        assert store.transact(lambda tx: existing_ids(tx, [*asked, "99999999", ""])) == {"80000000", "80000001", doi}
    with open_store(either_db, readonly=True) as store:
        assert sum(1 for _ in store.publication_ids()) == COUNT
        last = store.get_publication(str(80_000_000 + COUNT - 1))
        assert last is not None and last.title.content == f"Bulk record {COUNT - 1}"
        by_doi = store.get_publication("10.9999/BULK.1")  # a DOI is looked up in its normalised form
        assert by_doi is not None and by_doi.pmid.content == "80000001"
        assert store.get_publication("10.9999/bulk.2") is None
