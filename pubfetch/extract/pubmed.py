"""PubMed E-utilities efetch XML (``db=pubmed``): one :class:`ArticleRecord` per ``PubmedArticle`` or
``PubmedBookArticle``.

pubfetch asks efetch for a whole batch of PMIDs in one POST, so the answer is a ``PubmedArticleSet`` holding many
articles, and every value is read relative to its own article (PubFetcher's selectors ran over the whole document of
a one-PMID answer, which would mix articles here). What is taken follows PubFetcher's PubMed XML resource:

* IDs from the article's own ``PubmedData/ArticleIdList`` (``pubmed``, ``pmc``, ``doi``), never from the reference
  list, whose ``ArticleIdList`` entries belong to cited papers; ``ELocationID[@EIdType=doi]`` when no ArticleId DOI;
  a bare number as ``pmc`` ID gets its ``PMC`` prefix. Invalid IDs are logged and skipped.
* title ``ArticleTitle`` (``VernacularTitle`` when the English title is missing or a "[Not Available]" placeholder).
* keywords ``KeywordList/Keyword``; MeSH ``MeshHeading/DescriptorName`` with ``MajorTopicYN`` and ``UI`` -- qualifiers
  are ignored and the major-topic flag is the descriptor's own, exactly as PubFetcher does.
* abstract: the ``AbstractText`` sections of ``Abstract``, one paragraph each, joined by blank lines; a section with a
  ``Label`` is written ``"LABEL: text"`` (see :func:`format_abstract`). PubFetcher also swept in ``OtherAbstract``
  texts (other languages, plain-language summaries) because it selected every ``AbstractText`` of the document; here an
  ``OtherAbstract`` in English is used only when there is no ``Abstract``.
* publication date from ``ArticleDate`` the PubFetcher way (missing month or day become ``01``); with no
  ArticleDate, from the journal issue's ``PubDate`` but only when year, month and day are all given.
* corresponding authors: the authors whose affiliation holds an e-mail address (PubMed's only marker of them).

Beyond PubFetcher (for the LOCKSS metadata layer): all authors with ORCID and affiliations, ISSN print/electronic,
volume, issue, pages, publication types, publication status, partial journal dates, and book records; funding,
corrections and references (:mod:`pubfetch.extract.pubmed_rich`).
``record.flags``: ``source`` ("pubmed"), ``journal_date``/``article_date`` (partial ISO dates), ``publication_status``,
``citation_status``, ``journal_abbreviation``; book records add ``book``, ``book_title`` and ``isbn``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterable, Iterator
from typing import IO

from lxml import etree

from pubfetch import ids as idmod
from pubfetch.extract.errors import ParseError, ServiceError, load_xml
from pubfetch.extract.gcpause import collection_paused
from pubfetch.extract.pubmed_cut import answer_pieces, without_unread
from pubfetch.extract.pubmed_dates import pubmed_date
from pubfetch.extract.pubmed_dtd import declared_pieces
from pubfetch.extract.pubmed_reflist import ListsRead
from pubfetch.extract.pubmed_rich import PUBMED_RICH, add_rich_parts, rich_wanted, valid_pmcid
from pubfetch.extract.text_links import record_links
from pubfetch.extract.xmlsafe import XmlError, local_name, parse_xml_pieces, read_as_parsed, text_of
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm
from pubfetch.model.record import ArticleRecord
from pubfetch.model.retraction import RetractionSource, RetractionVerdict, says_retracted
from pubfetch.model.rich import RichName

log = logging.getLogger(__name__)

__all__ = ["ParseError", "format_abstract", "normalise_orcid", "parse_pubmed_element", "parse_pubmed_xml",
           "pubmed_date"]

# bounded repeats: a long run of address characters without a valid address cannot make the search quadratic
#: the longest local part (before the "@") an e-mail address of :data:`_EMAIL` has
_LOCAL = 64
_EMAIL = re.compile(rf"[a-zA-Z0-9+._-]{{1,{_LOCAL}}}@[a-zA-Z0-9.-]{{1,253}}\.[a-zA-Z]{{2,24}}\b")
_ORCID = re.compile(r"([0-9]{4})-?([0-9]{4})-?([0-9]{4})-?([0-9]{3}[0-9Xx])")
_NOT_AVAILABLE = re.compile(r"^\[?\s*not available\s*\]?\.?$", re.IGNORECASE)


def _first(el: etree._Element, tag: str) -> etree._Element | None:
    """The first child of that tag (``iterchildren`` filters in lxml's C code: about twice as fast as ``find``)."""
    return next(el.iterchildren(tag), None)


def _child(el: etree._Element | None, *path: str) -> etree._Element | None:
    """The first element down a path of child tag names (None when any step is missing)."""
    for name in path:
        if el is None:
            return None
        el = next(el.iterchildren(name), None)
    return el


def _text(el: etree._Element | None, *path: str) -> str:
    return text_of(_child(el, *path))


def _by_tag(el: etree._Element | None) -> dict[str, list[etree._Element]]:
    """An element's children by tag, each tag's in document order, from one pass over them: a record's containers
    (the citation, the article, its data) are each asked for several children, and a search by tag costs lxml a
    matcher of its own (0.8 µs, the pass over a citation's six children 1.2)."""
    found: dict[str, list[etree._Element]] = {}
    if el is None:
        return found
    for child in el:
        tag = child.tag
        siblings = found.get(tag)
        if siblings is None:
            found[tag] = [child]
        else:
            siblings.append(child)
    return found


def _one(children: dict[str, list[etree._Element]], tag: str) -> etree._Element | None:
    """The first child of that tag among :func:`_by_tag`'s."""
    found = children.get(tag)
    return found[0] if found else None


def _children(el: etree._Element | None, *path: str) -> list[etree._Element]:
    """All elements at the end of a path of child tag names, in document order."""
    if el is None or not path:
        return []
    found = [el]
    for name in path:
        found = [child for parent in found for child in parent.iterchildren(name)]
    return found


# ---------------------------------------------------------------------------------------------------------- content


def format_abstract(sections: list[tuple[str, str]]) -> str:
    """Structured abstract text: one paragraph per section, ``"LABEL: text"`` when labelled, blank lines between."""
    paragraphs = []
    for label, text in sections:
        if not text:
            continue
        paragraphs.append(f"{label}: {text}" if label else text)
    return "\n\n".join(paragraphs)


def _abstract(kids: dict[str, list[etree._Element]]) -> str:
    """The Abstract (or an English OtherAbstract) among an Article's or BookDocument's children."""
    abstract = _one(kids, "Abstract")
    if abstract is None:
        for other in kids.get("OtherAbstract", ()):
            if (other.get("Language") or "eng").lower() == "eng":
                abstract = other
                break
    if abstract is None:
        return ""
    sections = [((part.get("Label") or "").strip(), text_of(part)) for part in abstract.iterchildren("AbstractText")]
    return format_abstract(sections)


def _title(kids: dict[str, list[etree._Element]]) -> str:
    title = text_of(_one(kids, "ArticleTitle"))
    if not title or _NOT_AVAILABLE.match(title):
        vernacular = text_of(_one(kids, "VernacularTitle"))
        if vernacular:
            return vernacular
    return title


def normalise_orcid(value: str) -> str:
    """An ORCID as ``https://orcid.org/XXXX-XXXX-XXXX-XXXX`` (PubMed gives bare IDs or http(s) URLs); "" if none."""
    match = _ORCID.search(value or "")
    if not match:
        return ""
    return "https://orcid.org/" + "-".join(match.groups()).upper()


def _authors(kids: dict[str, list[etree._Element]]) -> tuple[list[Author], list[CorrespAuthor]]:
    """All authors of the (non-editor) author lists, and those whose affiliation carries an e-mail address."""
    authors: list[Author] = []
    corresp: list[CorrespAuthor] = []
    for author_list in kids.get("AuthorList", ()):
        kind = author_list.get("Type")
        if kind and kind.lower() != "authors":
            continue
        for element in author_list.iterchildren("Author"):
            author = _author(element)
            if author is None:
                continue
            authors.append(author)
            for affiliation in author.affiliations:
                at = affiliation.find("@")
                if at >= 0:
                    # a match holds an "@" and starts at most _LOCAL characters before it, so none starts before
                    # that far ahead of the first "@": the search skips the address the affiliation begins with
                    email = _EMAIL.search(affiliation, max(0, at - _LOCAL))
                    if email:
                        corresp.append(CorrespAuthor(name=author.full_name, orcid=author.orcid, email=email.group()))
                        break
    return authors, corresp


#: An Author's child elements naming them, each by its place in :func:`_author`'s list of the first of each.
_NAME_PARTS = {"LastName": 0, "Suffix": 1, "ForeName": 2, "FirstName": 3, "Initials": 4, "CollectiveName": 5}


def _author(author: etree._Element) -> Author | None:
    """One Author element, read in one pass over its children (an author list is a good part of a record): the first
    of each name part, ORCID identifiers and affiliations (each once); None when it names nobody (neither a person
    nor a collective). An ``AffiliationInfo``'s children are walked rather than filtered by ``iterchildren``, whose
    tag matcher costs more than the one or two children it would skip."""
    names: list[str | None] = [None, None, None, None, None, None]
    orcids: list[str] = []
    listed: list[str] = []  # AffiliationInfo/Affiliation
    plain: list[str] = []  # Affiliation, pre-2013 records
    for child in author:
        tag = child.tag
        at = _NAME_PARTS.get(tag)
        if at is not None:
            if names[at] is None:
                names[at] = text_of(child)
        elif tag == "AffiliationInfo":
            for affiliation in child:
                if affiliation.tag == "Affiliation":
                    listed.append(text_of(affiliation))
        elif tag == "Identifier":
            if (child.get("Source") or "").upper() == "ORCID":
                orcids.append(text_of(child))
        elif tag == "Affiliation":
            plain.append(text_of(child))
    return _named_author(names, orcids, listed + plain if plain else listed)


def _named_author(names: list[str | None], orcids: list[str], affiliations: list[str]) -> Author | None:
    """The author of :func:`_author`'s name parts, ORCID identifiers and affiliations, as read."""
    last, suffix, fore, first, initials, collective = names
    family = f"{last} {suffix}" if last and suffix else (last or suffix or "")  # "King Jr"
    literal = "" if family else (collective or "")
    if not (family or literal):
        return None
    orcid = next((o for o in map(normalise_orcid, orcids) if o), "") if orcids else ""
    kept = [a for a in dict.fromkeys(affiliations) if a] if len(affiliations) > 1 else [a for a in affiliations if a]
    return Author(family, fore or first or initials or "", literal, orcid, kept)


def _mesh(cited: dict[str, list[etree._Element]]) -> list[MeshTerm]:
    """The descriptors of every ``MeshHeadingList/MeshHeading``, a heading's children walked rather than filtered by
    ``iterchildren`` (whose tag matcher, made per heading, costs more than the qualifiers it would skip)."""
    terms: list[MeshTerm] = []
    for mesh_list in cited.get("MeshHeadingList", ()):
        for heading in mesh_list:
            if heading.tag != "MeshHeading":
                continue
            for descriptor in heading:
                if descriptor.tag != "DescriptorName":
                    continue
                term = text_of(descriptor)
                if not term:
                    log.warning("PubMed DescriptorName without text (UI %s)", descriptor.get("UI"))
                    continue
                major = (descriptor.get("MajorTopicYN") or "").strip().upper() == "Y"
                terms.append(MeshTerm(term, major, (descriptor.get("UI") or "").strip()))
    return terms


def _tagged(parents: Iterable[etree._Element], tag: str) -> Iterator[etree._Element]:
    """The parents' children of that tag, in document order."""
    return (child for parent in parents for child in parent if child.tag == tag)


def _texts(elements: Iterable[etree._Element], into: dict[str, None]) -> None:
    """The non-empty texts of the elements, in order, into ``into`` (first of equals kept)."""
    for element in elements:
        text = text_of(element)
        if text:
            into[text] = None


def _keywords(kids: dict[str, list[etree._Element]]) -> list[str]:
    words: dict[str, None] = {}
    _texts(_tagged(kids.get("KeywordList", ()), "Keyword"), words)
    return list(words)


def _pub_types(kids: dict[str, list[etree._Element]]) -> list[str]:
    # journal articles list them in PublicationTypeList, book documents directly
    types: dict[str, None] = {}
    _texts(_tagged(kids.get("PublicationTypeList", ()), "PublicationType"), types)
    _texts(kids.get("PublicationType", ()), types)
    return list(types)


# -------------------------------------------------------------------------------------------------------------- IDs


def _set_ids(record: ArticleRecord, id_lists: list[etree._Element], fallback_pmid: str) -> None:
    """PMID, PMCID and DOI from the article's own ArticleIdLists (first valid value of each kind wins)."""
    for article_id in (i for id_list in id_lists for i in id_list.iterchildren("ArticleId")):
        kind = (article_id.get("IdType") or "").strip().lower()
        value = text_of(article_id)
        if not value:  # an empty ArticleId names nothing (MEDLINE's files hold some): nothing to warn about
            continue
        if kind == "pubmed" and not record.pmid:
            if idmod.is_pmid(value):
                record.pmid = value
            else:
                log.warning("invalid PMID '%s' in PubMed XML", value)
        elif kind == "pmc" and not record.pmcid:
            pmcid = valid_pmcid(value)
            if pmcid:
                record.pmcid = pmcid
            else:
                log.warning("invalid PMCID '%s' in PubMed XML", value)
        elif kind == "doi" and not record.doi:
            if idmod.is_doi(value) and " " not in value:
                record.doi = value
            else:
                log.warning("invalid DOI '%s' in PubMed XML", value)
    if not record.pmid and idmod.is_pmid(fallback_pmid):
        record.pmid = fallback_pmid


def _elocation_doi(kids: dict[str, list[etree._Element]]) -> str:
    for location in kids.get("ELocationID", ()):
        if (location.get("EIdType") or "").lower() != "doi" or (location.get("ValidYN") or "Y").upper() == "N":
            continue
        value = text_of(location)
        if idmod.is_doi(value) and " " not in value:
            return value
    return ""


# --------------------------------------------------------------------------------------------------------- articles


def _pages(kids: dict[str, list[etree._Element]]) -> str:
    pagination = _one(kids, "Pagination")
    pages = _text(pagination, "MedlinePgn")
    if pages:
        return pages
    start, end = _text(pagination, "StartPage"), _text(pagination, "EndPage")
    return f"{start}-{end}" if start and end else start


def _journal_article(element: etree._Element, wanted: frozenset[RichName] = PUBMED_RICH,
                     lists_read: ListsRead | None = None) -> ArticleRecord:
    top = _by_tag(element)
    citation = _one(top, "MedlineCitation")
    cited = _by_tag(citation)
    data = _by_tag(_one(top, "PubmedData"))
    article = _one(cited, "Article")
    kids = _by_tag(article)
    record = ArticleRecord()
    _set_ids(record, data.get("ArticleIdList", []), text_of(_one(cited, "PMID")))
    if not record.doi:
        record.doi = _elocation_doi(kids)
    if article is None:
        log.warning("PubmedArticle %s has no Article element", record.pmid or "?")
        return record
    record.title = _title(kids)
    record.abstract = _abstract(kids)
    record.keywords = _keywords(cited)
    record.mesh = _mesh(cited)
    pub_date, abbreviation = _read_journal(record, _one(kids, "Journal"))
    record.pages = _pages(kids)
    article_date = next((d for d in kids.get("ArticleDate", ())
                         if (d.get("DateType") or "Electronic").lower() == "electronic"), None)
    article_complete, article_partial = pubmed_date(article_date, pad=True)
    journal_complete, journal_partial = pubmed_date(pub_date)
    record.pub_date = article_complete or journal_complete
    record.authors, record.corresp_author = _authors(kids)
    record.pub_types = _pub_types(kids)
    record.preprint = any(t.lower() == "preprint" for t in record.pub_types)
    record.flags.update(source="pubmed", journal_date=journal_partial, article_date=article_partial)
    _read_status_flags(record, data, citation, cited, abbreviation)
    add_rich_parts(record, wanted, kids.get("GrantList", ()), cited.get("CommentsCorrectionsList", ()),
                   data.get("ReferenceList", ()), lists_read.take if lists_read is not None else None)
    if RichName.links in wanted:
        record.text_links = record_links(record.abstract)
    record.retraction = RetractionVerdict(RetractionSource.pubmed, says_retracted(record.pub_types, record.updates))
    return record


#: The children of a ``Journal`` read, and of its ``JournalIssue``, each by its place in :func:`_read_journal`'s list.
_JOURNAL_PARTS = {"Title": 0, "ISOAbbreviation": 1, "JournalIssue": 2}
_ISSUE_PARTS = {"Volume": 0, "Issue": 1, "PubDate": 2}


def _read_journal(record: ArticleRecord, journal: etree._Element | None) -> tuple[etree._Element | None, str]:
    """The journal's title, print and electronic ISSNs (the first of each), volume and issue into the record; its
    issue's ``PubDate`` and its ISO abbreviation returned. Read in one pass over the journal's children and one over
    its (first) issue's, rather than a search for each part."""
    if journal is None:
        return None, ""
    parts: list[etree._Element | None] = [None, None, None]
    for child in journal:
        tag = child.tag
        if tag == "ISSN":
            kind = (child.get("IssnType") or "").lower()
            if kind == "electronic":
                if not record.eissn:
                    record.eissn = text_of(child)
            elif not record.issn:
                record.issn = text_of(child)
        else:
            at = _JOURNAL_PARTS.get(tag)
            if at is not None and parts[at] is None:
                parts[at] = child
    title, abbreviation, issue = parts
    record.journal_title = text_of(title)
    in_issue: list[etree._Element | None] = [None, None, None]
    if issue is not None:
        for child in issue:
            at = _ISSUE_PARTS.get(child.tag)
            if at is not None and in_issue[at] is None:
                in_issue[at] = child
    record.volume = text_of(in_issue[0])
    record.issue = text_of(in_issue[1])
    return in_issue[2], text_of(abbreviation)


def _read_status_flags(record: ArticleRecord, data: dict[str, list[etree._Element]], citation: etree._Element | None,
                       cited: dict[str, list[etree._Element]], abbreviation: str) -> None:
    """The journal's abbreviation (its ISO one, else MEDLINE's), the publication's status and the citation's, as flags
    when given."""
    abbreviation = abbreviation or _text(_one(cited, "MedlineJournalInfo"), "MedlineTA")
    if abbreviation:
        record.flags["journal_abbreviation"] = abbreviation
    status = text_of(_one(data, "PublicationStatus"))
    if status:
        record.flags["publication_status"] = status
    if citation is not None and citation.get("Status"):
        record.flags["citation_status"] = citation.get("Status")


def _book_article(element: etree._Element, wanted: frozenset[RichName] = PUBMED_RICH) -> ArticleRecord:
    document = _first(element, "BookDocument")
    kids = _by_tag(document)
    book = _one(kids, "Book")
    record = ArticleRecord()
    _set_ids(record, kids.get("ArticleIdList", []) + _children(element, "PubmedBookData", "ArticleIdList"),
             text_of(_one(kids, "PMID")))
    if not record.doi:
        record.doi = _elocation_doi(kids)
    book_title = _text(book, "BookTitle")
    record.title = _title(kids) or book_title
    record.abstract = _abstract(kids)
    if RichName.links in wanted:
        record.text_links = record_links(record.abstract)
    record.keywords = _keywords(kids)
    authors, corresp = _authors(kids)
    if not authors:  # a whole-book record lists its authors (or editors) under Book
        authors, corresp = _authors(_by_tag(book))
    record.authors, record.corresp_author = authors, corresp
    record.publisher = _text(book, "Publisher", "PublisherName")
    record.pub_types = _pub_types(kids)
    record.preprint = any(t.lower() == "preprint" for t in record.pub_types)
    complete, partial = pubmed_date(_child(book, "PubDate"))
    record.pub_date = complete
    for isbn in _children(book, "Isbn"):
        record.flags.setdefault("isbn", text_of(isbn))
    record.flags.update(source="pubmed", book=True, book_title=book_title, journal_date=partial)
    record.retraction = RetractionVerdict(RetractionSource.pubmed, says_retracted(record.pub_types, ()))
    status = _text(element, "PubmedBookData", "PublicationStatus")
    if status:
        record.flags["publication_status"] = status
    return record


def _service_error(root: etree._Element) -> str | None:
    """The message of an efetch error answer (``<eFetchResult><ERROR>..``, ``<ERROR>..``), None otherwise."""
    if local_name(root).upper() == "ERROR":
        return text_of(root) or "unknown error"
    for child in root:
        if local_name(child).upper() == "ERROR":
            return text_of(child) or "unknown error"
    return None


#: The elements of an answer that are records: a set's children, or the answer's root alone.
_RECORD_TAGS = ("PubmedArticle", "PubmedBookArticle")
_RECORD_TAGS_ANY_NS = tuple(f"{{*}}{tag}" for tag in _RECORD_TAGS)


def _read_answer(source: bytes | bytearray | str | IO[bytes], wanted: frozenset[RichName]
                 ) -> tuple[etree._Element, list[ArticleRecord]]:
    """The answer's root and the records of its articles, empty ones among them.

    Bytes and streams are parsed in pieces as they come, without what is not read (:mod:`pubfetch.extract.pubmed_cut`:
    the History, and the reference lists when references are not read) and without their indentation where
    PubMed's declarations can be given to it (:mod:`pubfetch.extract.pubmed_dtd`). A stream (a MEDLINE file, tens of
    thousands of records) and bytes of :data:`~pubfetch.extract.xmlsafe.READ_AS_PARSED_FROM` or more have each article
    read as soon as it is complete and then cleared, so that their tree is never whole; smaller answers (efetch's
    batches) are read from their tree, which libxml2 builds faster. A document that does not parse so is parsed again
    as written (a stream read again from its start, where it can be), so that its error (or, were either at fault,
    its tree) is its own, and its records are read from that tree."""
    if isinstance(source, str) or source is None:  # None: an "empty" answer
        root = load_xml(source, "PubMed efetch answer")
        return root, _records_below(root, wanted)
    records: list[ArticleRecord] = []
    lists_read = ListsRead() if RichName.references in wanted else None

    def read(element: etree._Element) -> None:
        parent = element.getparent()
        if parent is None or parent.getparent() is None:  # the root, or a child of it: not an article nested deeper
            records.append(_record(element, wanted, lists_read))
            element.clear(keep_tail=False)

    with_declarations, pieces = declared_pieces(without_unread(answer_pieces(source), RichName.references in wanted,
                                                               lists_read))
    try:
        if not read_as_parsed(source):
            root = parse_xml_pieces(pieces, remove_blank_text=with_declarations)
            return root, _records_below(root, wanted, lists_read)
        root = parse_xml_pieces(pieces, remove_blank_text=with_declarations, tags=_RECORD_TAGS_ANY_NS, on_end=read)
        return root, records
    except (etree.LxmlError, ValueError) as error:  # XmlError among them
        if isinstance(source, (bytes, bytearray)):
            root = load_xml(source, "PubMed efetch answer")
        elif not source.seekable():
            raise XmlError(f"PubMed efetch answer is not usable XML: {error}") from error
        else:
            source.seek(0)
            root = load_xml(source.read(), "PubMed efetch answer")
    return root, _records_below(root, wanted)


def _record(element: etree._Element, wanted: frozenset[RichName], lists_read: ListsRead | None = None
            ) -> ArticleRecord:
    """The record of a ``PubmedArticle`` or ``PubmedBookArticle`` element (in any namespace, or none); its reference
    lists read from their bytes taken from ``lists_read``."""
    if local_name(element) == "PubmedArticle":
        return _journal_article(element, wanted, lists_read)
    return _book_article(element, wanted)


def _records_below(root: etree._Element, wanted: frozenset[RichName], lists_read: ListsRead | None = None
                   ) -> list[ArticleRecord]:
    """The records of a whole tree's articles: the root's children, or the root itself."""
    if local_name(root) in _RECORD_TAGS:
        return [_record(root, wanted, lists_read)]
    return [_record(element, wanted, lists_read) for element in root if local_name(element) in _RECORD_TAGS]


def parse_pubmed_xml(data: bytes | str | IO[bytes], rich_parts: bool | Collection[RichName] = True
                     ) -> list[ArticleRecord]:
    """All articles of an efetch ``PubmedArticleSet`` (its bytes, text, or a binary stream such as a gzipped file
    opened by :func:`pubfetch.bulk.medline.open_bulk_file`, read in pieces: a file of 30,000 records is never held
    whole, neither its bytes nor its tree), in document order; ``[]`` for an empty set. ``rich_parts``:
    which of the rich parts PubMed gives (:data:`~pubfetch.extract.pubmed_rich.PUBMED_RICH`: funding, updates,
    references, the abstract's links) are read: all (True), none (False) or those named. A run that neither asks for
    nor stores them leaves them out: on records with reference lists they are a good part of the parsing
    (docs/benchmarks.md). The corrections (``updates``) are read in every case: the retraction verdict needs them.

    Raises :class:`~pubfetch.extract.errors.ParseError` (a ValueError) for a document that is not XML, not a PubMed
    article set, or an efetch error answer (:class:`~pubfetch.extract.errors.ServiceError`).
    """
    wanted = rich_wanted(rich_parts)
    with collection_paused():
        root, read = _read_answer(data, wanted)
    message = _service_error(root)
    if message is not None:
        raise ServiceError(f"PubMed efetch error: {message}")
    name = local_name(root)
    if name not in ("PubmedArticleSet", *_RECORD_TAGS):
        raise ParseError(f"not a PubMed efetch answer: root element is <{name or '?'}>, expected <PubmedArticleSet>")
    records = []
    for record in read:
        if record.is_empty():
            log.warning("PubMed XML article without IDs or content skipped")
            continue
        records.append(record)
    return records


def parse_pubmed_element(element: etree._Element) -> ArticleRecord | None:
    """The record of one ``PubmedArticle`` or ``PubmedBookArticle`` element already parsed (a bulk file read element
    by element); None when it holds no IDs and no content."""
    record = _record(element, PUBMED_RICH)
    return None if record.is_empty() else record
