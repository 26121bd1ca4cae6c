"""Values as a reference manager wants them, shared by the CSL-JSON, BibTeX and RIS exports.

The store keeps what the sources gave (PubFetcher's upper-case DOIs, PubMed's titles ending in a period, the raw
characters of a title); a citation is what a person would write: a lower-case DOI, a title without its closing period,
no control characters, a date only when it is a real one, and a key a BibTeX tool accepts.
"""

from __future__ import annotations

import re
import unicodedata

from pubfetch import ids as idmod
from pubfetch.model.parts import Author
from pubfetch.model.publication import Publication
from pubfetch.model.timefmt import civil_date

__all__ = ["ascii_letters", "cite_key", "date_parts", "doi", "doi_url", "family_and_suffix", "one_line", "text",
           "title"]

#: C0 and C1 control characters and DEL, except tab, line feed and carriage return (white space an abstract's
#: paragraphs are written with); a title can carry them from a page or a stored record, and no citation format
#: means anything by them.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: A closing period that is a sentence's full stop, not the end of an ellipsis ("...").
_CLOSING_PERIOD = re.compile(r"(?<!\.)\.$")
#: Generational suffixes the sources leave at the end of a family name ("King Jr", "Smith III").
_SUFFIX = re.compile(r"^(?P<family>.+?),?\s+(?P<suffix>(?:Jr|Sr|Jnr|Snr)\.?|II|III|IV|V|2nd|3rd|4th)$")
#: Latin letters without a decomposition into an ASCII letter and marks.
_ASCII_LETTERS = str.maketrans({"ß": "ss", "æ": "ae", "Æ": "Ae", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "Oe",
                                "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th",
                                "ı": "i"})
_NOT_KEY = re.compile(r"[^A-Za-z0-9]+")
#: The last year a citation date can have; a stored date past it is left out (a four-digit year is every format's).
LAST_YEAR = 9999


def text(value: str) -> str:
    """A value without control characters; those that separate lines or pages (vertical tab, form feed, the
    information separators, next line) become spaces, so that the words on either side stay apart."""
    return _CONTROLS.sub(lambda control: " " if control[0].isspace() else "", value)


def one_line(value: str) -> str:
    """A value on one line: every run of white space (line and paragraph separators too) one space, so that no value
    can end its field or start another record."""
    return " ".join(text(value).split())


def title(value: str) -> str:
    """A title without the period that closes PubMed's titles (a question or exclamation mark stays)."""
    return _CLOSING_PERIOD.sub("", one_line(value))


def doi(value: str) -> str:
    """A DOI as citations write it: lower case (DOIs are case-insensitive; PubFetcher stores them upper case)."""
    return value.lower()


def doi_url(value: str) -> str:
    return idmod.doi_url(value) if value else ""


def date_parts(pub: Publication) -> list[int]:
    """[year, month, day] of the publication date; empty when it is unknown (negative) or past year 9999."""
    if pub.pub_date < 0:
        return []
    year, month, day = civil_date(pub.pub_date)
    return [year, month, day] if year <= LAST_YEAR else []


def family_and_suffix(author: Author) -> tuple[str, str]:
    """The family name and its generational suffix, which the sources keep together ("King Jr" -> "King", "Jr")."""
    family = one_line(author.family)
    if match := _SUFFIX.match(family):
        return match["family"], match["suffix"]
    return family, ""


def ascii_letters(value: str) -> str:
    """Latin letters without their accents ("Möhrle" -> "Mohrle"), for keys that must be ASCII."""
    decomposed = unicodedata.normalize("NFKD", value.translate(_ASCII_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def cite_key(pub: Publication) -> str:
    """The first author's family name (a collective's name), year and the paper's ID, in ASCII letters and digits:
    readable, and unique within a data set."""
    first = pub.authors[0] if pub.authors else None
    name = (family_and_suffix(first)[0] or first.literal or first.given) if first else ""
    parts = date_parts(pub)
    year = str(parts[0]) if parts else ""
    paper = pub.pmid.content or pub.pmcid.content or doi(pub.doi.content)
    key = "_".join(p for p in (_NOT_KEY.sub("", ascii_letters(name)) + year, _NOT_KEY.sub("", paper)) if p)
    return key or "unknown"
