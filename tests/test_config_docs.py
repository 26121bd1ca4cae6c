"""docs/configuration.md is generated from the declarations of the settings: every setting is declared with a line of
doc, named in the file, and the file is what the generator makes of the declarations today."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pubfetch.config.docs import render
from pubfetch.config.registry import GROUPS

DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def test_every_setting_is_in_the_documentation() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [f.name for record in GROUPS.values() for f in dataclasses.fields(record) if f"`{f.name}`" not in text]
    assert not missing, f"settings not in docs/configuration.md: {', '.join(missing)}"


def test_the_documentation_is_generated_from_the_declarations() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/configuration.md is stale: run python3 -m pubfetch.config.docs > docs/configuration.md")
