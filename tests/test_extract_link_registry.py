"""``pubfetch/extract/link_patterns.json`` is the Bioregistry's patterns for the link kinds, rebuilt here from the
installed Bioregistry (its bundled data: no network) and compared; and what is read from a pattern (its alternatives,
which of them are distinctive) on the registry's own patterns."""

from __future__ import annotations

import json

import pytest

from pubfetch.extract import link_registry
from pubfetch.extract.link_registry import distinctive, split_alternatives


def test_the_shipped_patterns_are_the_installed_bioregistrys() -> None:
    pytest.importorskip("bioregistry", reason="bioregistry is in the [test] extra: pip install -e .[test]")
    shipped = json.loads(link_registry.SNAPSHOT.read_text(encoding="utf-8"))
    assert shipped == json.loads(link_registry.render()), (
        "pubfetch/extract/link_patterns.json is stale: run python -m pubfetch.extract.link_registry")
    kinds = shipped["kinds"]
    assert set(kinds) == set(link_registry.KIND_PREFIXES)
    assert all(r["alternatives"] for r in kinds["geo"]["registries"])


@pytest.mark.parametrize(("pattern", "alternatives"), [
    (r"^G(PL|SM|SE|DS)\d+$", [r"G(PL|SM|SE|DS)\d+"]),
    (r"^UMIN\d+$|^C\d+$", [r"UMIN\d+", r"C\d+"]),
    (r"^(((AC|NM)_\d+)|(NZ_[A-Z]{2,4}\d+))(\.\d+)?$", [r"((AC|NM)_\d+)(\.\d+)?", r"(NZ_[A-Z]{2,4}\d+)(\.\d+)?"]),
    (r"^([A-Z]\d{5}|[A-Z]{2}\d{6})(\.\d+)?$", [r"[A-Z]\d{5}(\.\d+)?", r"[A-Z]{2}\d{6}(\.\d+)?"]),
    (r"^(-[A-Z]+-)?\d+$", [r"(-[A-Z]+-)?\d+"]),
])
def test_a_pattern_is_read_as_its_top_level_alternatives(pattern: str, alternatives: list[str]) -> None:
    assert split_alternatives(pattern) == alternatives


@pytest.mark.parametrize(("alternative", "expected"), [
    (r"G(PL|SM|SE|DS)\d+", True), (r"((AC|NM)_\d+)(\.\d+)?", True), (r"[SED]R[APRSXZ]\d+", True),
    (r"[AEP]-\w{4}-\d+", True), (r"(ENS[FPTG]\d{11}(\.\d+)?)", True), (r"CTRI/\d{4}/\d+", True),
    (r"[0-9][A-Za-z0-9]{3}", False), (r"[A-Z]\d{5}(\.\d+)?", False), (r"C\d+", False),
    (r"([A-Z_a-z0-9]+(\.)?(t)?(\d+)?([a-z])?)", False), (r"[OPQ]\d[A-Z0-9]{3}\d", False), (r"(-[A-Z]+-)?\d+", False),
])
def test_an_alternative_is_distinctive_when_its_matches_begin_with_a_fixed_text(alternative: str,
                                                                                  expected: bool) -> None:
    assert distinctive(alternative) is expected
