"""Tests for pubfetch.store.base: what the Store interface gives every backend on top of the methods it implements:
PubFetcher's webpage and doc names for the two kinds of pages, closing as a context manager, and fetch runs that go
side by side unless a backend says otherwise."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pubfetch.ids import PublicationIds
from pubfetch.model import Publication, Webpage
from pubfetch.store.base import Store, StoreError


class PagesOnly(Store):
    """The smallest backend: pages in dictionaries, no publications (enough for what the base class adds)."""

    def __init__(self) -> None:
        self.pages: dict[str, dict[str, Webpage]] = {"webpages": {}, "docs": {}}
        self.closed = 0

    def put_publication(self, pub: Publication) -> bool:
        return False

    def get_publication(self, ids: PublicationIds | str) -> Publication | None:
        return None

    def remove_publication(self, ids: PublicationIds | Publication | str) -> bool:
        return False

    def contains_publication(self, ids: PublicationIds | str) -> bool:
        return False

    def publication_ids(self) -> Iterator[PublicationIds]:
        return iter(())

    def publications_size(self) -> int:
        return 0

    def publications_map(self) -> Iterator[tuple[str, str]]:
        return iter(())

    def publications_map_reverse(self) -> Iterator[tuple[str, PublicationIds]]:
        return iter(())

    def put_page(self, kind: str, page: Webpage) -> bool:
        self.pages[kind][page.start_url] = page
        return True

    def get_page(self, kind: str, url: str) -> Webpage | None:
        return self.pages[kind].get(url)

    def remove_page(self, kind: str, url: str) -> bool:
        return self.pages[kind].pop(url, None) is not None

    def contains_page(self, kind: str, url: str) -> bool:
        return url in self.pages[kind]

    def page_urls(self, kind: str) -> Iterator[str]:
        return iter(list(self.pages[kind]))

    def pages_size(self, kind: str) -> int:
        return len(self.pages[kind])

    def commit(self) -> None:
        pass

    def compact(self) -> None:
        pass

    def close(self) -> None:
        self.closed += 1


def page(url: str) -> Webpage:
    made = Webpage()
    made.start_url = url
    return made


def test_webpage_and_doc_names_keep_the_two_kinds_apart() -> None:
    store = PagesOnly()
    assert store.put_webpage(page("https://a/")) and store.put_doc(page("https://a/docs"))
    assert store.put_doc(page("https://b/docs"))
    assert (store.webpages_size(), store.docs_size()) == (1, 2)
    assert list(store.webpage_urls()) == ["https://a/"] and list(store.doc_urls()) == ["https://a/docs", "https://b/docs"]
    assert store.get_webpage("https://a/").start_url == "https://a/" and store.get_doc("https://a/") is None
    assert store.contains_webpage("https://a/") and not store.contains_doc("https://a/")
    assert store.remove_doc("https://a/docs") and not store.remove_webpage("https://a/docs")
    assert store.pages == {"webpages": {"https://a/": store.get_webpage("https://a/")},
                           "docs": {"https://b/docs": store.get_doc("https://b/docs")}}


def test_a_store_closes_at_the_end_of_its_with_block_even_on_error() -> None:
    with PagesOnly() as store:
        pass
    assert store.closed == 1
    failing = PagesOnly()
    with pytest.raises(ValueError), failing:
        raise ValueError("a caller's error")
    assert failing.closed == 1


def test_fetch_runs_go_side_by_side_by_default() -> None:
    store = PagesOnly()
    waited: list[str] = []
    with store.fetch_run(lambda: waited.append("first")), store.fetch_run(lambda: waited.append("second")):
        pass
    assert waited == []


def test_store_errors_are_plain_exceptions_with_the_users_message() -> None:
    error = StoreError("database file 'x.db' does not exist (create it with -db-init)")
    assert isinstance(error, Exception) and not isinstance(error, OSError)
    assert str(error) == "database file 'x.db' does not exist (create it with -db-init)"


def test_the_interface_cannot_be_used_half_implemented() -> None:
    with pytest.raises(TypeError):
        Store()  # type: ignore[abstract]
