"""The corpus's recorded publisher pages as the page tests read them: the ``publisher_page`` entries with a body of
the manifests that hold pages, each with its text decoded as UTF-8 (invalid bytes replaced)."""

from __future__ import annotations

import json
from pathlib import Path

#: The manifests with recorded publisher pages: the first batch, the second's pages, the third's (with what each shows).
PAGE_MANIFESTS = ("manifest.jsonl", "pages.jsonl", "pages3.jsonl")


def recorded_publisher_pages(corpus_dir: Path, *, answered: bool = True) -> list[tuple[dict, str]]:
    """Each recorded publisher page's manifest entry and text, in manifest order; with ``answered``, only the pages
    the publisher answered with 200 (the others are error pages)."""
    pages = []
    for manifest in PAGE_MANIFESTS:
        with open(corpus_dir / manifest, encoding="utf-8") as f:
            for line in f:
                entry = json.loads(line) if line.strip() else {}
                if (entry.get("resource") == "publisher_page" and entry.get("body")
                        and (not answered or entry.get("status") == 200)):
                    pages.append((entry, (corpus_dir / entry["body"]).read_bytes().decode("utf-8", "replace")))
    return pages
