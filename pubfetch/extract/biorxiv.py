"""bioRxiv/medRxiv API answers (``api.biorxiv.org/details/{server}/{doi}/na/json``) as :class:`ArticleRecord`
objects, one per preprint: the latest ``version`` of each DOI in ``collection``.

Each item holds ``doi``, ``title``, ``authors`` ("Family, G.; Family, G."), ``author_corresponding``,
``author_corresponding_institution``, ``date``, ``version``, ``type``, ``license``, ``category``, ``jatsxml`` (the URL
of the JATS full text), ``abstract``, ``published`` (the journal version's DOI, or "NA") and ``server``. They become
the DOI, title, abstract, authors (family and given name), the corresponding author, the date, the licence as written
(``cc_by``), the server as the journal, a preprint flag, an ``is-preprint-of`` relation to the published DOI, and
``flags["jatsxml"]``, which the resource fetches for the full text.
"""

from __future__ import annotations

from typing import Any

from pubfetch.extract.errors import ParseError, load_json
from pubfetch.extract.scholarly import author, json_list, json_object, other_doi, plain, set_date, text
from pubfetch.model.parts import Author, CorrespAuthor
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Relation

__all__ = ["SERVERS", "item_record", "parse_biorxiv", "split_authors"]

#: the servers' names as the answers write them, and as the journal title
SERVERS = {"biorxiv": "bioRxiv", "medrxiv": "medRxiv"}


def parse_biorxiv(data: str | bytes) -> list[ArticleRecord]:
    """One record per DOI of a ``details`` answer (its latest version); none when the answer's ``messages`` say
    no preprint was found. ParseError for anything that is not such an answer."""
    doc = load_json(data, "bioRxiv answer")
    if not isinstance(doc, dict) or not isinstance(doc.get("collection", []), list):
        raise ParseError("not a bioRxiv/medRxiv answer: no collection")
    latest: dict[str, dict[str, Any]] = {}
    for item in map(json_object, json_list(doc.get("collection"))):
        doi = other_doi(item.get("doi"))
        if doi and _version(item) >= _version(latest.get(doi, {})):
            latest[doi] = item
    return [item_record(item) for item in latest.values()]


def _version(item: dict[str, Any]) -> int:
    value = text(item.get("version"))
    return int(value) if value.isdigit() else 0


def split_authors(value: str) -> list[Author]:
    """The authors of "Family, G.; Family, G." (a name without a comma stays undivided)."""
    out = []
    for name in (n.strip() for n in value.split(";")):
        family, comma, given = name.partition(",")
        found = author(given.strip(), family.strip()) if comma else author("", "", name=name)
        if found is not None:
            out.append(found)
    return out


def item_record(item: dict[str, Any]) -> ArticleRecord:
    """The record of one ``collection`` item."""
    rec = ArticleRecord()
    rec.doi = other_doi(item.get("doi"))
    rec.title = plain(item.get("title"))
    rec.abstract = plain(item.get("abstract"))
    rec.authors = split_authors(text(item.get("authors")))
    corresponding = plain(item.get("author_corresponding"))
    if corresponding:
        rec.corresp_author = [CorrespAuthor(name=corresponding)]
    server = text(item.get("server")).lower()
    rec.journal_title = SERVERS.get(server, plain(item.get("server")))
    day = text(item.get("date")).split("-")
    if len(day) == 3 and all(p.isdigit() for p in day):
        set_date(rec, *(int(p) for p in day))
    rec.license = text(item.get("license"))
    rec.preprint = True
    published = other_doi(item.get("published"))
    if published:
        rec.relations = [Relation("is-preprint-of", published)]
    if text(item.get("jatsxml")).startswith(("http://", "https://")):
        rec.flags["jatsxml"] = text(item.get("jatsxml"))
    return rec
