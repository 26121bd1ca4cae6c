"""``--format chunks``: a publication as passages for a retrieval pipeline or a language model, one JSON object a line.

A passage is a paragraph of the paper, or a part of one: a paragraph longer than :data:`MAX_CHARS` is cut where its
sentences end into passages of at most that many characters (:func:`pubfetch.extract.sentences.pack`; a single
sentence longer than that at its last space). Each passage says which paper it is from (``pmid``, ``pmcid``,
``doi``), where in it (``section_path``: the headings from the outermost down) and its place (``index``, from 0 in
reading order), so that a retrieved passage can be cited and put back in context.

The passages are the title (``section_path`` ``["Title"]``), the abstract's paragraphs (``["Abstract"]``), then the
sections part's paragraphs under their headings; a paper without sections gives its full text's paragraphs (without
the title and abstract it begins with) under no heading. A webpage or doc gives its content's paragraphs, with its
``url`` in place of the IDs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pubfetch.extract.sentences import pack
from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage

__all__ = ["MAX_CHARS", "entry_chunks"]

#: the longest passage, in characters
MAX_CHARS = 2_000


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


def _passages(pub: Publication) -> Iterator[tuple[list[str], str]]:
    title, abstract = pub.title.content, pub.abstract.content
    if title:
        yield ["Title"], title
    for paragraph in _paragraphs(abstract):
        yield ["Abstract"], paragraph
    if not pub.sections.is_empty():
        path: list[str] = []
        for section in pub.sections.items:
            path = [*path[:max(section.level - 1, 0)], section.title]
            for paragraph in _paragraphs(section.text):
                yield [p for p in path if p], paragraph
        return
    body = pub.fulltext.content
    for repeated in (title, abstract):
        if repeated and body.startswith(repeated):
            body = body[len(repeated):].lstrip()
    for paragraph in _paragraphs(body):
        yield [], paragraph


def entry_chunks(entry: Publication | Webpage) -> list[dict[str, Any]]:
    """The passages of a publication, webpage or doc, in reading order (see the module docstring)."""
    if isinstance(entry, Publication):
        ids = {"pmid": entry.pmid.content, "pmcid": entry.pmcid.content, "doi": entry.doi.content}
        sources = _passages(entry)
    else:
        ids = {"url": entry.final_url or entry.start_url}
        sources = (([], paragraph) for paragraph in _paragraphs(entry.content))
    out: list[dict[str, Any]] = []
    for path, paragraph in sources:
        for text in pack(paragraph, MAX_CHARS):
            out.append({**ids, "section_path": path, "index": len(out), "text": text})
    return out
