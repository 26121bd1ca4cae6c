"""Each paper of a snowball once, whatever form of its ID it is met by.

A paper is met first by one ID (Europe PMC lists a citer by its PMID, a reference list gives a DOI) and learns its
other forms when it is fetched. The index files every form it knows under one paper, so a paper met as a PMID and
later as its DOI is one paper; when a fetched paper's forms show that two papers filed apart are one, they become
one (the later found the earlier's).
"""

from __future__ import annotations

from pubfetch.ids import PublicationIds

__all__ = ["PaperIndex"]


def _forms(ids: PublicationIds) -> list[str]:
    # DOIs are normalised by PublicationIds (upper case, no resolver); the prefixes keep the three kinds apart
    return [f"{kind}:{value}" for kind, value in zip(("pmid", "pmcid", "doi"), ids.ids, strict=True) if value]


class PaperIndex:
    """Papers by any of their ID forms; a paper is named by the number it was first filed under."""

    def __init__(self) -> None:
        self._by_form: dict[str, int] = {}
        self._ids: list[PublicationIds] = []
        self._same: list[int] = []  # union-find: the paper a number was found to be

    def __len__(self) -> int:
        return sum(1 for key, same in enumerate(self._same) if key == same)

    def _root(self, key: int) -> int:
        while self._same[key] != key:
            self._same[key] = self._same[self._same[key]]
            key = self._same[key]
        return key

    def find(self, ids: PublicationIds) -> int | None:
        """The paper any of ``ids`` names, or None."""
        for form in _forms(ids):
            key = self._by_form.get(form)
            if key is not None:
                return self._root(key)
        return None

    def add(self, ids: PublicationIds) -> tuple[int, bool]:
        """The paper of ``ids`` (filed now when none had any of its forms) and whether it is new; the forms it
        brings are learnt either way."""
        key = self.find(ids)
        if key is not None:
            return self.learn(key, ids), False
        key = len(self._ids)
        self._ids.append(ids)
        self._same.append(key)
        for form in _forms(ids):
            self._by_form[form] = key
        return key, True

    def learn(self, key: int, ids: PublicationIds) -> int:
        """Add ``ids``' forms to paper ``key`` (its fetched record's); a paper they already name is joined to it.
        Returns the paper's number after the join."""
        key = self._root(key)
        for form in _forms(ids):
            other = self._by_form.get(form)
            if other is not None and self._root(other) != key:
                other = self._root(other)
                low, high = min(key, other), max(key, other)
                self._same[high] = low
                self._ids[low] = _merged(self._ids[low], self._ids[high])
                key = low
        self._ids[key] = _merged(self._ids[key], ids)
        for form in _forms(self._ids[key]):
            self._by_form[form] = key
        return key

    def ids(self, key: int) -> PublicationIds:
        """Every form of the paper's ID known so far."""
        return self._ids[self._root(key)]

    def roots(self, keys: list[int]) -> list[int]:
        """The papers ``keys`` name, each once, in their first order (two numbers found to be one paper are one)."""
        return list(dict.fromkeys(self._root(k) for k in keys))

    def same(self, a: int, b: int) -> bool:
        return self._root(a) == self._root(b)


def _merged(a: PublicationIds, b: PublicationIds) -> PublicationIds:
    """``a`` with the forms it lacks taken from ``b`` (a form both have stays ``a``'s)."""
    return PublicationIds(a.pmid or b.pmid, a.pmcid or b.pmcid, a.doi or b.doi)
