"""PubFetcher's ``-test-*`` operations: run the scraping rules' test entries, or one resource over a list of test IDs,
and print a table of what each gave.

* ``-test-site`` / ``-test-site-regex REGEX`` and ``-test-webpage`` / ``-test-webpage-regex REGEX`` check the test
  entries of the journal and webpage rules (:mod:`pubfetch.ruletest`): live, each page fetched as the fetcher would,
  or offline with ``--replay DIR`` from recorded pages (a directory with ``manifest.jsonl``/``pages.jsonl`` as in
  ../shared/corpus). A table per rule says pass, fail (and what differed), untested (no page) or blocked. The
  command exits with 3 (``EXIT_SOME_FAILED``) when some entry failed.
* ``-test-europepmc``, ``-test-europepmc-mined``, ``-test-europepmc-xml``, ``-test-pmc-xml``, ``-test-pubmed-xml``,
  ``-test-pubmed-html`` and ``-test-oadoi`` fetch each ID of :data:`RESOURCE_TEST_IDS` (or ``--test-ids``) from
  that resource alone and print one row per ID: the sizes of the parts it gave, their type, and whether it failed.
  ``-test-europepmc-html`` and ``-test-pmc-html`` exist only to say why they are not offered (the terms of those
  pages forbid automated download, as for ``-print-europepmc-html``).

PubFetcher kept its expectations in CSV files of field sizes; pubfetch's rule expectations live in the rule files,
and the resource tests report rather than judge: a resource's answer for an ID changes as the record is curated.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from pubfetch.cli import fetching
from pubfetch.cli.errors import EXIT_OK, EXIT_SOME_FAILED, CliError, UsageError
from pubfetch.cli.fetching import Session
from pubfetch.cli.parser import ParsedArgs

if TYPE_CHECKING:
    from pubfetch.rules import ScrapingRules

log = logging.getLogger(__name__)

#: Resource test operation -> (the one-resource mode it runs, built-in test IDs: real publications of each kind).
RESOURCE_TEST_IDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "test-europepmc": ("print-europepmc", ("22338609", "31114920", "10.1093/nar/gkz369", "PMC3320746")),
    "test-europepmc-mined": ("print-europepmc-mined", ("22338609", "PMC3320746")),
    "test-europepmc-xml": ("print-europepmc-xml", ("PMC3320746", "PMC6198355")),
    "test-pmc-xml": ("print-pmc-xml", ("PMC3320746", "PMC6198355")),
    "test-pubmed-xml": ("print-pubmed-xml", ("22338609", "31114920")),
    "test-pubmed-html": ("print-pubmed-html", ("22338609", "31114920")),
    "test-oadoi": ("print-oadoi", ("10.1093/nar/gkz369", "10.7717/peerj.4375")),
}
NOT_OFFERED = {
    "test-europepmc-html": "Europe PMC's terms forbid automated download of its article pages; -test-europepmc-xml "
                           "tests the full text it serves",
    "test-pmc-html": "PMC's terms forbid automated download of its article pages; -test-pmc-xml tests the full text "
                     "it serves",
}
RULE_TESTS = ("test-site", "test-site-regex", "test-webpage", "test-webpage-regex")
_COLUMNS = ("pmid", "pmcid", "doi", "title", "keywords", "mesh", "efo", "go", "abstract", "fulltext")


def wanted(args: ParsedArgs) -> bool:
    return any(name in args for name in (*RULE_TESTS, *RESOURCE_TEST_IDS, *NOT_OFFERED))


def run_test_operations(args: ParsedArgs, out: TextIO, sess: Session) -> int:
    """Every ``-test-*`` operation asked for; 3 when a rule test failed, else 0."""
    for name, reason in NOT_OFFERED.items():
        if name in args:
            raise UsageError(f"-{name} is not offered: {reason}")
    status = 0
    if any(name in args for name in RULE_TESTS):
        status = _rule_tests(args, out, sess)
    for name, (mode, default_ids) in RESOURCE_TEST_IDS.items():
        if name in args:
            given = args.get("test-ids")
            _resource_tests(out, sess, name, mode, list(given) if given else list(default_ids))
    return status


# ---------------------------------------------------------------------------------------------------- rule tests


def _live_pages(sess: Session, rules: ScrapingRules):
    """Pages fetched as the fetcher would: rendered in the browser when the rules say the URL needs JavaScript (and
    a browser is there), else plainly."""
    from pubfetch.ruletest import Page

    def source(url: str) -> Page | None:
        for javascript in (True, False) if rules.javascript(url) else (False,):
            try:
                text = fetching.fetch_document(sess, url, javascript=javascript)
            except CliError as e:
                log.warning("%s", e)
                continue
            return Page(url, text)
        return None

    return source


def _rule_tests(args: ParsedArgs, out: TextIO, sess: Session) -> int:
    from pubfetch.engine.assembly import scraping_rules
    from pubfetch.extract.reader_workers import PageReaders, page_workers
    from pubfetch.rules import RuleError
    from pubfetch.ruletest import corpus_pages, journal_outcomes, outcome_table, webpage_outcomes

    fa = sess.args
    try:
        rules = scraping_rules(fa)
    except (RuleError, OSError) as e:
        raise UsageError(str(e)) from None
    replay = args.get("replay")
    try:
        pages = corpus_pages(replay) if replay else _live_pages(sess, rules)
    except (OSError, ValueError) as e:
        raise UsageError(f"--replay {replay}: {e}") from None
    failed = 0
    limits = sess.config.run
    with page_workers(1, rules) as workers:  # the pages are read one after the other, each under the page limits
        readers = PageReaders(workers, limits.page_time_limit, limits.page_memory_limit)
        for flag, regex_option, outcomes, what in (
            ("test-site", "test-site-regex", journal_outcomes, "journal sites"),
            ("test-webpage", "test-webpage-regex", webpage_outcomes, "webpage rules"),
        ):
            if flag not in args and regex_option not in args:
                continue
            regex = args.get(regex_option) if regex_option in args else None
            try:
                table, counts = outcome_table(outcomes(rules, pages, regex, readers=readers))
            except ValueError as e:  # re.error is a ValueError
                raise UsageError(f"-{regex_option}: {e}") from None
            out.write(f"# {what}{' matching ' + regex if regex else ''}\n{table}")
            failed += counts.get("fail", 0)
    return EXIT_SOME_FAILED if failed else EXIT_OK


# ------------------------------------------------------------------------------------------------ resource tests


def _size(part: object) -> str:
    items = getattr(part, "items", None)
    if items is not None:
        return str(len(items))
    return str(len(getattr(part, "content", "") or ""))


def _resource_tests(out: TextIO, sess: Session, name: str, mode: str, ids: Sequence[str]) -> None:
    """One row per ID: the size of each part the resource gave (characters, or items for lists), its type."""
    out.write(f"# {name}: what {mode.removeprefix('print-')} gives for each test ID (sizes; list parts count items)\n")
    out.write("\t".join(("id", "status", *_COLUMNS, "types")) + "\n")
    for test_id in ids:
        try:
            pub = fetching.test_operation(sess, mode, test_id)
        except CliError as e:
            out.write(f"{test_id}\terror: {e}\n")
            continue
        parts = [getattr(pub, column) for column in _COLUMNS]
        types = sorted({p.type.name for p in parts if _size(p) != "0" and hasattr(p, "type")})
        status = "fetchException" if pub.state.fetch_exception else ("empty" if all(_size(p) == "0" for p in parts)
                                                                      else "ok")
        out.write("\t".join((test_id, status, *(_size(p) for p in parts), ",".join(types))) + "\n")
