"""One fetching run built from its configuration: the client over the given transport, the user's rule files read
before anything is fetched, a caller's context lent to a step with its own parts, the store opened (or created) for a
fetch, and everything it built closed together; the tests' runs are these runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.engine.assembly import FetchRun, builtin_rules, scraping_rules
from pubfetch.engine.options import FetchOptions
from pubfetch.engine.summary import BatchSummary
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartName
from pubfetch.rules import RuleError
from pubfetch.store import open_or_init_store
from support.fetchrun import chain_config, fetch_run
from support.synthetic import Article, SyntheticServices, hold_searches, in_process, use_services
from support.waits import within

REPO = Path(__file__).resolve().parents[1]


def built(services: SyntheticServices, **changes: object) -> FetchRun:
    return FetchRun(chain_config(services, rate_limits=False, **changes), transport=in_process(services))


def test_a_run_fetches_into_a_database_it_creates(tmp_path: Path) -> None:
    services = SyntheticServices(2)
    db = tmp_path / "new.db"
    summary = BatchSummary()
    with built(services) as run:
        pubs = list(run.fetch([Article(0).pmid, Article(1).pmid], db, FetchOptions(summary=summary)))
        assert summary.requests is run.context.client.counts
    assert [p.title.content for p in pubs] == [Article(0).title, Article(1).title]
    assert summary.fetched == 2
    store = open_or_init_store(db)
    try:
        assert store.get_publication(Article(1).pmid).title.content == Article(1).title
    finally:
        store.close()


def test_stored_entries_are_used_unless_told_not_to(tmp_path: Path) -> None:
    services = SyntheticServices(1)
    db = tmp_path / "p.db"
    with built(services) as run:
        list(run.fetch([Article(0).pmid], db))
        services.counts.clear()
        [again] = run.fetch([Article(0).pmid], db)
        assert sum(services.counts.values()) == 0 and again.title.content == Article(0).title
    with built(services) as run:  # a run of its own: the first one remembers the services' answers
        list(run.fetch([Article(0).pmid], db, FetchOptions(use_stored=False)))
        assert services.counts["europepmc_search"] == 1


def test_a_bad_user_rule_file_stops_the_run_before_any_request(tmp_path: Path) -> None:
    rules = tmp_path / "journals.yaml"
    rules.write_text("'x\\.org/': x\n---\nx:\n  title: 'h1['\n", encoding="utf-8")
    services = SyntheticServices(1)
    config = chain_config(services, rate_limits=False)
    config = config.with_changes(journals_yaml=str(rules))
    transport = in_process(services)
    with pytest.raises(RuleError) as info:
        FetchRun(config, transport=transport)
    assert info.value.file == str(rules)
    assert transport.sent == []


def test_the_user_rule_files_are_the_contexts_rules(tmp_path: Path) -> None:
    rules = tmp_path / "journals.yaml"
    rules.write_text("'x\\.org/': x\n---\nx:\n  title: h2\n", encoding="utf-8")
    services = SyntheticServices(1)
    config = chain_config(services, rate_limits=False)
    config = config.with_changes(journals_yaml=str(rules))
    with FetchRun(config, transport=in_process(services)) as run:
        assert run.context.rules.site("https://x.org/1") == "x"


def test_a_callers_context_is_used_and_left_open() -> None:
    services = SyntheticServices(1)
    with built(services) as owner:
        context = owner.context
        with FetchRun(owner.config, context=context) as run:
            assert run.context is context
            [pub] = run.fetch([Article(0).pmid])
        assert pub.title.content == Article(0).title
        [again] = owner.fetch([Article(0).doi])  # the context still works after the borrowing run closed
        assert again.pmid.content == Article(0).pmid


def test_a_step_asks_for_its_own_parts_with_the_runs_machinery() -> None:
    services = SyntheticServices(1)
    ids_only = frozenset({PartName.pmid, PartName.pmcid, PartName.doi})
    with built(services) as owner:
        with FetchRun(owner.config.with_changes(parts=ids_only), context=owner.context) as step:
            assert step.context.parts == ids_only and step.context.id_only()
            assert step.context.client is owner.context.client and step.context.rules is owner.context.rules
            [pub] = step.fetch([Article(0).pmid])
        assert pub.pmcid.content == Article(0).pmcid
        assert owner.context.parts is None and owner.context.config.run.parts is None  # the run's settings as built
        [whole] = owner.fetch([Article(0).pmcid])  # the step's closing left the run's machinery open
        assert whole.title.content == Article(0).title


def test_the_builtin_rules_are_read_once_and_a_users_files_each_time(tmp_path: Path) -> None:
    assert scraping_rules(FetcherArgs()) is builtin_rules() is scraping_rules(FetcherArgs())
    rules = tmp_path / "journals.yaml"
    rules.write_text("'x\\.org/': x\n---\nx:\n  title: h2\n", encoding="utf-8")
    mine = FetcherArgs(journals_yaml=str(rules))
    first, second = scraping_rules(mine), scraping_rules(mine)
    assert first.site("https://x.org/1") == second.site("https://x.org/1") == "x"
    assert first is not second and builtin_rules().site("https://x.org/1") is None


def test_the_tests_runs_are_the_products_runs_with_the_answer_memory() -> None:
    bench = fetch_run(1)
    with bench.run() as run:
        assert isinstance(run, FetchRun) and run.context.client.answers is not None
        [first] = run.fetch([Article(0).pmid])
        asked = len(bench.transport.sent)
        [again] = run.fetch([Article(0).pmid], options=FetchOptions(use_stored=False))
        assert again.title.content == first.title.content == Article(0).title
        assert len(bench.transport.sent) == asked  # every answer was remembered: nothing was sent twice


def test_nothing_to_retry_yields_nothing() -> None:
    with built(SyntheticServices(1)) as run:
        assert list(run.fetch_retries([])) == []


LIBRARY_RUN = """
import sys
import pubfetch
pubs = list(pubfetch.fetch_many(sys.argv[2:], db=sys.argv[1], allow_private_addresses=True, javascript=False))
print(len(pubs), flush=True)
"""


def test_two_library_processes_on_one_database_fetch_each_publication_once(tmp_path: Path, monkeypatch) -> None:
    """As two command-line runs (tests/test_cli_two_runs.py): a process that opens a SQLite database for
    ``fetch_many(db=path)`` holds it for the run; a second one says it waits, then finds what the first stored."""
    db = tmp_path / "pubs.db"
    ids = [Article(0).pmid, Article(2).pmid]  # open access: final after the first run
    with SyntheticServices(3) as services:
        use_services(monkeypatch, tmp_path, services)
        searching, release = hold_searches(services)
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))

        def start() -> subprocess.Popen[str]:
            return subprocess.Popen([sys.executable, "-c", LIBRARY_RUN, str(db), *ids], env=env, cwd=tmp_path,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        first = start()
        second = None
        try:
            assert searching.wait(300), first.communicate()
            second = start()
            assert second.stderr is not None
            waiting = second.stderr.readline()  # said before it waits
            release.set()
            outputs = [first.communicate(timeout=300), second.communicate(timeout=300)]
        finally:
            release.set()
            for proc in (first, second):
                if proc is not None and proc.poll() is None:
                    proc.kill()
        counts = (services.counts["europepmc_search"], services.counts["europepmc_fulltext"])
    assert waiting == (f"pubfetch: warning: another fetching run is using database {db}: waiting for it to end (what it stores is then "
                       "not fetched again)\n")
    assert [(proc.returncode, out) for proc, (out, _) in zip((first, second), outputs, strict=True)] == [
        (0, "2\n"), (0, "2\n")], outputs
    assert counts == (1, 2)  # the first process's requests only


def test_a_run_inside_a_run_on_the_same_database_does_not_wait_for_itself(tmp_path: Path) -> None:
    """A fetch while iterating a fetch_many into the same file, in one process: no waiting for its own lock."""
    services = SyntheticServices(2)
    db = tmp_path / "pubs.db"
    with built(services) as outer, built(services) as inner:
        titles = within(60, lambda: [(p.title.content, [q.title.content for q in inner.fetch([Article(1).pmid], db)])
                                     for p in outer.fetch([Article(0).pmid], db)])
    assert titles == [(Article(0).title, [Article(1).title])]
