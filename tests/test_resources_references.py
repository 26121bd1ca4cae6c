"""Europe PMC's references endpoint (``--references``): asked only when opted in, only for a paper whose full text and
PubMed record give no reference list and whose search record says it has references; paged until the announced
count; a failed page keeps no partial list and makes the entry retryable. What the pages hold is not taken on trust:
references kept once, at most ``max_references`` (no page asked past them), the paging stopped by a page that repeats
what was read, and the stored entry within ``max_entry_bytes``."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from pubfetch.config import FetchConfig
from pubfetch.fetcher import fetch_many
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from support.fetchrun import run_context
from support.loopback import Reply, Request
from support.synthetic import SCHOLARLY_OFF, Article, SyntheticServices

#: the closed-access article (odd index: no JATS) has these references, in citedOrder; the open one has a ref-list
CITED = [("MED", "10000001", 1), ("PMC", "PMC555", 2), ("MED", "10000003", 3)]


class WithReferences(SyntheticServices):
    """The synthetic services whose search records say "hasReferences", with a references endpoint of two pages."""

    page_size = 2

    def search_record(self, a: Article) -> dict:
        return {**super().search_record(a), "hasReferences": "Y"}

    def handle(self, req: Request) -> Reply:
        if not req.path.endswith("/references"):
            return super().handle(req)
        with self._lock:
            self.counts["references"] += 1
        if "references" in self.failing:
            return Reply(503, "Service Unavailable", "text/plain")
        page = int(req.param("page") or "1")
        items, hit_count = self.page_items(page)
        body = {"version": "6.9", "hitCount": hit_count, "request": {"page": page},
                "referenceList": {"reference": items}}
        return Reply(200, json.dumps(body), "application/json")

    def page_items(self, page: int) -> tuple[list[dict], int]:
        """The references of a page and the count the service announces."""
        chunk = CITED[(page - 1) * self.page_size:page * self.page_size]
        return [_item(source, cited, order) for source, cited, order in reversed(chunk)], len(CITED)  # citedOrder


def _item(source: str, cited: str, order: int, title: str = "") -> dict:
    return {"id": cited, "source": source, "citedOrder": order, "title": title or f"Cited paper {order}",
            "authorString": "Roe R.", "journalAbbreviation": "J Synth", "pubYear": 2019, "volume": "4",
            "pageInfo": str(order)}


def _fetch(services: SyntheticServices, db: str | None = None, **changes: object) -> list[Publication]:
    values = {"endpoints": services.endpoints(), "allow_private_addresses": True, "javascript": False, "threads": 2,
              "linger_ms": 600_000, "busy_retries": 0, "timeout": 5000, **changes}
    cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, **values)
    with run_context(cfg) as ctx:
        return list(fetch_many(services.pmids(), db=db, config=cfg, context=ctx))


def test_no_request_unless_asked_for() -> None:
    with WithReferences(2) as services:
        _open, closed = _fetch(services)
    assert services.counts["references"] == 0
    assert closed.references.is_empty()


def test_references_are_read_page_by_page_for_papers_without_a_list() -> None:
    with WithReferences(2) as services:
        open_access, closed = _fetch(services, references=True)
    assert services.counts["references"] == 2  # the closed paper's two pages; the open one has its JATS ref-list
    assert [r.text for r in open_access.references.items] == ["A reference."]
    assert open_access.references.type is PartType.europepmc_xml
    assert [(r.pmid, r.pmcid, r.title) for r in closed.references.items] == [
        ("10000001", "", "Cited paper 1"), ("", "PMC555", "Cited paper 2"), ("10000003", "", "Cited paper 3")]
    assert closed.references.items[0].text == "Roe R. Cited paper 1. J Synth 2019;4:1."
    assert closed.references.type is PartType.europepmc
    assert closed.references.url.endswith(f"/MED/{closed.pmid.content}/references?format=json")


def test_a_failed_page_keeps_no_partial_list() -> None:
    with WithReferences(2) as services:
        services.failing.add("references")
        _open, closed = _fetch(services, references=True)
    assert services.counts["references"] >= 1
    assert closed.references.is_empty()
    assert closed.state.fetch_exception


class HugePages(WithReferences):
    """Every page holds ``per_page`` references whatever size was asked, and the service announces a million."""

    per_page = 12_000
    title = ""

    def page_items(self, page: int) -> tuple[list[dict], int]:
        first = (page - 1) * self.per_page
        return [_item("MED", str(20_000_000 + first + i), first + i + 1, self.title)
                for i in range(self.per_page)], 1_000_000


class CyclicPages(WithReferences):
    """Every page is the first one again: 1000 references, 5000 announced."""

    def page_items(self, page: int) -> tuple[list[dict], int]:
        return [_item("MED", str(30_000_000 + i), i + 1) for i in range(1000)], 5000


def _warnings(caplog: pytest.LogCaptureFixture, word: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and word in r.getMessage()]


def test_pages_of_more_references_than_the_cap_keep_the_first_ones_and_ask_no_further(
        caplog: pytest.LogCaptureFixture) -> None:
    with HugePages(2) as services, caplog.at_level(logging.WARNING, logger="pubfetch"):
        _open, closed = _fetch(services, references=True)
    assert services.counts["references"] == 1
    assert len(closed.references.items) == 10_000  # max_references' default
    assert closed.references.items[-1].pmid == str(20_000_000 + 9_999)
    assert _warnings(caplog, "max_references") == [
        f"Europe PMC lists more than 10000 references of MED {closed.pmid.content} (12000 listed so far, 1000000 "
        "announced); kept the first 10000 (the max_references setting: raise it to keep more)"]


def test_a_page_repeating_what_was_read_stops_the_paging_and_nothing_is_kept_twice(
        caplog: pytest.LogCaptureFixture) -> None:
    with CyclicPages(2) as services, caplog.at_level(logging.WARNING, logger="pubfetch"):
        _open, closed = _fetch(services, references=True)
    assert services.counts["references"] == 2
    assert [r.pmid for r in closed.references.items] == [str(30_000_000 + i) for i in range(1000)]
    assert _warnings(caplog, "not already read") == [
        f"page 2 of Europe PMC's references of MED {closed.pmid.content} holds no reference not already read (the "
        "service repeats its pages); kept the 1000 distinct ones read"]


class RepeatsWithinPages(WithReferences):
    """One page listing the same works more than once: by PMID, by DOI in another case, by citation text."""

    def page_items(self, page: int) -> tuple[list[dict], int]:
        items = [_item("MED", "10000001", 1), {**_item("MED", "10000001", 2), "doi": "10.1/a"},
                 {**_item("PMC", "PMC7", 3), "doi": "10.1/B"}, {**_item("PMC", "PMC8", 4), "doi": "10.1/b"},
                 {"citedOrder": 5, "authorString": "Doe J.", "title": "No IDs"},
                 {"citedOrder": 6, "authorString": "doe  j.", "title": "no ids"}]
        return items, len(items)


def test_references_repeated_within_the_pages_are_kept_once() -> None:
    with RepeatsWithinPages(2) as services:
        _open, closed = _fetch(services, references=True)
    assert [(r.pmid, r.pmcid, r.doi) for r in closed.references.items] == [
        ("10000001", "", "10.1/A"), ("", "PMC7", "10.1/B"), ("", "", "")]  # a twin fills its first's blank DOI
    assert closed.references.items[2].text == "Doe J. No IDs."


def test_a_stored_entry_over_the_size_cap_is_trimmed_to_it_with_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = str(tmp_path / "caps.db")
    with HugePages(2) as services, caplog.at_level(logging.WARNING, logger="pubfetch"):
        services.title = "A cited paper with a title long enough to matter " * 3
        _open, closed = _fetch(services, db=db, references=True, max_entry_bytes=1024 * 1024)
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT json FROM publications WHERE pmid = ?", (closed.pmid.content,)).fetchone()[0]
    assert len(stored.encode()) <= 1024 * 1024
    kept = len(json.loads(stored)["references"]["list"])
    assert 0 < kept < 10_000 and kept == len(closed.references.items)  # the output is the stored entry
    [line] = _warnings(caplog, "max_entry_bytes")
    assert line.startswith(f"{closed.pmid.content}, {closed.doi.content}: entry of ")
    assert line.endswith(f"trimmed to max_entry_bytes (1048576): kept {kept} of 10000 references (raise "
                         "max_entry_bytes to keep more)")


class EmptyEntries(WithReferences):
    """A page whose entries say nothing of the works they cite."""

    def page_items(self, page: int) -> tuple[list[dict], int]:
        return [{"citedOrder": i} for i in range(1, 4)], 300


def test_a_page_of_empty_entries_stops_the_paging_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    with EmptyEntries(2) as services, caplog.at_level(logging.WARNING, logger="pubfetch"):
        _open, closed = _fetch(services, references=True)
    assert services.counts["references"] == 1 and closed.references.is_empty()
    assert _warnings(caplog, "usable") == [
        f"page 1 of Europe PMC's references of MED {closed.pmid.content} holds no usable reference (none has an ID, "
        "a title or a text); kept the 0 distinct ones read"]
