"""The installed package must contain every module: setuptools' find_packages skips folders without __init__.py."""

from __future__ import annotations

from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parent.parent


def test_every_source_folder_is_a_package():
    folders = {p.parent for p in (ROOT / "pubfetch").rglob("*.py")} | {p.parent for p in (ROOT / "pubfetch").rglob(
        "*.yaml")}
    missing = sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").exists())
    assert missing == []
    found = set(find_packages(str(ROOT), include=["pubfetch", "pubfetch.*"]))
    assert {"pubfetch.output", "pubfetch.metadata.plugins", "pubfetch.cli", "pubfetch.resources"} <= found
