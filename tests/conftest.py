"""Shared test fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The recorded-response corpus beside the checkout; tests using it skip when it is absent."""
    if not (CORPUS / "manifest.jsonl").is_file():
        pytest.skip(f"recorded-response corpus not found at {CORPUS} (clone ../shared beside the repository to run these)")
    return CORPUS


@pytest.fixture(scope="session")
def corpus_manifest(corpus_dir: Path) -> list[dict]:
    with open(corpus_dir / "manifest.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
