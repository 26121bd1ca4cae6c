"""DataCite REST answers (``api.datacite.org/dois/{doi}``, ``/dois?ids=a,b``) as :class:`ArticleRecord` objects,
one per DOI (JSON:API: ``data`` is one resource or a list of them, the metadata in ``attributes``).

* ``doi``; title: the first ``titles`` entry without ``titleType``, `` : `` and the first ``Subtitle``; abstract: the
  first ``descriptions`` entry of type ``Abstract`` (markup dropped; table of contents, series and technical
  descriptions are not the abstract).
* authors: ``creators``: ``givenName``/``familyName``, else ``name`` undivided (organisations; a name listing several
  people separated by ";" is each of them); the ORCID among ``nameIdentifiers``; ``affiliation`` as strings or objects
  with a ``name``.
* journal: ``container.title`` when the container is a journal (with its ``volume``, ``issue``, first and last page);
  ``publisher`` (a string, or an object with a ``name``); the ``Issued`` date (a whole day), else
  ``publicationYear``; ``types.resourceTypeGeneral`` as the publication type, ``Preprint`` being a preprint.
* funding: ``fundingReferences`` (``funderName``, ``awardNumber``). licence: the first ``rightsList`` entry's
  ``rightsUri``, else its ``rights``.
* references: ``relatedIdentifiers`` of type ``References`` or ``Cites`` naming a DOI. relations: ``IsPreprintOf``,
  ``HasPreprint``, ``IsVersionOf``, ``HasVersion`` naming a DOI, in Crossref's words
  (:data:`~pubfetch.model.rich.RELATION_TYPES`).
"""

from __future__ import annotations

from typing import Any

from pubfetch.extract.errors import ParseError, ServiceError, load_json
from pubfetch.extract.scholarly import (
    author,
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
from pubfetch.model.rich import Grant, Reference, Relation

__all__ = ["RELATIONS", "doi_record", "parse_datacite"]

#: DataCite's relation types kept, in Crossref's words
RELATIONS = {"IsPreprintOf": "is-preprint-of", "HasPreprint": "has-preprint", "IsVersionOf": "is-version-of",
             "HasVersion": "has-version"}
_REFERENCES = ("References", "Cites")


def parse_datacite(data: str | bytes) -> list[ArticleRecord]:
    """The DOIs of a DataCite answer (one resource or a list page). ServiceError for its ``errors`` answers,
    ParseError for anything else that is not a DataCite answer."""
    doc = load_json(data, "DataCite answer")
    if not isinstance(doc, dict):
        raise ParseError("not a DataCite answer: not an object")
    if "errors" in doc:
        reasons = [text(json_object(e).get("title")) for e in json_list(doc.get("errors"))]
        raise ServiceError(f"DataCite answered: {'; '.join(r for r in reasons if r) or 'an error'}")
    found = doc.get("data")
    if isinstance(found, dict):
        return [doi_record(found)]
    if isinstance(found, list):
        return [doi_record(item) for item in found if isinstance(item, dict)]
    raise ParseError("not a DataCite answer: no data")


def doi_record(resource: dict[str, Any]) -> ArticleRecord:
    """The record of one DataCite DOI resource."""
    attrs = json_object(resource.get("attributes"))
    rec = ArticleRecord()
    rec.doi = other_doi(attrs.get("doi")) or other_doi(resource.get("id"))
    rec.title = _title(attrs)
    rec.abstract = next((plain(d.get("description")) for d in map(json_object, json_list(attrs.get("descriptions")))
                         if text(d.get("descriptionType")) == "Abstract" and plain(d.get("description"))), "")
    rec.authors = [a for c in json_list(attrs.get("creators")) for a in _creators(c)]
    _read_container(rec, attrs)
    publisher = attrs.get("publisher")
    rec.publisher = plain(json_object(publisher).get("name")) if isinstance(publisher, dict) else plain(publisher)
    _date(rec, attrs)
    general = text(json_object(attrs.get("types")).get("resourceTypeGeneral"))
    rec.pub_types = [general] if general else []
    rec.preprint = general == "Preprint"
    rec.funding = [Grant(plain(f.get("funderName")), text(f.get("awardNumber")))
                   for f in map(json_object, json_list(attrs.get("fundingReferences")))
                   if plain(f.get("funderName")) or text(f.get("awardNumber"))]
    rights = next(iter(map(json_object, json_list(attrs.get("rightsList")))), {})
    rec.license = text(rights.get("rightsUri")) or plain(rights.get("rights"))
    _read_related(rec, attrs)
    return rec


def _title(attrs: dict[str, Any]) -> str:
    """The main title (the one without a type), with its subtitle after " : " when there is one."""
    titles = list(map(json_object, json_list(attrs.get("titles"))))
    title = next((plain(t.get("title")) for t in titles if not text(t.get("titleType")) and plain(t.get("title"))), "")
    subtitle = next((plain(t.get("title")) for t in titles if text(t.get("titleType")) == "Subtitle"), "")
    return f"{title} : {subtitle}" if title and subtitle else title


def _read_container(rec: ArticleRecord, attrs: dict[str, Any]) -> None:
    """The journal, volume, issue and pages, when the DOI's container is a journal."""
    container = json_object(attrs.get("container"))
    if text(container.get("type")) != "Journal":
        return
    rec.journal_title = plain(container.get("title"))
    rec.volume, rec.issue = text(container.get("volume")), text(container.get("issue"))
    first, last = text(container.get("firstPage")), text(container.get("lastPage"))
    rec.pages = f"{first}-{last}" if first and last else first


def _read_related(rec: ArticleRecord, attrs: dict[str, Any]) -> None:
    """The related DOIs: the works it references, and those of the relations the model knows."""
    for related in map(json_object, json_list(attrs.get("relatedIdentifiers"))):
        kind = text(related.get("relationType"))
        doi = other_doi(related.get("relatedIdentifier")) \
            if text(related.get("relatedIdentifierType")).upper() == "DOI" else ""
        if doi and kind in _REFERENCES:
            rec.references.append(Reference(doi=doi))
        elif doi and kind in RELATIONS:
            rec.relations.append(Relation(RELATIONS[kind], doi))


def _creators(raw: Any) -> list[Author]:
    """The authors of one ``creators`` entry: one, or several when its undivided name lists several people
    ("Jones, Matthew B.; Slaughter, Peter; ...", as some repositories deposit them)."""
    c = json_object(raw)
    orcid = next((orcid_url(i.get("nameIdentifier")) for i in map(json_object, json_list(c.get("nameIdentifiers")))
                  if text(i.get("nameIdentifierScheme")).upper() == "ORCID"), "")
    affiliations = [plain(json_object(a).get("name")) if isinstance(a, dict) else plain(a)
                    for a in json_list(c.get("affiliation"))]
    given, family, name = plain(c.get("givenName")), plain(c.get("familyName")), plain(c.get("name"))
    names = [n.strip() for n in name.split(";") if n.strip()] if not (given or family) else [name]
    found = [author(given, family, orcid, [a for a in affiliations if a], one) for one in names or [""]]
    return [a for a in found if a is not None]


def _date(rec: ArticleRecord, attrs: dict[str, Any]) -> None:
    issued = next((text(d.get("date")) for d in map(json_object, json_list(attrs.get("dates")))
                   if text(d.get("dateType")) == "Issued"), "")
    day = issued[:10].split("-")
    if len(day) == 3 and all(p.isdigit() for p in day):
        set_date(rec, *(int(p) for p in day))
    if not rec.pub_date:
        year = attrs.get("publicationYear")
        set_date(rec, int(year) if isinstance(year, str) and year.isdigit() else year)
