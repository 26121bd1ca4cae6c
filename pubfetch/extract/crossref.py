"""Crossref REST answers (``api.crossref.org/works/{doi}``, ``works?filter=doi:a,doi:b``) as :class:`ArticleRecord`
objects, one per work.

* IDs: ``DOI``. Title: the first ``title`` (markup dropped), `` : `` and the first ``subtitle`` when there is one.
* abstract: ``abstract`` is a JATS fragment (``<jats:p>``, ``<jats:sec>``, ``<jats:title>``): it is read by the JATS
  reader (:mod:`pubfetch.extract.jats`), as the abstract of a JATS article is, so that it reads the same whichever
  service gave it; a leading heading that only says "Abstract" is dropped. A fragment the reader cannot take
  (not well-formed, bare text) is read as text with its markup dropped.
* authors: ``author``: ``given``/``family`` (an organisation's ``name`` undivided), ``ORCID``, ``affiliation`` names.
* journal: the first ``container-title`` (a preprint's server, ``institution``, when there is none); ``volume``,
  ``issue``, ``page``, ``publisher``, the print and electronic ISSN of ``issn-type``; ``type`` as the publication
  type; a ``posted-content`` work of subtype ``preprint`` is a preprint.
* date: ``published`` (the earliest of print and online), else ``issued``: a whole day as ``pub_date``, else the year
  (and month) in ``flags["date_partial"]``.
* funding: each ``funder`` ``award`` as a grant of the funder's ``name`` (a funder without awards once, without a
  number). licence: the ``URL`` of the ``license`` for the version of record, else the first listed.
* references: each ``reference``: its ``DOI``, ``article-title`` (else ``volume-title``) and ``unstructured`` text
  (Crossref gives no PMID).
* updates: ``updated-by`` (notices that update this work) and ``update-to`` (this work is the notice), each as PubMed's
  RefType (:data:`UPDATE_TYPES`, the table in docs/output.md) and the other work's DOI; whether ``updated-by`` holds
  a retraction is Crossref's retraction verdict (:mod:`pubfetch.model.retraction`).
* relations: ``relation`` entries of :data:`~pubfetch.model.rich.RELATION_TYPES` whose ``id-type`` is a DOI.
"""

from __future__ import annotations

import re
from typing import Any

from pubfetch.extract.errors import ParseError, ServiceError, load_json
from pubfetch.extract.jats import parse_jats
from pubfetch.extract.scholarly import (
    author,
    first_text,
    json_list,
    json_object,
    orcid_url,
    other_doi,
    plain,
    set_date,
    text,
)
from pubfetch.model.parts import Author
from pubfetch.model.record import ArticleRecord
from pubfetch.model.retraction import RETRACTED_BY, RetractionSource, RetractionVerdict
from pubfetch.model.rich import RELATION_TYPES, Grant, Reference, Relation, Update

__all__ = ["UPDATE_TYPES", "jats_abstract", "parse_crossref", "seen_from_work", "update_of", "work_record"]

#: Crossref's update types as PubMed's RefTypes: (this work is updated by such a notice, this work is the notice).
#: A type not listed is an update (UpdateIn / UpdateOf).
UPDATE_TYPES: dict[str, tuple[str, str]] = {
    "retraction": ("RetractionIn", "RetractionOf"),
    "withdrawal": ("RetractionIn", "RetractionOf"),
    "partial_retraction": ("PartialRetractionIn", "PartialRetractionOf"),
    "correction": ("ErratumIn", "ErratumFor"),
    "corrigendum": ("ErratumIn", "ErratumFor"),
    "erratum": ("ErratumIn", "ErratumFor"),
    "expression_of_concern": ("ExpressionOfConcernIn", "ExpressionOfConcernFor"),
}
_OTHER_UPDATE = ("UpdateIn", "UpdateOf")
_SEPARATORS = re.compile(r"[\s-]+")
_JATS_OPEN = ('<jats:article xmlns:jats="http://www.ncbi.nlm.nih.gov/JATS1" xmlns:mml="http://www.w3.org/1998/Math/'
              'MathML" xmlns:xlink="http://www.w3.org/1999/xlink"><jats:front><jats:article-meta><jats:abstract>')
_JATS_CLOSE = "</jats:abstract></jats:article-meta></jats:front></jats:article>"


#: a notice's RefType seen from the work it updates ("RetractionOf" -> "RetractionIn")
_SEEN_FROM_WORK = {notice: work for work, notice in (*UPDATE_TYPES.values(), _OTHER_UPDATE)}


def seen_from_work(notice_type: str) -> str:
    """The RefType a work gets from a notice's own (``RetractionOf`` -> ``RetractionIn``); "" for a type that is not
    a notice's."""
    return _SEEN_FROM_WORK.get(notice_type, "")


def update_of(kind: str, notice: bool) -> str:
    """PubMed's RefType for a Crossref update type: seen from the updated work, or from the notice (``notice``)."""
    key = _SEPARATORS.sub("_", kind.strip().lower())
    return UPDATE_TYPES.get(key, _OTHER_UPDATE)[1 if notice else 0]


def parse_crossref(data: str | bytes) -> list[ArticleRecord]:
    """The works of a Crossref answer: one for ``message-type`` ``work``, each item for ``work-list`` (none for a
    page without items). ServiceError for Crossref's error answers (validation failures, exceptions), ParseError for
    anything else that is not a Crossref answer (its plain-text "Resource not found." included)."""
    doc = load_json(data, "Crossref answer")
    if not isinstance(doc, dict) or "message-type" not in doc:
        raise ParseError("not a Crossref answer: no message-type")
    kind, message = doc.get("message-type"), doc.get("message")
    if doc.get("status") != "ok":
        raise ServiceError(f"Crossref answered {kind}: {_error_text(message)}")
    if kind == "work" and isinstance(message, dict):
        return [work_record(message)]
    if kind == "work-list" and isinstance(message, dict):
        return [work_record(item) for item in json_list(message.get("items")) if isinstance(item, dict)]
    raise ParseError(f"not a Crossref work answer: message-type {kind}")


def _error_text(message: Any) -> str:
    if isinstance(message, list):
        return "; ".join(text(json_object(m).get("message")) for m in message) or "no reason given"
    return text(json_object(message).get("message")) or "no reason given"


def work_record(work: dict[str, Any]) -> ArticleRecord:
    """The record of one Crossref work (a ``message``, or an item of a ``work-list``)."""
    rec = ArticleRecord()
    rec.doi = other_doi(work.get("DOI"))
    title, subtitle = first_text(work.get("title")), first_text(work.get("subtitle"))
    rec.title = f"{title} : {subtitle}" if title and subtitle else title
    rec.abstract = jats_abstract(text(work.get("abstract")))
    rec.authors = [a for a in map(_author, json_list(work.get("author"))) if a is not None]
    _read_container(rec, work)
    kind = text(work.get("type"))
    rec.pub_types = [kind] if kind else []
    rec.preprint = kind == "posted-content" and text(work.get("subtype")) == "preprint"
    parts = json_list(json_object(work.get("published") or work.get("issued")).get("date-parts"))
    day = json_list(parts[0]) if parts else []
    set_date(rec, *(day[:3] or [None]))
    rec.funding = _funding(work)
    rec.license = _licence(json_list(work.get("license")))
    rec.references = [_reference(json_object(r)) for r in json_list(work.get("reference"))]
    rec.updates = _updates(work)
    rec.retraction = RetractionVerdict(RetractionSource.crossref, any(u.type in RETRACTED_BY for u in rec.updates))
    rec.relations = _relations(work)
    return rec


def _read_container(rec: ArticleRecord, work: dict[str, Any]) -> None:
    """The journal (else the institution, for a report or a dissertation), volume, issue, pages, publisher, and the
    first print and electronic ISSNs."""
    rec.journal_title = first_text(work.get("container-title")) or first_text(
        [json_object(i).get("name") for i in json_list(work.get("institution"))])
    rec.volume, rec.issue, rec.pages = text(work.get("volume")), text(work.get("issue")), text(work.get("page"))
    rec.publisher = text(work.get("publisher"))
    for issn in json_list(work.get("issn-type")):
        kind, value = text(json_object(issn).get("type")), text(json_object(issn).get("value"))
        if kind == "print" and not rec.issn:
            rec.issn = value
        elif kind == "electronic" and not rec.eissn:
            rec.eissn = value


def _funding(work: dict[str, Any]) -> list[Grant]:
    """A grant for each award of each funder (a funder without awards is one grant without an ID)."""
    return [Grant(text(f.get("name")), text(award)) for f in map(json_object, json_list(work.get("funder")))
            for award in (json_list(f.get("award")) or [""]) if text(f.get("name")) or text(award)]


def _relations(work: dict[str, Any]) -> list[Relation]:
    """The relations of the types the model knows, to DOIs."""
    return [Relation(kind, other_doi(item.get("id")))
            for kind, items in json_object(work.get("relation")).items() if kind in RELATION_TYPES
            for item in map(json_object, json_list(items))
            if text(item.get("id-type")).lower() == "doi" and other_doi(item.get("id"))]


def jats_abstract(fragment: str) -> str:
    """The text of Crossref's JATS abstract, read as the JATS reader reads an article's abstract."""
    if not fragment:
        return ""
    try:
        records = parse_jats(_JATS_OPEN + fragment + _JATS_CLOSE, rich_parts=False)
    except ValueError:
        records = []
    found = records[0].abstract if records else ""
    if not found:
        return plain(fragment)
    head, sep, rest = found.partition("\n\n")
    return rest if sep and head.strip().lower() == "abstract" else found


def _author(raw: Any) -> Author | None:
    a = json_object(raw)
    affiliations = [plain(json_object(aff).get("name")) for aff in json_list(a.get("affiliation"))]
    return author(plain(a.get("given")), plain(a.get("family")), orcid_url(a.get("ORCID")),
                  [aff for aff in affiliations if aff], plain(a.get("name")))


def _licence(licences: list[Any]) -> str:
    urls = [(text(lic.get("content-version")), text(lic.get("URL"))) for lic in map(json_object, licences)]
    return next((url for version, url in urls if version == "vor" and url), next((url for _, url in urls if url), ""))


def _reference(ref: dict[str, Any]) -> Reference:
    return Reference(doi=other_doi(ref.get("DOI")),
                     title=plain(ref.get("article-title")) or plain(ref.get("volume-title")),
                     text=plain(ref.get("unstructured")))


def _updates(work: dict[str, Any]) -> list[Update]:
    out = []
    for key, notice in (("updated-by", False), ("update-to", True)):
        for item in map(json_object, json_list(work.get(key))):
            doi = other_doi(item.get("DOI"))
            if doi and text(item.get("type")):
                out.append(Update(update_of(text(item.get("type")), notice), doi=doi))
    return out
