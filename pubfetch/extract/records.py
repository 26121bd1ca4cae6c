"""The one shape every publication parser returns, and the one place such a record is merged into a Publication.

Parsers (Europe PMC, JATS, PubMed, Unpaywall, meta tags, scraping rules) are pure functions from a document to
:class:`ArticleRecord` objects. They know nothing of part types, finality or overwrite rules; resources decide which
part type each field is worth and call :func:`apply_record`, so the merge rules of the model apply the same way to all
of them. The same records feed the LOCKSS-style metadata layer, which is why they carry the bibliographic fields
PubFetcher drops.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm, MinedTerm
from pubfetch.model.publication import Publication
from pubfetch.fetcher_args import FetcherArgs


@dataclass
class Link:
    """A URL found in a document that may lead to more of the article (full text page, PDF, repository copy).

    ``kind`` is "pdf" when the source says the target is a PDF, else "html" (the fetcher sniffs it anyway);
    ``source`` names where the link was found (e.g. "citation_pdf_url", "europepmc fullTextUrlList", "unpaywall").
    """

    url: str
    kind: str = "html"
    source: str = ""


@dataclass
class ArticleRecord:
    """What one source says about one article. Empty strings and lists mean "not given"; ``None`` means unknown."""

    pmid: str = ""
    pmcid: str = ""
    doi: str = ""
    title: str = ""
    abstract: str = ""
    fulltext: str = ""
    keywords: list[str] = field(default_factory=list)
    mesh: list[MeshTerm] = field(default_factory=list)
    efo: list[MinedTerm] = field(default_factory=list)
    go: list[MinedTerm] = field(default_factory=list)
    journal_title: str = ""
    #: ``YYYY-MM-DD`` (the model ignores other forms).
    pub_date: str = ""
    citations_count: int | None = None
    oa: bool | None = None
    preprint: bool | None = None
    corresp_author: list[CorrespAuthor] = field(default_factory=list)
    authors: list[Author] = field(default_factory=list)
    volume: str = ""
    issue: str = ""
    pages: str = ""
    issn: str = ""
    eissn: str = ""
    publisher: str = ""
    pub_types: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    #: Source-specific flags resources use to decide what to ask next (e.g. "source": "MED", "inEPMC": True,
    #: "hasPDF": True, "hasTextMinedTerms": True).
    flags: dict[str, object] = field(default_factory=dict)

    def is_empty(self) -> bool:
        """Whether the record carries no publication content at all (an empty search answer, an error page)."""
        return not (self.pmid or self.pmcid or self.doi or self.title or self.abstract or self.fulltext
                    or self.keywords or self.mesh)


PartTypes = PartType | Mapping[PartName, PartType]

_CONTENT = (PartName.title, PartName.keywords, PartName.mesh, PartName.efo, PartName.go, PartName.theAbstract,
            PartName.fulltext)


def _type_for(types: PartTypes, name: PartName) -> PartType | None:
    if isinstance(types, PartType):
        return types
    return types.get(name)


def apply_record(
    pub: Publication,
    record: ArticleRecord,
    types: PartTypes,
    url: str,
    args: FetcherArgs,
    *,
    parts: frozenset[PartName] | None = None,
    ids: bool = True,
    force_corresp: bool = False,
) -> list[PartName]:
    """Merge a record into a publication under the model's overwrite rules; return the parts that changed.

    Args:
        types: one part type for every part, or a type per part (a part missing from the mapping is not set, which
            is how a resource says "this source's keywords are not worth taking").
        url: the URL the record was read from (stored on each part).
        parts: when given, only these content parts are set (``--fetch-part``); IDs and bibliographic fields are
            always taken because they steer the rest of the chain.
        ids: also take the record's IDs (off when the record's IDs were found to contradict the publication's).
        force_corresp: an XML source (JATS, PubMed) replaces corresponding authors a weaker source set.
    """
    changed: list[PartName] = []
    if ids:
        for name, value, setter in (
            (PartName.pmid, record.pmid, pub.set_pmid),
            (PartName.pmcid, record.pmcid, pub.set_pmcid),
            (PartName.doi, record.doi, pub.set_doi),
        ):
            type_ = _type_for(types, name)
            if value and type_ is not None and setter(value, type_, url, args):
                changed.append(name)
    values: dict[PartName, tuple[Any, Callable[..., bool]]] = {
        PartName.title: (record.title, pub.set_title),
        PartName.keywords: (record.keywords, pub.set_keywords),
        PartName.mesh: (record.mesh, pub.set_mesh),
        PartName.efo: (record.efo, pub.set_efo),
        PartName.go: (record.go, pub.set_go),
        PartName.theAbstract: (record.abstract, pub.set_abstract),
        PartName.fulltext: (record.fulltext, pub.set_fulltext),
    }
    for name in _CONTENT:
        value, setter = values[name]
        type_ = _type_for(types, name)
        if not value or type_ is None or (parts is not None and name not in parts):
            continue
        if setter(value, type_, url, args):
            changed.append(name)
    pub.set_journal_title(record.journal_title)
    pub.set_pub_date(record.pub_date)
    if record.citations_count is not None:
        pub.set_citations_count(record.citations_count)
    if record.oa:
        pub.oa = True
    if record.preprint:
        pub.preprint = True
    pub.set_corresp_author(record.corresp_author, force=force_corresp)
    pub.set_authors(record.authors)
    pub.set_biblio(volume=record.volume, issue=record.issue, pages=record.pages, issn=record.issn,
                   eissn=record.eissn, publisher=record.publisher)
    pub.set_pub_types(record.pub_types)
    return changed
