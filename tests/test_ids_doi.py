"""ids.is_doi and ids.normalise_doi give, for any text, what their definitions give when applied one character at a
time: PubFetcher's DOI test (an optional resolver prefix, ``10.``, a registrant, ``/``, every character printable in
Java's sense) and the upper-casing of ASCII letters only."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pubfetch import ids

PREFIXES = ("http://doi.org/", "https://doi.org/", "http://dx.doi.org/", "https://dx.doi.org/", "doi:")
NOT_PRINTABLE = frozenset({"Zl", "Zp", "Cc", "Cs", "Cn"})


def reference_strip(s: str) -> str:
    for prefix in PREFIXES:
        if s.startswith(prefix):
            return s[len(prefix):]
    return s


def reference_is_doi(s: str | None) -> bool:
    if not s:
        return False
    rest = reference_strip(s)
    return (rest.startswith("10.") and rest.rfind("/") >= 4
            and all(unicodedata.category(c) not in NOT_PRINTABLE for c in rest))


def reference_normalise_doi(s: str) -> str:
    return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in reference_strip(s))


def agree(s: str) -> None:
    assert ids.is_doi(s) is reference_is_doi(s), s
    assert ids.normalise_doi(s) == reference_normalise_doi(s), s


HAND_WRITTEN = [
    "", "10.", "10./", "10.1/", "10.1093/nar/gkz369", "10.1093/NAR/gkz369", "10.1093", "11.1093/nar", " 10.1093/nar",
    "10.1093/nar ", "10.1093/nar\n", "10.1093/\tnar", "10.1000/a b", "10.1000/a\u00a0b", "10.1000/a\u2028b",
    "10.1000/a\u2029b", "10.1000/a\u200bb", "10.1000/a\u00adb", "10.1000/a\ufeffb", "10.1000/\ue000", "10.1000/\x7f",
    "10.1000/\x85", "10.1000/\ud800", "10.1000/\U000e0001", "10.1000/\U0010ffff", "10.1000/\u0378", "10.1000/ünïcode",
    "10.1000/straße", "10.1000/ǅ", "10.1000/ﬁ", "10.1000/ｆｕｌｌ", "10.1000/ΑΒΓαβγ", "10.1000/İı", "10.1000/x😀",
    "10.1002/(SICI)1097-4636(199706)35:4<447::AID-JBM5>3.0.CO;2-D", "10.1000/abc.", "10.1000/abc,", "10.1000/abc)",
    "10.1000/abc]", "10.1000/abc;", "10.1000/abc'", '10.1000/abc"', "10.1000/abc%2Fdef", "10.1000%2Fabc",
    "10.1000/abc%20def", "10.1000/abc?x=1#y", "doi:10.1093/nar/gkz369", "DOI:10.1093/nar/gkz369", "doi: 10.1093/nar",
    "doi:doi:10.1093/nar", "doi:", "https://doi.org/", "https://doi.org/10.1093/nar/gkz369",
    "http://doi.org/10.1093/nar/gkz369", "https://dx.doi.org/10.1093/nar/gkz369", "http://dx.doi.org/10.1/x",
    "https://DOI.org/10.1093/nar", "HTTPS://doi.org/10.1093/nar", "https://www.doi.org/10.1093/nar",
    "https://doi.org/https://doi.org/10.1/x", "https://doi.org/doi:10.1/x", "https://doi.org10.1/x",
    "  https://doi.org/10.1/x", "10.1093/nar/gkz369\x00", "\u200b10.1093/nar",
]


@pytest.mark.parametrize("s", HAND_WRITTEN)
def test_hand_written_dois_agree_with_the_definitions(s: str) -> None:
    agree(s)


def test_the_definitions_refuse_what_java_does_not_print() -> None:
    """The hand-written cases reach both sides of every decision, so the agreement above is not vacuous."""
    verdicts = {s: reference_is_doi(s) for s in HAND_WRITTEN}
    assert verdicts["10.1000/a\u00a0b"] and verdicts["10.1000/a\u200bb"] and verdicts["10.1000/\ue000"]
    assert not (verdicts["10.1000/a\u2028b"] or verdicts["10.1000/\x85"] or verdicts["10.1000/\ud800"]
                or verdicts["10.1000/\u0378"] or verdicts["10.1093/nar\n"])
    assert ids.normalise_doi("doi:10.1000/straße-ǅ-ﬁ") == "10.1000/STRAßE-ǅ-ﬁ"


TEXT = st.text(st.characters(exclude_categories=()), max_size=30)
ASCII = st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=30)


@given(st.sampled_from(("", "10.", "10.1/", *PREFIXES, *(p + "10." for p in PREFIXES))), st.one_of(TEXT, ASCII))
def test_any_text_agrees_with_the_definitions(head: str, tail: str) -> None:
    agree(head + tail)


def corpus_dois(corpus: Path) -> list[str]:
    """The DOIs the manifests name and every DOI-like run of characters in the recorded bodies (reference lists and
    links bring trailing punctuation, percent-encoding and query strings)."""
    found: set[str] = set()
    for manifest in corpus.glob("*.jsonl"):
        for line in manifest.read_text(encoding="utf-8").splitlines():
            doi = (json.loads(line).get("ids") or {}).get("doi") if line.strip() else None
            found.update(doi if isinstance(doi, list) else [doi] if doi else [])
    for body in (corpus / "files").rglob("*"):
        if body.is_file() and body.suffix.lower() != ".pdf":
            found.update(re.findall(r"10\.[^\s\"<>]+", body.read_bytes().decode("utf-8", "replace")))
    return sorted(found)


def test_the_corpus_dois_agree_with_the_definitions(corpus_dir: Path) -> None:
    dois = corpus_dois(corpus_dir)
    assert len(dois) > 1000
    for doi in dois:
        for prefix in ("", "doi:", "https://doi.org/", "http://dx.doi.org/", "DOI: "):
            agree(prefix + doi)
            agree(prefix + doi.lower() + ".")
