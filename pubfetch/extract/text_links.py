"""Finding URLs, DOIs, accession numbers, RRIDs, trial registrations and grant numbers in a paper's words, and
telling the kind of a value a source marked up as a link.

The identifier patterns are the Bioregistry's (:mod:`pubfetch.extract.link_forms`). In running text an identifier (a
word of letters, digits and ``_ . / -``) counts when it matches a distinctive form of a kind's pattern (``GSE12345``,
``NM_000546.5``, ``NCT01234567``); a match of a form that ordinary words and numbers also take (a PDB-like ``1ABC``,
a GenBank-like ``X58356``, Ensembl's catch-all) counts only next to its database's name: written as ``PDB:1ABC``, or
after one of the database's names earlier in the same sentence, at most :data:`NEAR` characters from it with no
number between, or joined by a comma or "and" to the identifier of that kind before it ("GenBank accession numbers
MN908947, MN938384 and MN975262"). A value a source marks up (a JATS ``ext-link``) takes any form of its kind. URLs
and DOIs are found by their shape (``http://``, ``www.``, ``host.org/``, ``10.NNNN/``); grant numbers after
"grant", "award", "No." ... in a sentence about funding.

Each kind of candidate is first looked for by a fixed text it must contain (``://``, ``10.``, ``:``, a form's
fixed beginning, a database's name, a funding word), which the regular expression engine finds fast; the slower
checks run only there.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from functools import cache

from pubfetch.extract.link_forms import Registry, any_form, begins_word, curie_prefixes, names_in, registries, starts
from pubfetch.extract.sentences import sentence_spans
from pubfetch.model.links import TextLink
from pubfetch.model.rich import Section

__all__ = ["NEAR", "LinkSet", "classify", "find_block_links", "find_links", "marked_link", "record_links"]

#: how far (in characters, within one sentence) an identifier of an ambiguous form may stand from its database's name
NEAR = 80

_URL_START = re.compile(r"https?://|ftp://|www\.|HTTPS?://|FTP://|WWW\.|Https?://|Www\.")
_BARE_HOST_END = re.compile(r"\.(?:com|org|net|io|edu|gov|int|info|eu)/")
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
_URL_REST = re.compile(r"[^\s<>\"\u201c\u201d]*")
_URL = re.compile(r"(?i)(?:https?|ftp)://|www\.")
_DOI = re.compile(r"10\.\d{4,9}/[^\s<>\"\u201c\u201d]+")
_DOI_URL = re.compile(r"(?i)^(?:https?://)?(?:dx\.|www\.)?doi\.org/(10\.\d{4,9}/.+)$")
_CURIE_ID = re.compile(r":\s?([A-Za-z0-9][\w.\-/:]*[A-Za-z0-9]|[A-Za-z0-9])")
_CURIE_NAME = re.compile(r"([A-Za-z][\w.\-]*)\s?$")
#: a word of letters, digits and ``_ . / -`` holding a digit (a lone digit too); from a position, to its end
_TOKEN = re.compile(r"(?<![\w./\-])(?=[\w./\-]*?\d)[A-Za-z0-9][\w./\-]*[A-Za-z0-9]|(?<![\w./\-])\d(?![\w])")
_TOKEN_REST = re.compile(r"[\w./\-]*[A-Za-z0-9]|")
_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
#: a grant number: in a sentence about funding, a code of at least five characters with a digit and a capital or
#: three digits, after "grant", "award", "code", "project", "contract", "No." or "number" or alone in brackets
_FUNDING_WORDS = ("fund", "support", "grant", "award", "financ", "sponsor")
_FUNDING = re.compile("|".join(w for word in _FUNDING_WORDS for w in (word, word.capitalize(), word.upper())))
_GRANT = re.compile(r"(?:(?i:\bgrants?|\bawards?|\bcodes?|\bproject|\bcontract|\bagreement|\bno\.|\bnos\.|\bnumbers?)"
                    r"[\s:#]{0,3}(?:(?i:no\.|number)\s*)?[\"\u201c]?|\()"
                    r"(?=[\w./\-\u2013]*\d)(?=[\w./\-\u2013]*[A-Z]|(?:[\w./\-\u2013]{0,60}\d){3})"
                    r"([A-Za-z0-9][\w./\-\u2013]{3,}[A-Za-z0-9])")
_DIGIT = re.compile(r"\d")
_JOINED = re.compile(r"[\s,]*(?:(?:and|or|&)\s+)?")
_TRAILING = ".,;:!?'\"\u2019\u201d"
#: what joins the texts scanned together (no link or sentence runs across it)
_JOIN = "\n\n"
_PAIRS = {")": "(", "]": "[", "}": "{"}


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
    ``marked`` allows the ambiguous forms (the source said it is a link), except, when the source does not say of
    which kind, a form any word or number takes (Ensembl's catch-all, RRID's): those need their kind said."""
    value = value.strip()
    if not value:
        return None
    for distinctive in (True, False) if marked else (True,):  # a distinctive form of any kind before the others
        for registry in registries():
            if kind and registry.kind != kind:
                continue
            for form in registry.forms:
                if form.distinctive == distinctive and form.pattern.fullmatch(value) and \
                        (distinctive or kind or not _takes_anything(form.pattern)):
                    return registry.kind, value, registry.prefix
    return None


def _takes_anything(pattern: re.Pattern[str]) -> bool:
    """Whether a form matches a plain word or a plain number (then it tells nothing about a value)."""
    return bool(pattern.fullmatch("word") or pattern.fullmatch("12345"))


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
    target = href or (value if kind == "url" or _URL.match(value) or _DOI_URL.match(value) else "")
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
    """The sentences of texts joined by :data:`_JOIN`, each text's split when first asked (most hold no link); a
    sentence never runs from one text into the next."""

    def __init__(self, text: str, starts: list[int]) -> None:
        self.text = text
        self.starts = starts
        self._spans: dict[int, tuple[list[int], list[tuple[int, int]]]] = {}

    def block(self, pos: int) -> int:
        """The index of the text holding ``pos``."""
        return bisect_right(self.starts, pos) - 1

    def span(self, pos: int) -> tuple[int, int]:
        i = self.block(pos)
        known = self._spans.get(i)
        if known is None:
            begin = self.starts[i]
            end = self.starts[i + 1] - len(_JOIN) if i + 1 < len(self.starts) else len(self.text)
            spans = [(begin + s, begin + e) for s, e in sentence_spans(self.text[begin:end])] or [(begin, end)]
            known = ([s for s, _ in spans], spans)
            self._spans[i] = known
        j = bisect_right(known[0], pos) - 1
        return known[1][max(j, 0)]

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


def _near_name(registry: Registry, text: str, sentence_start: int, start: int, last_end: int | None) -> bool:
    """Whether the database's name stands before ``start`` in its sentence, at most :data:`NEAR` characters away with
    no number between (``PDB entry 1ABC``, not ``PDB:2XYZ was used in 1999``), or the identifier of its kind before
    it is joined to it by a comma or "and" only."""
    if last_end is not None and sentence_start <= last_end and _JOINED.fullmatch(text, last_end, start):
        return True
    if registry.names is None:
        return False
    window = max(sentence_start, start - NEAR)
    names = [m for m in registry.names.finditer(text, window, start) if begins_word(text, m.start())]
    return bool(names) and not _DIGIT.search(text, names[-1].end(), start)


def _identifier(text: str, sentences: _Sentences, start: int, value: str, last_end: dict[str, int],
                ambiguous: bool) -> tuple[str, str, str] | None:
    """(kind, value, registry) of the candidate at ``start``: a distinctive form anywhere; with ``ambiguous``, any
    other form next to its database's name."""
    if not any_form(not ambiguous).fullmatch(value):
        return None
    sentence_start = sentences.span(start)[0]
    for registry in registries():
        for form in registry.forms:
            if not form.pattern.fullmatch(value):
                continue
            if form.distinctive or (ambiguous and _near_name(registry, text, sentence_start, start,
                                                             last_end.get(registry.kind))):
                return registry.kind, value, registry.prefix
    return None


def _pieces(start: int, token: str) -> list[tuple[int, str]]:
    """The token, then (when it is not one identifier) its parts between ``/`` and ``,``: ``GSE1/GSE2``."""
    out = [(start, token)]
    offset = 0
    for part in re.split(r"([/,])", token):
        if part not in ("/", ",") and part and part != token:
            out.append((start + offset, part))
        offset += len(part)
    return out


class _Finding:
    """The links of texts (an article's paragraphs) as they are found, all texts at once: each kind of finding takes
    what the ones before it left."""

    def __init__(self, texts: Sequence[str], section_paths: Sequence[tuple[str, ...]]) -> None:
        self.text = _JOIN.join(texts)
        starts, at = [], 0
        for text in texts:
            starts.append(at)
            at += len(text) + len(_JOIN)
        self.section_paths = section_paths
        self.sentences = _Sentences(self.text, starts)
        self.found: list[tuple[int, int, TextLink]] = []
        self.taken = _Taken()
        self.last_end: dict[str, int] = {}
        self._lowered: str | None = None

    def lowered(self) -> str:
        """The text in lower case (the names and the funding words are looked for in it)."""
        if self._lowered is None:
            self._lowered = self.text.lower()
        return self._lowered

    def keep(self, start: int, end: int, kind: str, value: str, registry: str) -> None:
        self.taken.add(start, end)
        block = self.sentences.block(start)
        self.found.append((start, block, TextLink(kind, value, registry, self.section_paths[block],
                                                  self.sentences.sentence(start))))

    def _after_word(self, start: int, blocked: str) -> bool:
        """Whether ``start`` begins a word: the character before it is no letter, digit or one of ``blocked``."""
        return start == 0 or not (self.text[start - 1].isalnum() or self.text[start - 1] in blocked)

    def _url(self, start: int) -> None:
        end = _URL_REST.match(self.text, start).end()  # type: ignore[union-attr]
        raw = self.text[start:end]
        kind, value = _url_or_doi(_trim(raw))
        self.keep(start, end, kind, value, "doi" if kind == "doi" else "")

    def urls_and_dois(self) -> None:
        """URLs (``http://``, ``www.``, ``host.org/``) and DOIs, each kind looked for only in a text holding a fixed
        text its every match holds (``://``, or ``www.`` in any case (the lower-case text, which the names and the
        funding words are looked for in anyway), ``/``, ``10.``): a substring search, where most texts hold none,
        instead of a scan by the regular expression."""
        text = self.text
        if "://" in text or "www." in self.lowered():  # holds "www.", "WWW." and "Www." alike: one search
            self._url_starts()
        if "/" not in text:
            return
        self._bare_hosts()
        if "10." in text:
            for match in _DOI.finditer(text):
                if self._after_word(match.start(), "_/.") and not self.taken.overlaps(match.start(), match.end()):
                    self.keep(match.start(), match.end(), "doi", _trim(match.group()), "doi")

    def _url_starts(self) -> None:
        for match in _URL_START.finditer(self.text):
            if self._after_word(match.start(), "_@/.") and not self.taken.overlaps(match.start(), match.end()):
                self._url(match.start())

    def _bare_hosts(self) -> None:
        text = self.text
        for match in _BARE_HOST_END.finditer(text):
            start = match.start()
            while start and text[start - 1] in _HOST_CHARS:
                start -= 1
            while start < match.start() and not text[start].isalnum():
                start += 1
            if start < match.start() and self._after_word(start, "_@/.") and \
                    not self.taken.overlaps(start, match.end()):
                self._url(start)

    def curies(self) -> None:
        """``name:ID`` where the name is a registry's and the ID one of its forms (``RRID:AB_2298772``); looked for
        only where a colon follows a registry's name (:func:`_may_name_curie`), which few texts hold."""
        if not _may_name_curie(self.text):
            return
        prefixes = curie_prefixes()
        for match in _CURIE_ID.finditer(self.text):
            name = _CURIE_NAME.search(self.text, max(0, match.start() - 40), match.start())
            if name is None or not self._after_word(name.start(1), "_.-"):
                continue
            registry = prefixes.get(name.group(1).lower())
            value = match.group(1)
            if registry is None or self.taken.overlaps(name.start(1), match.end()):
                continue
            if any(form.pattern.fullmatch(value) for form in registry.forms):
                self.keep(match.start(1), match.end(1), registry.kind, value, registry.prefix)

    def _token(self, start: int, ambiguous: bool) -> int:
        """Read the word from ``start`` as an identifier, or its first part; return where what was read ends."""
        token = _TOKEN_REST.match(self.text, start).group()  # type: ignore[union-attr]
        for i, (at, value) in enumerate(_pieces(start, token)):
            if i and at != start and not ambiguous:
                break  # a later part is found from its own fixed beginning
            hit = _identifier(self.text, self.sentences, at, value, self.last_end, ambiguous)
            if hit is not None and not self.taken.overlaps(at, at + len(value)):
                self.keep(at, at + len(value), *hit)
                self.last_end[hit[0]] = at + len(value)
                if i == 0:
                    break  # the whole word is one identifier
        return start + len(token)

    def distinctive(self) -> None:
        """Words beginning with a distinctive form's fixed text (a part after ``/`` or ``,`` too)."""
        for match in starts().finditer(self.text):
            start = match.start()
            if self._after_word(start, "_.-") and not self.taken.overlaps(start, match.end()):
                self._token(start, ambiguous=False)

    def named(self) -> None:
        """After each database's name, the words of its sentence that take one of its forms."""
        done = -1
        for at, _ in names_in(self.text, self.lowered()):
            if at < done:
                continue
            sentence_end = self.sentences.span(at)[1]
            for token in _TOKEN.finditer(self.text, at, sentence_end):  # a name holds no digit: no token itself
                if not self.taken.overlaps(token.start(), token.end()):
                    self._token(token.start(), ambiguous=True)
            done = sentence_end

    def grants(self) -> None:
        lowered = self.lowered()  # most texts name no funding: a substring search per word says so sooner
        if not any(word in lowered for word in _FUNDING_WORDS):
            return
        done = -1
        for match in _FUNDING.finditer(self.text):
            if match.start() < done:
                continue
            start, done = self.sentences.span(match.start())
            if _DIGIT.search(self.text, start, done) is None:
                continue  # a grant number holds a digit: most sentences with a funding word hold none
            for grant in _GRANT.finditer(self.text, start, done):
                begin, end = grant.span(1)
                if not self.taken.overlaps(begin, end):
                    self.keep(begin, end, "grant", grant.group(1).replace("\u2013", "-"), "")


def _may_name_curie(text: str) -> bool:
    """Whether a colon of ``text`` follows (with one white space between at most) a text whose lower case ends with a
    registry's name of :func:`curie_prefixes`: :meth:`_Finding.curies` reads a name, in lower case, that ends there
    and begins at most 40 characters before the colon, and takes it only when it is one of those names."""
    at = text.find(":")
    if at < 0:
        return False
    names, ends = _curie_names()
    while at >= 0:
        before = text[max(0, at - 40):at]
        if before[-1:].isspace():  # the name's ``\s?`` (str.isspace is the engine's \s)
            before = before[:-1]
        last = before[-2:].lower()  # most colons follow no name's last two letters ("METHODS:")
        if (last in ends or len(last) != 2 or "" in ends) and before.lower().endswith(names):
            return True
        at = text.find(":", at + 1)
    return False


@cache
def _curie_names() -> tuple[tuple[str, ...], frozenset[str]]:
    """The names of :func:`curie_prefixes`, and their last two characters ("" for a shorter name: any end)."""
    names = tuple(curie_prefixes())
    return names, frozenset(name[-2:] if len(name) >= 2 else "" for name in names)


def find_links(text: str, section_path: tuple[str, ...] = ()) -> list[TextLink]:
    """Every URL, DOI, identifier and grant number in ``text`` (one paragraph or more), in order of appearance."""
    return [link for _, link in find_block_links([text], [section_path])]


def find_block_links(texts: Sequence[str], section_paths: Sequence[tuple[str, ...]]) -> list[tuple[int, TextLink]]:
    """:func:`find_links` of many texts (each with its section path) at once, each link with the index of its text:
    one scan of them all for each kind of candidate, rather than one per text."""
    if not any(texts):
        return []
    finding = _Finding(texts, section_paths)
    finding.urls_and_dois()
    finding.curies()
    finding.distinctive()
    finding.named()
    finding.grants()
    finding.found.sort(key=lambda item: item[0])
    return [(block, link) for _, block, link in finding.found]


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
