"""How much of a fetched publication is stored: at most ``max_references`` references, ``max_text_links`` links found
in its text, and an entry (its JSON as the database keeps it, in UTF-8) of at most ``max_entry_bytes``.

A service can answer with more than any paper has (a reference list of a million entries, a page of megabytes of
text), and the database keeps whatever it is given; the caps are applied to a fetched publication before it is
stored and output, so that the entry in the database and the one written out are the same.

An entry over ``max_entry_bytes`` loses what a reader of it is least likely to need first, each part from its end
and only as much as brings the entry under the cap: references, sections, links, the full text, EFO, GO and MeSH terms,
keywords, funding, updates, the abstract, the authors and the visited sites. IDs, the title, the bibliographic fields
and the fetch's state are never trimmed; an entry that these alone keep over the cap is not stored at all
(:attr:`Fitting.still_over`). A webpage or doc over it loses the end of its content, then of its title.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage

__all__ = ["Cut", "Fitting", "entry_bytes", "fit_entry", "fit_page"]


@dataclass(frozen=True)
class Cut:
    """One part trimmed: what it held and what it keeps (items of a list, characters of a text)."""

    part: str
    had: int
    kept: int
    unit: str = ""

    def __str__(self) -> str:
        return f"kept {self.kept} of {self.had} {self.unit or self.part}"


@dataclass
class Fitting:
    """What fitting one publication to the caps did."""

    #: the reference list cut to ``max_references`` (``None``: it was not longer)
    references: Cut | None = None
    #: the links found in the text cut to ``max_text_links`` (``None``: they were not more)
    links: Cut | None = None
    #: the parts trimmed for ``max_entry_bytes``, in the order they were trimmed
    trimmed: list[Cut] = field(default_factory=list)
    #: the entry's size before trimming (0: it was within the cap)
    size_before: int = 0
    #: still over ``max_entry_bytes`` with every trimmable part trimmed: it must not be stored
    still_over: bool = False


def entry_bytes(entry: Publication | Webpage) -> int:
    """The size of a publication's, webpage's or doc's stored entry: its JSON as the store writes it, in UTF-8."""
    doc = json.dumps(entry.to_json(computed=False), ensure_ascii=False, separators=(",", ":"))
    return len(doc.encode("utf-8", "surrogatepass"))


def _json_bytes(item: Any) -> int:
    value = item if isinstance(item, str) else item.to_json()
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def _trimmable(pub: Publication) -> tuple[tuple[str, Any, str, str], ...]:
    """(name, holder, attribute, unit) of what may be trimmed, in the order it is: the holder's attribute is a list
    (trimmed from its end) or a text (cut at its end)."""
    return (("references", pub.references, "items", "references"),
            ("sections", pub.sections, "items", "sections"), ("links", pub.links, "items", "links"),
            ("full text", pub.fulltext, "content", "characters of full text"),
            ("EFO terms", pub.efo, "items", "EFO terms"), ("GO terms", pub.go, "items", "GO terms"),
            ("MeSH terms", pub.mesh, "items", "MeSH terms"), ("keywords", pub.keywords, "items", "keywords"),
            ("funding", pub.funding, "items", "grants"), ("updates", pub.updates, "items", "updates"),
            ("abstract", pub.abstract, "content", "characters of abstract"),
            ("authors", pub, "authors", "authors"), ("visited sites", pub, "visited_sites", "visited sites"))


def _cut(value: list | str, over: int) -> list | str:
    """The value without at least ``over`` bytes of its JSON from its end (a character is at least one byte; an item
    of a list its JSON and the comma before it)."""
    if isinstance(value, str):
        return value[:max(0, len(value) - over)]
    keep = len(value)
    freed = 0
    while keep and freed < over:
        keep -= 1
        freed += _json_bytes(value[keep]) + 1
    return value[:keep]


def fit_entry(pub: Publication, max_references: int, max_entry_bytes: int,
              max_text_links: int | None = None) -> Fitting:
    """Cut the publication to the caps in place (see the module's docstring) and say what was cut."""
    fitting = Fitting()
    if len(pub.references.items) > max_references:
        fitting.references = Cut("references", len(pub.references.items), max_references, "references")
        pub.references.items = pub.references.items[:max_references]
    if max_text_links is not None and len(pub.links.items) > max_text_links:
        fitting.links = Cut("links", len(pub.links.items), max_text_links, "links")
        pub.links.items = pub.links.items[:max_text_links]
    size = entry_bytes(pub)
    if size <= max_entry_bytes:
        return fitting
    fitting.size_before = size
    for name, holder, attribute, unit in _trimmable(pub):
        had = len(getattr(holder, attribute))
        while size > max_entry_bytes and getattr(holder, attribute):
            setattr(holder, attribute, _cut(getattr(holder, attribute), size - max_entry_bytes))
            size = entry_bytes(pub)
        kept = len(getattr(holder, attribute))
        if kept < had:
            fitting.trimmed.append(Cut(name, had, kept, unit))
        if size <= max_entry_bytes:
            return fitting
    fitting.still_over = True
    return fitting


def fit_page(page: Webpage, max_entry_bytes: int) -> Fitting:
    """Cut a webpage or doc to ``max_entry_bytes`` in place: the end of its content, then of its title."""
    fitting = Fitting()
    size = entry_bytes(page)
    if size <= max_entry_bytes:
        return fitting
    fitting.size_before = size
    for name, attribute in (("content", "content"), ("title", "title")):
        had = len(getattr(page, attribute))
        if size > max_entry_bytes and had:
            setattr(page, attribute, _cut(getattr(page, attribute), size - max_entry_bytes))
            size = entry_bytes(page)  # a character is at least one byte: one cut is enough
            fitting.trimmed.append(Cut(name, had, len(getattr(page, attribute)), f"characters of {name}"))
    fitting.still_over = size > max_entry_bytes
    return fitting
