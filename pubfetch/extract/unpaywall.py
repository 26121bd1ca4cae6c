"""Unpaywall v2 answers (``api.unpaywall.org/v2/<DOI>``) as an :class:`ArticleRecord`.

Unpaywall is PubFetcher's last resort for open copies: it rarely adds content (a title without subtitle, open-access
status, the journal name) but it knows where free full texts live. Every open location gives up to three links, in
PubFetcher's order: ``url`` and ``url_for_landing_page`` as "html" (each only when it is not the PDF address) and
``url_for_pdf`` as "pdf". The best location comes first, then ``oa_locations`` in their order, each URL once.

Also kept for the metadata layer: DOI, publisher, ``published_date`` (YYYY-MM-DD), the ``z_authors`` list, the
ISSNs (Unpaywall does not say which is print: the first becomes ``issn``, the second ``eissn``), and ``genre``;
the licence of the best open location (else of the first location that names one), for the ``license`` part.
"""

from __future__ import annotations

import logging
from typing import Any

from pubfetch.extract.errors import ParseError, ServiceError, load_json
from pubfetch.extract.europepmc import clean_doi, iso_date
from pubfetch.model.parts import Author
from pubfetch.model.record import ArticleRecord, Link

log = logging.getLogger(__name__)

LINK_SOURCE = "unpaywall"


def _s(value: Any) -> str:
    """A JSON string, trimmed; null (and Jackson's "null" text, which PubFetcher guards against) gives ""."""
    if not isinstance(value, str):
        return ""
    value = value.strip()
    return "" if value == "null" else value


def location_links(location: Any) -> list[Link]:
    """The links of one ``oa_location``, in PubFetcher's order: url, landing page, PDF."""
    if not isinstance(location, dict):
        return []
    pdf = _s(location.get("url_for_pdf"))
    links = [Link(u, "html", LINK_SOURCE) for u in (_s(location.get("url")), _s(location.get("url_for_landing_page")))
             if u and u != pdf]
    if pdf:
        links.append(Link(pdf, "pdf", LINK_SOURCE))
    return links


def _authors(raw: Any) -> list[Author]:
    out = []
    for a in raw if isinstance(raw, list) else []:
        if not isinstance(a, dict):
            continue
        given, family = _s(a.get("given")), _s(a.get("family"))
        literal = "" if family else _s(a.get("name"))  # Crossref names organisations by "name" alone
        if family or literal:
            out.append(Author(family, given, literal, _s(a.get("ORCID")) or _s(a.get("orcid")), []))
    return out


#: The answer's facts kept as they are (strings, flags, numbers) in the record's ``flags``.
_FLAG_KEYS = ("oa_status", "journal_issn_l", "doi_url", "journal_is_oa", "journal_is_in_doaj", "has_repository_copy",
             "year")


def parse_unpaywall(data: str | bytes) -> ArticleRecord:
    """Raises ServiceError for Unpaywall's error answers (unknown DOI, bad e-mail) and ParseError for anything that
    is not an Unpaywall object (both ValueErrors)."""
    d = _answer(data)
    rec = ArticleRecord()
    rec.doi = clean_doi(_s(d.get("doi")), "Unpaywall")
    rec.title = " ".join(_s(d.get("title")).split())
    rec.journal_title = _s(d.get("journal_name"))
    rec.pub_date = iso_date(_s(d.get("published_date")))
    is_oa = d.get("is_oa")
    rec.oa = is_oa if isinstance(is_oa, bool) else None
    rec.publisher = _s(d.get("publisher"))
    issns = [i.strip() for i in _s(d.get("journal_issns")).split(",") if i.strip()]
    rec.issn, rec.eissn = (issns + ["", ""])[:2]
    rec.authors = _authors(d.get("z_authors"))
    genre = _s(d.get("genre"))
    rec.pub_types = [genre] if genre else []
    _read_locations(rec, d)
    rec.flags = {key: value for key in _FLAG_KEYS
                 if isinstance(value := d.get(key), (str, bool, int)) and value != ""}
    return rec


def _answer(data: str | bytes) -> dict[str, Any]:
    """The answer's object; ServiceError for an error answer, ParseError for what is no Unpaywall answer."""
    d = load_json(data, "Unpaywall answer")
    if not isinstance(d, dict):
        raise ParseError(f"Unpaywall answer is a JSON {type(d).__name__}, not an object")
    if d.get("error") is True or "HTTP_status_code" in d:
        raise ServiceError(f"Unpaywall error: {_s(d.get('message')) or d.get('HTTP_status_code')}")
    if "doi" not in d and "oa_locations" not in d and "is_oa" not in d:
        raise ParseError("not an Unpaywall answer: no doi, is_oa or oa_locations")
    return d


def _read_locations(rec: ArticleRecord, d: dict[str, Any]) -> None:
    """The links of the best open location, then of the others (each URL once), and the first licence given."""
    locations = d.get("oa_locations")
    seen: set[str] = set()
    for location in [d.get("best_oa_location"), *(locations if isinstance(locations, list) else [])]:
        for link in location_links(location):
            if link.url not in seen:
                seen.add(link.url)
                rec.links.append(link)
        if not rec.license and isinstance(location, dict):
            rec.license = _s(location.get("license"))
