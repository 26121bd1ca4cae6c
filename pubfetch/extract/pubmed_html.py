"""The PubMed article page (``https://pubmed.ncbi.nlm.nih.gov/<PMID>/``): PubFetcher's "PubMed HTML" resource.

PubFetcher scraped the legacy ``ncbi.nlm.nih.gov/pubmed`` page (``.rprt`` blocks), which NCBI replaced in 2020; the
same parts are read here from the current page:

* title ``h1.heading-title`` of the article heading;
* abstract ``div#eng-abstract`` (else the selected, else the first ``div.abstract-content``): one paragraph per ``<p>``,
  a structured section keeping its ``Background:`` sub-title in front, paragraphs joined by blank lines -- the same
  shape as :func:`pubfetch.extract.pubmed.format_abstract` gives the XML;
* keywords: the ``Keywords:`` paragraph under the abstract, label removed, split at ``,;|``, a final period dropped;
* IDs: the identifiers list (``PMID``, ``PMCID``, ``DOI``);
* MeSH: the MeSH terms list, read as PubFetcher read the old page ("Term*" is a major topic, "Term / qualifier" keeps
  the descriptor once);
* journal: the journal button's full title; volume, issue, pages and date from the ``span.cit`` citation line.

The legacy page (``www.ncbi.nlm.nih.gov/pubmed/<PMID>``, PubFetcher's) is read too, from its ``div.rprt`` block.
A bot gate or other block page is not an article page: callers check :func:`pubfetch.extract.blockpage.block_reason`
first (this parser would refuse it anyway, as a page without an article).
"""

from __future__ import annotations

import logging
import re

from bs4 import BeautifulSoup
from bs4.element import Tag

from pubfetch import ids as idmod
from pubfetch.extract.clean import parse_html
from pubfetch.extract.errors import ParseError
from pubfetch.extract.html_text import element_text
from pubfetch.extract.meta import meta_date
from pubfetch.extract.pubmed import normalise_orcid
from pubfetch.model.parts import Author, MeshTerm
from pubfetch.model.record import ArticleRecord

log = logging.getLogger(__name__)

__all__ = ["parse_cit", "parse_pubmed_html"]

_KEYWORDS_BEGIN = re.compile(r"^[\s\u00a0]*keywords?[\s\u00a0]*:*[\s\u00a0]*", re.IGNORECASE)
_SEPARATOR = re.compile(r"[,;|]")
_CITED_DOI = re.compile(r"(10\.[^\s/]+/\S+)")
#: "2019 Jul 2;47(W1):W256-W259." / "2012 Dec;21(6):1349-57." / "1975;3:94-104." / "2018 Jun 4;9:576."
_CIT = re.compile(r"^\s*(?P<date>[0-9]{4}(?:\s+[A-Za-z]{3}(?:\s+[0-9]{1,2})?)?)[^;:]*"
                  r"(?:;\s*(?P<volume>[^(:;]+)?(?:\((?P<issue>[^)]*)\))?)?(?::\s*(?P<pages>[^.;\s]+))?")


def _classes(tag: Tag) -> list[str]:
    value = tag.get("class")
    if value is None:
        return []
    return value.split() if isinstance(value, str) else list(value)


def _select_one(root: BeautifulSoup | Tag, selector: str) -> Tag | None:
    found = root.select_one(selector)
    return found if isinstance(found, Tag) else None


def _heading(soup: BeautifulSoup) -> BeautifulSoup | Tag:
    """The article's heading block (so that similar-article lists elsewhere on the page are never read)."""
    return _select_one(soup, "#full-view-heading") or _select_one(soup, "header#heading") or soup


def _abstract_block(soup: BeautifulSoup) -> Tag | None:
    return (_select_one(soup, "div#eng-abstract") or _select_one(soup, "div.abstract-content.selected")
            or _select_one(soup, "div.abstract-content"))


def _abstract(block: Tag | None) -> str:
    if block is None:
        return ""
    paragraphs = [p for p in block.find_all("p") if "copyright" not in _classes(p)]
    texts = [element_text(p) for p in paragraphs] if paragraphs else [element_text(block)]
    return "\n\n".join(t for t in texts if t)


def _keywords(soup: BeautifulSoup) -> list[str]:
    container = _select_one(soup, "div#abstract") or _select_one(soup, "div.abstract") or soup
    for strong in container.select("strong.sub-title"):
        if not _KEYWORDS_BEGIN.match(element_text(strong)):
            continue
        paragraph = strong.find_parent("p") or strong.parent
        text = _KEYWORDS_BEGIN.sub("", element_text(paragraph), count=1)
        words = (w.strip() for w in _SEPARATOR.split(text))
        words = (w[:-1].rstrip() if w.endswith(".") else w for w in words)
        return list(dict.fromkeys(w for w in words if w))
    return []


def _identifier(ids: Tag | None, kind: str, label: str) -> str:
    """Text of one entry of the identifiers list, by its class (``pubmed``, ``pmc``, ``doi``) or its label."""
    if ids is None:
        return ""
    for span in ids.select("span.identifier"):
        label_tag = _select_one(span, ".id-label")
        if kind in _classes(span) or (label_tag is not None and element_text(label_tag).upper() == label):
            value = _select_one(span, "strong.current-id") or _select_one(span, "a.id-link") or span
            text = element_text(value)
            if value is span and label_tag is not None:
                text = text.replace(element_text(label_tag), "", 1).strip()
            return text
    return ""


def _ids(record: ArticleRecord, heading: BeautifulSoup | Tag) -> None:
    ids = _select_one(heading, "ul#full-view-identifiers") or _select_one(heading, "ul.identifiers")
    pmid = _identifier(ids, "pubmed", "PMID:")
    pmcid = _identifier(ids, "pmc", "PMCID:").upper()
    doi = _identifier(ids, "doi", "DOI:")
    if idmod.is_pmid(pmid):
        record.pmid = pmid
    elif pmid:
        log.warning("invalid PMID '%s' on PubMed page", pmid)
    if idmod.is_pmcid(pmcid):
        record.pmcid = pmcid
    elif pmcid:
        log.warning("invalid PMCID '%s' on PubMed page", pmcid)
    if idmod.is_doi(doi) and " " not in doi:
        record.doi = doi
    elif doi:
        log.warning("invalid DOI '%s' on PubMed page", doi)
    if not record.doi:  # the citation line also carries it: "doi: 10.1093/nar/gkz239."
        cited = _select_one(heading, "span.citation-doi")
        match = _CITED_DOI.search(element_text(cited)) if cited is not None else None
        value = match.group(1).rstrip(".,;") if match else ""
        if idmod.is_doi(value):
            record.doi = value


def _mesh(soup: BeautifulSoup) -> list[MeshTerm]:
    """PubFetcher's reading of PubMed's MeSH list: a "/" keeps only the descriptor (once), a final "*" marks a
    major topic of a heading without qualifiers."""
    section = _select_one(soup, "div#mesh-terms")
    if section is None:
        return []
    terms: list[MeshTerm] = []
    previous = ""
    for button in section.select("button.keyword-actions-trigger") or section.select("li"):
        text = element_text(button)
        major = False
        if "/" in text:
            text = text.split("/", 1)[0].strip()
            if text == previous:
                continue
        elif text.endswith("*"):
            text, major = text[:-1].strip(), True
        previous = text
        if text:
            terms.append(MeshTerm(text, major))
    return terms


def _authors(heading: BeautifulSoup | Tag) -> list[Author]:
    authors_list = _select_one(heading, "div.authors-list")
    if authors_list is None:
        return []
    authors = []
    for item in authors_list.select("span.authors-list-item"):
        name_tag = _select_one(item, "a.full-name")
        name = (name_tag.get("data-ga-label") or element_text(name_tag)) if name_tag is not None else ""
        if not isinstance(name, str) or not name.strip():
            continue
        affiliations = []
        for link in item.select("a.affiliation-link"):
            title = link.get("title")
            if isinstance(title, str) and title.strip() and title.strip() not in affiliations:
                affiliations.append(title.strip())
        orcid_tag = _select_one(item, "a.author-orcid, a[href*='orcid.org']")
        orcid = ""
        if orcid_tag is not None and isinstance(orcid_tag.get("href"), str):
            orcid = normalise_orcid(str(orcid_tag.get("href")))
        authors.append(Author.from_name(name, orcid, affiliations))
    return authors


def parse_cit(cit: str) -> tuple[str, str, str, str]:
    """(date text, volume, issue, pages) of a PubMed citation line such as ``2019 Jul 2;47(W1):W256-W259.``."""
    match = _CIT.match(cit or "")
    if not match:
        return "", "", "", ""
    return tuple((match.group(g) or "").strip() for g in ("date", "volume", "issue", "pages"))  # type: ignore[return-value]


def _cit_date(text: str) -> tuple[str, str]:
    parts = text.split()
    if len(parts) == 3:
        return meta_date(f"{parts[2]} {parts[1]} {parts[0]}")
    if len(parts) == 2:
        return meta_date(f"{parts[1]} {parts[0]}")
    return meta_date(text)


# ------------------------------------------------------------------------------------------------- legacy layout
# www.ncbi.nlm.nih.gov/pubmed/<PMID> until 2020 (what PubFetcher scraped): one ``div.rprt`` with the citation line
# (``.cit``), ``h1`` title, ``.auths``, the abstract (``.abstr``: ``h4`` labels before the paragraphs of a structured
# abstract), the IDs as ``dl.rprtid`` term/value pairs, and MeSH terms under a "MeSH Terms" ``h4`` of ``.morecit``.


def _legacy_abstract(block: Tag | None) -> str:
    if block is None:
        return ""
    paragraphs = []
    label = ""
    for element in block.find_all(["h4", "p"]):
        text = element_text(element)
        if element.name == "h4":
            label = text.rstrip(": ")
        elif text:
            paragraphs.append(f"{label}: {text}" if label else text)
            label = ""
    return "\n\n".join(paragraphs)


def _legacy_ids(record: ArticleRecord, report: Tag) -> None:
    for term in report.select("dl.rprtid dt"):
        value_tag = term.find_next_sibling("dd")
        value = element_text(value_tag) if isinstance(value_tag, Tag) else ""
        label = element_text(term).rstrip(":").upper()
        if label == "PMID" and idmod.is_pmid(value):
            record.pmid = value
        elif label == "PMCID" and idmod.is_pmcid(value.upper()):
            record.pmcid = value.upper()
        elif label == "DOI" and idmod.is_doi(value) and " " not in value:
            record.doi = value


def _legacy_mesh(report: Tag) -> list[MeshTerm]:
    heading = next((h for h in report.select(".morecit h4") if element_text(h) == "MeSH Terms"), None)
    listing = heading.find_next_sibling("ul") if heading is not None else None
    if not isinstance(listing, Tag):
        return []
    terms: list[MeshTerm] = []
    previous = ""
    for item in listing.find_all("li"):
        text = element_text(item)
        major = text.endswith("*") and "/" not in text
        text = text.split("/", 1)[0].strip().rstrip("*").strip()
        if text and text != previous:
            terms.append(MeshTerm(text, major))
        previous = text
    return terms


def _parse_legacy(report: Tag) -> ArticleRecord:
    """The article of a legacy PubMed page's ``div.rprt``."""
    record = ArticleRecord()
    _legacy_ids(record, report)
    record.title = element_text(_select_one(report, "h1"))
    record.abstract = _legacy_abstract(_select_one(report, ".abstr"))
    keywords = _select_one(report, ".keywords p")
    if keywords is not None:
        record.keywords = [k.strip() for k in _SEPARATOR.split(element_text(keywords)) if k.strip()]
    record.mesh = _legacy_mesh(report)
    record.authors = [Author.from_name(element_text(a)) for a in report.select(".auths > a") if element_text(a)]
    cit = _select_one(report, ".cit")
    if cit is not None:
        journal = _select_one(cit, "a[title]")
        if journal is not None:
            record.journal_title = str(journal.get("title") or "").strip().rstrip(".")
        line = element_text(cit).removeprefix(element_text(journal) if journal is not None else "").strip()
        date_text, record.volume, record.issue, record.pages = parse_cit(line)
        record.pub_date, partial = _cit_date(date_text)
        if partial:
            record.flags["journal_date"] = partial
    return record


#: How far from a page's end its closing ``</html>`` tag is looked for (PubMed's pages end with it and a newline).
_END_LOOKED_AT = 1024


def _cut_short(html: str | bytes) -> bool:
    """Whether the page ends before its closing ``</html>`` tag: an answer whose length the server did not say (no
    Content-Length, not chunked) ends where the connection closed, which the client cannot tell from a whole page,
    and a title read from a page cut inside its heading would be a final part."""
    if isinstance(html, str):
        return "</html>" not in html[-_END_LOOKED_AT:].lower()
    return b"</html>" not in html[-_END_LOOKED_AT:].lower()


def parse_pubmed_html(html: str | bytes | bytearray | None) -> ArticleRecord:
    """The article on a PubMed page; raises :class:`ParseError` when the page shows no article (a search result
    list, an error page, another site) or ends before its closing tag (cut short: :func:`_cut_short`)."""
    if html is not None and not isinstance(html, (str, bytes, bytearray)):
        raise ParseError(f"a PubMed page must be HTML text or bytes, not {type(html).__name__}")
    page = bytes(html) if isinstance(html, bytearray) else html
    if page and _cut_short(page):
        raise ParseError("the page ends before its closing </html> tag: cut short in transit")
    soup = parse_html(page)  # type: ignore[arg-type]  # None: TypeError
    heading = _heading(soup)
    title_tag = _select_one(heading, "h1.heading-title")
    abstract_block = _abstract_block(soup)
    legacy = _select_one(soup, "div.rprt") if title_tag is None and abstract_block is None else None
    if legacy is not None:
        record = _parse_legacy(legacy)
    elif title_tag is None and abstract_block is None:
        raise ParseError("no PubMed article on the page (neither h1.heading-title nor an abstract was found)")
    else:
        record = _parse_current(soup, heading, title_tag, abstract_block)
    record.flags["source"] = "pubmed_html"
    if record.is_empty():
        raise ParseError("the PubMed page has an article heading but no IDs, title or abstract")
    return record


def _parse_current(soup: BeautifulSoup, heading: BeautifulSoup | Tag, title_tag: Tag | None,
                   abstract_block: Tag | None) -> ArticleRecord:
    """The article of the current page (pubmed.ncbi.nlm.nih.gov, since 2020)."""
    record = ArticleRecord()
    _ids(record, heading)
    record.title = element_text(title_tag)
    record.abstract = _abstract(abstract_block)
    record.keywords = _keywords(soup)
    record.mesh = _mesh(soup)
    journal = (_select_one(heading, "#full-view-journal-trigger")
               or _select_one(heading, "button.journal-actions-trigger"))
    if journal is not None:
        full = journal.get("title")
        record.journal_title = full.strip() if isinstance(full, str) and full.strip() else element_text(journal)
    cit = _select_one(heading, "span.cit")
    if cit is not None:
        date_text, record.volume, record.issue, record.pages = parse_cit(element_text(cit))
        record.pub_date, partial = _cit_date(date_text)
        if partial:
            record.flags["journal_date"] = partial
    record.authors = _authors(heading)
    return record
