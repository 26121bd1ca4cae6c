"""JATS articles (Europe PMC ``fullTextXML``, PMC efetch ``<pmc-articleset>``) as :class:`ArticleRecord` objects.

PubFetcher reads both with one method (fillWithPubMedCentralXml); this is that method, one record per ``<article>``:

* ``tex-math`` is ignored (the MathML or image beside it stands for the formula).
* IDs from ``front`` ``article-id`` of pub-id-type pmid, pmcid or pmc (a bare number gets "PMC"), doi.
* title: the first ``article-title`` of the first ``title-group``, plus " : " and the subtitle when there is one.
* keywords: every ``kwd`` of ``front``.
* abstract: each non-``sec`` child of every ``abstract`` and of the ``sec`` elements inside them (titles included, so a
  structured abstract reads "Background\\n\\n...\\n\\nMethods\\n\\n..."), one paragraph each, blank lines between.
* fulltext: the body's non-``sec`` children (except ``sig-block``) and the non-``sec`` children of every ``sec`` in it
  (section titles, paragraphs, lists, whole figures and tables with label, caption and cells on one line), then the back
  matter's glossary terms and definitions, ``notes`` and ``sec`` (without reference lists), and ``floats-group`` /
  ``floats-wrap`` (figures and tables kept apart from the body). Acknowledgements, appendices, biographies,
  footnotes and references stay out. The record's fulltext is title, abstract and body joined by blank lines (an empty
  part is left out rather than leaving four newlines as PubFetcher does).
* each selected element's text is jsoup's ``Element.text()`` as PubFetcher had it (:mod:`pubfetch.extract.jats_text`).
* corresponding authors: PubFetcher's contrib / author-notes matching (:mod:`pubfetch.extract.jats_corresp`).

Beyond PubFetcher (for the LOCKSS layer): every author with ORCID and affiliations, volume, issue, pages, ISSNs,
publisher, article type, the journal title (``journal-title: journal-subtitle``, as LOCKSS' JATS helper joins them)
and the publication date: the earliest electronic or print ``pub-date``, else the collection (issue) date, else any;
``pub_date`` when it names a day, else its year or month in ``flags["date_partial"]`` (as the meta-tag reader).

This is the one reader of JATS: the fetcher takes the records (:func:`parse_jats`), and the LOCKSS layer's JATS
extractor takes :class:`JatsArticle` objects (:func:`read_jats`), the same records plus what LOCKSS keeps as written
(identifiers before cleaning, the date at the precision it is given), so that a file reads the same to both.
Funding, references, sections and licence: :mod:`pubfetch.extract.jats_rich`; tables, figures, supplements and
statements: :mod:`pubfetch.extract.jats_structure`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date

from lxml import etree

from pubfetch.extract.errors import ParseError, load_xml
from pubfetch.extract.europepmc import clean_doi, clean_pmcid, clean_pmid
from pubfetch.extract.gcpause import collection_paused
from pubfetch.extract.jats_corresp import corresp_authors
from pubfetch.extract.jats_rich import add_rich_parts, jats_rich_wanted
from pubfetch.extract.jats_structure import add_structure_parts
from pubfetch.extract.jats_text import ArticleTexts, ElementTexts, attr, element_text, elements, first_text
from pubfetch.extract.pubmed_cut import answer_pieces
from pubfetch.extract.xmlsafe import local_name, parse_xml_pieces, read_as_parsed
from pubfetch.model.parts import Author
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import RichName
from pubfetch.model.structure import DEFAULT_MAX_TABLE_CELLS

__all__ = ["JatsArticle", "article_record", "authors", "element_text", "jats_date", "parse_jats", "pub_date",
           "read_jats", "read_jats_root", "title_text"]

log = logging.getLogger(__name__)

# PubFetcher's selectors, as XPath relative to an <article> (union results come back in document order, once each).
_TITLE_GROUP = "front//title-group[not(preceding-sibling::title-group)]"
_ABSTRACT = "front//abstract/*[not(self::sec)] | front//abstract//sec/*[not(self::sec)]"
_NO_REFS = "[not(self::ref-list) and not(.//ref-list)]"
_BODY = " | ".join((
    "body/*[not(self::sec) and not(self::sig-block)]",
    "body//sec/*[not(self::sec)]",
    *(f"back/glossary//{name}" for name in ("term-head", "def-head", "term", "def", "td")),
    f"back/notes/*{_NO_REFS}",
    f"back/sec/*{_NO_REFS}",
    f"floats-wrap/*{_NO_REFS}",
    f"floats-group/*{_NO_REFS}",
))
# compiled once: these two are asked of every article (lxml's compiled XPath evaluators may be shared by threads)
_ABSTRACT_PARTS = etree.XPath(_ABSTRACT)
_BODY_PARTS = etree.XPath(_BODY)

# ----------------------------------------------------------------------------------------------- documents


def _strip_namespace(article: etree._Element) -> None:
    """JATS is namespace-free; a copy wrapped in a default namespace (OAI-PMH, JATS 1.3 archiving) is made plain so
    one set of paths serves all."""
    ns = etree.QName(article).namespace
    if not ns:
        return
    for el in article.iter():
        if isinstance(el.tag, str) and etree.QName(el).namespace == ns:
            el.tag = etree.QName(el).localname


def _articles(root: etree._Element) -> list[etree._Element]:
    name = local_name(root)
    if name == "article":
        return [root]
    found = [el for el in root.iter("{*}article") if _outermost(el)]
    if not found and name != "pmc-articleset":
        raise ParseError(f"not a JATS document: root element is <{name}> and it holds no <article>")
    if not found:
        errors = [element_text(e) for e in root.iter("{*}error")]
        # the caller, which knows the ID and the URL, warns; the service's reason goes to the log file
        log.info("no article in pmc-articleset%s", f": {'; '.join(errors)}" if errors else "")
    return found


def _plain_articles(root: etree._Element) -> list[etree._Element]:
    articles = _articles(root)
    for article in articles:
        _strip_namespace(article)
    return articles


def parse_jats(data: str | bytes, rich_parts: bool | Collection[RichName] = True, *,
               max_table_cells: int = DEFAULT_MAX_TABLE_CELLS) -> list[ArticleRecord]:
    """One record per ``<article>`` of a JATS document (a lone article, or a ``pmc-articleset`` of several; an
    articleset without articles, as efetch answers for unknown IDs, gives an empty list). ``rich_parts``: which of
    the rich parts (:data:`~pubfetch.extract.jats_rich.JATS_RICH`: funding, references, sections, licence, links,
    tables, figures, supplements, statements) are read: all (True), none (False, for a reader wanting only the rest)
    or those named; a table keeps at most ``max_table_cells`` cells.

    Bytes of :data:`~pubfetch.extract.xmlsafe.READ_AS_PARSED_FROM` or more (PMC's efetch of 200 full texts, tens of
    megabytes) are parsed in pieces, each article read as soon as it is complete and then cleared: their tree is never
    whole. Smaller documents are read from their whole tree, which libxml2 builds faster.

    Raises XmlError for malformed XML and ParseError for XML that is not JATS (both ValueErrors).
    """
    if not read_as_parsed(data):
        return [article_record(article, rich_parts=rich_parts, max_table_cells=max_table_cells)
                for article in _plain_articles(load_xml(data, "JATS document"))]
    records: list[ArticleRecord] = []

    def read(article: etree._Element) -> None:
        if _outermost(article):
            _strip_namespace(article)
            records.append(article_record(article, rich_parts=rich_parts, max_table_cells=max_table_cells))
            article.clear(keep_tail=False)
    with collection_paused():
        root = parse_xml_pieces(answer_pieces(data), tags=("{*}article",), on_end=read)
    if not records:
        _articles(root)  # what it says of a document without articles: not JATS, or an articleset's errors
    return records


def _outermost(article: etree._Element) -> bool:
    """Whether an ``article`` element is in no other (JATS's ``article`` holds ``sub-article``, but a wrapped copy
    may nest one), as :func:`_articles` takes them."""
    parent = article.getparent()
    while parent is not None:
        if local_name(parent) == "article":
            return False
        parent = parent.getparent()
    return True


@dataclass
class JatsArticle:
    """One ``<article>`` as the LOCKSS layer reads it: the fetcher's record, and the values LOCKSS keeps as written.

    ``title`` and ``subtitle`` are the record's title before it joins them; ``journal_title`` is the record's;
    ``date`` is the record's publication date at the precision the file gives it (``YYYY``, ``YYYY-MM`` or
    ``YYYY-MM-DD``; the record's ``pub_date`` holds only a whole day); ``doi``, ``pmid`` and ``pmcid`` are the
    ``article-id`` texts before the record cleans them (LOCKSS keeps ``10.5555/abc`` lower-case).
    """

    record: ArticleRecord
    title: str = ""
    subtitle: str = ""
    journal_title: str = ""
    date: str = ""
    doi: str = ""
    pmid: str = ""
    pmcid: str = ""


def read_jats(data: str | bytes) -> list[JatsArticle]:
    """:func:`parse_jats` for the LOCKSS layer: one :class:`JatsArticle` per ``<article>`` (same errors)."""
    return read_jats_root(load_xml(data, "JATS document"))


def read_jats_root(root: etree._Element) -> list[JatsArticle]:
    """:func:`read_jats` of a document already parsed (its articles lose their default namespace); ParseError when
    it is not JATS."""
    out = []
    for article in _plain_articles(root):
        texts = ArticleTexts()
        record = article_record(article, texts)
        title, subtitle = title_parts(article, texts)
        out.append(JatsArticle(
            record, title, subtitle, record.journal_title, record.pub_date or str(record.flags.get("date_partial", "")),
            texts.first(elements(article, _ID_PATHS["doi"])), texts.first(elements(article, _ID_PATHS["pmid"])),
            texts.first(elements(article, _ID_PATHS["pmcid"]))))
    return out


_ID_PATHS = {
    "pmid": "front//article-id[@pub-id-type='pmid']",
    "pmcid": "front//article-id[@pub-id-type='pmcid' or @pub-id-type='pmc']",
    "doi": "front//article-id[@pub-id-type='doi']",
}


def article_record(article: etree._Element, texts: ElementTexts | None = None,
                   rich_parts: bool | Collection[RichName] = True, *,
                   max_table_cells: int = DEFAULT_MAX_TABLE_CELLS) -> ArticleRecord:
    """The record of one parsed ``<article>`` element, with the rich parts ``rich_parts`` names (all when True, none
    when False: :func:`parse_jats`); ``texts``, when given, are that article's
    (:class:`~pubfetch.extract.jats_text.ArticleTexts`, shared with a caller reading more of it)."""
    if texts is None:
        texts = ArticleTexts()
    rec = ArticleRecord()
    where = "JATS article-id"
    rec.pmid = clean_pmid(texts.first(elements(article, _ID_PATHS["pmid"])), where)
    rec.pmcid = clean_pmcid(texts.first(elements(article, _ID_PATHS["pmcid"])), where)
    rec.doi = clean_doi(texts.first(elements(article, _ID_PATHS["doi"])), where)
    rec.title = title_text(article, texts)
    rec.keywords = list(dict.fromkeys(texts.all(elements(article, "front//kwd"))))
    rec.abstract = "\n\n".join(texts.all(_selected(_ABSTRACT_PARTS, article)))
    body = "\n\n".join(texts.all(_selected(_BODY_PARTS, article)))
    if body:
        rec.fulltext = "\n\n".join(p for p in (rec.title, rec.abstract, body) if p)
    rec.journal_title = journal_title(article)
    rec.corresp_author = corresp_authors(article, texts)
    _biblio(article, rec)
    wanted = jats_rich_wanted(rich_parts)
    if wanted:
        add_rich_parts(article, rec, texts, wanted)
        add_structure_parts(article, rec, texts, max_table_cells=max_table_cells, wanted=wanted)
    return rec


def _selected(path: etree.XPath, article: etree._Element) -> list[etree._Element]:
    return [e for e in path(article) if isinstance(e, etree._Element)]


def title_parts(article: etree._Element, texts: ElementTexts | None = None) -> tuple[str, str]:
    """The first ``article-title`` and ``subtitle`` of the first ``title-group``."""
    texts = texts or ElementTexts()
    title = texts.of(next(iter(elements(article, f"{_TITLE_GROUP}//article-title")), None))
    subtitle = texts.of(next(iter(elements(article, f"{_TITLE_GROUP}//subtitle")), None))
    return title, subtitle


def title_text(article: etree._Element, texts: ElementTexts | None = None) -> str:
    """PubFetcher's title: the title, and " : " and the subtitle when there is one."""
    title, subtitle = title_parts(article, texts)
    return f"{title} : {subtitle}" if subtitle else title


def journal_title(article: etree._Element) -> str:
    """``journal-title: journal-subtitle`` of the journal's title group (whichever exists, as LOCKSS' JATS helper
    joins them), else the first non-empty ``journal-title``."""
    group = next(iter(elements(article, "front/journal-meta//journal-title-group")), None)
    if group is not None:
        title = first_text(elements(group, "journal-title"))
        subtitle = first_text(elements(group, "journal-subtitle"))
        if title or subtitle:
            return f"{title}: {subtitle}" if title and subtitle else title or subtitle
    return first_text(elements(article, ".//journal-title"))


# ------------------------------------------------------------------------------------------- bibliographic

_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_PRIMARY_DATES = frozenset(("epub", "ppub", "epub-ppub", "pub", "epreprint"))


def _date_parts(el: etree._Element) -> tuple[int, int | None, int | None] | None:
    """(year, month, day) of a ``pub-date`` as given (``iso-8601-date`` when it names a day), or None without a
    four-digit year or with an impossible day."""
    iso = (el.get("iso-8601-date") or "").strip()
    if len(iso) == 10:
        try:
            day = date.fromisoformat(iso)
        except ValueError:
            pass
        else:
            return day.year, day.month, day.day
    parts = {local_name(c): element_text(c) for c in el if isinstance(c.tag, str)}
    year = parts.get("year", "")
    if not re.fullmatch(r"\d{4}", year):
        return None
    month_text = parts.get("month", "").lower()
    month = int(month_text) if month_text.isdigit() else _MONTHS.get(month_text[:3])
    day_text = parts.get("day", "")
    day_number = int(day_text) if day_text.isdigit() and month is not None else None
    try:
        date(int(year), 1 if month is None else month, 1 if day_number is None else day_number)
    except ValueError:
        return None
    return int(year), month, day_number


def jats_date(el: etree._Element) -> str:
    """A ``pub-date`` as YYYY-MM-DD, a missing month or day taken as 01: what the dates are ranked by."""
    parts = _date_parts(el)
    if parts is None:
        return ""
    year, month, day = parts
    return date(year, 1 if month is None else month, 1 if day is None else day).isoformat()


def date_as_written(el: etree._Element) -> str:
    """A ``pub-date`` at the precision it is given: ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` ("" without a year)."""
    parts = _date_parts(el)
    if parts is None:
        return ""
    year, month, day = parts
    if month is None:
        return f"{year:04d}"
    return f"{year:04d}-{month:02d}" if day is None else f"{year:04d}-{month:02d}-{day:02d}"


def pub_date_element(article: etree._Element) -> etree._Element | None:
    """The ``pub-date`` that dates the article: the earliest electronic or print one, else the earliest collection
    (issue) date, else the earliest of any other kind; None when no ``pub-date`` has a year."""
    ranked: list[tuple[int, str, etree._Element]] = []
    for el in elements(article, "front/article-meta/pub-date"):
        value = jats_date(el)
        if value:
            kind = attr(el, "pub-type") or attr(el, "date-type")
            rank = 0 if kind in _PRIMARY_DATES else 1 if kind == "collection" else 2
            ranked.append((rank, value, el))
    return min(ranked, key=lambda item: item[:2])[2] if ranked else None


def pub_date(article: etree._Element) -> str:
    """:func:`pub_date_element` as written (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``), or ""."""
    chosen = pub_date_element(article)
    return date_as_written(chosen) if chosen is not None else ""


def _issns(article: etree._Element) -> tuple[str, str]:
    issn = eissn = ""
    for el in elements(article, "front/journal-meta/issn"):
        value = element_text(el)
        kind = attr(el, "pub-type") or attr(el, "publication-format")
        if kind in ("epub", "electronic"):
            eissn = eissn or value
        elif kind in ("ppub", "print", ""):
            issn = issn or value
    return issn, eissn


def _pages(meta: etree._Element) -> str:
    first = first_text(elements(meta, "fpage"))
    last = first_text(elements(meta, "lpage"))
    if first:
        return f"{first}-{last}" if last and last != first else first
    return first_text(elements(meta, "elocation-id"))


def _affiliation_texts(article: etree._Element) -> dict[str, str]:
    return {el.get("id", ""): _aff_text(el) for el in elements(article, "front//aff")}


def _aff_text(aff: etree._Element) -> str:
    """An affiliation without its label and institution identifiers (GRID, ROR, Ringgold numbers)."""
    return element_text(aff, skip=("label", "sup", "institution-id"))


def authors(article: etree._Element) -> list[Author]:
    """All authors of ``article-meta``: name, ORCID and affiliations (by ``xref`` to an ``aff``, an ``aff`` inside
    the contrib, or the group's affiliations when no author points to any)."""
    affs = _affiliation_texts(article)
    contribs = [c for c in elements(article, "front/article-meta//contrib-group/contrib")
                if attr(c, "contrib-type") in ("author", "")]
    any_xref = any(elements(c, ".//xref[@ref-type='aff']") for c in contribs)
    out = []
    for contrib in contribs:
        author = _contrib_author(contrib)
        if author.is_empty():
            continue
        found = []
        for rid in " ".join(x.get("rid", "") for x in elements(contrib, ".//xref[@ref-type='aff']")).split():
            found.append(affs.get(rid, ""))
        found += [_aff_text(a) for a in elements(contrib, "aff")]
        if not any_xref and not found:
            found = [_aff_text(a) for a in elements(contrib.getparent(), "aff")]
        orcid = first_text(c for c in elements(contrib, "contrib-id") if attr(c, "contrib-id-type") == "orcid")
        author.orcid, author.affiliations = orcid, list(dict.fromkeys(a for a in found if a))
        out.append(author)
    return out


def _contrib_author(contrib: etree._Element) -> Author:
    """A contributor's name: ``surname`` (with its ``suffix``, "King Jr.") and ``given-names``; a ``string-name``
    without them split as written; a ``collab`` as a literal."""
    name_el = next(iter(elements(contrib, "name | string-name")), None)
    if name_el is not None:
        if family := first_text(elements(name_el, "surname")):
            family = " ".join(p for p in (family, first_text(elements(name_el, "suffix"))) if p)
            return Author(family=family, given=first_text(elements(name_el, "given-names")))
        if text := element_text(name_el):
            return Author.from_name(text)
    return Author(literal=first_text(elements(contrib, "collab")))


def _biblio(article: etree._Element, rec: ArticleRecord) -> None:
    meta = next(iter(elements(article, "front/article-meta")), None)
    if meta is not None:
        rec.volume = first_text(elements(meta, "volume"))
        rec.issue = first_text(elements(meta, "issue"))
        rec.pages = _pages(meta)
    rec.issn, rec.eissn = _issns(article)
    rec.publisher = first_text(elements(article, "front/journal-meta/publisher/publisher-name"))
    article_type = (article.get("article-type") or "").strip()
    rec.pub_types = [article_type] if article_type else []
    written = pub_date(article)
    if len(written) == len("YYYY-MM-DD"):
        rec.pub_date = written
    elif written:  # the model keeps days only; a year or month is kept beside it, as the meta-tag reader does
        rec.flags["date_partial"] = written
    rec.authors = authors(article)
