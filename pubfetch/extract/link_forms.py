"""The identifier forms the link finder looks for, loaded once from ``link_patterns.json`` (the Bioregistry's
patterns, :mod:`pubfetch.extract.link_registry`), and the patterns built from them that find candidates fast.

Python's regular expressions scan fastest for an alternation of fixed texts (they skip every position whose
character cannot begin one), so the finder first looks for what every candidate must contain: the fixed beginnings
of the distinctive forms (:func:`starts`), a database's name (:func:`names_in`); only there does it try the forms.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["Form", "Registry", "any_form", "begins_word", "curie_prefixes", "names_at_key", "names_in", "registries",
           "starts"]


_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Form:
    """One top-level alternative of a registry's pattern."""

    kind: str
    prefix: str
    pattern: re.Pattern[str]
    distinctive: bool
    starts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Registry:
    """A registry prefix of a link kind: its forms, and its names (None: it has none; a match ends a word, and begins
    one when :func:`begins_word` says so)."""

    kind: str
    prefix: str
    forms: tuple[Form, ...]
    names: re.Pattern[str] | None
    name_list: tuple[str, ...] = ()
    #: the lower-case texts one of which a text must contain to name the database (a quick test before ``names``)
    name_keys: tuple[str, ...] = ()


def _spellings(name: str) -> list[str]:
    """How a name is matched: a long one in any of its usual cases, a short one (``PDB``, ``UP``) in capitals."""
    if len(name) < 4:
        return [name.upper()]
    return list(dict.fromkeys((name, name.lower(), name.upper(), name[:1].upper() + name[1:])))


def _names_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    spellings = sorted({s for name in names for s in _spellings(name)}, key=len, reverse=True)
    if not spellings:
        return None
    # no look-behind before the names: it would keep the engine from skipping to where a name can begin; whether
    # the character before a match is a word's is the caller's test (:func:`begins_word`)
    return re.compile(r"(?:" + "|".join(re.escape(s) for s in spellings) + r")(?![\w])")


def begins_word(text: str, start: int) -> bool:
    """Whether ``start`` begins a word of ``text`` (no letter, digit or underscore before it)."""
    return start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_")


@cache
def _data() -> dict:
    return json.loads(resources.files("pubfetch.extract").joinpath("link_patterns.json").read_text("utf-8"))


@cache
def registries() -> tuple[Registry, ...]:
    """Every registry of every kind, in the snapshot's order (most specific kinds first, Ensembl's catch-all last)."""
    out = []
    for kind, entry in _data()["kinds"].items():
        extra = entry.get("names", [])
        for registry in entry["registries"]:
            forms = tuple(Form(kind, registry["prefix"], re.compile(a["pattern"]), a["distinctive"],
                               tuple(a.get("starts", ()))) for a in registry["alternatives"])
            names = (*registry["names"], *extra)
            keys = tuple(dict.fromkeys(name.lower() for name in names))
            out.append(Registry(kind, registry["prefix"], forms, _names_pattern(names), names, keys))
    return tuple(out)


@cache
def curie_prefixes() -> dict[str, Registry]:
    """The registries with patterns by the lower-case names a ``name:ID`` is written with (``rrid``, ``pdb``)."""
    out: dict[str, Registry] = {}
    for registry in registries():
        if registry.forms:
            for name in (registry.prefix, *registry.name_list):
                out.setdefault(name.lower(), registry)
    return out


@cache
def any_form(distinctive_only: bool) -> re.Pattern[str]:
    """Every (distinctive) form of every kind in one pattern, to dismiss most candidates with one match."""
    return re.compile("|".join(f"(?:{form.pattern.pattern})" for r in registries() for form in r.forms
                               if form.distinctive or not distinctive_only))


@cache
def starts() -> re.Pattern[str]:
    """The fixed beginnings of every distinctive form (``GSE``, ``NM_``, ``SRR``, ``E-``): at a place, the longest
    that begins there. Written as a tree of their characters (``E(?:\\-|N(?:S(?:F|G|P|T))|R(?:A|P|R|S|X|Z))``...):
    at each capital the engine tries the few beginnings of that letter, not all 67 one after another, as a flat
    alternation makes it."""
    return re.compile(_alternation(sorted({s for r in registries() for form in r.forms for s in form.starts})))


def _alternation(texts: Sequence[str]) -> str:
    """A pattern matching the longest of ``texts`` that begins at a place (a text that is another's beginning is
    tried after it), as a tree of their characters."""
    ends = "" in texts
    heads: dict[str, list[str]] = {}
    for text in texts:
        if text:
            heads.setdefault(text[0], []).append(text[1:])
    branches = [re.escape(head) + _group(_alternation(rests)) for head, rests in heads.items()]
    if ends:
        branches.append("")
    return "|".join(branches)


def _group(pattern: str) -> str:
    """``pattern`` as one item to follow a character: as it is when it has no alternatives, else in a group."""
    return f"(?:{pattern})" if "|" in pattern else pattern


@cache
def _name_keys() -> tuple[tuple[str, bool, tuple[Registry, ...], bytes], ...]:
    """(text, in lower case, registries, word): the fixed texts names begin with. A long name's first word is looked
    for in the lower-cased text; a short name (matched in capitals only) as written, so that ``UP`` is not looked for
    in every "support". ``word``: the text as an ASCII word when it is one and every name it stands for is ASCII
    (then a text names one of them only if it holds that word, :func:`_ascii_words`), else empty."""
    out: dict[tuple[str, bool], list[Registry]] = {}
    ascii_names: dict[tuple[str, bool], bool] = {}
    for registry in registries():
        if registry.names is None:
            continue
        for name in registry.name_list:
            first = _WORD.findall(name)[:1]
            if first:
                key = (first[0].lower(), True) if len(name) >= 4 else (name.upper(), False)
                ascii_names[key] = ascii_names.get(key, True) and name.isascii()
                if registry not in out.get(key, []):
                    out.setdefault(key, []).append(registry)
    return tuple((text, lower, tuple(found),
                  text.encode("ascii") if ascii_names[(text, lower)] and _ASCII_WORD.fullmatch(text) else b"")
                 for (text, lower), found in out.items())


_ASCII_WORD = re.compile(r"[A-Za-z0-9_]+")
_NOT_WORD = bytes(c for c in range(256) if not (chr(c).isascii() and (chr(c).isalnum() or c == ord("_"))))
#: every byte but an ASCII letter, digit or underscore to a space (a character not ASCII is encoded as ``?``)
_SPLIT_LOWER = bytes.maketrans(_NOT_WORD + b"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                               b" " * len(_NOT_WORD) + b"abcdefghijklmnopqrstuvwxyz")


def _ascii_words(text: str) -> frozenset[bytes]:
    """The lower-cased words of :func:`_name_keys` that ``text`` holds among its ASCII words (runs of ASCII letters,
    digits and ``_``) in lower case. A name whose first word is ASCII starts a run of word characters that ends where
    that word ends (the name goes on with a character that is no word's, or ends where no word character follows),
    so the run is that word: a text holds the name only if it holds the word (a word in capitals, if it holds it in
    lower case). One C pass over the text instead of a substring search per name."""
    return _key_words().intersection(text.encode("ascii", "replace").translate(_SPLIT_LOWER).split())


@cache
def _asked() -> tuple[list[tuple[str, bool, tuple[Registry, ...]]], dict[bytes, list[int]], list[int]]:
    """:func:`_name_keys` as (text, in lower case, registries), in their order; the places in it of those of each
    word (in lower case); and those of no word, always looked for."""
    asked: list[tuple[str, bool, tuple[Registry, ...]]] = []
    by_word: dict[bytes, list[int]] = {}
    always: list[int] = []
    for at, (key, lower, regs, word) in enumerate(_name_keys()):
        asked.append((key, lower, regs))
        if word:
            by_word.setdefault(word.lower(), []).append(at)
        else:
            always.append(at)
    return asked, by_word, always


@cache
def _key_words() -> frozenset[bytes]:
    """The words of :func:`_name_keys`, in lower case."""
    return frozenset(_asked()[1])


def names_in(text: str, lowered: str | None = None) -> list[tuple[int, Registry]]:
    """Where ``text`` names a database, in order, each (start, registry) once. Each name's first word is found by a
    substring search (for the words the text holds, :func:`_ascii_words`) and its places tried against those
    registries' names only (an alternation of every name would be tried at almost every position of the text).
    ``lowered``: ``text.lower()`` when the caller has it."""
    if lowered is None:
        lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer: places in one are not places in the other
        return sorted(((m.start(), r) for r in registries() if r.names is not None
                       for m in r.names.finditer(text) if begins_word(text, m.start())), key=lambda item: item[0])
    asked, by_word, always = _asked()
    present = _ascii_words(text)
    found = []
    for at in sorted(always + [at for word in present for at in by_word[word]]) if present else always:
        key, lower, regs = asked[at]
        found += names_at_key(text, lowered if lower else text, key, regs)
    return sorted(dict.fromkeys(found), key=lambda item: item[0]) if found else found


def names_at_key(text: str, within: str, key: str, regs: Sequence[Registry]) -> list[tuple[int, Registry]]:
    """Where ``text`` names one of ``regs`` at a place of its first word ``key`` in ``within`` (the text or its lower
    case), each place that begins a word tried against those registries' names."""
    found = []
    at = within.find(key)
    while at >= 0:
        if begins_word(text, at):
            found += [(at, r) for r in regs if r.names is not None and r.names.match(text, at)]
        at = within.find(key, at + 1)
    return found
