"""Where sentences end in a paragraph of a paper, for the sentence around a link and for passages cut to a size.

A sentence ends at ``.``, ``!`` or ``?`` (and any closing quote or bracket after it) followed by white space and an
upper-case letter, a digit or an opening quote or bracket, except after the abbreviations papers use all the time
("e.g.", "Fig.", "et al.", "vs.") and after an initial ("J. Smith"). URLs and decimals have no white space after their
dots, so they never end one.
"""

from __future__ import annotations

import re

__all__ = ["pack", "sentence_at", "sentence_spans"]

_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(\s+)(?=[\"'\u201c\u2018(\[]?[A-Z0-9])")
_WORD_BEFORE = re.compile(r"(\S+)$")
#: how far back the word before a full stop is looked for (longer words are no abbreviations)
_LONGEST_WORD = 12
_ABBREVIATIONS = frozenset((
    "e.g", "i.e", "al", "fig", "figs", "ref", "refs", "no", "nos", "vs", "cf", "dr", "eq", "eqs", "approx", "ca",
    "st", "mr", "mrs", "ms", "prof", "inc", "ltd", "co", "resp", "suppl", "tab", "vol", "pp", "sect", "sec", "ch",
    "chap", "etc", "var", "subsp", "sp", "spp", "cv", "min", "max", "ed", "eds", "dept", "univ",
))


def _ends_sentence(text: str, dot: int) -> bool:
    word = _WORD_BEFORE.search(text, max(0, dot - _LONGEST_WORD), dot)
    if word is None:
        return True
    token = word.group(1).lstrip("(\"'[").lower()
    if token in _ABBREVIATIONS:
        return False
    return not (len(token) == 1 and token.isalpha() and text[dot] == ".")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The sentences of ``text`` as (start, end) offsets; the white space between them belongs to neither."""
    spans = []
    start = 0
    for match in _END.finditer(text):
        if _ends_sentence(text, match.start()):
            spans.append((start, match.start(1)))
            start = match.end(1)
    if start < len(text):
        spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def sentence_at(text: str, start: int, end: int | None = None) -> str:
    """The sentence (or sentences, when the span crosses an end) of ``text`` holding ``text[start:end]``."""
    end = start if end is None else end
    spans = sentence_spans(text)
    chosen = [(s, e) for s, e in spans if s <= end and e >= start] or spans[-1:]
    return text[chosen[0][0]:chosen[-1][1]].strip() if chosen else ""


def pack(text: str, limit: int) -> list[str]:
    """``text`` as passages of at most ``limit`` characters, each ending where a sentence ends: sentences are gathered
    while they fit; a sentence longer than the limit alone is cut at the last white space before it (or at the limit
    when it has none)."""
    passages: list[str] = []
    current = ""
    for s, e in sentence_spans(text):
        sentence = text[s:e].strip()
        joined = f"{current} {sentence}" if current else sentence
        if len(joined) <= limit:
            current = joined
            continue
        if current:
            passages.append(current)
        while len(sentence) > limit:
            cut = sentence.rfind(" ", 0, limit + 1)
            cut = cut if cut > 0 else limit
            passages.append(sentence[:cut].rstrip())
            sentence = sentence[cut:].lstrip()
        current = sentence
    if current:
        passages.append(current)
    return passages
