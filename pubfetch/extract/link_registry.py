"""Builds ``link_patterns.json``, the identifier patterns the link finder uses, from the Bioregistry.

The patterns of accession numbers, RRIDs and trial registrations are the Bioregistry's (``bioregistry`` on PyPI, which
ships its registry as data inside the package: no network is asked). Loading that registry takes seconds and pulls in
pydantic and more, too much for every page worker, so the few entries the finder needs are written once to a small
JSON file beside this module; ``tests/test_extract_link_registry.py`` rebuilds it with the installed Bioregistry and
fails when the file is stale. Rebuild it with ``python -m pubfetch.extract.link_registry``.

What is decided here rather than taken from the registry: which registry prefixes make which of the closed list of
link kinds, a few names papers write a database by that the registry does not list (``EXTRA_NAMES``), and which
forms of a pattern are distinctive. A pattern's top-level alternatives are read apart; an alternative whose every
match begins with a fixed text of at least two characters (``GSE``, ``NM_``, ``E-``) is distinctive and counts
wherever it is written; any other (a PDB-like ``1ABC``, a GenBank-like ``X58356``, Ensembl's catch-all) counts only
inside a JATS ``ext-link``/``related-object`` or next to its database's name.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["KIND_PREFIXES", "build", "distinctive", "split_alternatives"]

SNAPSHOT = Path(__file__).with_name("link_patterns.json")

#: link kind -> the Bioregistry prefixes whose patterns find it, most specific first; a kind's prefixes with no
#: pattern of their own (GenBank, DDBJ) lend it their names only
KIND_PREFIXES: dict[str, tuple[str, ...]] = {
    "clinicalTrial": ("clinicaltrials", "isrctn", "euclinicaltrials", "drks", "chictr", "ctri", "anzctr", "jrct",
                      "uminctr", "pactr", "rebec", "tctr", "slctr", "irct", "kcris"),
    "geo": ("geo",),
    "sra": ("insdc.sra",),
    "bioproject": ("bioproject", "biosample"),
    "arrayexpress": ("arrayexpress",),
    "refseq": ("refseq",),
    "rrid": ("rrid",),
    "uniprot": ("uniprot",),
    "insdc": ("insdc", "genbank", "ena.embl"),
    "pdb": ("pdb",),
    "ensembl": ("ensembl",),  # last: its catch-all form takes any word
}

#: names papers write a database by that the Bioregistry does not list for it
EXTRA_NAMES: dict[str, tuple[str, ...]] = {
    "insdc": ("GenBank", "ENA", "DDBJ", "EMBL"),
    "pdb": ("PDB", "Protein Data Bank"),
    "euclinicaltrials": ("EudraCT",),
    "sra": ("SRA",),
    "geo": ("GEO",),
}

#: prefixes whose patterns are not used: ENA's own pattern (``[A-Z]+[0-9]+``) matches any code with a number, and
#: INSDC's covers the same accessions
_NAMES_ONLY = frozenset(("genbank", "ena.embl"))

_MIN_FIXED = 2
_LITERAL = re.compile(r"[A-Za-z0-9_/-]+")


def split_alternatives(pattern: str) -> list[str]:
    """A registry pattern's top-level alternatives, each a whole pattern without anchors: ``^(A|B)(\\.\\d+)?$`` gives
    ``A(\\.\\d+)?`` and ``B(\\.\\d+)?``; ``^A$|^B$`` gives ``A`` and ``B``."""
    parts = _split(pattern, 0)
    if len(parts) > 1:
        return [_unanchor(p) for p in parts]
    body = _unanchor(pattern)
    if body.startswith("("):
        close = _group_end(body, 0)
        inner, suffix = body[1:close], body[close + 1:]
        if not suffix.startswith(("?", "*", "+", "{")):
            alternatives = _split(inner, 0)
            if len(alternatives) > 1:
                return [a + suffix for a in alternatives]
    return [body]


def _unanchor(pattern: str) -> str:
    return pattern.removeprefix("^").removesuffix("$")


def _top_level(text: str) -> Iterator[tuple[int, str, int]]:
    """(position, character, group depth before it) of each character of a pattern outside escapes and character
    classes (``\\(`` and ``[(|]`` are no groups or alternatives)."""
    depth, i = 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = text.index("]", i + 2) + 1
            continue
        yield i, ch, depth
        depth += {"(": 1, ")": -1}.get(ch, 0)
        i += 1


def _group_end(text: str, start: int) -> int:
    """Where the group opening at ``start`` closes."""
    for i, ch, depth in _top_level(text):
        if i > start and ch == ")" and depth == 1:
            return i
    raise ValueError(f"unbalanced group in {text!r}")


def _split(text: str, start: int) -> list[str]:
    """The text's alternatives at group depth 0."""
    parts, last = [], start
    for i, ch, depth in _top_level(text):
        if ch == "|" and depth == 0 and i >= start:
            parts.append(text[last:i])
            last = i + 1
    parts.append(text[last:])
    return parts


def distinctive(alternative: str) -> bool:
    """Whether every match of the alternative begins with a fixed text of at least two characters (a group of fixed
    alternatives, ``(AC|NM)_``, counts as fixed; a class of a few letters, ``[SED]R``, too)."""
    return min((len(p) for p in _fixed_starts(alternative)), default=0) >= _MIN_FIXED


def _fixed_starts(alternative: str) -> set[str]:
    """The fixed texts the alternative's matches begin with (one per way it can begin)."""
    starts = {""}
    i = 0
    while i < len(alternative):
        step = _next_fixed(alternative, i)
        if step is None:
            return starts
        pieces, i, last = step
        starts = {s + p for s in starts for p in pieces}
        if last:
            return starts
    return starts


#: What the fixed texts that can stand at a place are (one per way), where the rest begins, and whether the fixed
#: text ends with them.
_Step = tuple[set[str], int, bool]


def _next_fixed(text: str, i: int) -> _Step | None:
    """The fixed texts at ``i``: a group of alternatives, a class of a few letters or one literal character; None
    when the fixed text ends before ``i`` (anything that matches more than one text)."""
    if text[i] == "(":
        return _group(text, i)
    if text[i] == "[":
        return _letter_class(text, i)
    return _literal(text, i)


def _quantified(text: str, end: int) -> bool:
    """Whether what ends at ``end`` is repeated or optional."""
    return end + 1 < len(text) and text[end + 1] in "?*+{"


def _group(text: str, i: int) -> _Step | None:
    close = _group_end(text, i)
    inner = text[i + 1:close]
    if _quantified(text, close) or inner.startswith("?"):
        return None
    branches = _split(inner, 0)
    if not all(_LITERAL.fullmatch(b) for b in branches):  # the fixed text ends inside the group
        return {f for b in branches for f in _fixed_starts(b)}, close + 1, True
    return set(branches), close + 1, False


def _letter_class(text: str, i: int) -> _Step | None:
    close = text.index("]", i + 2)
    members = text[i + 1:close]
    if _quantified(text, close) or "-" in members or "\\" in members or not members.isalnum():
        return None
    return set(members), close + 1, False


def _literal(text: str, i: int) -> _Step | None:
    if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "-/.":
        lit, width = text[i + 1], 2
    elif _LITERAL.fullmatch(text[i]):
        lit, width = text[i], 1
    else:
        return None
    if _quantified(text, i + width - 1):
        return None
    return {lit}, i + width, False


def _names(resource: Any, prefix: str) -> list[str]:
    names = [prefix, resource.get_name() or "", *sorted(resource.get_synonyms() or ())]
    return [n for n in dict.fromkeys(names) if n]


def build() -> dict[str, Any]:
    """The snapshot's content, from the installed Bioregistry."""
    import bioregistry  # the [test] extra's; only this builder needs it

    kinds: dict[str, Any] = {}
    for kind, prefixes in KIND_PREFIXES.items():
        entries = []
        for prefix in prefixes:
            resource = bioregistry.get_resource(prefix)
            if resource is None:
                raise LookupError(f"the Bioregistry has no prefix {prefix!r}")
            names = _names(resource, prefix) + list(EXTRA_NAMES.get(prefix, ()))
            pattern = None if prefix in _NAMES_ONLY else resource.get_pattern()
            alternatives = [{"pattern": a, "distinctive": distinctive(a),
                             "starts": sorted(_fixed_starts(a)) if distinctive(a) else []}
                            for a in (split_alternatives(pattern) if pattern else [])]
            entries.append({"prefix": prefix, "pattern": pattern, "alternatives": alternatives, "names": names})
        extra = list(EXTRA_NAMES.get(kind, ()))
        kinds[kind] = {"registries": entries, "names": extra}
    return {"source": "bioregistry", "version": metadata.version("bioregistry"), "kinds": kinds}


def render() -> str:
    return json.dumps(build(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render()) if "--stdout" in sys.argv else SNAPSHOT.write_text(render(), encoding="utf-8")
