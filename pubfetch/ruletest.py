"""Run the test entries of the scraping rules: fetch (or look up) each entry's page, apply the rule, compare.

Every journal site and webpage rule carries ``tests`` in its YAML file (:class:`pubfetch.rules.RuleTest`): a page URL
and what the rule must get from it. PubFetcher kept such expectations in separate CSV files of field sizes checked
only live; here they sit beside the selectors they test, and run either offline against recorded pages (a directory
of JSON Lines manifests as in ../shared/corpus: ``url``, ``status``, ``body``) or live through the fetcher's client.
The test suite uses the same functions over the corpus, and ``-test-site`` / ``-test-webpage`` print their outcomes.
Given page workers (:class:`~pubfetch.extract.reader_workers.PageReaders`), each page is read in one of them under the
page time and memory limits, as a fetch run reads its pages: a page abandoned there fails its test and the next is read.

Comparisons: text (title, doi, license, language) must be equal (a DOI case-insensitively); a length must be within
:data:`LENGTH_TOLERANCE` of the expected one (0: must be empty), so markup-neutral changes to text formatting do not
fail a test while a selector that lost a section does; ``keywords`` is a count; ``pdf`` is a PDF link (true: any).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pubfetch.extract.blockpage import block_reason
from pubfetch.extract.clean import parse_html
from pubfetch.extract.reader_workers import PageReaders, read_isolated
from pubfetch.extract.scrape import scrape_journal, scrape_webpage
from pubfetch.rules import RuleTest, ScrapingRules

__all__ = ["LENGTH_TOLERANCE", "MANIFESTS", "Page", "PageSource", "RuleOutcome", "RulePageReading", "corpus_pages",
           "journal_outcomes", "outcome_table", "read_test_page", "webpage_outcomes"]

log = logging.getLogger(__name__)

#: A length may differ from the expected one by this fraction (and by at least :data:`LENGTH_SLACK` characters).
LENGTH_TOLERANCE = 0.1
LENGTH_SLACK = 20
#: The manifests of a recorded-response directory, read in this order.
MANIFESTS = ("manifest.jsonl", "pages.jsonl", "pages3.jsonl")


@dataclass(frozen=True)
class Page:
    """A page as fetched: its final URL and HTML."""

    url: str
    html: str | bytes


#: Gives the page of a URL, or None when it has none (not recorded; a fetch failure, whose message it logs).
PageSource = Callable[[str], Page | None]


@dataclass
class RuleOutcome:
    """What one test entry gave: ``status`` is pass, fail, untested (no page to check it on) or blocked."""

    rule: str
    url: str
    status: str
    differences: list[str] = field(default_factory=list)
    got: dict[str, str | int] = field(default_factory=dict)
    #: The entry expects nothing yet (an ``untested`` sample URL): the table shows what the rule got, to copy in.
    unchecked: bool = False


def corpus_pages(directory: str | Path) -> PageSource:
    """A page source over the publisher and PubMed pages recorded in ``directory`` (JSON Lines manifests).

    Raises OSError when the directory has no manifest, ValueError when a manifest line is not JSON."""
    root = Path(directory)
    manifests = [root / name for name in MANIFESTS if (root / name).is_file()]
    if not manifests:
        raise OSError(f"no {' or '.join(MANIFESTS)} in {root}")
    bodies: dict[str, Path] = {}
    for manifest in manifests:
        for number, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{manifest}:{number}: not JSON ({e.msg})") from None
            if entry.get("resource") in ("publisher_page", "pubmed_page", "webpage") and entry.get("body"):
                bodies.setdefault(_key(entry["url"]), root / entry["body"])

    def source(url: str) -> Page | None:
        path = bodies.get(_key(url))
        return Page(url, path.read_bytes()) if path is not None and path.is_file() else None

    return source


def _key(url: str) -> str:
    return re.sub(r"^https?://(www\.)?", "", url.strip()).rstrip("/").lower()


# --------------------------------------------------------------------------------------------------- comparing


def _length_differs(expected: int, got: int) -> bool:
    if expected == 0:
        return got != 0
    return abs(got - expected) > max(LENGTH_SLACK, expected * LENGTH_TOLERANCE)


def compare(expect: Mapping[str, str | int | bool], got: Mapping[str, str | int], pdf_links: Iterable[str] = ()
            ) -> list[str]:
    """What differs between a test entry's expectations and what the rule gave, one line each."""
    differences = []
    for key, wanted in expect.items():
        if key == "pdf":
            links = list(pdf_links)
            if (wanted is True and not links) or (isinstance(wanted, str) and wanted not in links):
                differences.append(f"pdf: expected {wanted if isinstance(wanted, str) else 'a link'}, got "
                                   f"{', '.join(links) or 'none'}")
            continue
        value = got.get(key, "")
        if isinstance(wanted, bool) or not isinstance(wanted, int):
            same = str(value).lower() == str(wanted).lower() if key == "doi" else value == wanted
            if not same:
                differences.append(f"{key}: expected {wanted!r}, got {value!r}")
        elif _length_differs(wanted, int(value)):
            differences.append(f"{key}: expected {wanted} characters (±{LENGTH_TOLERANCE:.0%}), got {value}")
    return differences


# ---------------------------------------------------------------------------------------------------- running


def _selected(rule_name: str, test: RuleTest, regex: re.Pattern[str] | None) -> bool:
    return regex is None or bool(regex.search(test.url)) or bool(regex.search(rule_name))


@dataclass
class RulePageReading:
    """What the rules read on a test entry's page: ``blocked`` (why, for a bot gate or refusal), else the rule that
    read it (``rule``: a journal site's name, ``None`` when none knows the page), what it got and its PDF links."""

    blocked: str | None = None
    rule: str | None = None
    got: dict[str, str | int] = field(default_factory=dict)
    pdf_links: list[str] = field(default_factory=list)


def read_test_page(html: str | bytes, url: str, *, rules: ScrapingRules, kind: Literal["journal", "webpage"],
                   site: str = "") -> RulePageReading:
    """A test entry's page (fetched from ``url``, its final address) read with ``rules``: by the journal rule that
    knows the page (scraped only when it is ``site``, the rule under test) or by the URL's webpage rule."""
    soup = parse_html(html)
    reason = block_reason(soup)
    if reason is not None:
        return RulePageReading(blocked=reason)
    if kind == "webpage":
        content = scrape_webpage(soup, url, rules.webpage_rule(url))
        return RulePageReading(got={"title": content.title, "content": len(content.content),
                                    "license": content.license, "language": content.language})
    rule = rules.page_rule(url, soup)
    if rule is None or rule.site != site:
        return RulePageReading(rule=rule.site if rule is not None else None)
    record = scrape_journal(soup, url, rule)
    return RulePageReading(rule=rule.site, got={
        "title": record.title, "doi": record.doi, "abstract": len(record.abstract), "fulltext": len(record.fulltext),
        "keywords": len(record.keywords)}, pdf_links=[link.url for link in record.links if link.kind == "pdf"])


def _read(test: RuleTest, rule_name: str, rules: ScrapingRules, pages: PageSource | None,
          readers: PageReaders | None, kind: Literal["journal", "webpage"]
          ) -> tuple[RulePageReading | None, RuleOutcome]:
    """A test entry's page read (in a page worker when given), or None with the outcome that says why there is no
    reading: no page, a block page, or a page abandoned by its worker (a failed test)."""
    page = pages(test.url) if pages is not None else None
    if page is None:
        return None, RuleOutcome(rule_name, test.url, "untested", ["no page (not recorded, or the fetch failed)"])
    reading = read_isolated(read_test_page, (page.html, page.url), rules, readers.workers if readers else None,
                            time_limit=readers.time_limit if readers else 0,
                            memory_limit=readers.memory_limit if readers else 0, kind=kind, site=rule_name)
    if isinstance(reading, str):
        log.warning("page %s abandoned: %s; its test failed", page.url, reading)
        return None, RuleOutcome(rule_name, page.url, "fail", [f"page abandoned: {reading}"])
    if reading.blocked is not None:
        return None, RuleOutcome(rule_name, test.url, "blocked", [reading.blocked])
    return reading, RuleOutcome(rule_name, page.url, "pass")


def journal_outcomes(rules: ScrapingRules, pages: PageSource | None, regex: str | None = None, *,
                     readers: PageReaders | None = None) -> Iterator[RuleOutcome]:
    """Each journal test entry (of sites whose name or entry URL the regex finds) checked on its page, read in
    ``readers`` when given (else in this process)."""
    pattern = re.compile(regex) if regex else None
    for name, site in rules.sites.items():
        for test in site.tests:
            if not _selected(name, test, pattern):
                continue
            reading, outcome = _read(test, name, rules, pages, readers, "journal")
            if reading is None:
                yield outcome
                continue
            if reading.rule != name:
                outcome.status = "fail"
                outcome.differences.append(f"rule: expected {name}, got {reading.rule or 'none'}")
                yield outcome
                continue
            outcome.got = reading.got
            outcome.differences = compare(test.expect, outcome.got, reading.pdf_links)
            outcome.status = "fail" if outcome.differences else "pass"
            outcome.unchecked = not test.expect
            yield outcome


def webpage_outcomes(rules: ScrapingRules, pages: PageSource | None, regex: str | None = None, *,
                     readers: PageReaders | None = None) -> Iterator[RuleOutcome]:
    """Each webpage test entry (of rules whose regex or entry URL the regex finds) checked on its page, read in
    ``readers`` when given (else in this process)."""
    pattern = re.compile(regex) if regex else None
    for rule in rules.webpage_rules:
        for test in rule.tests:
            if not _selected(rule.regex, test, pattern):
                continue
            reading, outcome = _read(test, rule.regex, rules, pages, readers, "webpage")
            if reading is None:
                yield outcome
                continue
            outcome.got = reading.got
            outcome.differences = compare(test.expect, outcome.got)
            outcome.status = "fail" if outcome.differences else "pass"
            outcome.unchecked = not test.expect
            yield outcome


def outcome_table(outcomes: Iterable[RuleOutcome]) -> tuple[str, dict[str, int]]:
    """A plain-text table, one block per rule (status, URL, and what differed), and the count of each status."""
    lines: list[str] = []
    counts: dict[str, int] = {}
    current = None
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
        if outcome.rule != current:
            current = outcome.rule
            lines.append(f"{outcome.rule}")
        lines.append(f"  {outcome.status.upper():8} {outcome.url}")
        lines.extend(f"           {difference}" for difference in outcome.differences)
        if outcome.unchecked:
            got = ", ".join(f"{key} {value!r}" for key, value in outcome.got.items())
            lines.append(f"           nothing expected yet; got: {got}")
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    lines.append(f"{sum(counts.values())} tests: {summary or 'none selected'}")
    return "\n".join(lines) + "\n", counts
