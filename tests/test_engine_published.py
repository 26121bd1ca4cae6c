"""``--follow-published``: a preprint's journal version fetched too, both kept and linked by their relations, through
the library and the command line (the preprint is synthetic: tests/support/scholarly_runs.py)."""

from __future__ import annotations

import json

from pubfetch.model.rich import Relation
from support.replayrun import fetch_all
from support.scholarly_runs import PREPRINT, PUBLISHED, SCHOLARLY_ON, serve_preprint

ON = SCHOLARLY_ON


def test_follow_published_gives_two_linked_entries(replay_server):
    replay, server = replay_server
    serve_preprint(replay)
    asked = replay.scholarly.asked[("crossref", PUBLISHED)]
    pubs = fetch_all(server, [PREPRINT], follow_published=True, **ON)
    assert [p.doi.content for p in pubs] == [PREPRINT.upper(), PUBLISHED.upper()]
    preprint, published = pubs
    assert Relation("is-preprint-of", PUBLISHED.upper()) in preprint.relations.items
    assert Relation("has-preprint", PREPRINT.upper()) in published.relations.items
    assert published.title.content and not published.preprint
    assert replay.scholarly.asked[("crossref", PUBLISHED)] == asked + 1  # asked once, in its own round


def test_without_follow_published_only_the_preprint(replay_server):
    replay, server = replay_server
    serve_preprint(replay)
    assert [p.doi.content for p in fetch_all(server, [PREPRINT], **ON)] == [PREPRINT.upper()]


def test_follow_published_on_the_command_line(replay_server, tmp_path, monkeypatch, capsys):
    """``--follow-published`` on the command line: the preprint asked for and its journal version, both output and
    both stored."""
    from pubfetch.cli import EXIT_OK, EXIT_SOME_FAILED
    from pubfetch.cli.main import main
    from pubfetch.store import open_store
    from support.replayrun import REAL_ENDPOINTS

    replay, server = replay_server
    serve_preprint(replay)
    for name in ("HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.setenv(name, server.base)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", server.ca_file)
    monkeypatch.setenv("PUBFETCH_RATE_DB", str(tmp_path / "rates.sqlite"))
    for name, url in vars(REAL_ENDPOINTS).items():
        monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", url)
    for switch in ("CROSSREF", "OPENALEX", "DATACITE", "BIORXIV"):
        monkeypatch.setenv(f"PUBFETCH_ASK_{switch}", "true")
    monkeypatch.setenv("PUBFETCH_OPENALEX_API_KEY", "test-key")
    db = tmp_path / "pubs.db"
    code = main(["-pub", PREPRINT, "-db-fetch", str(db), "--follow-published", "--allow-private-addresses",
                 "--no-javascript", "-out", "--format", "jsonl", "--plain"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # a request the replay has no recording for (the DOI pages) fails: EXIT_SOME_FAILED
    assert code in (EXIT_OK, EXIT_SOME_FAILED) and [entry["doi"] for entry in out] == [PREPRINT.upper(),
                                                                                     PUBLISHED.upper()]
    with open_store(str(db), readonly=True) as store:
        published = store.get_publication(PUBLISHED)
    assert published is not None and Relation("has-preprint", PREPRINT.upper()) in published.relations.items
