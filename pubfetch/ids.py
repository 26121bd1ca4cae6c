"""Publication identifiers: PMID, PMCID and DOI.

Validation follows PubFetcher exactly (so databases and ID files move between the two), while the error messages name
the mistakes users really make in ID tables (bio.tools registry issues 281, 331, 332): a PMCID without "PMC", a PMID in
the PMCID column, a DOI with spaces, a landing-page URL where an ID was expected.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from enum import Enum
from typing import Any
from urllib.parse import unquote, urlsplit

from pubfetch.pasted import clean_tail, doi_in_page_url, unpasted

# PubFetcher tests IDs with Java's matches(), which takes the whole string: use fullmatch (a ``$`` would accept a
# trailing newline, so that "123\n" passed as a PMID).
PMID_RE = re.compile(r"[1-9][0-9]*")
PMCID_RE = re.compile(r"PMC[1-9][0-9]*")
#: The PMCID of one version of an article: PMC keeps every version of some journals' articles (F1000Research's,
#: Wellcome Open Research's) as ``PMC6134338.1``, ``PMC6134338.2``..., and PubMed's records of them name the version
#: they link. The article's PMCID is the part before the dot.
_VERSIONED_PMCID = re.compile(r"(PMC[1-9][0-9]*)\.[1-9][0-9]*")
DOI_PREFIXES = ("http://doi.org/", "https://doi.org/", "http://dx.doi.org/", "https://dx.doi.org/", "doi:")

PMID_LINK = "https://www.ncbi.nlm.nih.gov/pubmed/?term="
PMCID_LINK = "https://www.ncbi.nlm.nih.gov/pmc/articles/"
DOI_LINK = "https://doi.org/"

# Java's \p{Print} under UNICODE_CHARACTER_CLASS: everything but line/paragraph separators, controls, surrogates,
# unassigned.
_NOT_PRINTABLE_CATEGORIES = frozenset({"Zl", "Zp", "Cc", "Cs", "Cn"})
# PubFetcher's text extraction: the label, any separators/controls, optional colons, then the ID.
_SEP = r"[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f]*"
_PMID_IN_TEXT = re.compile(r"(?i)pmid" + _SEP + ":*" + _SEP + r"([1-9][0-9]*)")
_PMCID_IN_TEXT = re.compile(r"(?i)pmcid" + _SEP + ":*" + _SEP + r"(pmc[1-9][0-9]*)")
_DOI_IN_TEXT = re.compile(r"(?i)doi" + _SEP + ":*" + _SEP + r"(10\.[^\s/]+/\S+)")


class IdKind(Enum):
    """The three identifier kinds, in PubFetcher's order of preference for the primary ID."""

    PMID = "pmid"
    PMCID = "pmcid"
    DOI = "doi"


class InvalidId(ValueError):
    """An identifier that cannot be used, with a message that says what is wrong with it."""


def _is_printable(ch: str) -> bool:
    return unicodedata.category(ch) not in _NOT_PRINTABLE_CATEGORIES


def is_pmid(s: str | None) -> bool:
    """``PMID_RE`` in full: ASCII digits, the first no 0 (string tests, no pattern match: it runs once per cited
    paper)."""
    return s is not None and s.isascii() and s.isdigit() and s[0] != "0"


def is_pmcid(s: str | None) -> bool:
    return s is not None and PMCID_RE.fullmatch(s) is not None


def _strip_doi_prefix(s: str) -> str:
    if not s.startswith(DOI_PREFIXES):  # the common case, answered by one call
        return s
    for prefix in DOI_PREFIXES:
        if s.startswith(prefix):
            return s[len(prefix):]
    return s


def is_doi(s: str | None) -> bool:
    """PubFetcher's DOI test: an optional resolver prefix, ``10.``, a registrant, ``/`` and a suffix, all printable.

    ``str.isprintable`` (one C loop) refuses every character :func:`_is_printable` refuses and more (spaces other than
    " ", format and private-use characters), so its yes is final and only its no needs the test per character."""
    if not s:
        return False
    rest = _strip_doi_prefix(s)
    if not rest.startswith("10."):
        return False
    if rest.rfind("/") < 4:  # at least one registrant character between "10." and a slash
        return False
    return rest.isprintable() or all(_is_printable(ch) for ch in rest)


_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def normalise_doi(doi: str) -> str:
    """Strip the resolver prefix and upper-case ASCII letters only (DOIs are case-insensitive in ASCII; ``str.upper``
    would also change "ß" to "SS" and "é" to "É")."""
    rest = _strip_doi_prefix(doi)
    return rest.upper() if rest.isascii() else rest.translate(_ASCII_UPPER)


def unversioned_pmcid(pmcid: str) -> str:
    """The article's PMCID of a versioned one (``PMC6134338.4`` -> ``PMC6134338``); anything else as given."""
    match = _VERSIONED_PMCID.fullmatch(pmcid)
    return match.group(1) if match else pmcid


def extract_pmcid_number(pmcid: str) -> str:
    """The digits of a PMCID (what NCBI's efetch wants for ``db=pmc``)."""
    return pmcid[3:] if is_pmcid(pmcid) else ""


def pmid_url(pmid: str) -> str:
    return PMID_LINK + pmid if pmid else ""


def pmcid_url(pmcid: str) -> str:
    return PMCID_LINK + pmcid + "/" if pmcid else ""


def doi_url(doi: str) -> str:
    """The doi.org link of a DOI, in lower case as people write it (the stored DOI keeps PubFetcher's upper case)."""
    return DOI_LINK + doi.lower() if doi else ""


# --- validation with helpful messages -------------------------------------------------------------------------------


def check_pmid(s: str) -> str:
    """Return the PMID (as pasted: :func:`~pubfetch.pasted.unpasted`) or raise InvalidId naming the likely mistake."""
    if is_pmid(s):
        return s  # bare already, as every hit of an esearch answer (10,000 a page): nothing to unpaste
    v = unpasted(s)
    if is_pmid(v):
        return v
    if is_pmcid(v.upper().replace(" ", "")):
        raise InvalidId(f"invalid PMID '{v}': looks like a PMCID (give it in the PMCID column)")
    if is_doi(v):
        raise InvalidId(f"invalid PMID '{v}': looks like a DOI (give it in the DOI column)")
    if v.startswith("0") and v.strip("0").isdigit():
        raise InvalidId(f"invalid PMID '{v}': a PMID has no leading zeros")
    if v.lower().startswith(("http://", "https://")):
        return _id_from_url_or_raise(v, IdKind.PMID)
    raise InvalidId(f"invalid PMID '{v}': a PMID is a positive whole number such as 31114920")


def check_pmcid(s: str) -> str:
    """Return the PMCID (as pasted, a version's as its article's: :func:`unversioned_pmcid`) or raise InvalidId naming
    the likely mistake."""
    v = unpasted(s)
    if is_pmcid(pmcid := unversioned_pmcid(v)):
        return pmcid
    if is_pmid(v):
        raise InvalidId(f"invalid PMCID '{v}': PMCID must start with PMC; "
                        f"'{v}' looks like a PMID (did you mean PMC{v}?)")
    if is_pmcid(v.upper()):
        raise InvalidId(f"invalid PMCID '{v}': PMC must be upper-case (PMC{v[3:]})")
    if is_doi(v):
        raise InvalidId(f"invalid PMCID '{v}': looks like a DOI (give it in the DOI column)")
    if v.lower().startswith(("http://", "https://")):
        return _id_from_url_or_raise(v, IdKind.PMCID)
    raise InvalidId(f"invalid PMCID '{v}': a PMCID is PMC followed by digits, such as PMC6198355")


def check_doi(s: str) -> str:
    """Return the normalised DOI or raise; PubFetcher's scrapers also refuse DOIs containing spaces."""
    v = unpasted(s)
    if v.lower().startswith(("http://", "https://")):  # a doi.org link is read as one: its query is not the DOI's
        linked = ids_from_url(v)
        if linked is not None and linked.doi:
            return normalise_doi(linked.doi)
    if is_doi(v) and " " not in v:
        return normalise_doi(v)
    if is_doi(v):
        raise InvalidId(f"invalid DOI '{v}': a DOI cannot contain spaces")
    if is_pmid(v):
        raise InvalidId(f"invalid DOI '{v}': looks like a PMID (give it in the PMID column)")
    if is_pmcid(v):
        raise InvalidId(f"invalid DOI '{v}': looks like a PMCID (give it in the PMCID column)")
    if v.lower().startswith(("http://", "https://")):
        return _id_from_url_or_raise(v, IdKind.DOI)
    raise InvalidId(f"invalid DOI '{v}': a DOI is 10.<registrant>/<suffix>, such as 10.1093/nar/gkz369")


def _id_from_url_or_raise(url: str, kind: IdKind) -> str:
    ids = ids_from_url(url)
    value = getattr(ids, kind.value) if ids is not None else ""
    if value:
        return value
    page = ", nor a publisher's page with a DOI in its address" if kind is IdKind.DOI else ""
    raise InvalidId(f"invalid {kind.name} '{url}': this URL is not a PubMed, PMC, Europe PMC or doi.org link to a "
                    f"{kind.name}{page}")


# --- extraction -------------------------------------------------------------------------------------------------------


#: What may stand before a DOI in a value: a ``doi:``/``DOI`` label, ``info:doi/``, ``urn:doi:``, a resolver URL (any
#: case, with or without scheme, ``dx.`` or ``www.``), or a label and a URL ("doi: https://doi.org/10...")
_DOI_VALUE_PREFIX = re.compile(r"(?i)^(?:doi(?=[\s:])[\s:]*|info:doi/|urn:doi:)?(?:(?:https?://)?(?:dx\.|www\.)?doi\.org/)?")
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def doi_in_value(value: str) -> str:
    """The DOI a value names, as written (not normalised): a bare DOI, ``doi:10...``, ``DOI 10...``, ``info:doi/``,
    a resolver URL in any case and form, URL-encoded (a SICI DOI in a link), with the punctuation of the text around
    it cut off; "" when it names none (or holds a space). The one reading of a DOI from a tag, a JSON-LD property or an
    element's text; :func:`extract_dois` and :func:`dois_in_text` find DOIs in running text."""
    value = value.strip()
    if _PERCENT_ESCAPE.search(value):
        value = unquote(value)
    value = clean_tail(value[_DOI_VALUE_PREFIX.match(value).end():].strip())  # type: ignore[union-attr]
    return value if value.startswith("10.") and is_doi(value) and " " not in value else ""


def extract_pmids(text: str) -> list[str]:
    """PMIDs labelled ``PMID: n`` in free text, in order, without repeats."""
    return list(dict.fromkeys(m.group(1) for m in _PMID_IN_TEXT.finditer(text)))


def extract_pmcids(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1).upper() for m in _PMCID_IN_TEXT.finditer(text)))


def extract_dois(text: str) -> list[str]:
    out = (normalise_doi(clean_tail(m.group(1))) for m in _DOI_IN_TEXT.finditer(text))
    return list(dict.fromkeys(d for d in out if is_doi(d)))


#: A DOI anywhere in running text, labelled or not: "10.", a registrant code, "/", a suffix without spaces.
_BARE_DOI = re.compile(r"10\.[0-9]{4,9}/[^\s\"<>]+")
#: A DOI broken over two lines after a ".", "-", "_" or "/" of its suffix (as a PDF's text keeps its line breaks);
#: a "." before a line opening with a capitalised word ends a sentence, not a line of the DOI.
_BROKEN_DOI = re.compile(r"(10\.[0-9]{4,9}/[^\s\"<>]*(?:[/_-]|\.(?![\n][A-Z][a-z])))\n(?=[^\s\"<>])")


def dois_in_text(text: str) -> list[str]:
    """Every DOI written in a text (a PDF's page, a metadata value), labelled or not, in order and each once,
    normalised; a DOI broken over two lines is joined."""
    text = _BROKEN_DOI.sub(r"\1", text)
    out = (normalise_doi(clean_tail(m.group(0))) for m in _BARE_DOI.finditer(text))
    return list(dict.fromkeys(d for d in out if is_doi(d)))


_PUBMED_TERM = re.compile(r"(?:^|&)term=([1-9][0-9]*)(?:&|\Z)")
_EUROPEPMC_ARTICLE_PAGES = ("article", "abstract", "api")


def _url_parts(url: str) -> tuple[str, str, list[str], str] | None:
    """Host (lower-case, without "www."), decoded path, its non-empty segments and the query of an http(s) URL."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https"):
        return None
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = unquote(parts.path)
    return host, path, [s for s in path.split("/") if s], parts.query


def _doi_link(path: str) -> PublicationIds | None:
    """``doi.org/<DOI>``: the decoded path is the DOI. The query and fragment are the link's (``?utm_source=``), not
    the DOI's: a DOI holding ``?`` or ``#`` is written percent-encoded in a link. A trailing slash is the link's too."""
    doi = path.strip("/")
    return PublicationIds(doi=doi) if is_doi(doi) and " " not in doi else None


def _pubmed_link(host: str, segments: list[str], query: str) -> PublicationIds | None:
    """``pubmed.ncbi.nlm.nih.gov/<PMID>/``, ``ncbi.nlm.nih.gov/pubmed/<PMID>`` and ``.../pubmed/?term=<PMID>``."""
    if host == "pubmed.ncbi.nlm.nih.gov":
        return PublicationIds(pmid=segments[0]) if segments and is_pmid(segments[0]) else None
    if len(segments) > 1 and is_pmid(segments[1]):
        return PublicationIds(pmid=segments[1])
    term = _PUBMED_TERM.search(query)
    return PublicationIds(pmid=term.group(1)) if term else None


def _pmcid_segment(segments: list[str]) -> PublicationIds | None:
    """A PMC or Europe PMC page naming its PMCID anywhere in the path (``/pmc/articles/PMC123/``)."""
    for seg in segments:
        if is_pmcid(seg.upper()):
            return PublicationIds(pmcid=seg.upper())
    return None


def _europepmc_source_link(segments: list[str]) -> PublicationIds | None:
    """``europepmc.org/article/MED/<PMID>`` and ``/article/PMC/<PMCID or its digits>`` (also /abstract/, /api/)."""
    if len(segments) < 3 or segments[0] not in _EUROPEPMC_ARTICLE_PAGES:
        return None
    source, ident = segments[1].upper(), segments[2]
    if source == "MED" and is_pmid(ident):
        return PublicationIds(pmid=ident)
    if source == "PMC":
        ident = ident.upper() if ident.upper().startswith("PMC") else "PMC" + ident
        return PublicationIds(pmcid=ident) if is_pmcid(ident) else None
    return None


def ids_from_url(url: str) -> PublicationIds | None:
    """The ID a link stands for: doi.org, PubMed, PMC and Europe PMC article links, and a publisher's page with the
    DOI in its address (:func:`~pubfetch.pasted.doi_in_page_url`); None for other URLs (a web page is not a paper)."""
    parts = _url_parts(url)
    if parts is None:
        return None
    host, path, segments, query = parts
    if host in ("doi.org", "dx.doi.org"):
        return _doi_link(path)
    if host == "pubmed.ncbi.nlm.nih.gov" or (host == "ncbi.nlm.nih.gov" and segments[:1] == ["pubmed"]):
        return _pubmed_link(host, segments, query)
    found = _pmcid_segment(segments) if host in ("ncbi.nlm.nih.gov", "pmc.ncbi.nlm.nih.gov", "europepmc.org") else None
    if found is None and host == "europepmc.org":
        found = _europepmc_source_link(segments)
    if found is None:
        doi = doi_in_page_url(url)
        found = PublicationIds(doi=doi) if is_doi(doi) and " " not in doi else None
    return found


def classify(s: str) -> PublicationIds:
    """Turn one string (a PMID, PMCID, DOI or a link to one, as pasted: ``PMID: 123``, ``10.1038/nature12373.``)
    into PublicationIds, or raise InvalidId saying why not."""
    v = unpasted(s)
    if not v:
        raise InvalidId("empty publication ID")
    if is_pmid(v):
        return PublicationIds(pmid=v)
    if is_pmcid(pmcid := unversioned_pmcid(v)):
        return PublicationIds(pmcid=pmcid)
    if v.lower().startswith(("http://", "https://")):
        ids = ids_from_url(v)
        if ids is None:
            raise InvalidId(f"'{v}' is a URL but not a PubMed, PMC, Europe PMC or doi.org link, nor a publisher's "
                            "page with a DOI in its address (a web page is fetched as a webpage: -web)")
        return ids
    if is_doi(v):
        return PublicationIds(doi=check_doi(v))
    if is_pmcid(v.upper()):
        raise InvalidId(f"invalid publication ID '{v}': PMC must be upper-case (PMC{v[3:]})")
    if v.startswith("0") and v.isdigit():
        raise InvalidId(f"invalid publication ID '{v}': a PMID has no leading zeros")
    raise InvalidId(f"unknown publication ID '{v}': "
                    "expected a PMID (31114920), a PMCID (PMC6198355) or a DOI (10.1093/nar/gkz369)")


# --- PublicationIds ---------------------------------------------------------------------------------------------------


_JAVA_INT = re.compile(r"[+-]?[0-9]+")
_JAVA_INT_RANGE = range(-(2**31), 2**31)


def _java_int(s: str) -> int | None:
    """Java's Integer.valueOf: an optionally signed decimal within 32 bits, else None (NumberFormatException)."""
    if _JAVA_INT.fullmatch(s) is None:
        return None
    n = int(s)
    return n if n in _JAVA_INT_RANGE else None


def _java_compare(a: str, b: str) -> int:
    """Java's String.compareTo: by UTF-16 code units (big-endian UTF-16 bytes compare in the same order)."""
    ua, ub = a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass")
    return (ua > ub) - (ua < ub)


def _numeric_compare(a: str, b: str, na: int | None, nb: int | None) -> int:
    """Compare as numbers when both are Java ints, else as strings (PubFetcher's try/catch)."""
    if na is None or nb is None:
        return _java_compare(a, b)
    return (na > nb) - (na < nb)


def compare_ids(a: tuple[str, str, str], b: tuple[str, str, str]) -> int:
    """PubFetcher's PublicationIds.compareTo over (pmid, pmcid, doi): IDs with a PMID come first, by the PMID's number;
    then those with a PMCID but no PMID, by the PMCID's number; then DOI-only ones, by the DOI string; empty last."""
    (pmid, pmcid, doi), (o_pmid, o_pmcid, o_doi) = a, b
    if pmid:
        return -1 if not o_pmid else _numeric_compare(pmid, o_pmid, _java_int(pmid), _java_int(o_pmid))
    if pmcid:
        if o_pmid:
            return 1
        if not o_pmcid:
            return -1
        num, o_num = extract_pmcid_number(pmcid), extract_pmcid_number(o_pmcid)
        return _numeric_compare(pmcid, o_pmcid, _java_int(num), _java_int(o_num))
    if doi:
        if o_pmid or o_pmcid:
            return 1
        return _java_compare(doi, o_doi) if o_doi else -1
    return 1 if (o_pmid or o_pmcid or o_doi) else 0


#: A sort key object ordering (pmid, pmcid, doi) triples as :func:`compare_ids`.
IdsOrder = functools.cmp_to_key(compare_ids)


@dataclass(frozen=True, eq=False, order=False)
class PublicationIds:
    """The IDs of one publication with the URLs they were found at; equal when the three IDs are equal.

    Immutable so it can key dictionaries (the database's ID map, the batch's index), as in PubFetcher.
    """

    pmid: str = ""
    pmcid: str = ""
    doi: str = ""
    pmid_url: str = ""
    pmcid_url: str = ""
    doi_url: str = ""
    _key: tuple[str, str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pmid = (self.pmid or "").strip()
        pmcid = (self.pmcid or "").strip()
        doi = (self.doi or "").strip()
        if doi and is_doi(doi):
            doi = normalise_doi(doi)
        object.__setattr__(self, "pmid", pmid)
        object.__setattr__(self, "pmcid", pmcid)
        object.__setattr__(self, "doi", doi)
        object.__setattr__(self, "pmid_url", (self.pmid_url or "").strip() if pmid else "")
        object.__setattr__(self, "pmcid_url", (self.pmcid_url or "").strip() if pmcid else "")
        object.__setattr__(self, "doi_url", (self.doi_url or "").strip() if doi else "")
        object.__setattr__(self, "_key", (pmid, pmcid, doi))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PublicationIds) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def sort_key(self) -> Any:
        """The key that sorts as PubFetcher's -asc-ids (see :func:`compare_ids`)."""
        return IdsOrder(self._key)

    def __lt__(self, other: PublicationIds) -> bool:
        return compare_ids(self._key, other._key) < 0

    def __le__(self, other: PublicationIds) -> bool:
        return compare_ids(self._key, other._key) <= 0

    def __gt__(self, other: PublicationIds) -> bool:
        return compare_ids(self._key, other._key) > 0

    def __ge__(self, other: PublicationIds) -> bool:
        return compare_ids(self._key, other._key) >= 0

    @property
    def ids(self) -> tuple[str, str, str]:
        return self._key

    def is_empty(self) -> bool:
        return not (self.pmid or self.pmcid or self.doi)

    def primary(self) -> str:
        """The ID an entry is stored under: PMID if present, else PMCID, else DOI."""
        return self.pmid or self.pmcid or self.doi

    def non_empty(self) -> list[str]:
        return [i for i in self._key if i]

    def to_dict(self, urls: bool = True) -> dict[str, str]:
        d = {"pmid": self.pmid, "pmcid": self.pmcid, "doi": self.doi}
        if urls:
            d.update(pmidUrl=self.pmid_url, pmcidUrl=self.pmcid_url, doiUrl=self.doi_url)
        return d

    def __str__(self) -> str:
        return "[" + ", ".join(self._key) + "]"


def check_publication_ids(pmid: str, pmcid: str, doi: str) -> PublicationIds:
    """Validate one ID-table row: every non-empty field must be a valid ID of its column; at least one must be given."""
    p = check_pmid(pmid) if pmid.strip() else ""
    c = check_pmcid(pmcid) if pmcid.strip() else ""
    d = check_doi(doi) if doi.strip() else ""
    if not (p or c or d):
        raise InvalidId("no publication ID given (all of PMID, PMCID and DOI are empty)")
    return PublicationIds(pmid=p, pmcid=c, doi=d)
