"""PubFetcher's corresponding authors of a JATS article: which contributors correspond, and their contacts.

A contributor corresponds when marked (``corresp="yes"``), when an ``xref`` points to a ``corresp`` note, else when
it points to an author-notes footnote, else when a ``corresp`` note names its surname. E-mails, phones and URIs come
from the contributor's markup, the footnotes its xrefs point to and the ``author-notes`` notes; several note e-mails
are matched to authors by name, loosest attempt last, each e-mail given once (PubFetcher's rules, kept exactly so
that the same article gives the same corresponding authors).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from lxml import etree

from pubfetch.extract.jats_text import ElementTexts, attr, element_text, elements, first_text
from pubfetch.extract.xmlsafe import local_name
from pubfetch.model.parts import CorrespAuthor

__all__ = ["EMAIL", "PHONE", "corresp_authors", "match_email"]

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
    name = next(iter(elements(contrib, ".//name")), None)
    if name is None:
        return ""
    surname = element_text(next(iter(elements(name, ".//surname")), None))
    if not surname:
        return ""
    given = element_text(next(iter(elements(name, ".//given-names")), None))
    return f"{given} {surname}" if given else surname


def _contrib_surname(contrib: etree._Element) -> str:
    name = next(iter(elements(contrib, ".//name")), None)
    return element_text(next(iter(elements(name, ".//surname")), None)) if name is not None else ""


def _uris(el: etree._Element) -> list[etree._Element]:
    return [u for u in el.iter("{*}uri", "{*}ext-link")
            if local_name(u) == "uri" or attr(u, "ext-link-type") == "uri"]


def _named(el: etree._Element, name: str) -> list[etree._Element]:
    """``el`` and its descendants of that local name, in document order (lxml filters by tag, in C)."""
    return list(el.iter("{*}" + name))


def _add_contact(el: etree._Element, ca: CorrespAuthor, texts: ElementTexts) -> None:
    """PubFetcher's addEmailPhoneUriXml: fill what is still missing from tags, then from labelled text."""
    if not ca.email:
        ca.email = first_text(_named(el, "email"))
    if not ca.phone:
        ca.phone = first_text(_named(el, "phone"))
    if not ca.uri:
        ca.uri = first_text(_uris(el))
    text = texts.of(el)
    if not ca.email:
        m = EMAIL.search(text)
        ca.email = m.group(1).strip() if m else ""
    if not ca.phone:
        m = PHONE.search(text)
        ca.phone = m.group(3).strip() if m else ""


def _corresp_contribs(article: etree._Element) -> list[etree._Element]:
    contribs = _named(article, "contrib")
    chosen = [c for c in contribs if attr(c, "corresp") == "yes"
              or any(attr(x, "ref-type") == "corresp" for x in _named(c, "xref"))]
    if chosen:
        return chosen
    for c in contribs:
        xrefs = _named(c, "xref")
        if any(attr(x, "ref-type") == "author-notes" for x in xrefs) and any(
                _FN_ID.search(x.get("rid", "")) or _N_ID.search(x.get("rid", "")) for x in xrefs):
            chosen.append(c)
    if chosen:
        return chosen
    notes = elements(article, ".//author-notes/corresp")
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
    for corresp in elements(article, ".//author-notes/corresp"):
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


def _contrib_author(article: etree._Element, contrib: etree._Element, alone: bool, notes: _NoteContacts,
                    texts: ElementTexts) -> CorrespAuthor:
    """One chosen contributor with the contacts of its own markup and of the footnotes its xrefs point to."""
    ca = CorrespAuthor(name=_contrib_name(contrib))
    ca.orcid = first_text(c for c in _named(contrib, "contrib-id") if attr(c, "contrib-id-type") == "orcid")
    _add_contact(contrib, ca, texts)
    if alone and len(notes.emails) == 1:
        notes.take(0, ca)
    for xref in _named(contrib, "xref"):
        if attr(xref, "ref-type") in ("corresp", "author-notes") and xref.get("rid"):
            rid = _ID_ESCAPE.sub("_", xref.get("rid", ""))
            for fn in elements(article, ".//author-notes/fn"):
                if fn.get("id") == rid:
                    _add_contact(fn, ca, texts)
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


def corresp_authors(article: etree._Element, texts: ElementTexts | None = None) -> list[CorrespAuthor]:
    """PubFetcher's corresponding authors of a JATS article (see the module docstring); ``texts``: the article's,
    when the caller has them."""
    texts = texts or ElementTexts()
    contribs = _corresp_contribs(article)
    notes = _note_contacts(article)
    alone = len(contribs) == 1
    found = [ca for ca in (_contrib_author(article, c, alone, notes, texts) for c in contribs) if not ca.is_empty()]
    _match_note_emails(found, notes)
    return found
