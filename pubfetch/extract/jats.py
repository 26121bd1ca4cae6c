"""JATS articles (Europe PMC ``fullTextXML``, PMC efetch ``<pmc-articleset>``) as :class:`ArticleRecord` objects.

PubFetcher reads both with one method (fillWithPubMedCentralXml); this is that method, one record per ``<article>``:

* ``tex-math`` is ignored (the MathML or image beside it stands for the formula).
* IDs from ``front`` ``article-id`` of pub-id-type pmid, pmcid or pmc (a bare number gets "PMC"), doi.
* title: the first ``article-title`` of the first ``title-group``, plus " : " and the subtitle when there is one.
* keywords: every ``kwd`` of ``front``.
* abstract: each non-``sec`` child of every ``abstract`` and of the ``sec`` elements inside them (titles included, so a
  structured abstract reads "Background\\n\\n...\\n\\nMethods\\n\\n..."), one paragraph each, blank lines between.
* fulltext: the body's non-``sec`` children (except ``sig-block``) and the non-``sec`` children of every ``sec`` in it
  (section titles, paragraphs, lists, whole figures and tables with label, caption and cells on one line), then the back
  matter's glossary terms and definitions, ``notes`` and ``sec`` (without reference lists), and ``floats-group`` /
  ``floats-wrap`` (figures and tables kept apart from the body). Acknowledgements, appendices, biographies,
  footnotes and references stay out. The record's fulltext is title, abstract and body joined by blank lines (an empty
  part is left out rather than leaving four newlines as PubFetcher does).
* each selected element's text is jsoup's ``Element.text()`` as PubFetcher had it: whitespace collapsed to one line,
  a space where a block element starts or ends (here: any element except inline markup such as ``italic``, ``sup``,
  ``xref`` or MathML, so "Table 1" and its caption do not run together).
* journal title: the first non-empty ``journal-title``; corresponding authors: PubFetcher's contrib / author-notes
  matching (``contrib[corresp=yes]`` or with an ``xref`` to a ``corresp``, e-mails, phones and URIs from
  ``author-notes``, matched to authors by name when there are several).

Beyond PubFetcher (for the LOCKSS layer): every author with ORCID and affiliations, volume, issue, pages, ISSNs,
publisher, article type, and the publication date (the earliest full electronic or print ``pub-date``).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from lxml import etree

from pubfetch.extract.errors import ParseError, load_xml
from pubfetch.extract.europepmc import clean_doi, clean_pmcid, clean_pmid
from pubfetch.extract.xmlsafe import local_name
from pubfetch.model.parts import Author, CorrespAuthor
from pubfetch.model.record import ArticleRecord

log = logging.getLogger(__name__)

MATHML_NS = "http://www.w3.org/1998/Math/MathML"

#: Elements laid out inline: no space at their edges (everything else is treated as a block).
INLINE = frozenset((
    "italic", "bold", "sup", "sub", "sc", "underline", "overline", "monospace", "roman", "sans-serif", "strike",
    "styled-content", "named-content", "xref", "ext-link", "uri", "email", "inline-formula", "inline-graphic",
    "inline-supplementary-material", "abbrev", "private-char", "glyph-data", "glyph-ref", "target", "fn-ref",
    "alternatives", "ruby", "rb", "rt", "phone", "fax", "milestone-start", "milestone-end", "hi", "span", "i", "b",
    "u", "a", "em", "strong", "break",
    # address parts, written inline in <aff> and <corresp> ("<institution>X</institution>, <city>Y</city>")
    "institution", "institution-wrap", "city", "state", "country", "postal-code", "addr-line",
))  # fmt: skip
SKIPPED = frozenset(("tex-math",))

_WS = re.compile(r"[ \t\n\r\f\u00a0]+")  # jsoup's whitespace
_INVISIBLE = re.compile(r"[\u200b\u00ad]")

# PubFetcher's selectors, as XPath relative to an <article> (union results come back in document order, once each).
_TITLE_GROUP = "front//title-group[not(preceding-sibling::title-group)]"
_ABSTRACT = "front//abstract/*[not(self::sec)] | front//abstract//sec/*[not(self::sec)]"
_NO_REFS = "[not(self::ref-list) and not(.//ref-list)]"
_BODY = " | ".join((
    "body/*[not(self::sec) and not(self::sig-block)]",
    "body//sec/*[not(self::sec)]",
    *(f"back/glossary//{name}" for name in ("term-head", "def-head", "term", "def", "td")),
    f"back/notes/*{_NO_REFS}",
    f"back/sec/*{_NO_REFS}",
    f"floats-wrap/*{_NO_REFS}",
    f"floats-group/*{_NO_REFS}",
))

# ---------------------------------------------------------------------------------------------------- text


class _Text:
    """jsoup's text accumulation: whitespace runs collapse to one space, leading space dropped after a space."""

    __slots__ = ("last", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.last = " "  # nothing yet counts as "after whitespace"

    def add(self, text: str) -> None:
        text = _WS.sub(" ", _INVISIBLE.sub("", text))
        if self.last == " ":
            text = text.lstrip(" ")
        if text:
            self.parts.append(text)
            self.last = text[-1]

    def space(self) -> None:
        if self.parts and self.last != " ":
            self.parts.append(" ")
            self.last = " "

    def value(self) -> str:
        return "".join(self.parts).strip()


def element_text(el: etree._Element | None, skip: Iterable[str] = ()) -> str:
    """The element's text on one line (jsoup ``text()``), without ``tex-math`` and without elements named in skip
    (their tails are kept). Iterative, so hostile nesting costs no recursion."""
    if el is None:
        return ""
    skipped = SKIPPED.union(skip)
    out = _Text()
    walker = etree.iterwalk(el, events=("start", "end"))
    for event, node in walker:
        if not isinstance(node.tag, str):  # an unresolved entity reference: its name is not text
            if event == "end" and node is not el and node.tail:
                out.add(node.tail)
            continue
        name = local_name(node)
        if event == "start":
            if name in skipped and node is not el:
                walker.skip_subtree()
                continue
            if node is not el and name not in INLINE and etree.QName(node).namespace != MATHML_NS:
                out.space()
            if node.text:
                out.add(node.text)
        elif node is not el:
            if name not in skipped and name not in INLINE and etree.QName(node).namespace != MATHML_NS:
                out.space()
            if node.tail:
                out.add(node.tail)
    return out.value()


def _texts(elements: Iterable[etree._Element]) -> list[str]:
    return [t for t in (element_text(e) for e in elements) if t]


def _first_text(elements: Iterable[etree._Element]) -> str:
    for e in elements:
        text = element_text(e)
        if text:
            return text
    return ""


def _xpath(el: etree._Element, path: str) -> list[etree._Element]:
    return [e for e in el.xpath(path) if isinstance(e, etree._Element)]


def _attr(el: etree._Element, name: str) -> str:
    return (el.get(name) or "").strip().lower()


# ----------------------------------------------------------------------------------------------- documents


def _strip_namespace(article: etree._Element) -> None:
    """JATS is namespace-free; a copy wrapped in a default namespace (OAI-PMH, JATS 1.3 archiving) is made plain so
    one set of paths serves all."""
    ns = etree.QName(article).namespace
    if not ns:
        return
    for el in article.iter():
        if isinstance(el.tag, str) and etree.QName(el).namespace == ns:
            el.tag = etree.QName(el).localname


def _articles(root: etree._Element) -> list[etree._Element]:
    name = local_name(root)
    if name == "article":
        return [root]
    found = []
    for el in root.iter():
        if isinstance(el.tag, str) and local_name(el) == "article" and el is not root:
            parent = el.getparent()
            while parent is not None and local_name(parent) != "article":
                parent = parent.getparent()
            if parent is None:
                found.append(el)
    if not found and name != "pmc-articleset":
        raise ParseError(f"not a JATS document: root element is <{name}> and it holds no <article>")
    if not found:
        errors = [element_text(e) for e in root.iter() if isinstance(e.tag, str) and local_name(e) == "error"]
        log.warning("no article in pmc-articleset%s", f": {'; '.join(errors)}" if errors else "")
    return found


def parse_jats(data: str | bytes) -> list[ArticleRecord]:
    """One record per ``<article>`` of a JATS document (a lone article, or a ``pmc-articleset`` of several; an
    articleset without articles, as efetch answers for unknown IDs, gives an empty list).

    Raises XmlError for malformed XML and ParseError for XML that is not JATS (both ValueErrors).
    """
    root = load_xml(data, "JATS document")
    records = []
    for article in _articles(root):
        _strip_namespace(article)
        records.append(article_record(article))
    return records


def article_record(article: etree._Element) -> ArticleRecord:
    """The record of one parsed ``<article>`` element."""
    rec = ArticleRecord()
    where = "JATS article-id"
    rec.pmid = clean_pmid(_first_text(_xpath(article, "front//article-id[@pub-id-type='pmid']")), where)
    rec.pmcid = clean_pmcid(_first_text(_xpath(
        article, "front//article-id[@pub-id-type='pmcid' or @pub-id-type='pmc']")), where)
    rec.doi = clean_doi(_first_text(_xpath(article, "front//article-id[@pub-id-type='doi']")), where)
    rec.title = title_text(article)
    rec.keywords = list(dict.fromkeys(_texts(_xpath(article, "front//kwd"))))
    rec.abstract = "\n\n".join(_texts(_xpath(article, _ABSTRACT)))
    body = "\n\n".join(_texts(_xpath(article, _BODY)))
    if body:
        rec.fulltext = "\n\n".join(p for p in (rec.title, rec.abstract, body) if p)
    rec.journal_title = _first_text(_xpath(article, ".//journal-title"))
    rec.corresp_author = corresp_authors(article)
    _biblio(article, rec)
    return rec


def title_text(article: etree._Element) -> str:
    title = element_text(next(iter(_xpath(article, f"{_TITLE_GROUP}//article-title")), None))
    subtitle = element_text(next(iter(_xpath(article, f"{_TITLE_GROUP}//subtitle")), None))
    return f"{title} : {subtitle}" if subtitle else title


# ------------------------------------------------------------------------------------------- bibliographic

_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_PRIMARY_DATES = frozenset(("epub", "ppub", "epub-ppub", "pub", "epreprint"))


def jats_date(el: etree._Element) -> str:
    """A ``pub-date`` as YYYY-MM-DD (``iso-8601-date`` if full, else year/month/day with missing parts -01)."""
    iso = (el.get("iso-8601-date") or "").strip()
    if len(iso) == 10:
        try:
            return date.fromisoformat(iso).isoformat()
        except ValueError:
            pass
    parts = {local_name(c): element_text(c) for c in el if isinstance(c.tag, str)}
    year = parts.get("year", "")
    if not re.fullmatch(r"\d{4}", year):
        return ""
    month_text = parts.get("month", "").lower()
    month = int(month_text) if month_text.isdigit() else _MONTHS.get(month_text[:3], 1)
    day_text = parts.get("day", "")
    day = int(day_text) if day_text.isdigit() else 1
    try:
        return date(int(year), month, day).isoformat()
    except ValueError:
        return ""


def pub_date(article: etree._Element) -> str:
    """The earliest electronic or print publication date; a collection (issue) date, then any date, when none."""
    primary: list[str] = []
    collection: list[str] = []
    other: list[str] = []
    for el in _xpath(article, "front/article-meta/pub-date"):
        value = jats_date(el)
        if not value:
            continue
        kind = _attr(el, "pub-type") or _attr(el, "date-type")
        (primary if kind in _PRIMARY_DATES else collection if kind == "collection" else other).append(value)
    for group in (primary, collection, other):
        if group:
            return min(group)
    return ""


def _issns(article: etree._Element) -> tuple[str, str]:
    issn = eissn = ""
    for el in _xpath(article, "front/journal-meta/issn"):
        value = element_text(el)
        kind = _attr(el, "pub-type") or _attr(el, "publication-format")
        if kind in ("epub", "electronic"):
            eissn = eissn or value
        elif kind in ("ppub", "print", ""):
            issn = issn or value
    return issn, eissn


def _pages(meta: etree._Element) -> str:
    first = _first_text(_xpath(meta, "fpage"))
    last = _first_text(_xpath(meta, "lpage"))
    if first:
        return f"{first}-{last}" if last and last != first else first
    return _first_text(_xpath(meta, "elocation-id"))


def _affiliation_texts(article: etree._Element) -> dict[str, str]:
    return {el.get("id", ""): _aff_text(el) for el in _xpath(article, "front//aff")}


def _aff_text(aff: etree._Element) -> str:
    """An affiliation without its label and institution identifiers (GRID, ROR, Ringgold numbers)."""
    return element_text(aff, skip=("label", "sup", "institution-id"))


def authors(article: etree._Element) -> list[Author]:
    """All authors of ``article-meta``: name, ORCID and affiliations (by ``xref`` to an ``aff``, an ``aff`` inside
    the contrib, or the group's affiliations when no author points to any)."""
    affs = _affiliation_texts(article)
    contribs = [c for c in _xpath(article, "front/article-meta//contrib-group/contrib")
                if _attr(c, "contrib-type") in ("author", "")]
    any_xref = any(_xpath(c, ".//xref[@ref-type='aff']") for c in contribs)
    out = []
    for contrib in contribs:
        name_el = next(iter(_xpath(contrib, "name | string-name")), None)
        given = _first_text(_xpath(name_el, "given-names")) if name_el is not None else ""
        family = _first_text(_xpath(name_el, "surname")) if name_el is not None else ""
        name = f"{given} {family}".strip() if family else element_text(name_el)
        name = name or _first_text(_xpath(contrib, "collab"))
        if not name:
            continue
        found = []
        for rid in " ".join(x.get("rid", "") for x in _xpath(contrib, ".//xref[@ref-type='aff']")).split():
            found.append(affs.get(rid, ""))
        found += [_aff_text(a) for a in _xpath(contrib, "aff")]
        if not any_xref and not found:
            found = [_aff_text(a) for a in _xpath(contrib.getparent(), "aff")]
        orcid = _first_text(c for c in _xpath(contrib, "contrib-id") if _attr(c, "contrib-id-type") == "orcid")
        out.append(Author(name, given, family, orcid, list(dict.fromkeys(a for a in found if a))))
    return out


def _biblio(article: etree._Element, rec: ArticleRecord) -> None:
    meta = next(iter(_xpath(article, "front/article-meta")), None)
    if meta is not None:
        rec.volume = _first_text(_xpath(meta, "volume"))
        rec.issue = _first_text(_xpath(meta, "issue"))
        rec.pages = _pages(meta)
    rec.issn, rec.eissn = _issns(article)
    rec.publisher = _first_text(_xpath(article, "front/journal-meta/publisher/publisher-name"))
    article_type = (article.get("article-type") or "").strip()
    rec.pub_types = [article_type] if article_type else []
    rec.pub_date = pub_date(article)
    rec.authors = authors(article)


# --------------------------------------------------------------------------------------- corresponding authors

_SEP = r"[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00-\x1f\x7f-\x9f]*"  # [\p{Z}\p{Cc}]*
EMAIL = re.compile(r"(?i)e-?mail[:.]*" + _SEP + r"([a-zA-Z0-9+._-]+@[a-zA-Z0-9.-]+\.[a-z]{2,})")
PHONE = re.compile(r"(?i)(tel[:.e]*" + _SEP + r"(phone[:.]*)?|phone[:.]*)" + _SEP + r"([\d /.ext()+-]+[\d)])")
_NAME_SEPARATOR = re.compile(r"[ \u002d\u2010]+")
_FN_ID = re.compile(r"(?i)fn[0-9]+")
_N_ID = re.compile(r"(?i)^N[0-9a-fx.]+$")
_ID_ESCAPE = re.compile(r"[^\w.:-]")  # Java's [^\p{L}\p{N}._:-] (\w adds "_", which maps to itself anyway)


def _drop(text: str, categories: tuple[str, ...]) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith(categories))


def _no_whitespace(text: str) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch) not in ("Zs", "Zl", "Zp", "Cc", "Cf"))


def _spaced(text: str) -> str:
    """Java's WHITESPACE run -> one space, trimmed."""
    out = "".join(" " if unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc", "Cf") else ch for ch in text)
    return re.sub(" +", " ", out).strip()


def _strip_symbols(text: str) -> str:
    return _drop(text, ("P", "S", "N"))


def _name_parts(name: str) -> list[str]:
    name = _spaced(name.replace(".", ". "))
    return [_strip_symbols(part) for part in _NAME_SEPARATOR.split(name)]


def match_email(name: str, email: str, attempt: int) -> bool:
    """PubFetcher's matchEmail: does the local part of the address look like this name? Attempt 0 wants the whole
    name, 1 any name part, 2 the initials, 3+ name parts shortened by attempt-2 letters."""
    at = email.find("@")
    local = _strip_symbols(_no_whitespace(unicodedata.normalize("NFKD", (email[:at] if at > -1 else email).lower())))
    if not local:
        return False
    name = unicodedata.normalize("NFKD", name.lower())
    if attempt == 0:
        return _strip_symbols(_no_whitespace(name)) == local
    if attempt == 1:
        return any(len(part) > 1 and part in local for part in _name_parts(name))
    if attempt == 2:
        plain = _strip_symbols(_spaced(name.replace(".", ". ")))
        acronym = plain[:1] + "".join(plain[i + 1] for i, ch in enumerate(plain[:-1]) if ch == " ")
        return len(acronym) > 1 and acronym == local
    for whole in _name_parts(name):
        keep = len(whole) - attempt + 2
        part = whole[:keep] if keep > 0 else ""
        if len(part) > 1 and part in local:
            return True
    return False


def _contrib_name(contrib: etree._Element) -> str:
    name = next(iter(_xpath(contrib, ".//name")), None)
    if name is None:
        return ""
    surname = element_text(next(iter(_xpath(name, ".//surname")), None))
    if not surname:
        return ""
    given = element_text(next(iter(_xpath(name, ".//given-names")), None))
    return f"{given} {surname}" if given else surname


def _contrib_surname(contrib: etree._Element) -> str:
    name = next(iter(_xpath(contrib, ".//name")), None)
    return element_text(next(iter(_xpath(name, ".//surname")), None)) if name is not None else ""


def _uris(el: etree._Element) -> list[etree._Element]:
    return [u for u in el.iter() if isinstance(u.tag, str) and (
        local_name(u) == "uri" or (local_name(u) == "ext-link" and _attr(u, "ext-link-type") == "uri"))]


def _named(el: etree._Element, name: str) -> list[etree._Element]:
    return [e for e in el.iter() if isinstance(e.tag, str) and local_name(e) == name]


def _add_contact(el: etree._Element, ca: CorrespAuthor) -> None:
    """PubFetcher's addEmailPhoneUriXml: fill what is still missing from tags, then from labelled text."""
    if not ca.email:
        ca.email = _first_text(_named(el, "email"))
    if not ca.phone:
        ca.phone = _first_text(_named(el, "phone"))
    if not ca.uri:
        ca.uri = _first_text(_uris(el))
    text = element_text(el)
    if not ca.email:
        m = EMAIL.search(text)
        ca.email = m.group(1).strip() if m else ""
    if not ca.phone:
        m = PHONE.search(text)
        ca.phone = m.group(3).strip() if m else ""


def _corresp_contribs(article: etree._Element) -> list[etree._Element]:
    contribs = _named(article, "contrib")
    chosen = [c for c in contribs if _attr(c, "corresp") == "yes"
              or any(_attr(x, "ref-type") == "corresp" for x in _named(c, "xref"))]
    if chosen:
        return chosen
    for c in contribs:
        xrefs = _named(c, "xref")
        if any(_attr(x, "ref-type") == "author-notes" for x in xrefs) and any(
                _FN_ID.search(x.get("rid", "")) or _N_ID.search(x.get("rid", "")) for x in xrefs):
            chosen.append(c)
    if chosen:
        return chosen
    notes = _xpath(article, ".//author-notes/corresp")
    for c in contribs:
        surname = _contrib_surname(c)
        rids = {x.get("rid", "") for x in _named(c, "xref")} - {""}
        for corresp in notes:
            if (surname and surname in element_text(corresp)) or (corresp.get("id") and corresp.get("id") in rids):
                chosen.append(c)
                break
    return chosen


@dataclass
class _NoteContacts:
    """E-mails of ``author-notes/corresp`` with the phone and URI beside each (aligned lists), and which were used."""

    emails: list[str] = field(default_factory=list)
    phones: list[str] = field(default_factory=list)
    uris: list[str] = field(default_factory=list)
    taken: list[bool] = field(default_factory=list)

    def take(self, j: int, ca: CorrespAuthor) -> None:
        ca.email = ca.email or self.emails[j]
        ca.phone = ca.phone or self.phones[j]
        ca.uri = ca.uri or self.uris[j]
        self.taken[j] = True


def _note_contacts(article: etree._Element) -> _NoteContacts:
    """Phones and URIs are padded or cut to the e-mails of their note, so index j describes one person."""
    notes = _NoteContacts()
    for corresp in _xpath(article, ".//author-notes/corresp"):
        found_emails = [element_text(e) for e in _named(corresp, "email")]
        found_emails += [m.group(1).strip() for m in EMAIL.finditer(element_text(corresp, skip=("email",)))]
        found_phones = [element_text(e) for e in _named(corresp, "phone")]
        found_phones += [m.group(3).strip() for m in PHONE.finditer(element_text(corresp, skip=("email", "phone")))]
        found_uris = [element_text(e) for e in _uris(corresp)]
        notes.emails += found_emails
        notes.phones += (found_phones + [""] * len(found_emails))[:len(found_emails)]
        notes.uris += (found_uris + [""] * len(found_emails))[:len(found_emails)]
    notes.taken = [False] * len(notes.emails)
    return notes


def _contrib_author(article: etree._Element, contrib: etree._Element, alone: bool,
                    notes: _NoteContacts) -> CorrespAuthor:
    """One chosen contributor with the contacts of its own markup and of the footnotes its xrefs point to."""
    ca = CorrespAuthor(name=_contrib_name(contrib))
    ca.orcid = _first_text(c for c in _named(contrib, "contrib-id") if _attr(c, "contrib-id-type") == "orcid")
    _add_contact(contrib, ca)
    if alone and len(notes.emails) == 1:
        notes.take(0, ca)
    for xref in _named(contrib, "xref"):
        if _attr(xref, "ref-type") in ("corresp", "author-notes") and xref.get("rid"):
            rid = _ID_ESCAPE.sub("_", xref.get("rid", ""))
            for fn in _xpath(article, ".//author-notes/fn"):
                if fn.get("id") == rid:
                    _add_contact(fn, ca)
    return ca


def _match_note_emails(found: list[CorrespAuthor], notes: _NoteContacts) -> None:
    """PubFetcher's matching of note e-mails to names, loosest attempt last, each e-mail given once."""
    longest = min(100, max((len(p) for ca in found for p in _name_parts(ca.name)), default=0))
    for attempt in range(longest + 1):
        for ca in found:
            if ca.email:
                continue
            for j, email in enumerate(notes.emails):
                if not notes.taken[j] and match_email(ca.name, email, attempt):
                    notes.take(j, ca)
                    break


def corresp_authors(article: etree._Element) -> list[CorrespAuthor]:
    """PubFetcher's corresponding authors of a JATS article (see the module docstring)."""
    contribs = _corresp_contribs(article)
    notes = _note_contacts(article)
    alone = len(contribs) == 1
    found = [ca for ca in (_contrib_author(article, c, alone, notes) for c in contribs) if not ca.is_empty()]
    _match_note_emails(found, notes)
    return found
