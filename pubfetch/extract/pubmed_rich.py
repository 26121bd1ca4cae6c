"""Funding, corrections and references of a PubMed efetch article (``PubmedArticle``), for the rich parts.

* ``funding``: every ``GrantList/Grant`` of the article (``Agency``, ``GrantID``, ``Country``), deduplicated by grant ID
  when merged.
* ``updates``: every ``CommentsCorrectionsList/CommentsCorrections``: ``RefType`` as written, the ``PMID``, and the
  DOI when ``RefSource`` names one ("... doi: 10.1000/x."). A ``RetractionIn`` entry (or the publication type
  "Retracted Publication") is PubMed's verdict that the paper was retracted (:mod:`pubfetch.model.retraction`).
* ``references``: every ``Reference`` of ``PubmedData/ReferenceList`` (nested lists included, a ``Reference`` nested
  in another not followed), in order: the ``Citation`` text and the cited paper's ``ArticleId`` values (pubmed, pmc,
  doi).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Iterable, Iterator

from lxml import etree

from pubfetch import ids as idmod
from pubfetch.extract.xmlsafe import collapse, text_of
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Grant, Reference, RichName, Update

#: What gives the references a parse read from a list's bytes, for the placeholder element it parsed in the list's
#: place (None for any other element): :meth:`pubfetch.extract.pubmed_reflist.ListsRead.take`.
ReadLists = Callable[[etree._Element], list[Reference] | None]

__all__ = ["PUBMED_RICH", "add_rich_parts", "rich_wanted", "take_cited", "valid_doi", "valid_pmcid", "valid_pmid"]

#: The rich parts a PubMed record gives (``links``: those found in the abstract, :mod:`pubfetch.extract.text_links`).
PUBMED_RICH = frozenset((RichName.funding, RichName.updates, RichName.references, RichName.links))


def rich_wanted(rich_parts: bool | Collection[RichName]) -> frozenset[RichName]:
    """The rich parts of :data:`PUBMED_RICH` to read: all (True), none (False) or those named."""
    if rich_parts is True or rich_parts is False:
        return PUBMED_RICH if rich_parts else frozenset()
    return PUBMED_RICH.intersection(rich_parts)


def _first(el: etree._Element, tag: str) -> etree._Element | None:
    """The first child of that tag (``iterchildren`` filters in lxml's C code, unlike ``find``'s path machinery)."""
    return next(el.iterchildren(tag), None)


def _path(el: etree._Element, *tags: str) -> list[etree._Element]:
    """The elements at the end of a path of child tags, in document order (``findall`` of ``a/b/c``)."""
    found = [el]
    for tag in tags:
        found = [child for parent in found for child in parent.iterchildren(tag)]
    return found


def valid_pmid(text: str) -> str:
    """The PMID of a cited paper's ID field, "" when invalid (a cited paper's bad ID is not worth a warning)."""
    return text if idmod.is_pmid(text) else ""


def valid_pmcid(text: str) -> str:
    """A PMCID with its ``PMC`` prefix (some sources give the bare number), a version's as its article's
    (:func:`~pubfetch.ids.unversioned_pmcid`); "" when invalid."""
    value = idmod.unversioned_pmcid(text.upper() if text.upper().startswith("PMC") else "PMC" + text)
    return value if text and idmod.is_pmcid(value) else ""


def valid_doi(text: str) -> str:
    """A normalised DOI (resolver prefix stripped, ASCII upper case like every DOI in pubfetch), "" when invalid."""
    value = idmod.normalise_doi(text) if text else ""
    return value if value and " " not in value and idmod.is_doi(value) else ""


#: A Grant's child elements read, each by its place in :func:`grants`' list of the first of each.
_GRANT_PARTS = {"Agency": 0, "GrantID": 1, "Country": 2}


def grants(citation: etree._Element) -> list[Grant]:
    """The article's grants (of its ``MedlineCitation``)."""
    return _grants(_path(citation, "Article", "GrantList"))


def _grants(grant_lists: Iterable[etree._Element]) -> list[Grant]:
    """The grants of these ``GrantList`` elements, each read in one pass over its children (the first ``Agency``,
    ``GrantID`` and ``Country``), rather than a search per part."""
    out = []
    for grant in (grant for grant_list in grant_lists for grant in grant_list.iterchildren("Grant")):
        parts: list[str | None] = [None, None, None]
        for child in grant:
            at = _GRANT_PARTS.get(child.tag)
            if at is not None and parts[at] is None:
                parts[at] = text_of(child)
        agency, grant_id, country = parts
        if agency or grant_id:
            out.append(Grant(agency or "", grant_id or "", country or ""))
    return out


def updates(citation: etree._Element) -> list[Update]:
    """The corrections, retractions and comments the article's ``MedlineCitation`` lists."""
    return _updates(_path(citation, "CommentsCorrectionsList"))


def _updates(correction_lists: Iterable[etree._Element]) -> list[Update]:
    out = []
    for entry in (entry for listed in correction_lists for entry in listed.iterchildren("CommentsCorrections")):
        ref_type = (entry.get("RefType") or "").strip()
        if not ref_type:
            continue
        dois = idmod.extract_dois(text_of(_first(entry, "RefSource")))
        out.append(Update(ref_type, valid_pmid(text_of(_first(entry, "PMID"))), dois[0] if dois else ""))
    return out


def _citation_text(citation: etree._Element | None) -> str:
    """The text of a reference's ``Citation``, without a ``Reference`` nested in it (not followed, as in JATS)."""
    if citation is None:
        return ""
    if not len(citation):  # a leaf, as citations are
        text = citation.text
        return collapse(text) if text else ""
    if next(citation.iter("Reference"), None) is None:
        return text_of(citation)
    own = copy.deepcopy(citation)
    etree.strip_elements(own, "Reference", with_tail=False)
    return text_of(own)


#: The checks of a cited paper's IDs kept, each at its kind's place of :data:`_CITED_AT`.
_CITED_IDS = (valid_pmid, valid_pmcid, valid_doi)


def _top_references(top: etree._Element) -> Iterator[etree._Element]:
    """The ``Reference`` elements under a ``ReferenceList`` in document order, nested lists included, without going
    into a ``Reference`` (one nested in another is not followed)."""
    for child in top:
        if child.tag == "Reference":
            yield child
        elif len(child):
            yield from _references_under(child)


def _references_under(element: etree._Element) -> Iterator[etree._Element]:
    """:func:`_top_references` below an element of a reference list that is no ``Reference`` (a nested list)."""
    for child in element:
        if child.tag == "Reference":
            yield child
        elif len(child):
            yield from _references_under(child)


#: where each kind of cited ID goes in :func:`references`' (pmid, pmcid, doi)
_CITED_AT = {"pubmed": 0, "pmc": 1, "doi": 2}


def _cited_ids(id_list: etree._Element, found: list[str]) -> None:
    """The first valid ID of each kind kept (:data:`_CITED_IDS`) among an ``ArticleIdList``'s, into ``found``."""
    for article_id in id_list.iterchildren("ArticleId"):
        _take_cited(article_id, found)


def _take_cited(article_id: etree._Element, found: list[str]) -> None:
    """An ``ArticleId`` element's value into ``found`` (:func:`take_cited`)."""
    take_cited(article_id.get("IdType"), article_id.text if not len(article_id) else text_of(article_id), found)


def take_cited(kind: str | None, text: str | None, found: list[str]) -> None:
    """A cited paper's ID of the kind an ``ArticleId``'s ``IdType`` names, its text as written, into its place of
    ``found`` (pmid, pmcid, doi) when it is of a kind kept and that place is still empty; checked
    (:data:`_CITED_IDS`), "" when invalid."""
    at = _CITED_AT.get(kind or "")
    if at is None:  # written as expected, mostly: cleaned only when not
        kind = (kind or "").strip().lower()
        at = _CITED_AT.get(kind)
        if at is None:
            return
    if not found[at]:
        if at == 0 and text and text.isascii() and text.isdigit():
            found[0] = text if text[0] != "0" else ""  # a PMID as written: nothing to clean
        else:
            found[at] = _CITED_IDS[at](collapse(text)) if text else ""


#: How many ``Reference``, ``Citation`` and ``ArticleId`` elements of a ``ReferenceList`` sit where a reference's
#: parts belong: its ``Reference`` children, their ``Citation`` children and their ``ArticleIdList``s' ``ArticleId``
#: children (counted in lxml's C code, without an element object per node).
_PLACED = etree.XPath("count(Reference) + count(Reference/Citation) + count(Reference/ArticleIdList/ArticleId)")


def references(article: etree._Element) -> list[Reference]:
    """The references: the first ``Citation``'s text of each and, among its ``ArticleIdList``s' IDs, the first valid
    one of each kind kept. There are tens of thousands in a batch, and an element object made for each node was
    most of their cost: a list is read in one pass of lxml's over the elements of those three names
    (:func:`_plain_references`), which is the reading of :func:`_reference` when every one of them sits where it
    belongs (:data:`_PLACED`, as nearly all lists are); any other list is read again by :func:`_reference`."""
    return _references(_path(article, "PubmedData", "ReferenceList"), None)


def _references(reference_lists: Iterable[etree._Element], read_lists: ReadLists | None) -> list[Reference]:
    """The references of these ``ReferenceList`` elements (:func:`references`), those the parse read from their
    bytes taken as read."""
    out: list[Reference] = []
    for top in reference_lists:
        if read_lists is not None:
            read = read_lists(top)
            if read is not None:
                out += read
                continue
        start = len(out)
        if _plain_references(top, out) != _PLACED(top):
            del out[start:]
            out += map(_reference, _top_references(top))
    return out


def _plain_references(top: etree._Element, out: list[Reference]) -> int:
    """The references of a list into ``out``, each ``Reference``, ``Citation`` and ``ArticleId`` element under it
    taken in document order as if in its place (a ``Reference`` opens the next reference); how many there were."""
    make = Reference.made
    found = ["", "", ""]
    citation: str | None = None
    count = 0
    for element in top.iter("Reference", "Citation", "ArticleId"):
        count += 1
        tag = element.tag
        if tag == "ArticleId":
            _take_cited(element, found)
        elif tag == "Citation":
            if citation is None:
                citation = _citation_text(element)
        elif count > 1:
            out.append(make(found[0], found[1], found[2], "", citation or ""))
            found = ["", "", ""]
            citation = None
    if count:
        out.append(make(found[0], found[1], found[2], "", citation or ""))
    return count


def _reference(reference: etree._Element) -> Reference:
    """One reference of any shape, read in one pass over its children."""
    found = ["", "", ""]
    citation = None
    for child in reference:
        tag = child.tag
        if tag == "Citation":
            if citation is None:
                citation = child
        elif tag == "ArticleIdList":
            _cited_ids(child, found)
    return Reference.made(found[0], found[1], found[2], "", _citation_text(citation))


def add_rich_parts(record: ArticleRecord, wanted: frozenset[RichName], grant_lists: Iterable[etree._Element],
                   correction_lists: Iterable[etree._Element], reference_lists: Iterable[etree._Element],
                   read_lists: ReadLists | None = None) -> None:
    """Fill the record's funding, updates and references from one ``PubmedArticle``'s ``GrantList``,
    ``CommentsCorrectionsList`` and ``ReferenceList`` elements (found by the caller in its one pass over each
    container's children), those ``wanted`` (the updates always: PubMed's word on a retraction, which the record's
    verdict reads)."""
    if RichName.funding in wanted:
        record.funding = _grants(grant_lists)
    record.updates = _updates(correction_lists)
    if RichName.references in wanted:
        record.references = _references(reference_lists, read_lists)
