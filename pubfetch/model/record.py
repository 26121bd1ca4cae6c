"""The one shape every publication parser returns: what one source says about one article.

Parsers (Europe PMC, JATS, PubMed, Unpaywall, meta tags, scraping rules) are pure functions from a document to
:class:`ArticleRecord` objects. They know nothing of part types, finality or overwrite rules; resources decide which
part type each field is worth and merge the record with :func:`pubfetch.model.merge.apply_record`, so the merge rules
of the model apply the same way to all of them. The same records feed the LOCKSS-style metadata layer, which is why
they carry the bibliographic fields PubFetcher drops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pubfetch.model.links import TextLink
from pubfetch.model.mined_terms import TypedTerm
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm, MinedTerm
from pubfetch.model.retraction import RetractionVerdict
from pubfetch.model.rich import Grant, Reference, Relation, Section, Update
from pubfetch.model.structure import Figure, Statement, Supplement, Table

__all__ = ["ArticleRecord", "Link"]


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
    funding: list[Grant] = field(default_factory=list)
    #: the URLs, DOIs and identifiers in the text (the ``links`` rich part; ``links`` above are where to fetch more)
    text_links: list[TextLink] = field(default_factory=list)
    #: text-mined terms of every annotation type the answer holds (the annotations service)
    mined_terms: list[TypedTerm] = field(default_factory=list)
    updates: list[Update] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    license: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    supplements: list[Supplement] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    #: the paper's other versions (its preprint, its published version)
    relations: list[Relation] = field(default_factory=list)
    #: what the source says of a retraction, when it is one that keeps track (:mod:`pubfetch.model.retraction`)
    retraction: RetractionVerdict | None = None
    #: Source-specific flags resources use to decide what to ask next (e.g. "source": "MED", "inEPMC": True,
    #: "hasPDF": True, "hasTextMinedTerms": True).
    flags: dict[str, object] = field(default_factory=dict)

    def is_empty(self) -> bool:
        """Whether the record carries no publication content at all (an empty search answer, an error page)."""
        return not (self.pmid or self.pmcid or self.doi or self.title or self.abstract or self.fulltext
                    or self.keywords or self.mesh)
