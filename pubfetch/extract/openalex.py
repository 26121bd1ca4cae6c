"""OpenAlex answers (``/works/{id}``, ``/works?filter=doi:a|b``) as :class:`ArticleRecord` objects, one per work.

* IDs: ``ids.doi``, ``ids.pmid``, ``ids.pmcid`` (URLs; the DOI also from ``doi``). Title: ``title``.
* abstract: ``abstract_inverted_index`` (each word with the positions it stands at) rebuilt into the text, words in
  position order joined by single spaces.
* authors: ``authorships``, each ``author.display_name`` undivided (OpenAlex does not split names) with its
  ``orcid`` and ``raw_affiliation_strings``.
* journal: the ``display_name`` of ``primary_location.source`` when that source is a journal; ``biblio`` volume,
  issue and pages; ``publication_date``; ``type`` ``preprint`` is a preprint; ``open_access.is_oa``.
* funding: ``grants`` (``funder_display_name``, ``award_id``). licence: ``best_oa_location.license``, else
  ``primary_location.license``. A PDF at ``best_oa_location.pdf_url`` is a link to follow.
* ``cited_by_count`` as the citations count, ``is_retracted`` as OpenAlex's retraction verdict
  (:mod:`pubfetch.model.retraction`; ``null``, as a sparse record has it, says nothing). ``referenced_works`` are
  OpenAlex IDs, not DOIs: they are not read (Crossref gives the reference list with DOIs).
"""

from __future__ import annotations

from typing import Any

from pubfetch.extract.errors import ParseError, ServiceError, load_json
from pubfetch.extract.scholarly import (
    json_list,
    json_object,
    orcid_url,
    other_doi,
    other_pmcid,
    other_pmid,
    plain,
    set_date,
    text,
    undivided_author,
)
from pubfetch.model.parts import Author
from pubfetch.model.record import ArticleRecord, Link
from pubfetch.model.retraction import RetractionSource, RetractionVerdict
from pubfetch.model.rich import Grant

__all__ = ["LINK_SOURCE", "abstract_text", "parse_openalex", "work_record"]

LINK_SOURCE = "openalex best_oa_location"
#: characters of an error answer's reason kept (OpenAlex lists every valid field in it)
_REASON = 200


def parse_openalex(data: str | bytes) -> list[ArticleRecord]:
    """The works of an OpenAlex answer: a single work, or each of a list page's ``results``. ServiceError for its
    error answers (``error`` and ``message``), ParseError for anything else that is not an OpenAlex answer (its
    HTML 404 page included)."""
    doc = load_json(data, "OpenAlex answer")
    if not isinstance(doc, dict):
        raise ParseError("not an OpenAlex answer: not an object")
    if "error" in doc:
        raise ServiceError(f"OpenAlex answered {text(doc.get('error'))}: {text(doc.get('message'))[:_REASON]}")
    if isinstance(doc.get("results"), list):
        return [work_record(w) for w in doc["results"] if isinstance(w, dict)]
    if text(doc.get("id")) or text(doc.get("doi")):
        return [work_record(doc)]
    raise ParseError("not an OpenAlex work: no id")


def abstract_text(index: Any) -> str:
    """The abstract an inverted index stands for: each word at each of its positions, in position order."""
    placed: dict[int, str] = {}
    for word, positions in json_object(index).items():
        for position in json_list(positions):
            if isinstance(position, int) and not isinstance(position, bool) and position >= 0:
                placed[position] = word
    return " ".join(placed[p] for p in sorted(placed)).strip()


def work_record(work: dict[str, Any]) -> ArticleRecord:
    """The record of one OpenAlex work."""
    rec = ArticleRecord()
    ids = json_object(work.get("ids"))
    rec.doi = other_doi(ids.get("doi")) or other_doi(work.get("doi"))
    rec.pmid, rec.pmcid = other_pmid(ids.get("pmid")), other_pmcid(ids.get("pmcid"))
    rec.title = plain(work.get("title"))
    rec.abstract = abstract_text(work.get("abstract_inverted_index"))
    rec.authors.extend(_authors(work))
    _read_journal(rec, work)
    _read_access(rec, work)
    rec.funding = [Grant(plain(g.get("funder_display_name")), text(g.get("award_id")))
                   for g in map(json_object, json_list(work.get("grants")))
                   if plain(g.get("funder_display_name")) or text(g.get("award_id"))]
    count = work.get("cited_by_count")
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        rec.citations_count = count
    flag = work.get("is_retracted")
    if isinstance(flag, bool):
        rec.retraction = RetractionVerdict(RetractionSource.openalex, flag)
    return rec


def _authors(work: dict[str, Any]) -> list[Author]:
    """The authorships' names (undivided), ORCIDs and affiliations; one without a name is left out."""
    authors = []
    for authorship in map(json_object, json_list(work.get("authorships"))):
        person = json_object(authorship.get("author"))
        name = plain(person.get("display_name")) or plain(authorship.get("raw_author_name"))
        if name:
            affiliations = [plain(a) for a in json_list(authorship.get("raw_affiliation_strings")) if plain(a)]
            authors.append(undivided_author(name, orcid_url(person.get("orcid")), affiliations))
    return authors


def _read_journal(rec: ArticleRecord, work: dict[str, Any]) -> None:
    """The journal (when the primary location's source is one), volume, issue, pages, date and preprint flag."""
    source = json_object(json_object(work.get("primary_location")).get("source"))
    if text(source.get("type")) == "journal":
        rec.journal_title = plain(source.get("display_name"))
    biblio = json_object(work.get("biblio"))
    rec.volume, rec.issue = text(biblio.get("volume")), text(biblio.get("issue"))
    first, last = text(biblio.get("first_page")), text(biblio.get("last_page"))
    rec.pages = f"{first}-{last}" if first and last and first != last else first
    date = text(work.get("publication_date")).split("-")
    if all(p.isdigit() for p in date):
        set_date(rec, *(int(p) for p in date[:3]))
    rec.preprint = text(work.get("type")) == "preprint"


def _read_access(rec: ArticleRecord, work: dict[str, Any]) -> None:
    """Open access, the licence (the best open location's, else the primary one's) and the best location's PDF."""
    primary, best = json_object(work.get("primary_location")), json_object(work.get("best_oa_location"))
    rec.oa = json_object(work.get("open_access")).get("is_oa") is True
    rec.license = text(best.get("license")) or text(primary.get("license"))
    if text(best.get("pdf_url")):
        rec.links.append(Link(text(best.get("pdf_url")), "pdf", LINK_SOURCE))
