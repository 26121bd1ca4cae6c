"""Publications as citations for reference managers: CSL-JSON (Zotero, pandoc, citeproc), BibTeX and RIS.

Each carries the authors, title, journal, volume, issue, pages, date, DOI, PMID and PMCID, ISSN, publisher,
keywords and abstract that are known; a retracted paper says so in its note. Values are written as a person would cite
them (:mod:`pubfetch.output.citation_values`: lower-case DOIs, titles without a closing period, no control characters).
CSL-JSON is plain JSON; BibTeX is written by bibtexparser, with non-ASCII letters and TeX's special characters as
LaTeX (so the file parses with any BibTeX tool) and collectives' names in braces (one author, not a first and a last
name); RIS by rispy, every value on one line. Both come with ``pip install 'pubfetch[citations]'``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from pubfetch.model.parts import Author
from pubfetch.model.publication import Publication
from pubfetch.output import citation_values as cv
from pubfetch.output.citation_values import cite_key, date_parts

__all__ = ["CitationLibraryMissing", "bibtex_entries", "cite_key", "csl_item", "page_range", "ris_records", "to_csl"]

_DIGITS = re.compile(r"^\d+$")
#: A word that BibTeX reads as the separator of two authors (any case), or a comma that separates name parts.
_BIBTEX_SEPARATOR = re.compile(r"\band\b|,", re.IGNORECASE)


class CitationLibraryMissing(ImportError):
    """A citation format's library is not installed; the message says how to install it."""


def _require(module: str, fmt: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.partition(".")[0]
        raise CitationLibraryMissing(f"--format {fmt} needs {package}: pip install 'pubfetch[citations]'") from None


def page_range(pages: str) -> tuple[str, str]:
    """First and last page; PubMed's shortened last page is written out ("1349-57" -> 1349, 1357)."""
    first, _, last = (pages or "").replace("\u2013", "-").partition("-")
    first, last = first.strip(), last.strip().lstrip("-").strip()
    if _DIGITS.match(first) and _DIGITS.match(last) and len(last) < len(first):
        last = first[:len(first) - len(last)] + last
    return first, last


def _names(authors: list[Author]) -> list[tuple[str, str, str, str]]:
    """(family, suffix, given, literal) of each author, on one line: a person by name parts, a collective (or a name
    with no family name) by its literal."""
    out = []
    for author in authors:
        family, suffix = cv.family_and_suffix(author)
        given, literal = cv.one_line(author.given), cv.one_line(author.literal)
        if family:
            out.append((family, suffix, given, ""))
        elif literal or given:
            out.append(("", "", "", literal or given))
    return out


def _sorted_name(family: str, suffix: str, given: str, literal: str) -> str:
    """RIS's "Family, Given, Suffix", or the literal."""
    return literal or ", ".join(p for p in (family, given, suffix) if p)


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
    names = [{"family": f, "given": g, "suffix": s} if f else {"literal": lit} for f, s, g, lit in _names(pub.authors)]
    values: dict[str, Any] = {
        "title": cv.title(pub.title.content),
        "container-title": pub.journal_title,
        "volume": pub.volume,
        "issue": pub.issue,
        "page": "-".join(p for p in page_range(pub.pages) if p),
        "ISSN": pub.issn or pub.eissn,
        "publisher": pub.publisher,
        "DOI": cv.doi(pub.doi.content),
        "PMID": pub.pmid.content,
        "PMCID": pub.pmcid.content,
        "URL": cv.doi_url(pub.doi.content),
        "abstract": pub.abstract.content,
        "keyword": ", ".join(cv.one_line(k) for k in pub.keywords.items),
        "note": _note(pub),
        "author": [{k: v for k, v in n.items() if v} for n in names],
    }
    item.update({k: cv.text(v) if isinstance(v, str) else v for k, v in values.items() if v})
    if parts := date_parts(pub):
        item["issued"] = {"date-parts": [parts]}
    return item


def to_csl(pubs: Iterable[Publication]) -> list[dict[str, Any]]:
    """Publications as a CSL-JSON array (``json.dump`` it for Zotero or ``pandoc --citeproc``)."""
    return [csl_item(pub) for pub in pubs]


# -------------------------------------------------------------------------------------------------------------- BibTeX


def _latex_encoder() -> Callable[[str], str]:
    """Unicode to LaTeX as bibtexparser's encoding middleware does it, but silent: a character without a LaTeX form
    is kept as it is, with no warning on stderr for each one."""
    latexencode = _require("pylatexenc.latexencode", "bibtex")
    encoder = latexencode.UnicodeToLatexEncoder(conversion_rules=["defaults"], unknown_char_warning=False)
    return lambda value: str(encoder.unicode_to_latex(value))


def _braced(latex: str) -> str:
    """A name part in braces when BibTeX would otherwise split it: at an "and" (into two authors) or a comma."""
    return "{" + latex + "}" if _BIBTEX_SEPARATOR.search(latex) else latex


def _bibtex_authors(pub: Publication, latex: Callable[[str], str]) -> str:
    """BibTeX's "Family, Jr, Given" of each person, and each collective's name in braces (so "World Health
    Organization" is one name, not the first names "World Health" of a person called "Organization")."""
    names = []
    for family, suffix, given, literal in _names(pub.authors):
        if literal:
            names.append("{" + latex(literal) + "}")
        else:
            names.append(", ".join(_braced(latex(p)) for p in (family, suffix, given) if p))
    return " and ".join(names)


def _bibtex_fields(pub: Publication, latex: Callable[[str], str]) -> list[tuple[str, str]]:
    """The fields in LaTeX; only the abstract keeps its line breaks (its paragraphs)."""
    first, last = page_range(pub.pages)
    parts = date_parts(pub)
    fields = [
        ("title", cv.title(pub.title.content)),
        ("journal", pub.journal_title),
        ("year", str(parts[0]) if parts else ""),
        ("month", str(parts[1]) if parts else ""),
        ("volume", pub.volume),
        ("number", pub.issue),
        ("pages", f"{first}--{last}" if last else first),
        ("issn", pub.issn or pub.eissn),
        ("publisher", pub.publisher),
        ("doi", cv.doi(pub.doi.content)),
        ("pmid", pub.pmid.content),
        ("pmcid", pub.pmcid.content),
        ("keywords", ", ".join(cv.one_line(k) for k in pub.keywords.items)),
        ("note", _note(pub)),
    ]
    encoded = [(k, latex(cv.one_line(v))) for k, v in fields if v]
    if pub.abstract.content:
        encoded.append(("abstract", latex(cv.text(pub.abstract.content))))
    authors = _bibtex_authors(pub, latex)
    return ([("author", authors)] if authors else []) + encoded


def bibtex_entries(pubs: Iterable[Publication]) -> str:
    """Publications as BibTeX ``@article`` entries (``@misc`` for preprints)."""
    bibtexparser = _require("bibtexparser", "bibtex")
    model = _require("bibtexparser.model", "bibtex")
    latex = _latex_encoder()
    entries = []
    for pub in pubs:
        fields = [model.Field(k, v) for k, v in _bibtex_fields(pub, latex)]
        entries.append(model.Entry("misc" if pub.preprint else "article", cite_key(pub), fields))
    return str(bibtexparser.write_string(bibtexparser.Library(entries)))


# ----------------------------------------------------------------------------------------------------------------- RIS


def _ris_entry(pub: Publication) -> dict[str, Any]:
    first, last = page_range(pub.pages)
    parts = date_parts(pub)
    entry: dict[str, Any] = {
        "type_of_reference": "JOUR",
        "authors": [_sorted_name(*name) for name in _names(pub.authors)],
        "title": cv.title(pub.title.content),
        "secondary_title": pub.journal_title,
        "volume": pub.volume,
        "number": pub.issue,
        "start_page": first,
        "end_page": last,
        "year": str(parts[0]) if parts else "",
        "date": "/".join(f"{p:02d}" for p in parts) if parts else "",
        "issn": pub.issn or pub.eissn,
        "publisher": pub.publisher,
        "doi": cv.doi(pub.doi.content),
        "accession_number": pub.pmid.content,
        "custom2": pub.pmcid.content,  # C2 is the PMCID in RIS's journal article type
        "keywords": list(pub.keywords.items),
        "abstract": pub.abstract.content,
        "notes": [_note(pub)] if _note(pub) else [],
        "urls": [cv.doi_url(pub.doi.content)] if pub.doi.content else [],
    }
    # a RIS field is one line: a line break in any value (an abstract's paragraphs, a keyword carrying "\nER  -")
    # would end the field and could start a record of its own
    return {k: ([cv.one_line(i) for i in v if cv.one_line(i)] if isinstance(v, list) else cv.one_line(v))
            for k, v in entry.items() if v}


def ris_records(pubs: Iterable[Publication]) -> str:
    """Publications as RIS ``JOUR`` records."""
    rispy = _require("rispy", "ris")

    class Writer(rispy.RisWriter):  # type: ignore[name-defined]
        """No "1." line before each record: records are written one at a time as they stream."""

        def set_header(self, count: int) -> str:
            return ""

    return str(rispy.dumps([_ris_entry(pub) for pub in pubs], implementation=Writer))
