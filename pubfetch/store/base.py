"""The storage interface: what the fetcher and the CLI need from a database, independent of the engine behind it.

SQLite is the embedded default; another backend (PostgreSQL, say) implements this class and nothing else changes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Self

from pubfetch.ids import PublicationIds
from pubfetch.model import Publication, Webpage
from pubfetch.model.edges import CitationEdge


class StoreError(Exception):
    """A database that cannot be created, opened or used; the message is meant for the user as is."""


class Store(ABC):
    """Publications (keyed by any of their IDs), webpages and docs (keyed by start URL)."""

    # citation edges (a snowball's: which paper cites which)
    def put_edges(self, edges: Iterable[CitationEdge]) -> int:
        """Store citation edges, an edge already stored (its ends matched by any ID form) completed rather than
        repeated; returns how many were new. The SQL stores keep them; a store of another kind says it cannot."""
        raise StoreError(f"{type(self).__name__} keeps no citation edges")

    def citation_edges(self) -> Iterator[CitationEdge]:
        """The stored citation edges in the order they were first stored (none in a database never given any)."""
        return iter(())

    # publications
    @abstractmethod
    def put_publication(self, pub: Publication) -> bool:
        """Store a publication under its primary ID, merging ID maps and dropping entries it supersedes.

        False (and nothing stored) for a publication without IDs. The put is atomic: all of it or none of it survives.
        """

    @abstractmethod
    def get_publication(self, ids: PublicationIds | str) -> Publication | None:
        """The stored publication for any one of the given IDs (PMID first, then PMCID, then DOI)."""

    @abstractmethod
    def remove_publication(self, ids: PublicationIds | Publication | str) -> bool:
        """Remove the entry of each given ID with all its ID mappings; True if anything was removed."""

    @abstractmethod
    def contains_publication(self, ids: PublicationIds | str) -> bool:
        """True only if ALL non-empty IDs are known (a row whose DOI is new still needs fetching)."""

    @abstractmethod
    def publication_ids(self) -> Iterator[PublicationIds]:
        """IDs (with URLs) of every stored publication, in primary-ID insertion order."""

    @abstractmethod
    def publications_size(self) -> int: ...

    @abstractmethod
    def publications_map(self) -> Iterator[tuple[str, str]]:
        """(any ID, primary ID) pairs."""

    @abstractmethod
    def publications_map_reverse(self) -> Iterator[tuple[str, PublicationIds]]:
        """(primary ID, all IDs with URLs) pairs."""

    # webpages and docs share one shape; ``kind`` is "webpages" or "docs"
    @abstractmethod
    def put_page(self, kind: str, page: Webpage) -> bool:
        """Store under the start URL, replacing what was there; False for a page without a start URL."""

    @abstractmethod
    def get_page(self, kind: str, url: str) -> Webpage | None: ...

    @abstractmethod
    def remove_page(self, kind: str, url: str) -> bool: ...

    @abstractmethod
    def contains_page(self, kind: str, url: str) -> bool: ...

    @abstractmethod
    def page_urls(self, kind: str) -> Iterator[str]: ...

    @abstractmethod
    def pages_size(self, kind: str) -> int: ...

    # what the fetch remembers between runs besides entries
    def get_agencies(self, prefixes: Sequence[str]) -> dict[str, str]:
        """The DOI registration agencies found in earlier runs, by DOI prefix (a store keeping none: none)."""
        return {}

    def put_agencies(self, agencies: Mapping[str, str]) -> None:
        """Keep DOI registration agencies by prefix for later runs (a store keeping none forgets them)."""
        return None

    # lifecycle
    @abstractmethod
    def commit(self) -> None:
        """Make everything put so far durable (puts are already atomic one by one)."""

    @abstractmethod
    def compact(self) -> None:
        """Give back the space of removed and overwritten entries."""

    @abstractmethod
    def close(self) -> None: ...

    @contextmanager
    def fetch_run(self, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
        """Held for the whole of a fetching run into this database. Where two runs could fetch the same publications
        twice (the SQLite file, shared by the processes of one machine), a second run waits until the first has
        ended, calling ``on_wait`` once first, and then finds what the first stored (database first); an engine
        built for many writers (PostgreSQL, which the cluster shares) lets runs go side by side."""
        yield

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # convenience wrappers named as in PubFetcher
    def put_webpage(self, page: Webpage) -> bool:
        return self.put_page("webpages", page)

    def get_webpage(self, url: str) -> Webpage | None:
        return self.get_page("webpages", url)

    def put_doc(self, page: Webpage) -> bool:
        return self.put_page("docs", page)

    def get_doc(self, url: str) -> Webpage | None:
        return self.get_page("docs", url)

    def remove_webpage(self, url: str) -> bool:
        return self.remove_page("webpages", url)

    def remove_doc(self, url: str) -> bool:
        return self.remove_page("docs", url)

    def contains_webpage(self, url: str) -> bool:
        return self.contains_page("webpages", url)

    def contains_doc(self, url: str) -> bool:
        return self.contains_page("docs", url)

    def webpage_urls(self) -> Iterator[str]:
        return self.page_urls("webpages")

    def doc_urls(self) -> Iterator[str]:
        return self.page_urls("docs")

    def webpages_size(self) -> int:
        return self.pages_size("webpages")

    def docs_size(self) -> int:
        return self.pages_size("docs")
