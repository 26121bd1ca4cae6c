"""What the parsers of the scholarly APIs (Crossref, OpenAlex, DataCite, bioRxiv/medRxiv) read the same way: JSON
scalars, dates given as parts, ORCIDs, DOIs of other papers, and authors.

The four services write a person as given and family name, or as one undivided name (an organisation, or OpenAlex's
display name, which it does not split): :func:`undivided_author` is the one place such a name becomes an author.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from pubfetch.extract.pubmed_rich import valid_doi, valid_pmcid, valid_pmid
from pubfetch.model.parts import Author
from pubfetch.model.record import ArticleRecord
from pubfetch.textutil import strip_html

__all__ = ["ORCID_URL", "author", "first_text", "json_list", "json_object", "orcid_url", "other_doi", "other_pmcid",
           "other_pmid", "plain", "set_date", "text", "undivided_author"]

ORCID_URL = "https://orcid.org/"
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>")
_ESCAPED_TAG = re.compile(r"&lt;/?[A-Za-z][A-Za-z0-9:-]*(?:\s.*?)?/?&gt;")
#: how many times markup may have been escaped over itself
_ESCAPES = 2


def text(value: Any) -> str:
    """A JSON string, trimmed ("" for null, numbers and anything else)."""
    return value.strip() if isinstance(value, str) else ""


def plain(value: Any) -> str:
    """A JSON string that may carry markup (``<i>`` in Crossref titles, ``<br>`` in DataCite descriptions) as text;
    markup written escaped, even twice (``&amp;lt;sup&amp;gt;``, as some Crossref titles have it), is dropped too."""
    if not isinstance(value, str):
        return ""
    found = strip_html(value)
    for _ in range(_ESCAPES):
        if not (_TAG.search(found) or _ESCAPED_TAG.search(found)):
            break
        found = strip_html(found)
    return found


def json_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def json_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def first_text(value: Any) -> str:
    """The first non-empty string of a JSON list (Crossref's ``title``, ``container-title``), or the string itself."""
    if isinstance(value, str):
        return plain(value)
    return next((plain(v) for v in json_list(value) if plain(v)), "")


def orcid_url(value: Any) -> str:
    """An ORCID as the other parsers keep it (``https://orcid.org/0000-...``), from a bare or URL form."""
    value = text(value)
    if not value:
        return ""
    bare = value.rstrip("/").rsplit("/", 1)[-1]
    return ORCID_URL + bare if bare else ""


def other_doi(value: Any) -> str:
    """Another paper's DOI (a reference, an update, a relation): normalised, "" when it is not a DOI."""
    return valid_doi(text(value))


def other_pmid(value: Any) -> str:
    """A PMID given bare or as a PubMed URL (OpenAlex's ``ids.pmid``)."""
    return valid_pmid(text(value).rstrip("/").rsplit("/", 1)[-1])


def other_pmcid(value: Any) -> str:
    """A PMCID given bare, with its prefix, or as a PMC URL (OpenAlex's ``ids.pmcid``)."""
    last = text(value).rstrip("/").rsplit("/", 1)[-1]
    return valid_pmcid(last) if last else ""


def undivided_author(name: str, orcid: str = "", affiliations: list[str] | None = None) -> Author:
    """An author known only by one undivided name (an organisation, a name the service does not split): split as
    every source's single-string names are, a collective's kept whole (:meth:`Author.from_name`)."""
    return Author.from_name(name, orcid, list(affiliations or []))


def author(given: str, family: str, orcid: str = "", affiliations: list[str] | None = None,
           name: str = "") -> Author | None:
    """A person by given and family name; by ``name`` undivided when neither is given; ``None`` when nothing is."""
    if given or family:
        return Author(given=given, family=family, orcid=orcid, affiliations=list(affiliations or []))
    return undivided_author(name, orcid, affiliations) if name else None


def set_date(record: ArticleRecord, year: Any, month: Any = None, day: Any = None) -> None:
    """The record's publication date from its parts: ``pub_date`` for a whole day, else the year (and month) in
    ``flags["date_partial"]``, as the JATS and meta-tag readers keep a date that names no day."""
    if not isinstance(year, int) or isinstance(year, bool) or not 1000 <= year <= 9999:
        return
    if isinstance(month, int) and isinstance(day, int):
        try:
            record.pub_date = date(year, month, day).isoformat()
            return
        except ValueError:
            pass
    record.flags["date_partial"] = f"{year:04d}-{month:02d}" if isinstance(month, int) and 1 <= month <= 12 \
        else f"{year:04d}"

