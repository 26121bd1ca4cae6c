"""Finding URLs, DOIs, accession numbers, RRIDs and trial registrations in a paper's words, and telling the kind of a
value a source marked up as a link.

The identifier patterns are the Bioregistry's (``link_patterns.json``, built by :mod:`pubfetch.extract.link_registry`,
which says which forms are distinctive). In running text a candidate (a word of letters, digits and ``_ . / -``
holding a digit) counts when it matches a distinctive form of a kind's pattern (``GSE12345``, ``NM_000546.5``,
``NCT01234567``); a match of a form that ordinary words and numbers also take (a PDB-like ``1ABC``, a GenBank-like
``X58356``, Ensembl's catch-all) counts only next to its database's name: written as ``PDB:1ABC``, or after one of
the database's names earlier in the same sentence with at most :data:`NEAR` characters to it or to the identifier of
that kind before it ("GenBank accession numbers MN908947, MN938384 and MN975262"). A value a source marks up (a JATS
``ext-link``) takes any form of its kind. URLs and DOIs are found by their shape (``http://``, ``www.``, ``10.NNNN/``).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from pubfetch.extract.sentences import sentence_spans
from pubfetch.model.links import TextLink
from pubfetch.model.rich import Section

__all__ = ["NEAR", "LinkSet", "classify", "find_links", "marked_link", "record_links"]

#: how far (in characters, within one sentence) an identifier of an ambiguous form may stand from its database's name
NEAR = 80

_URL = re.compile(r"(?i)(?<![\w@/.])(?:(?:https?|ftp)://|www\.|(?:[a-z0-9-]+\.)+(?:com|org|net|io|edu|gov|int|info|eu)/)"
                  r"[^\s<>\"\u201c\u201d]*")
_DOI = re.compile(r"(?<![\w/.])10\.\d{4,9}/[^\s<>\"\u201c\u201d]+")
_DOI_URL = re.compile(r"(?i)^(?:https?://)?(?:dx\.|www\.)?doi\.org/(10\.\d{4,9}/.+)$")
#: a word of letters, digits and ``_ . / -`` holding a digit (a lone digit too)
_TOKEN = re.compile(r"(?<![\w./\-])(?=[\w./\-]*?\d)[A-Za-z0-9][\w./\-]*[A-Za-z0-9]|(?<![\w./\-])\d(?![\w])")
#: the same holding a letter too: every distinctive form has one, so where no database is named the numbers that make
#: most of a paper's words with a digit are not even looked at
_TOKEN_WITH_LETTER = re.compile(r"(?<![\w./\-])(?=[\w./\-]*?\d)(?=[\w./\-]*?[A-Za-z])[A-Za-z0-9][\w./\-]*[A-Za-z0-9]")
_CURIE = re.compile(r"(?<![\w.\-])([A-Za-z][\w.\-]*)\s?:\s?([A-Za-z0-9][\w.\-/:]*[A-Za-z0-9]|[A-Za-z0-9])")
#: a grant number: in a sentence about funding, a code of at least five characters with a digit and a capital or
#: three digits, after "grant", "award", "code", "project", "contract", "No." or "number" or alone in brackets
_FUNDING = re.compile(r"(?i)\b(?:fund|support|grant|award|financ|sponsor)")
_GRANT = re.compile(r"(?:(?i:\bgrants?|\bawards?|\bcodes?|\bproject|\bcontract|\bagreement|\bno\.|\bnos\.|\bnumbers?)"
                    r"[\s:#]{0,3}(?:(?i:no\.|number)\s*)?[\"\u201c]?|\()"
                    r"(?=[\w./\-\u2013]*\d)(?=[\w./\-\u2013]*[A-Z]|(?:[\w./\-\u2013]*\d){3})"
                    r"([A-Za-z0-9][\w./\-\u2013]{3,}[A-Za-z0-9])")
_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"\w+")
_JOINED = re.compile(r"[\s,]*(?:(?:and|or|&)\s+)?")
_TRAILING = ".,;:!?'\"\u2019\u201d"
_PAIRS = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True)
class _Form:
    kind: str
    prefix: str
    pattern: re.Pattern[str]
    distinctive: bool


@dataclass(frozen=True)
class _Registry:
    kind: str
    prefix: str
    forms: tuple[_Form, ...]
    names: re.Pattern[str] | None
    name_list: tuple[str, ...] = ()


def _names_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """A database's names as whole words: long ones in any case, short ones (``PDB``, ``UP``) in capitals only."""
    alternatives = []
    for name in dict.fromkeys(names):
        escaped = re.escape(name)
        alternatives.append(f"(?i:{escaped})" if len(name) >= 4 else re.escape(name.upper()))
    return re.compile(r"(?<![\w])(?:" + "|".join(alternatives) + r")(?![\w])") if alternatives else None


@cache
def _registries() -> tuple[_Registry, ...]:
    data = json.loads(resources.files("pubfetch.extract").joinpath("link_patterns.json").read_text("utf-8"))
    out = []
    for kind, entry in data["kinds"].items():
        extra = entry.get("names", [])
        for registry in entry["registries"]:
            forms = tuple(_Form(kind, registry["prefix"], re.compile(a["pattern"]), a["distinctive"])
                          for a in registry["alternatives"])
            names = (*registry["names"], *extra)
            out.append(_Registry(kind, registry["prefix"], forms, _names_pattern(names), names))
    return tuple(out)


@cache
def _curie_prefixes() -> dict[str, _Registry]:
    """Registry prefixes and names by which a ``name:ID`` is written, lower-case."""
    out: dict[str, _Registry] = {}
    data = json.loads(resources.files("pubfetch.extract").joinpath("link_patterns.json").read_text("utf-8"))
    by_prefix = {r.prefix: r for r in _registries()}
    for entry in data["kinds"].values():
        for registry in entry["registries"]:
            if registry["alternatives"]:
                for name in (registry["prefix"], *registry["names"], *entry.get("names", [])):
                    out.setdefault(name.lower(), by_prefix[registry["prefix"]])
    return out


def _trim(value: str) -> str:
    """A URL or DOI without the punctuation of the sentence after it (a closing bracket only when unopened)."""
    while value:
        last = value[-1]
        if last in _TRAILING or (last in _PAIRS and value.count(_PAIRS[last]) < value.count(last)):
            value = value[:-1]
        else:
            break
    return value


def _url_or_doi(value: str) -> tuple[str, str]:
    doi = _DOI_URL.match(value)
    return ("doi", doi.group(1)) if doi else ("url", value)


def classify(value: str, kind: str = "", *, marked: bool = False) -> tuple[str, str, str] | None:
    """(kind, value, registry prefix) of an identifier, or None: ``kind``, when given, limits it to that kind;
    ``marked`` allows the ambiguous forms (the source said it is a link)."""
    value = value.strip()
    if not value:
        return None
    for distinctive in (True, False) if marked else (True,):  # a distinctive form of any kind before the others
        for registry in _registries():
            if kind and registry.kind != kind:
                continue
            for form in registry.forms:
                if form.distinctive == distinctive and form.pattern.fullmatch(value):
                    return registry.kind, value, registry.prefix
    return None


def marked_link(kind: str, value: str, href: str = "") -> tuple[str, str, str] | None:
    """(kind, value, registry) of a marked-up link: ``kind`` is what the markup says (a link kind, or "" when it does
    not say), ``value`` its text and ``href`` its target. An identifier is read from the text (else the target); a
    URL is the target (else the text); a doi.org URL is a DOI."""
    href, value = href.strip(), value.strip()
    if kind == "doi":
        doi = _DOI_URL.match(href) or _DOI_URL.match(value)
        found = doi.group(1) if doi else (value or href).removeprefix("doi:").strip()
        return ("doi", found, "doi") if found else None
    if kind and kind != "url":
        for candidate in (value, href.rstrip("/").rpartition("/")[2]):
            hit = classify(candidate, kind, marked=True)
            if hit:
                return hit
    target = href or (value if _URL.match(value) or _DOI_URL.match(value) else "")
    if target:
        found_kind, found = _url_or_doi(target)
        return found_kind, found, "doi" if found_kind == "doi" else ""
    hit = classify(value, marked=True) if not kind else None
    return hit


class LinkSet:
    """Links gathered in order, each (kind, value, section path, sentence) once; a link the source marks up stands for
    the same link (kind and value) found in the words of the same section."""

    def __init__(self) -> None:
        self._links: dict[tuple[str, str, tuple[str, ...], str], TextLink] = {}
        self._marked: set[tuple[str, str, tuple[str, ...]]] = set()
        #: the keys of the links found in the words, by kind, value and section path
        self._words: dict[tuple[str, str, tuple[str, ...]], list[tuple[str, str, tuple[str, ...], str]]] = {}

    def add(self, link: TextLink) -> None:
        where = (link.kind, link.value, link.section_path)
        key = (*where, link.sentence)
        if link.marked:
            self._marked.add(where)
            for found in self._words.pop(where, []):
                self._links.pop(found, None)
        elif where in self._marked:
            return
        elif key not in self._links:
            self._words.setdefault(where, []).append(key)
        self._links.setdefault(key, link)

    def links(self) -> list[TextLink]:
        return list(self._links.values())


class _Sentences:
    """A text's sentences, split when first asked (most paragraphs hold no link)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._spans: list[tuple[int, int]] | None = None
        self.starts: list[int] = []

    @property
    def spans(self) -> list[tuple[int, int]]:
        if self._spans is None:
            self._spans = sentence_spans(self.text)
            self.starts = [s for s, _ in self._spans]
        return self._spans

    def span(self, pos: int) -> tuple[int, int]:
        spans = self.spans
        i = bisect_right(self.starts, pos) - 1
        return spans[i] if i >= 0 else (0, len(self.text))

    def sentence(self, pos: int) -> str:
        start, end = self.span(pos)
        return self.text[start:end].strip()


class _Taken:
    """The spans already read as links, which never overlap one another, kept sorted for a bisecting look-up."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def add(self, start: int, end: int) -> None:
        i = bisect_right(self._starts, start)
        self._starts.insert(i, start)
        self._ends.insert(i, end)

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect_right(self._starts, start)
        return (i > 0 and self._ends[i - 1] > start) or (i < len(self._starts) and self._starts[i] < end)


def _near_name(registry: _Registry, text: str, sentence_start: int, start: int, last_end: int | None) -> bool:
    """Whether the database's name stands before ``start`` in its sentence, at most :data:`NEAR` characters away with
    no number between (``PDB entry 1ABC``, not ``PDB:2XYZ was used in 1999``), or the identifier of its kind before
    it is joined to it by a comma or "and" only."""
    if last_end is not None and sentence_start <= last_end and _JOINED.fullmatch(text, last_end, start):
        return True
    if registry.names is None:
        return False
    window = max(sentence_start, start - NEAR)
    names = list(registry.names.finditer(text, window, start))
    return bool(names) and not _DIGIT.search(text, names[-1].end(), start)


class _Finding:
    """One text's links as they are found: each kind of finding takes what the ones before it left."""

    def __init__(self, text: str, section_path: tuple[str, ...]) -> None:
        self.text = text
        self.section_path = section_path
        self.sentences = _Sentences(text)
        self.found: list[tuple[int, TextLink]] = []
        self.taken = _Taken()

    def keep(self, start: int, end: int, kind: str, value: str, registry: str) -> None:
        self.taken.add(start, end)
        self.found.append((start, TextLink(kind, value, registry, self.section_path,
                                           self.sentences.sentence(start))))

    def urls_and_dois(self) -> None:
        for match in _URL.finditer(self.text):
            kind, value = _url_or_doi(_trim(match.group()))
            self.keep(match.start(), match.end(), kind, value, "doi" if kind == "doi" else "")
        for match in _DOI.finditer(self.text):
            if not self.taken.overlaps(match.start(), match.end()):
                self.keep(match.start(), match.end(), "doi", _trim(match.group()), "doi")

    def curies(self) -> None:
        curies = _curie_prefixes()
        for match in _CURIE.finditer(self.text):
            registry = curies.get(match.group(1).lower())
            if registry is None or self.taken.overlaps(match.start(), match.end()):
                continue
            if any(form.pattern.fullmatch(match.group(2)) for form in registry.forms):
                self.keep(match.start(2), match.end(2), registry.kind, match.group(2), registry.prefix)

    def identifiers(self) -> None:
        last_end: dict[str, int] = {}
        names = _names_database(self.text)
        for match in (_TOKEN if names else _TOKEN_WITH_LETTER).finditer(self.text):
            if self.taken.overlaps(match.start(), match.end()):
                continue
            for i, (start, value) in enumerate(_pieces(match.start(), match.group())):
                hit = _identifier(self.text, self.sentences, start, value, last_end, names)
                if hit is not None:
                    self.keep(start, start + len(value), *hit)
                    last_end[hit[0]] = start + len(value)
                    if i == 0:
                        break  # the whole token is one identifier

    def grants(self) -> None:
        if not _FUNDING.search(self.text):
            return
        for match in _GRANT.finditer(self.text):
            start, end = match.span(1)
            if not self.taken.overlaps(start, end) and _FUNDING.search(self.sentences.sentence(start)):
                self.keep(start, end, "grant", match.group(1).replace("\u2013", "-"), "")


def find_links(text: str, section_path: tuple[str, ...] = ()) -> list[TextLink]:
    """Every URL, DOI and identifier in ``text`` (one paragraph or more), in order of appearance."""
    if not text:
        return []
    finding = _Finding(text, section_path)
    finding.urls_and_dois()
    finding.curies()
    finding.identifiers()
    finding.grants()
    finding.found.sort(key=lambda item: item[0])
    return [link for _, link in finding.found]


def _pieces(start: int, token: str) -> list[tuple[int, str]]:
    """The token, then (when it is not one identifier) its parts between ``/`` and ``,``: ``GSE1/GSE2``."""
    out = [(start, token)]
    offset = 0
    for part in re.split(r"([/,])", token):
        if part not in ("/", ",") and part and part != token:
            out.append((start + offset, part))
        offset += len(part)
    return out


@cache
def _any_form(distinctive_only: bool) -> re.Pattern[str]:
    """Every (distinctive) form of every kind in one pattern: most words holding a digit match none, and are
    dismissed at once."""
    return re.compile("|".join(f"(?:{form.pattern.pattern})" for r in _registries() for form in r.forms
                               if form.distinctive or not distinctive_only))


@cache
def _name_words() -> tuple[frozenset[str], frozenset[str]]:
    """The first words of every database's names: long names' in lower case, short names' in capitals. A text with
    none of them names no database and can hold only distinctive forms (a set lookup per word, where a search for
    every name in every paragraph would cost more than the rest of the finding)."""
    long_names, short_names = set(), set()
    for registry in _registries():
        for name in registry.name_list:
            first = _WORD.findall(name)[:1]
            if first:
                (long_names.add(first[0].lower()) if len(name) >= 4 else short_names.add(first[0].upper()))
    return frozenset(long_names), frozenset(short_names)


def _names_database(text: str) -> bool:
    long_names, short_names = _name_words()
    words = set(_WORD.findall(text))
    return not words.isdisjoint(short_names) or not {w.lower() for w in words}.isdisjoint(long_names)


def _identifier(text: str, sentences: _Sentences, start: int, value: str, last_end: dict[str, int],
                names: bool) -> tuple[str, str, str] | None:
    if not _any_form(not names).fullmatch(value):
        return None
    sentence_start = sentences.span(start)[0]
    for registry in _registries():
        for form in registry.forms:
            if not form.pattern.fullmatch(value):
                continue
            if form.distinctive or _near_name(registry, text, sentence_start, start, last_end.get(registry.kind)):
                return registry.kind, value, registry.prefix
    return None


def record_links(abstract: str, fulltext: str = "", sections: Sequence[Section] = ()) -> list[TextLink]:
    """The links of a source that gives its text as plain text (a PubMed or Europe PMC abstract, a publisher page read
    by its rule): the abstract's under ``Abstract``; the body's by its sections when the page marks them (each under
    the headings above it, by their levels), else the full text's (without the abstract it repeats) with no section
    path."""
    links = LinkSet()
    for link in find_links(abstract, ("Abstract",)):
        links.add(link)
    if sections:
        path: list[str] = []
        for section in sections:
            path = [*path[:max(section.level - 1, 0)], section.title]
            for link in find_links(section.text, tuple(p for p in path if p)):
                links.add(link)
        return links.links()
    for link in find_links(fulltext.replace(abstract, "", 1) if abstract else fulltext):
        links.add(link)
    return links.links()
