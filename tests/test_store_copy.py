"""Tests for pubfetch.store.copy: a whole database copied into a new one row for row (the ID map with IDs an entry
no longer carries, entries, pages, listing order), between two SQLite files and to and from the machine's PostgreSQL
(skipped with one message when it is unreachable)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.model import Webpage
from pubfetch.store import Store, StoreError, copy_store, init_store, open_store
from pubfetch.store.copy import PAGE_ROWS, CopyCounts, copy_database
from support.store_worker import make_pub


def webpage(url: str, title: str) -> Webpage:
    page = Webpage()
    page.start_url = page.final_url = url
    page.title = title
    return page


def fill(store: Store, publications: int = 3) -> None:
    """Publications (one whose DOI changed, so the map holds an ID its JSON no longer carries), webpages and docs."""
    for k in range(publications, 0, -1):  # listing order is not ID order
        store.put_publication(make_pub(pmid=str(k), doi=f"10.1/P{k}", title=f"title {k}"))
    store.put_publication(make_pub(pmid="1", title="title 1"))  # the entry of PMID 1 no longer carries its DOI
    store.put_webpage(webpage("https://tool.example.org/", "A tool"))
    store.put_doc(webpage("https://tool.example.org/docs", "Its docs"))
    store.commit()


def snapshot(store: Store) -> tuple:
    return (list(store.publications_map()), [(i.pmid, i.doi) for i in store.publication_ids()],
            [store.get_publication(i.pmid).title.content for i in store.publication_ids()],
            list(store.webpage_urls()), store.get_webpage("https://tool.example.org/").title,
            list(store.doc_urls()), store.get_doc("https://tool.example.org/docs").title)


def test_a_copy_between_sqlite_files_has_the_same_rows_in_the_same_order(tmp_path: Path) -> None:
    source, target = tmp_path / "source.db", tmp_path / "target.db"
    with init_store(source) as store:
        fill(store)
    counts = copy_store(source, target)
    assert counts.rows == {"publications": 3, "publication IDs": 6, "webpages": 1, "docs": 1, "saved searches": 0}
    assert str(counts) == "3 publications, 6 publication IDs, 1 webpage, 1 doc, 0 saved searches"
    with open_store(source, readonly=True) as original, open_store(target, readonly=True) as copy:
        assert snapshot(copy) == snapshot(original)
        assert dict(copy.publications_map())["10.1/P1"] == "1"  # the ID the entry's JSON no longer carries


def test_a_copy_larger_than_a_page_of_rows_keeps_its_order(tmp_path: Path) -> None:
    source, target = tmp_path / "source.db", tmp_path / "target.db"
    with init_store(source) as store:
        fill(store, publications=PAGE_ROWS + 7)
    assert copy_store(source, target).rows["publications"] == PAGE_ROWS + 7
    with open_store(source, readonly=True) as original, open_store(target, readonly=True) as copy:
        assert list(copy.publication_ids()) == list(original.publication_ids())


def test_the_target_must_be_new(tmp_path: Path) -> None:
    source, target = tmp_path / "source.db", tmp_path / "target.db"
    with init_store(source) as store:
        fill(store)
    init_store(target).close()
    with pytest.raises(StoreError, match="already exists"):
        copy_store(source, target)
    with pytest.raises(StoreError, match="does not exist"):
        copy_store(tmp_path / "missing.db", tmp_path / "other.db")
    assert not (tmp_path / "other.db").exists()


def test_a_round_trip_through_postgresql(tmp_path: Path, pg_url: str) -> None:
    source, back = tmp_path / "source.db", tmp_path / "back.db"
    with init_store(source) as store:
        fill(store)
    assert copy_store(source, pg_url).rows["publication IDs"] == 6
    assert copy_store(pg_url, back).rows == {"publications": 3, "publication IDs": 6, "webpages": 1, "docs": 1,
                                                 "saved searches": 0}
    with open_store(source, readonly=True) as original, open_store(back, readonly=True) as copy:
        assert snapshot(copy) == snapshot(original)


def test_copy_database_counts_an_empty_database(tmp_path: Path) -> None:
    with init_store(tmp_path / "a.db") as empty, init_store(tmp_path / "b.db") as target:
        assert copy_database(empty, target) == CopyCounts({"publications": 0, "publication IDs": 0, "webpages": 0,
                                                            "docs": 0, "saved searches": 0})
