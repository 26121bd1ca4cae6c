"""One fetching run built from its configuration: the client over the given transport, the user's rule files read
before anything is fetched, the store opened (or created) for a fetch, and everything it built closed together."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.engine.assembly import FetchRun
from pubfetch.engine.summary import BatchSummary
from pubfetch.rules import RuleError
from pubfetch.store import open_or_init_store
from support.fetchrun import chain_config
from support.synthetic import Article, SyntheticServices, in_process


def built(services: SyntheticServices, **changes: object) -> FetchRun:
    return FetchRun(chain_config(services, rate_limits=False, **changes), transport=in_process(services))


def test_a_run_fetches_into_a_database_it_creates(tmp_path: Path) -> None:
    services = SyntheticServices(2)
    db = tmp_path / "new.db"
    summary = BatchSummary()
    with built(services) as run:
        pubs = list(run.fetch([Article(0).pmid, Article(1).pmid], db, summary=summary))
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
        list(run.fetch([Article(0).pmid], db, use_stored=False))
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


def test_nothing_to_retry_yields_nothing() -> None:
    with built(SyntheticServices(1)) as run:
        assert list(run.fetch_retries([])) == []
