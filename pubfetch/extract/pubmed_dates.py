"""Dates of PubMed's XML (``ArticleDate``, ``PubDate``, ``PubMedPubDate``) as complete and partial ISO dates, for
:mod:`pubfetch.extract.pubmed`."""

from __future__ import annotations

import calendar
import re
from datetime import date

from lxml import etree

from pubfetch.extract.xmlsafe import text_of

__all__ = ["pubmed_date"]

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MEDLINE_DATE = re.compile(r"^\s*([0-9]{4})(?:\s+([A-Za-z]{3})[a-z]*(?:\s+([0-9]{1,2}))?)?\s*$")
_YEAR = re.compile(r"([0-9]{4})")



def _month_number(month: str) -> int | None:
    """A PubMed month: a number ("8", "08") or an English abbreviation ("Aug", also "August")."""
    month = month.strip()
    if month.isdigit():
        value = int(month)
        return value if 1 <= value <= 12 else None
    return _MONTHS.get(month[:3].lower())


def _iso(year: int, month: int, day: int) -> str:
    """YYYY-MM-DD for a real calendar day, else ""."""
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return ""


def pubmed_date(el: etree._Element | None, pad: bool = False) -> tuple[str, str]:
    """(complete date, partial date) of a PubMed date element (``ArticleDate``, ``PubDate``, ``PubMedPubDate``).

    The complete date is ``YYYY-MM-DD`` or "". With ``pad`` (PubFetcher's ArticleDate rule) a missing month gives
    ``-01-01`` and a missing day ``-01``; without it only a date with year, month and day is complete. The partial
    date is the most precise ISO prefix known (``1975``, ``2010-06``, ``2012-08-30``), for bibliographic metadata
    that is happy with a year; ``MedlineDate`` ("1998 Dec-1999 Jan", "2000 Spring") gives its first year.
    """
    if el is None:
        return "", ""
    year_text, month_text, day_text, medline = _date_parts(el)
    if not year_text:
        match = _MEDLINE_DATE.match(medline)
        if not match:
            year_match = _YEAR.search(medline)
            return "", year_match.group(1) if year_match else ""
        year_text, month_text, day_text = match.group(1), match.group(2) or "", match.group(3) or ""
    if not (year_text.isdigit() and len(year_text) == 4):
        return "", ""
    month = _month_number(month_text) if month_text else None
    if month_text and month is None:  # a season ("Spring") or garbage: only the year is known
        return "", year_text
    day = int(day_text) if day_text.isdigit() and month is not None else None
    return _dates_from_numbers(int(year_text), month, day, pad)


#: A date element's parts, in the order :func:`_date_parts` gives them.
_DATE_PARTS = {"Year": 0, "Month": 1, "Day": 2, "MedlineDate": 3}


def _date_parts(el: etree._Element) -> list[str]:
    """The texts of a date element's ``Year``, ``Month``, ``Day`` and ``MedlineDate`` (the first of each, "" when
    missing), read in one pass over its children."""
    parts: list[str | None] = [None, None, None, None]
    for child in el:
        at = _DATE_PARTS.get(child.tag)
        if at is not None and parts[at] is None:
            parts[at] = text_of(child)
    return [p or "" for p in parts]


def _dates_from_numbers(year: int, month: int | None, day: int | None, pad: bool) -> tuple[str, str]:
    """(complete, partial) once the year is known to be valid; an impossible day keeps only year and month (a date
    is checked once: these are read twice a record)."""
    if month is None:
        return (_iso(year, 1, 1) if pad else ""), str(year)
    partial = f"{year}-{month:02d}"
    if day is not None:
        complete = _iso(year, month, day)
        return complete, complete or partial
    return (_iso(year, month, 1) if pad else ""), partial
