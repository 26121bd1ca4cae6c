"""Publications as citations for reference managers: CSL-JSON (Zotero, pandoc, citeproc), BibTeX and RIS.

Each carries the authors, title, journal, volume, issue, pages, date, DOI, PMID and PMCID, ISSN, publisher,
keywords and abstract that are known; a retracted paper says so in its note. CSL-JSON is plain JSON; BibTeX is
written by bibtexparser (which also turns non-ASCII letters and TeX's special characters into LaTeX, so the file
parses with any BibTeX tool) and RIS by rispy; both come with ``pip install 'pubfetch[citations]'``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from pubfetch import ids as idmod
from pubfetch.model.parts import Author
from pubfetch.model.publication import Publication

__all__ = ["CitationLibraryMissing", "bibtex_entries", "csl_item", "page_range", "ris_records", "to_csl"]

_NOT_KEY = re.compile(r"[^A-Za-z0-9]+")
_DIGITS = re.compile(r"^\d+$")


class CitationLibraryMissing(ImportError):
    """A citation format's library is not installed; the message says how to install it."""


def _require(module: str, fmt: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.partition(".")[0]
        raise CitationLibraryMissing(f"--format {fmt} needs {package}: pip install 'pubfetch[citations]'") from None


def _date_parts(pub: Publication) -> list[int]:
    if pub.pub_date < 0:
        return []
    day = datetime.fromtimestamp(pub.pub_date / 1000, UTC)
    return [day.year, day.month, day.day]


def page_range(pages: str) -> tuple[str, str]:
    """First and last page; PubMed's shortened last page is written out ("1349-57" -> 1349, 1357)."""
    first, _, last = (pages or "").replace("\u2013", "-").partition("-")
    first, last = first.strip(), last.strip().lstrip("-").strip()
    if _DIGITS.match(first) and _DIGITS.match(last) and len(last) < len(first):
        last = first[:len(first) - len(last)] + last
    return first, last


def _author_names(authors: list[Author]) -> list[tuple[str, str, str]]:
    """(family, given, literal) of each author: a person by name parts, a collective by its name."""
    out = []
    for author in authors:
        if author.family:
            out.append((author.family, author.given, ""))
        elif author.name:
            out.append(("", "", author.name))
    return out


def _note(pub: Publication) -> str:
    if not pub.retracted:
        return ""
    notices = pub.retraction_notices()
    return "Retracted publication" + (f" (retraction notice {', '.join(notices)})" if notices else "")


def _item_type(pub: Publication) -> str:
    return "article" if pub.preprint else "article-journal"


# ------------------------------------------------------------------------------------------------------------ CSL-JSON


def csl_item(pub: Publication) -> dict[str, Any]:
    """One CSL-JSON item (the CSL 1.0 input variables); unknown values are left out, not written empty."""
    item: dict[str, Any] = {"id": pub.pmid.content or pub.doi.content or pub.pmcid.content or "unknown",
                            "type": _item_type(pub)}
    names = [{"family": f, "given": g} if f else {"literal": lit} for f, g, lit in _author_names(pub.authors)]
    values: dict[str, Any] = {
        "title": pub.title.content,
        "container-title": pub.journal_title,
        "volume": pub.volume,
        "issue": pub.issue,
        "page": "-".join(p for p in page_range(pub.pages) if p),
        "ISSN": pub.issn or pub.eissn,
        "publisher": pub.publisher,
        "DOI": pub.doi.content,
        "PMID": pub.pmid.content,
        "PMCID": pub.pmcid.content,
        "URL": idmod.doi_url(pub.doi.content) if pub.doi.content else "",
        "abstract": pub.abstract.content,
        "keyword": ", ".join(pub.keywords.items),
        "note": _note(pub),
        "author": [{k: v for k, v in n.items() if v} for n in names],
    }
    item.update({k: v for k, v in values.items() if v})
    if parts := _date_parts(pub):
        item["issued"] = {"date-parts": [parts]}
    return item


def to_csl(pubs: Iterable[Publication]) -> list[dict[str, Any]]:
    """Publications as a CSL-JSON array (``json.dump`` it for Zotero or ``pandoc --citeproc``)."""
    return [csl_item(pub) for pub in pubs]


# -------------------------------------------------------------------------------------------------------------- BibTeX


def cite_key(pub: Publication) -> str:
    """First author's family name, year and the paper's ID: readable and unique within a data set."""
    family = next((f or lit for f, _, lit in _author_names(pub.authors)), "")
    year = str(_date_parts(pub)[0]) if pub.pub_date >= 0 else ""
    paper = pub.pmid.content or pub.pmcid.content or pub.doi.content
    key = "_".join(p for p in (_NOT_KEY.sub("", family) + year, _NOT_KEY.sub("", paper)) if p)
    return key or "unknown"


def _bibtex_fields(pub: Publication) -> list[tuple[str, str]]:
    first, last = page_range(pub.pages)
    authors = " and ".join(f"{f}, {g}".rstrip(", ") if f else lit for f, g, lit in _author_names(pub.authors))
    parts = _date_parts(pub)
    fields = [
        ("author", authors),
        ("title", pub.title.content),
        ("journal", pub.journal_title),
        ("year", str(parts[0]) if parts else ""),
        ("month", str(parts[1]) if parts else ""),
        ("volume", pub.volume),
        ("number", pub.issue),
        ("pages", f"{first}--{last}" if last else first),
        ("issn", pub.issn or pub.eissn),
        ("publisher", pub.publisher),
        ("doi", pub.doi.content),
        ("pmid", pub.pmid.content),
        ("pmcid", pub.pmcid.content),
        ("keywords", ", ".join(pub.keywords.items)),
        ("abstract", pub.abstract.content),
        ("note", _note(pub)),
    ]
    return [(k, v) for k, v in fields if v]


def bibtex_entries(pubs: Iterable[Publication]) -> str:
    """Publications as BibTeX ``@article`` entries (``@misc`` for preprints)."""
    bibtexparser = _require("bibtexparser", "bibtex")
    model = _require("bibtexparser.model", "bibtex")
    middlewares = _require("bibtexparser.middlewares", "bibtex")
    entries = []
    for pub in pubs:
        fields = [model.Field(k, v) for k, v in _bibtex_fields(pub)]
        entries.append(model.Entry("misc" if pub.preprint else "article", cite_key(pub), fields))
    library = bibtexparser.Library(entries)
    encode = middlewares.LatexEncodingMiddleware(keep_math=False, enclose_urls=False)
    return str(bibtexparser.write_string(library, prepend_middleware=[encode]))


# ----------------------------------------------------------------------------------------------------------------- RIS


def _ris_entry(pub: Publication) -> dict[str, Any]:
    first, last = page_range(pub.pages)
    parts = _date_parts(pub)
    entry: dict[str, Any] = {
        "type_of_reference": "JOUR",
        "authors": [f"{f}, {g}".rstrip(", ") if f else lit for f, g, lit in _author_names(pub.authors)],
        "title": pub.title.content,
        "secondary_title": pub.journal_title,
        "volume": pub.volume,
        "number": pub.issue,
        "start_page": first,
        "end_page": last,
        "year": str(parts[0]) if parts else "",
        "date": "/".join(f"{p:02d}" for p in parts) if parts else "",
        "issn": pub.issn or pub.eissn,
        "publisher": pub.publisher,
        "doi": pub.doi.content,
        "accession_number": pub.pmid.content,
        "custom2": pub.pmcid.content,  # C2 is the PMCID in RIS's journal article type
        "keywords": list(pub.keywords.items),
        "abstract": pub.abstract.content,
        "notes": [_note(pub)] if _note(pub) else [],
        "urls": [idmod.doi_url(pub.doi.content)] if pub.doi.content else [],
    }
    # a RIS field is one line: paragraph breaks (of the abstract) would end it
    return {k: (" ".join(v.split()) if isinstance(v, str) else v) for k, v in entry.items() if v}


def ris_records(pubs: Iterable[Publication]) -> str:
    """Publications as RIS ``JOUR`` records."""
    rispy = _require("rispy", "ris")

    class Writer(rispy.RisWriter):  # type: ignore[name-defined]
        """No "1." line before each record: records are written one at a time as they stream."""

        def set_header(self, count: int) -> str:
            return ""

    return str(rispy.dumps([_ris_entry(pub) for pub in pubs], implementation=Writer))
