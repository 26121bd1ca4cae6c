"""The JATS reader's whole output on the recorded full texts, field by field, against digests kept in
``tests/data/documents/jats_corpus_digests.json``: a change to how any field of any recorded article reads shows up
here by file and field, so the reader can be reworked (made faster, restructured) with its output held fixed.

Digests rather than the values, so that no recorded text is copied into the repository. A change meant to alter the
output is confirmed by rewriting the file: ``PYTHONPATH=. python tests/test_extract_jats_golden.py --write``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path

from pubfetch.extract.jats import parse_jats, read_jats

DIGESTS = Path(__file__).parent / "data" / "documents" / "jats_corpus_digests.json"
JATS_RESOURCES = ("europepmc_fulltext", "pmc_efetch")


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def jats_bodies(corpus: Path) -> list[str]:
    """The corpus paths of the recorded JATS full texts (the manifest's ``body`` values)."""
    with open(corpus / "manifest.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return sorted(r["body"] for r in rows if r["resource"] in JATS_RESOURCES and r["status"] == 200 and r.get("body"))


def field_digests(data: bytes) -> list[dict[str, str]]:
    """Per article: a digest of every record field, and of every value the LOCKSS layer's reading adds."""
    out = []
    for record, article in zip(parse_jats(data), read_jats(data), strict=True):
        fields = {f"record.{k}": _digest(v) for k, v in dataclasses.asdict(record).items()}
        assert article.record == record
        fields |= {k: _digest(v) for k, v in dataclasses.asdict(article).items() if k != "record"}
        out.append(fields)
    return out


def all_digests(corpus: Path) -> dict[str, list[dict[str, str]]]:
    return {body: field_digests((corpus / body).read_bytes()) for body in jats_bodies(corpus)}


def test_recorded_full_texts_read_as_recorded(corpus_dir: Path) -> None:
    expected = json.loads(DIGESTS.read_text(encoding="utf-8"))
    actual = all_digests(corpus_dir)
    assert sorted(actual) == sorted(expected)
    assert len(actual) == 8
    for body, articles in actual.items():
        assert len(articles) == len(expected[body]) == 1
        changed = [k for k, v in articles[0].items() if expected[body][0].get(k) != v]
        assert changed == [], f"{body}: these fields read differently: {changed}"
        assert articles[0].keys() == expected[body][0].keys()


def test_without_rich_parts_only_the_rich_parts_are_left_out(corpus_dir: Path) -> None:
    read = {}
    for body in jats_bodies(corpus_dir):
        data = (corpus_dir / body).read_bytes()
        ((full,), (plain,)) = parse_jats(data), parse_jats(data, rich_parts=False)
        assert (plain.funding, plain.references, plain.sections, plain.license, plain.text_links) == (
            [], [], [], "", [])
        assert (plain.tables, plain.figures, plain.supplements, plain.statements) == ([], [], [], [])
        assert dataclasses.replace(full, funding=[], references=[], sections=[], license="", text_links=[], tables=[],
                                   figures=[], supplements=[], statements=[]) == plain
        read[body] = full
    for part in ("funding", "references", "sections", "license", "text_links", "tables", "figures", "supplements",
                 "statements"):  # each left out of at least one that has it
        assert any(getattr(full, part) for full in read.values()), part


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: PYTHONPATH=. python tests/test_extract_jats_golden.py --write  (rewrites the digests)")
    from conftest import CORPUS

    DIGESTS.write_text(json.dumps(all_digests(CORPUS), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DIGESTS}")
