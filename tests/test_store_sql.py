"""Tests for pubfetch.store.sql: the rules every backend shares (PubFetcher's ID-map semantics, pages, JSON storage,
read-only and closed stores, threads sharing a store), each run on a SQLite file and on a database of the machine's
PostgreSQL (skipped with one message when it is unreachable)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pubfetch.ids import PublicationIds
from pubfetch.model import Publication, Webpage
from pubfetch.store import SqliteStore, Store, StoreError, init_db, init_store, open_store
from pubfetch.store.sql import PAGE_TABLES, check_kind, dumps, lookup_key
from support.store_worker import make_pub


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "test.db"


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, db_path: Path) -> str:
    """The contract below holds for every backend: a SQLite file, and a database on the machine's PostgreSQL."""
    return str(db_path) if request.param == "sqlite" else request.getfixturevalue("pg_url")


@pytest.fixture
def store(target: str):
    s = init_store(target)
    yield s
    s.close()


def ids_map(s: Store) -> dict[str, str]:
    return dict(s.publications_map())


# --- creating and opening -------------------------------------------------------------------------------------------


def test_open_store_dispatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    init_store("sqlite:///rel.db").close()
    assert (tmp_path / "rel.db").is_file()
    with open_store("rel.db") as s:
        assert isinstance(s, SqliteStore)
    absolute = tmp_path / "abs.db"
    init_db(absolute).close()
    with open_store(f"sqlite:///{absolute}") as s:  # sqlite:////abs/path
        assert s.path == str(absolute)
    with pytest.raises(StoreError, match="not of the form sqlite:///path"):
        open_store("sqlite://x.db")


def test_closed_store_refuses(target: str) -> None:
    s = init_store(target)
    s.close()
    with pytest.raises(StoreError, match="already closed"):
        s.publications_size()


def test_readonly(target: str) -> None:
    with init_store(target) as s:
        s.put_publication(make_pub(pmid="1", title="t"))
    with open_store(target, readonly=True) as ro:
        assert ro.get_publication("1") is not None
        with pytest.raises(StoreError, match="is open read-only"):
            ro.put_publication(make_pub(pmid="2"))
        with pytest.raises(StoreError, match="is open read-only"):
            ro.compact()


# --- publications: basics ---------------------------------------------------------------------------------------------


def test_put_get_by_each_id(store: Store) -> None:
    pub = make_pub(pmid="123", pmcid="PMC456", doi="10.1093/NAR/GKZ369", title="A title")
    assert store.put_publication(pub)
    for key in ("123", "PMC456", "10.1093/NAR/GKZ369", "10.1093/nar/gkz369", "https://doi.org/10.1093/nar/gkz369"):
        got = store.get_publication(key)
        assert got is not None and got.title.content == "A title", key
    assert store.get_publication(PublicationIds(doi="10.1093/nar/gkz369")).pmid.content == "123"
    assert store.get_publication(PublicationIds(pmid="999", doi="10.1093/nar/gkz369")) is not None  # falls back to DOI
    assert store.get_publication("999") is None
    assert store.get_publication(PublicationIds()) is None
    assert store.publications_size() == 1


def test_put_without_ids_is_refused(store: Store) -> None:
    assert not store.put_publication(make_pub(title="orphan"))
    assert store.publications_size() == 0


def test_round_trip_equal_json(store: Store) -> None:
    pub = make_pub(pmid="7", pmcid="PMC7", doi="10.1/X", title="Ünïcode title ✓", fulltext="text " * 1000)
    pub.oa = True
    pub.citations_count = 12
    store.put_publication(pub)
    got = store.get_publication("7")
    assert isinstance(got, Publication)
    assert got.to_json() == pub.to_json()
    assert got.to_json(computed=False) == pub.to_json(computed=False)


def test_contains_needs_all_ids(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", doi="10.1/A"))
    assert store.contains_publication(PublicationIds(pmid="1"))
    assert store.contains_publication(PublicationIds(doi="10.1/a"))
    assert store.contains_publication(PublicationIds(pmid="1", doi="10.1/A"))
    assert not store.contains_publication(PublicationIds(pmid="1", pmcid="PMC1"))  # PMCID new: fetch again
    assert not store.contains_publication(PublicationIds(pmid="1", doi="10.1/B"))
    assert not store.contains_publication(PublicationIds())
    assert store.contains_publication("1") and not store.contains_publication("2")


def test_remove(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", pmcid="PMC1", doi="10.1/A"))
    store.put_publication(make_pub(pmid="2", doi="10.1/B"))
    store.put_publication(make_pub(pmid="3"))
    assert store.remove_publication("PMC1")
    assert ids_map(store) == {"2": "2", "10.1/B": "2", "3": "3"}
    assert not store.remove_publication("PMC1")
    assert store.remove_publication(PublicationIds(doi="10.1/b"))
    assert store.remove_publication(make_pub(pmid="3"))
    assert store.publications_size() == 0 and ids_map(store) == {}


def test_remove_by_ids_of_two_entries(store: Store) -> None:
    store.put_publication(make_pub(pmid="1"))
    store.put_publication(make_pub(doi="10.1/A"))
    assert store.remove_publication(PublicationIds(pmid="1", doi="10.1/A"))
    assert store.publications_size() == 0


# --- publications: PubFetcher's ID-map merging --------------------------------------------------------------------------


def test_doi_only_then_pmid_and_doi_keeps_old_primary(store: Store) -> None:
    store.put_publication(make_pub(doi="10.1/A", title="first"))
    store.put_publication(make_pub(pmid="1", doi="10.1/A", title="second"))
    # PubFetcher keeps the primary ID an entry got when first put
    assert store.publications_size() == 1
    assert ids_map(store) == {"10.1/A": "10.1/A", "1": "10.1/A"}
    assert dict(store.publications_map_reverse()) == {"10.1/A": PublicationIds(pmid="1", doi="10.1/A")}
    assert store.get_publication("1").title.content == "second"
    rev = dict(store.publications_map_reverse())["10.1/A"]
    assert rev.pmid_url == "https://www.ncbi.nlm.nih.gov/pubmed/?term=1" and rev.doi_url == "https://doi.org/10.1/A"


def test_doi_entry_superseded_by_pmid_entry(store: Store) -> None:
    store.put_publication(make_pub(doi="10.1/A", title="doi entry"))
    store.put_publication(make_pub(pmid="1", title="pmid entry"))
    assert store.publications_size() == 2
    store.put_publication(make_pub(pmid="1", doi="10.1/A", title="merged"))
    assert store.publications_size() == 1
    assert ids_map(store) == {"1": "1", "10.1/A": "1"}
    assert list(store.publication_ids()) == [PublicationIds(pmid="1", doi="10.1/A")]
    assert store.get_publication("10.1/A").title.content == "merged"


def test_pmcid_entry_superseded_by_pmid_entry(store: Store) -> None:
    store.put_publication(make_pub(pmcid="PMC5", doi="10.1/A"))
    store.put_publication(make_pub(pmid="1"))
    store.put_publication(make_pub(pmid="1", pmcid="PMC5"))
    assert ids_map(store) == {"1": "1", "PMC5": "1"}
    assert store.publications_size() == 1


def test_changed_pmid_replaces_entry(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", doi="10.1/A", title="old paper"))
    store.put_publication(make_pub(pmid="2", doi="10.1/A", title="the DOI's real paper"))
    # the old entry's primary ID is contradicted: it was another paper, so it goes entirely
    assert ids_map(store) == {"2": "2", "10.1/A": "2"}
    assert store.get_publication("1") is None
    assert store.publications_size() == 1


def test_stale_id_removed(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", pmcid="PMC1", doi="10.1/OLD"))
    store.put_publication(make_pub(pmid="1", pmcid="PMC1", doi="10.1/NEW"))
    assert ids_map(store) == {"1": "1", "PMC1": "1", "10.1/NEW": "1"}
    assert not store.contains_publication("10.1/OLD")
    assert dict(store.publications_map_reverse())["1"] == PublicationIds("1", "PMC1", "10.1/NEW")


def test_contradicted_doi_primary_replaced(store: Store) -> None:
    store.put_publication(make_pub(doi="10.1/X"))
    store.put_publication(make_pub(pmid="1", doi="10.1/X"))  # primary stays 10.1/X
    store.put_publication(make_pub(pmid="1", doi="10.1/Y"))  # the DOI primary is contradicted
    assert ids_map(store) == {"1": "1", "10.1/Y": "1"}
    assert store.publications_size() == 1


def test_partial_put_keeps_known_ids(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", pmcid="PMC1", doi="10.1/A"))
    store.put_publication(make_pub(pmid="1", title="only pmid now"))
    assert store.contains_publication(PublicationIds("1", "PMC1", "10.1/A"))
    assert dict(store.publications_map_reverse())["1"] == PublicationIds("1", "PMC1", "10.1/A")
    assert store.get_publication("PMC1").title.content == "only pmid now"
    assert store.remove_publication("1")
    assert ids_map(store) == {}  # every ID pointing at the entry goes with it


def test_listing_order_is_insertion_order(store: Store) -> None:
    for pmid in ("30", "10", "20"):
        store.put_publication(make_pub(pmid=pmid))
    store.put_publication(make_pub(pmid="10", doi="10.1/Z"))  # an update keeps its place
    assert [i.pmid for i in store.publication_ids()] == ["30", "10", "20"]
    assert [k for k, _ in store.publications_map()] == ["30", "10", "20", "10.1/Z"]
    assert [k for k, _ in store.publications_map_reverse()] == ["30", "10", "20"]
    assert next(iter(store.publication_ids())).pmid_url == "https://www.ncbi.nlm.nih.gov/pubmed/?term=30"


# --- webpages and docs --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["webpages", "docs"])
def test_pages(store: Store, kind: str) -> None:
    pages = [Webpage(start_url=f"https://example.org/{n}", title=f"page {n}", content="c" * n, status_code=200)
             for n in (3, 1, 2)]
    for page in pages:
        assert store.put_page(kind, page)
    assert not store.put_page(kind, Webpage(title="no url"))
    assert store.pages_size(kind) == 3
    assert list(store.page_urls(kind)) == [p.start_url for p in pages]
    assert store.contains_page(kind, "https://example.org/1")
    assert not store.contains_page(kind, "https://example.org/9")
    got = store.get_page(kind, "https://example.org/2")
    assert got is not None and got.to_json() == pages[2].to_json()
    pages[0].title = "updated"
    store.put_page(kind, pages[0])
    assert store.get_page(kind, pages[0].start_url).title == "updated"
    assert next(iter(store.page_urls(kind))) == pages[0].start_url
    assert store.remove_page(kind, "https://example.org/1")
    assert not store.remove_page(kind, "https://example.org/1")
    assert store.get_page(kind, "https://example.org/1") is None
    assert store.pages_size(kind) == 2
    other = "docs" if kind == "webpages" else "webpages"
    assert store.pages_size(other) == 0


def test_page_wrappers_and_bad_kind(store: Store) -> None:
    page = Webpage(start_url="https://example.org/")
    store.put_webpage(page)
    store.put_doc(page)
    assert store.get_webpage(page.start_url) is not None and store.get_doc(page.start_url) is not None
    assert store.webpages_size() == 1 and store.docs_size() == 1
    assert list(store.webpage_urls()) == list(store.doc_urls()) == [page.start_url]
    assert store.contains_webpage(page.start_url) and store.contains_doc(page.start_url)
    assert store.remove_webpage(page.start_url) and store.remove_doc(page.start_url)
    with pytest.raises(ValueError, match="unknown page kind"):
        store.put_page("pubs; DROP TABLE docs", page)


# --- lifecycle ----------------------------------------------------------------------------------------------------------


def test_threads_share_one_store(store: Store) -> None:
    def work(base: int) -> None:
        for k in range(base, base + 40):
            store.put_publication(make_pub(pmid=str(k), doi=f"10.9/T{k}"))
            assert store.get_publication(str(k)) is not None

    threads = [threading.Thread(target=work, args=(1 + 1000 * t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.publications_size() == 320
    assert len(ids_map(store)) == 640


# --- the helpers every backend's SQL uses -----------------------------------------------------------------------------


def test_ids_are_looked_up_trimmed_and_dois_normalised() -> None:
    assert lookup_key(" 12345 ") == "12345" and lookup_key("PMC42") == "PMC42"
    assert lookup_key(" https://doi.org/10.1093/nar/gkz1 ") == lookup_key("10.1093/NAR/GKZ1")
    assert lookup_key("10.1093/nar/gkz1") == PublicationIds(doi="10.1093/nar/gkz1").doi


def test_entries_are_compact_json_readable_in_any_script() -> None:
    assert dumps({"title": "γάμμα café", "n": [1, 2]}) == '{"title":"γάμμα café","n":[1,2]}'


def test_page_kinds_are_webpages_and_docs() -> None:
    assert [check_kind(kind) for kind in PAGE_TABLES] == ["webpages", "docs"]
    with pytest.raises(ValueError, match="unknown page kind 'pages' \\(expected one of webpages, docs\\)"):
        check_kind("pages")


def test_doi_agencies_kept_between_openings(target: str) -> None:
    """The registration agencies of DOI prefixes, kept for later runs in the meta table (no schema change)."""
    with init_store(target) as s:
        assert s.get_agencies(["10.1101", "10.5061"]) == {}
        s.put_agencies({"10.1101": "crossref", "10.5061": "datacite"})
        s.put_agencies({"10.5061": "datacite", "10.48550": "datacite"})
        s.commit()
    with open_store(target) as s:
        assert s.get_agencies(["10.1101", "10.5061", "10.48550", "10.9999"]) == {
            "10.1101": "crossref", "10.5061": "datacite", "10.48550": "datacite"}
        assert s.get_agencies([f"10.{n}" for n in range(1200)] + ["10.1101"])["10.1101"] == "crossref"
        assert s.publications_size() == 0
