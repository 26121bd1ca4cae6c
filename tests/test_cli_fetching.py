"""The fetching operations of the command line inside its one session: the context built on first use and closed
with the session, the publications and pages of the pipeline's fetch steps, the one-off page operations, the test
operations, and the exit status and summary the session's totals decide."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.cli.errors import CliError, InputError, Unavailable, UsageError
from pubfetch.cli.fetching import (
    fetch_document,
    get_publications,
    open_session,
    post_document,
)
from pubfetch.cli.fetching import (
    test_operation as one_resource,
)
from pubfetch.model import Publication
from pubfetch.store import init_db
from support.loopback import Reply
from support.synthetic import Article, SyntheticServices

LOCAL = {"allow-private-addresses": True, "no-javascript": True}


@pytest.mark.services(2)
def test_publications_are_fetched_stored_and_counted(services: SyntheticServices, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    store = init_db(tmp_path / "p.db")
    with open_session({**LOCAL, "no-rate-limit": True}, {}) as sess:
        pubs = get_publications(sess, [Article(0).pmid, Article(1).pmid], store)
        assert [p.title.content for p in pubs] == [Article(0).title, Article(1).title]
        assert store.get_publication(Article(1).pmid) is not None
        assert sess.exit_status() == 0  # the closed-access one is partial only in what no service had
    assert capsys.readouterr().err == "pubfetch: 2 publications: 2 fetched, 0 skipped; 1 final, 1 partial, 0 failed\n"
    store.close()


@pytest.mark.services(3)
def test_a_fetch_step_keeps_what_passes_its_filter_up_to_its_limit(services: SyntheticServices) -> None:
    with open_session({**LOCAL, "no-rate-limit": True}, {}) as sess:
        ids = [Article(i).pmid for i in range(3)]
        kept = get_publications(sess, ids, keep=lambda pub: pub.pmid.content != Article(0).pmid, limit=1)
        assert [p.pmid.content for p in kept] == [Article(1).pmid]
        assert get_publications(sess, ids, keep_entries=False) == []


@pytest.mark.services(1)
def test_documents_are_fetched_and_posted_as_text(services: SyntheticServices) -> None:
    services.extra["/doc/page"] = Reply(body="<p>the document</p>")
    services.extra["/doc/missing"] = Reply(status=404, body="gone")
    with open_session({**LOCAL, "no-rate-limit": True}, {}) as sess:
        assert fetch_document(sess, services.base + "/doc/page") == "<p>the document</p>"
        assert post_document(sess, services.base + "/doc/page", ["q", "1", "page", "2"]) == "<p>the document</p>"
        with pytest.raises(CliError, match=f"fetching {services.base}/doc/missing failed: "):
            fetch_document(sess, services.base + "/doc/missing")
        with pytest.raises(UsageError, match="NAME VALUE pairs"):
            post_document(sess, services.base + "/doc/page", ["q"])
        with pytest.raises(Unavailable, match="JavaScript"):
            fetch_document(sess, services.base + "/doc/page", javascript=True)
    posted = [r for r in services.server.requests if r.method == "POST"]
    assert [r.form for r in posted] == [{"q": ["1"], "page": ["2"]}]


@pytest.mark.services(2)
def test_a_test_operation_asks_one_resource_alone(services: SyntheticServices) -> None:
    with open_session({**LOCAL, "no-rate-limit": True}, {}) as sess:
        pub = one_resource(sess, "print-pubmed-xml", Article(1).pmid)
        assert isinstance(pub, Publication) and pub.title.content == Article(1).title
        with pytest.raises(UsageError, match="^-print-oadoi: "):
            one_resource(sess, "print-oadoi", "not an id")
        with pytest.raises(Unavailable, match="forbid automated bulk download"):
            one_resource(sess, "print-pmc-html", Article(0).pmcid)
    assert services.counts["efetch_pubmed"] == 1 and services.counts["europepmc_search"] == 0


def test_a_session_that_fetched_nothing_reports_nothing_and_exits_0(env: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with open_session({**LOCAL, "no-rate-limit": True}, {}) as sess:
        assert sess.exit_status() == 0
        assert capsys.readouterr().err == ""
        sess.pages_got, sess.pages_not_final = 3, 2
        assert sess.exit_status() == 3  # EXIT_SOME_FAILED: pages not final
    assert capsys.readouterr().err == "pubfetch: 3 webpages/docs: 1 final, 2 not final\n"


def test_a_bad_rule_file_is_a_usage_error_when_the_context_is_built(env: Path) -> None:
    rules = env / "j.yaml"
    rules.write_text("'x\\.example/': undefined\n", encoding="utf-8")
    with open_session({**LOCAL, "no-rate-limit": True}, {"journals_yaml": str(rules)}) as sess, \
            pytest.raises(UsageError, match=f"^scraping rules {rules}:1"):
        sess.context()


def test_an_unwritable_warc_file_is_an_input_error(env: Path) -> None:
    blocker = env / "file"
    blocker.write_text("", encoding="utf-8")
    with open_session({**LOCAL, "no-rate-limit": True}, {}, warc=str(blocker / "run.warc.gz")) as sess, \
            pytest.raises(InputError, match=f"^cannot write WARC file '{blocker}/run.warc.gz': "):
        sess.context()


def test_command_line_fetching_parameters_are_applied_once_over_the_file(tmp_path: Path) -> None:
    from pubfetch.cli.fetching import fetch_config

    path = tmp_path / "config.yaml"
    path.write_text("threads: 3\nfetching:\n  emptyCooldown: 12h\n  oadoiEmail: file@example.org\n")
    cfg = fetch_config({"config": str(path), "threads": 4}, {"timeout": 30000})
    assert (cfg.run.threads, cfg.fetching.timeout, cfg.fetching.empty_cooldown, cfg.fetching.oadoi_email) == (
        4, 30000, 720, "file@example.org")
