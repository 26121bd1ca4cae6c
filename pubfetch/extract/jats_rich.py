"""Funding, references, sections and licence of a JATS ``<article>``, for the rich parts.

* ``funding``: each ``award-id`` of every ``funding-group``'s ``award-group`` (also inside ``support-group``) with
  the group's ``funding-source`` (institution name, without its registry identifier); a group without award IDs
  gives its agency alone. Older articles' ``contract-sponsor``/``contract-num`` pairs are read the same way.
* ``references``: every ``ref`` of the article's reference lists, in order: ``pub-id`` values (pmid, pmcid or pmc,
  doi), the cited title (``article-title``, else ``chapter-title``, else ``source``) and the citation's text. A
  ``ref`` inside another ``ref`` is not followed (neither a reference of its own nor part of the outer one's IDs,
  title and text): the schema has no such nesting, and reading each level's whole subtree again made a 1.9 MB answer
  hundreds of megabytes of references. What is read is therefore never more text than the answer holds.
* ``sections``: every ``sec`` of ``body``, depth first in document order: its ``title`` as written, its depth (a
  top-level section is 1) and the text of its own paragraphs, lists, figures and tables, one paragraph each
  (subsections are sections of their own). The flat full text stays as PubFetcher builds it.
* ``license``: the licence URL (``ali:license_ref``, ``license/@xlink:href``, a URL in the licence text), else its
  ``license-type``, else the licence text.

Parts of ``sub-article`` and ``response`` elements (peer reviews, replies) belong to those, not to the article.
Text is read as the JATS reader reads it (:func:`pubfetch.extract.jats_text.element_text`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lxml import etree

from pubfetch.extract.jats_links import jats_links
from pubfetch.extract.jats_text import ArticleTexts, ElementTexts
from pubfetch.extract.pubmed_rich import valid_doi, valid_pmcid, valid_pmid
from pubfetch.extract.xmlsafe import local_name
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Grant, Reference, RichName, Section

__all__ = ["JATS_RICH", "add_rich_parts", "jats_rich_wanted"]

#: The rich parts a JATS article gives: these five here, the other four from :mod:`pubfetch.extract.jats_structure`.
JATS_RICH = frozenset((RichName.funding, RichName.references, RichName.sections, RichName.license, RichName.links,
                       RichName.tables, RichName.figures, RichName.supplements, RichName.statements))


def jats_rich_wanted(rich_parts: bool | Iterable[RichName]) -> frozenset[RichName]:
    """The rich parts of :data:`JATS_RICH` to read: all (True), none (False) or those named."""
    if rich_parts is True or rich_parts is False:
        return JATS_RICH if rich_parts else frozenset()
    return JATS_RICH.intersection(rich_parts)

XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_OWN = "[not(ancestor::sub-article) and not(ancestor::response)]"
_CITATIONS = ("element-citation", "mixed-citation", "nlm-citation", "citation")
_URL = re.compile(r"https?://\S+[^\s.,;)]")
_SPACE_BEFORE = re.compile(r"\s+([.,;:)\]])")
_SPACE_AFTER = re.compile(r"([(\[])\s+")
_ASCII_SPACED_PUNCTUATION = (" .", " ,", " ;", " :", " )", " ]", "( ", "[ ")


def _xpath(el: etree._Element, path: str) -> list[etree._Element]:
    return [e for e in el.xpath(path) if isinstance(e, etree._Element)]


def _children(el: etree._Element, name: str) -> list[etree._Element]:
    """The children of that local name (lxml's tag filter, in C)."""
    return list(el.iterchildren("{*}" + name))


def _own_elements(ref: etree._Element) -> list[etree._Element]:
    """The elements under a ``ref``, in document order, without the subtrees of ``ref`` elements nested in it."""
    if next(ref.iterdescendants("ref"), None) is None:
        return list(ref.iterdescendants(etree.Element))  # lxml's own walk: the usual case, a ref without such nesting
    out: list[etree._Element] = []
    stack = list(reversed(ref))
    while stack:  # iterative: hostile nesting costs no recursion
        el = stack.pop()
        if isinstance(el.tag, str) and el.tag != "ref":
            out.append(el)
            stack += reversed(el)
    return out


def _nested(el: etree._Element) -> tuple[str, ...]:
    """What to leave out of the text of an element of a reference: a ``ref`` nested in it, when there is one (the
    shared texts of the article serve the others)."""
    return ("ref",) if next(el.iterdescendants("ref"), None) is not None else ()


class _Reader:
    """The readers of one article's rich parts, taking their texts from ``texts`` (the article's)."""

    def __init__(self, texts: ElementTexts) -> None:
        self._texts = texts

    def _text(self, el: etree._Element | None, skip: Iterable[str] = ()) -> str:
        return self._texts.of(el, skip=tuple(skip))

    def _text_without(self, el: etree._Element, name: str) -> str:
        return self._text(el, (name,))

    # ---------------------------------------------------------------------------------------------------------- funding

    def _agency(self, source: etree._Element) -> str:
        institutions = [self._text(i) for i in source.iter()
                        if isinstance(i.tag, str) and local_name(i) == "institution"]
        if institutions:
            return "; ".join(i for i in institutions if i)
        return self._text_without(source, "institution-id")

    def funding(self, article: etree._Element) -> list[Grant]:
        out: list[Grant] = []
        for group in _xpath(article, f"front/article-meta//funding-group//award-group{_OWN}"):
            agency = "; ".join(a for a in (self._agency(s) for s in _children(group, "funding-source")) if a)
            country = next((s.get("country", "").strip() for s in _children(group, "funding-source")
                            if s.get("country")), "")
            award_ids = [a for a in (self._text(e) for e in _children(group, "award-id")) if a]
            out += [Grant(agency, award_id, country) for award_id in award_ids] or ([Grant(agency, "", country)]
                                                                                 if agency else [])
        sponsors = {s.get("id", ""): self._text(s) for s in _xpath(article, "front/article-meta/contract-sponsor")}
        for number in _xpath(article, "front/article-meta/contract-num"):
            rid = number.get("rid", "")
            out.append(Grant(sponsors.get(rid, ""), self._text(number)))
        if not out:
            out = [Grant(s) for s in sponsors.values() if s]
        return out

    # ------------------------------------------------------------------------------------------------------- references

    def _pub_ids(self, own: list[etree._Element]) -> dict[str, str]:
        found: dict[str, str] = {}
        for pub_id in (e for e in own if e.tag == "pub-id"):
            kind = (pub_id.get("pub-id-type") or "").strip().lower()
            kind = "pmcid" if kind == "pmc" else kind
            clean = {"pmid": valid_pmid, "pmcid": valid_pmcid, "doi": valid_doi}.get(kind)
            value = clean(self._text(pub_id)) if clean is not None and kind not in found else ""
            if value:
                found[kind] = value
        return found

    def _cited_title(self, own: list[etree._Element]) -> str:
        for name in ("article-title", "chapter-title", "source"):
            hit = next((e for e in own if e.tag == name), None)
            if hit is not None:
                text = self._text(hit, _nested(hit))
                if text:
                    return text
        return ""

    def _citation_text(self, ref: etree._Element, own: list[etree._Element]) -> str:
        """The first citation's text; the blank that element_text puts between a citation's elements is taken out
        before punctuation ("Nat. Methods 2007, 4, 785", not "Nat. Methods 2007 , 4 , 785")."""
        citation = next((e for e in own if local_name(e) in _CITATIONS), None)
        text = (self._text(citation, _nested(citation)) if citation is not None
                else self._text(ref, ("label", *_nested(ref))))
        if text.isascii() and text.isprintable() and not any(pair in text for pair in _ASCII_SPACED_PUNCTUATION):
            return text  # printable ASCII: its only whitespace is the space, and none stands beside such punctuation
        return _SPACE_AFTER.sub(r"\1", _SPACE_BEFORE.sub(r"\1", text))

    def references(self, article: etree._Element) -> list[Reference]:
        out = []
        for ref in _xpath(article, f".//ref-list//ref[not(ancestor::ref)]{_OWN}"):
            own = _own_elements(ref)
            found = self._pub_ids(own)
            out.append(Reference(pmid=found.get("pmid", ""), pmcid=found.get("pmcid", ""), doi=found.get("doi", ""),
                                 title=self._cited_title(own), text=self._citation_text(ref, own)))
        return out

    # --------------------------------------------------------------------------------------------------------- sections

    def sections(self, article: etree._Element) -> list[Section]:
        out: list[Section] = []
        for body in _children(article, "body"):
            stack = [(sec, 1) for sec in reversed(_children(body, "sec"))]
            while stack:  # iterative: hostile nesting costs no recursion
                sec, level = stack.pop()
                title = next((self._text(t) for t in _children(sec, "title")), "")
                paragraphs = [self._text(c) for c in sec
                              if isinstance(c.tag, str) and local_name(c) not in ("sec", "title", "label")]
                out.append(Section(title, level, "\n\n".join(p for p in paragraphs if p)))
                stack += [(child, level + 1) for child in reversed(_children(sec, "sec"))]
        return out

    # ---------------------------------------------------------------------------------------------------------- licence

    def license_text(self, article: etree._Element) -> str:
        for lic in _xpath(article, "front/article-meta/permissions/license"):
            refs = [r for r in lic.iter() if isinstance(r.tag, str) and local_name(r) == "license_ref"]
            for candidate in [self._text(r) for r in refs] + [lic.get(XLINK_HREF, "")]:
                if candidate.strip():
                    return candidate.strip()
            paragraph = self._text(lic)
            url = _URL.search(" ".join(
                [e.get(XLINK_HREF, "") for e in lic.iter() if isinstance(e.tag, str)] + [paragraph]))
            if url:
                return url.group()
            return (lic.get("license-type") or "").strip() or paragraph
        return ""


def add_rich_parts(article: etree._Element, record: ArticleRecord, texts: ElementTexts | None = None,
                   wanted: frozenset[RichName] = JATS_RICH) -> None:
    """Fill the record's funding, references, sections, licence and links (:mod:`pubfetch.extract.jats_links`) from
    one ``<article>``, those ``wanted`` (``texts``: the article's, when the caller has them)."""
    texts = ArticleTexts() if texts is None else texts
    reader = _Reader(texts)
    if RichName.funding in wanted:
        record.funding = reader.funding(article)
    if RichName.references in wanted:
        record.references = reader.references(article)
    if RichName.sections in wanted:
        record.sections = reader.sections(article)
    if RichName.license in wanted:
        record.license = reader.license_text(article)
    if RichName.links in wanted:
        record.text_links = jats_links(article, texts)
