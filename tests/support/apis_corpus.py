"""The scholarly-API recordings of ../shared/corpus/apis.jsonl, and the plain reading of their JSON that the parser
tests compare with (json and the standard library only, never pubfetch's parsers)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

_TAG = re.compile(r"<[^<>]*>")


def recorded(corpus_dir: Path, *resources: str) -> list[tuple[dict, bytes]]:
    """Every ``apis.jsonl`` exchange of the given resources, with its body."""
    out = []
    for line in (corpus_dir / "apis.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip() else None
        if entry and entry["resource"] in resources:
            out.append((entry, (corpus_dir / entry["body"]).read_bytes() if entry.get("body") else b""))
    return out


def answered(corpus_dir: Path, *resources: str) -> list[tuple[dict, Any]]:
    """The exchanges answered with status 200, their bodies decoded."""
    return [(entry, json.loads(body)) for entry, body in recorded(corpus_dir, *resources) if entry["status"] == 200]


def words(text: Any) -> str:
    """A text with its markup (escaped or not) gone and its whitespace collapsed."""
    if not isinstance(text, str):
        return ""
    for _ in range(3):
        text = html.unescape(_TAG.sub(" ", text))
    return " ".join(text.split())


def squash(text: Any) -> str:
    """A text without markup and whitespace: what two readings of it share."""
    return words(text).replace(" ", "")


def upper_doi(value: Any) -> str:
    """A DOI as pubfetch keeps DOIs (resolver prefix gone, upper case)."""
    if not isinstance(value, str) or not value:
        return ""
    return re.sub(r"^https?://(dx\.)?doi\.org/", "", value.strip(), flags=re.IGNORECASE).upper()


def orcid(value: Any) -> str:
    """An ORCID as ``https://orcid.org/`` and its number."""
    return "https://orcid.org/" + value.rstrip("/").rsplit("/", 1)[-1] if isinstance(value, str) and value else ""
