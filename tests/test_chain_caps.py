"""The caps through a whole fetch: a full text whose references nest inside each other is stored no bigger than the
answer, and a reference list longer than ``max_references`` is stored cut to it, with one line naming the paper."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from support.fetchrun import fetch_run
from support.synthetic import Article, SyntheticServices

OPEN = Article(0)  # open access: its full text is Europe PMC's JATS


class OwnRefList(SyntheticServices):
    """The synthetic services, where the open article's JATS has ``ref_list`` as its reference list."""

    ref_list = ""

    def jats(self, a: Article) -> str:
        plain = '<ref id="r1"><mixed-citation>A reference.</mixed-citation></ref>'
        return super().jats(a).replace(plain, self.ref_list)


def _stored(db: Path, pmid: str) -> str:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT json FROM publications WHERE pmid = ?", (pmid,)).fetchone()[0]


def test_nested_references_in_a_full_text_are_not_followed_into_the_stored_entry(tmp_path: Path) -> None:
    chains, depth = 40, 120
    services = OwnRefList(1)
    services.ref_list = "".join(
        "".join(f'<ref id="r{c}-{d}"><mixed-citation>Roe R. Paper {c}-{d} of a nested list. J Biol 2001;12:1.'
                for d in range(depth)) + "</mixed-citation></ref>" * depth for c in range(chains))
    answer_bytes = len(services.jats(OPEN).encode())
    [pub] = fetch_run(services).fetch([OPEN.pmid], db=str(tmp_path / "n.db"))
    assert len(pub.references.items) == chains
    assert len(_stored(tmp_path / "n.db", OPEN.pmid).encode()) < answer_bytes / 4  # was ~depth/2 times the answer


def test_a_reference_list_over_the_cap_is_stored_cut_to_it_with_one_line(tmp_path: Path,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    services = OwnRefList(1)
    services.ref_list = "".join(f'<ref id="r{i}"><mixed-citation>Roe R. Paper {i}. J Biol 2001;12:1.</mixed-citation>'
                                f'<pub-id pub-id-type="pmid">{10_000_000 + i}</pub-id></ref>' for i in range(250))
    with caplog.at_level(logging.WARNING, logger="pubfetch"):
        [pub] = fetch_run(services, max_references=200).fetch([OPEN.pmid], db=str(tmp_path / "c.db"))
    assert len(pub.references.items) == 200 and pub.references.items[-1].pmid == str(10_000_199)
    assert _stored(tmp_path / "c.db", OPEN.pmid).count('"pmid":"1000') == 200
    assert [r.getMessage() for r in caplog.records if "max_references" in r.getMessage()] == [
        f"{OPEN.pmid}, {OPEN.pmcid}, {OPEN.doi.upper()}: 250 references; kept the first 200 (the max_references "
        "setting: raise it to keep more)"]


class ManyAccessions(SyntheticServices):
    """The synthetic services, where the open article's JATS body ends with a section of 60 GEO series."""

    def jats(self, a: Article) -> str:
        series = ", ".join(f"GSE{100_000 + i}" for i in range(60))
        return super().jats(a).replace("</body>", f"<sec><title>Data</title><p>Series {series}.</p></sec></body>")


def test_links_over_the_cap_are_stored_cut_to_it_with_one_line(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pubfetch"):
        [pub] = fetch_run(ManyAccessions(1), max_text_links=25).fetch([OPEN.pmid], db=str(tmp_path / "l.db"))
    assert [link.value for link in pub.links.items] == [f"GSE{100_000 + i}" for i in range(25)]
    assert all(link.section_path == ("Data",) for link in pub.links.items)
    assert _stored(tmp_path / "l.db", OPEN.pmid).count('"kind":"geo"') == 25
    assert [r.getMessage() for r in caplog.records if "max_text_links" in r.getMessage()] == [
        f"{OPEN.pmid}, {OPEN.pmcid}, {OPEN.doi.upper()}: 60 links found in the text; kept the first 25 (the "
        "max_text_links setting: raise it to keep more)"]
