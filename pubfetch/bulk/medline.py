"""Reading a PubMed baseline or update file (``pubmedYYnNNNN.xml[.gz]``) one element at a time, in constant memory.

The files hold up to 30,000 ``PubmedArticle`` elements each and, in update files, a ``DeleteCitation`` list; read
whole they take gigabytes. lxml's ``iterparse`` hands over each article when its end tag is read; the article is
turned into a record by the PubMed parser efetch answers go through (so an imported record is what a fetch would have
stored) and then cleared, with the siblings already read, so memory stays that of one article. The files are
indented: they are read without it, by PubMed's DTD's declarations (:mod:`pubfetch.extract.pubmed_dtd`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from lxml import etree

from pubfetch.bulk.gzipped import DAMAGED, open_gzip
from pubfetch.extract.pubmed import parse_pubmed_element
from pubfetch.extract.pubmed_dtd import DeclaredStream
from pubfetch.model.record import ArticleRecord

__all__ = ["Citation", "Damaged", "Deletion", "free_element", "open_bulk_file", "read_medline"]

_ARTICLES = ("PubmedArticle", "PubmedBookArticle")
_PMID_PATHS = {"PubmedArticle": "MedlineCitation/PMID", "PubmedBookArticle": "BookDocument/PMID"}


@dataclass(frozen=True)
class Citation:
    """A record of the file with the ``Version`` of its PMID (1 unless NLM versioned the citation)."""

    record: ArticleRecord
    version: int


@dataclass(frozen=True)
class Deletion:
    """A PMID of the file's ``DeleteCitation`` list."""

    pmid: str


class Damaged(ValueError):
    """A file that stops being readable part of the way through (truncated gzip, broken XML): where, and why."""

    def __init__(self, name: str, position: str, reason: str) -> None:
        super().__init__(f"{name}: unreadable {position}: {reason}")
        self.name = name
        self.position = position


def open_bulk_file(path: str) -> IO[bytes]:
    """The file's bytes, decompressed when it is gzip (by its magic number, not its name)."""
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return open_gzip(path)
    return open(path, "rb")


def _version(element: etree._Element) -> int:
    pmid = element.find(_PMID_PATHS[element.tag])
    text = pmid.get("Version", "1") if pmid is not None else "1"
    return int(text) if text.isdigit() else 1


def read_medline(path: str, name: str) -> Iterator[Citation | Deletion]:
    """The citations and deletions of one file, in file order. Raises :class:`Damaged` at the first unreadable
    byte, after yielding everything before it (the caller decides whether the part read counts)."""
    count = 0
    last = ""
    try:
        with open_bulk_file(path) as stream:
            source = DeclaredStream(stream)  # read without its indentation (pubfetch.extract.pubmed_dtd)
            events = etree.iterparse(source, events=("end",), tag=(*_ARTICLES, "DeleteCitation"),
                                     resolve_entities=False, no_network=True, huge_tree=True, load_dtd=False,
                                     remove_blank_text=source.declared)
            for _, element in events:
                if element.tag == "DeleteCitation":
                    items: list[Citation | Deletion] = [Deletion(p.text.strip()) for p in element.iter("PMID")
                                                        if p.text and p.text.strip().isdigit()]
                else:
                    record = parse_pubmed_element(element)
                    items = [Citation(record, _version(element))] if record is not None and record.pmid else []
                free_element(element)
                for item in items:
                    count += 1
                    last = item.record.pmid if isinstance(item, Citation) else item.pmid
                    yield item
    except etree.XMLSyntaxError as e:
        raise Damaged(name, _where(count, last, e.lineno), e.msg or "broken XML") from None
    except DAMAGED as e:
        raise Damaged(name, _where(count, last, None), f"damaged gzip data ({e})") from None


def _where(count: int, last: str, line: int | None) -> str:
    at = f"at line {line}, " if line else ""
    after = f"after record {count} (PMID {last})" if count else "before its first record"
    return at + after


def free_element(element: etree._Element) -> None:
    """Free an element handled and the siblings before it (iterparse keeps the tree it built)."""
    element.clear(keep_tail=False)
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]
