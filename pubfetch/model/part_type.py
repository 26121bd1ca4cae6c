"""Publication part names and part types (the provenance ranking that decides which source may overwrite which)."""

from __future__ import annotations

from enum import Enum

from pubfetch.part_names import PartName

__all__ = ["PartName", "PartType"]


_FINAL = {"europepmc", "europepmc_xml", "europepmc_html", "pubmed_xml", "pubmed_html", "pmc_xml", "pmc_html", "doi",
          "link", "link_oadoi"}
_PDF = {"pdf_europepmc", "pdf_pmc", "pdf_doi", "pdf_link", "pdf_oadoi", "pdf_citation", "pdf_eprints", "pdf_bepress",
        "pdf_meta"}


class PartType(Enum):
    """Where a part's content came from, best first.

    The first ten (structured sources and the article's own pages) are "final" and equivalent to one another: among
    them the longer content wins, while any of them beats every non-final type. The scholarly registries and indexes
    (Crossref, DataCite, bioRxiv/medRxiv, OpenAlex) come next: structured, but deposited or gathered metadata rather
    than the article itself (abstracts missing or cut, titles without markup), so the article's own pages may still
    replace them, while they beat every meta tag (docs/fetching.md, "Ranking").
    """

    europepmc = "europepmc"
    europepmc_xml = "europepmc_xml"
    europepmc_html = "europepmc_html"
    pubmed_xml = "pubmed_xml"
    pubmed_html = "pubmed_html"
    pmc_xml = "pmc_xml"
    pmc_html = "pmc_html"
    doi = "doi"
    link = "link"
    link_oadoi = "link_oadoi"
    crossref = "crossref"
    datacite = "datacite"
    biorxiv = "biorxiv"
    openalex = "openalex"
    citation = "citation"
    eprints = "eprints"
    bepress = "bepress"
    link_citation = "link_citation"
    link_eprints = "link_eprints"
    dc = "dc"
    og = "og"
    twitter = "twitter"
    meta = "meta"
    link_meta = "link_meta"
    external = "external"
    oadoi = "oadoi"
    pdf_europepmc = "pdf_europepmc"
    pdf_pmc = "pdf_pmc"
    pdf_doi = "pdf_doi"
    pdf_link = "pdf_link"
    pdf_oadoi = "pdf_oadoi"
    pdf_citation = "pdf_citation"
    pdf_eprints = "pdf_eprints"
    pdf_bepress = "pdf_bepress"
    pdf_meta = "pdf_meta"
    webpage = "webpage"
    na = "na"

    # these read the member's name (its value too), a plain attribute: ``value`` is a descriptor and an Enum member
    # hashes through a Python method, and a merge asks them tens of times a part (a bulk import, per record)

    @property
    def order(self) -> int:
        return _ORDER[self._name_]

    @property
    def is_final(self) -> bool:
        return self._name_ in _FINAL

    @property
    def is_pdf(self) -> bool:
        return self._name_ in _PDF

    def is_equivalent(self, other: PartType | None) -> bool:
        if other is None:
            return False
        return (self.is_final and other.is_final) or self is other

    def is_better_than(self, other: PartType | None) -> bool:
        """Strictly better by rank; no final type is better than another final type."""
        if other is None:
            return True
        if self.is_equivalent(other):
            return False
        return self.order < other.order

    def to_pdf(self) -> PartType:
        """The PDF counterpart of a page type: a PDF linked from a DOI page is ``pdf_doi``, and so on."""
        return _TO_PDF.get(self, self)

    @classmethod
    def worse(cls, a: PartType, b: PartType) -> PartType:
        """The worse of two types by rank: a meta tag read on a link page is no better than the link itself."""
        return a if a.order >= b.order else b


_ORDER = {t.name: i for i, t in enumerate(PartType)}
assert all(t.name == t.value for t in PartType)  # is_final and is_pdf read the name
_TO_PDF = {
    PartType.europepmc_html: PartType.pdf_europepmc,
    PartType.pmc_html: PartType.pdf_pmc,
    PartType.doi: PartType.pdf_doi,
    PartType.link: PartType.pdf_link,
    PartType.link_oadoi: PartType.pdf_oadoi,
    PartType.link_citation: PartType.pdf_citation,
    PartType.link_eprints: PartType.pdf_eprints,
    PartType.link_meta: PartType.pdf_meta,
}
