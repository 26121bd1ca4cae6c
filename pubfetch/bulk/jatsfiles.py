"""The full texts of open-access packages, one article at a time: a tar.gz of ``.xml``/``.nxml`` files (PMC's OA
packages), a gzip or plain file holding many ``<article>`` elements (Europe PMC's open-access bulk files), or one
article's file.

Each article goes through the JATS reader a fetch uses (:func:`~pubfetch.extract.jats.parse_jats`), and is merged as
the resource it stands for would merge it: a Europe PMC bulk file's as Europe PMC's fullTextXML, the rest as PMC's
efetch (see :func:`part_type_of`).
"""

from __future__ import annotations

import tarfile
import zlib
from collections.abc import Iterator

from lxml import etree

from pubfetch.bulk.gzipped import DAMAGED
from pubfetch.bulk.medline import Damaged, open_bulk_file
from pubfetch.extract.jats import parse_jats
from pubfetch.model.part_type import PartType
from pubfetch.model.record import ArticleRecord

__all__ = ["part_type_of", "read_jats_file"]

_MEMBER_SUFFIXES = (".xml", ".nxml")


def part_type_of(path: str) -> PartType:
    """A tar archive is PMC's package (its articles are what PMC's efetch serves); any other file of articles is taken
    as Europe PMC's bulk file (what its fullTextXML serves)."""
    return PartType.pmc_xml if tarfile.is_tarfile(path) else PartType.europepmc_xml


def read_jats_file(path: str, name: str) -> Iterator[ArticleRecord]:
    """The articles of one file or archive, in order. Raises :class:`~pubfetch.bulk.medline.Damaged` at the first
    unreadable byte, after yielding the articles before it."""
    if tarfile.is_tarfile(path):
        yield from _archive(path, name)
    else:
        yield from _articles(path, name)


def _archive(path: str, name: str) -> Iterator[ArticleRecord]:
    """The articles of a tar archive, read as a stream (members in order, nothing sought back to) and each member's
    header dropped once read: a ``TarFile`` keeps every header it has read, so memory would otherwise grow with the
    package (PMC's packages hold hundreds of thousands of articles)."""
    count = 0
    try:
        with tarfile.open(path, "r|*") as archive:
            while (member := archive.next()) is not None:
                archive.members.clear()  # type: ignore[attr-defined]  # the headers read (not in typeshed)
                if not member.isfile() or not member.name.endswith(_MEMBER_SUFFIXES):
                    continue
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                try:
                    records = parse_jats(handle.read())
                except ValueError as e:
                    raise Damaged(name, f"in member {member.name}", str(e)) from None
                for record in records:
                    count += 1
                    yield record
    except (tarfile.TarError, EOFError, zlib.error, OSError) as e:
        raise Damaged(name, f"after article {count}", f"damaged archive ({e})") from None


#: What a damaged plain or gzipped file of articles raises while read (apart from broken XML).
_UNREADABLE: tuple[type[BaseException], ...] = (*DAMAGED, OSError, ValueError)


def _articles(path: str, name: str) -> Iterator[ArticleRecord]:
    """The outermost ``<article>`` elements of a file, each handed to the reader and freed."""
    count = 0
    depth = 0
    try:
        with open_bulk_file(path) as stream:
            events = etree.iterparse(stream, events=("start", "end"), tag="{*}article", resolve_entities=False,
                                     no_network=True, huge_tree=True, load_dtd=False)
            for event, element in events:
                if event == "start":
                    depth += 1
                    continue
                depth -= 1
                if depth:
                    continue
                records = parse_jats(etree.tostring(element))
                element.clear(keep_tail=False)
                parent = element.getparent()
                if parent is not None:
                    while element.getprevious() is not None:
                        del parent[0]
                for record in records:
                    count += 1
                    yield record
    except etree.XMLSyntaxError as e:
        raise Damaged(name, f"at line {e.lineno}, after article {count}", e.msg or "broken XML") from None
    except _UNREADABLE as e:
        raise Damaged(name, f"after article {count}", str(e)) from None
