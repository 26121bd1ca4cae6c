"""Preprints through the chain: bioRxiv's ``details`` answer and its JATS full text, and ``--follow-published``
(the journal version fetched too, both kept and linked by their relations).

No bioRxiv/medRxiv answer is recorded (../shared/corpus/README.md, "Gaps"): the ``details`` answer here is synthetic,
with exactly the fields ../shared/spec/apis-and-users.md lists for a ``collection`` item, for the preprint whose
Crossref record is recorded (``crossref-work-biorxiv-2024.04.01.587366-is-preprint-of``); its JATS full text is a
small synthetic article. The journal version's Crossref and OpenAlex works are the recorded ones."""

from __future__ import annotations

import json

from pubfetch.model.part_type import PartType
from pubfetch.model.rich import Relation
from support.replayrun import fetch_all

PREPRINT, PUBLISHED = "10.1101/2024.04.01.587366", "10.1016/j.xgen.2025.100814"
JATS_URL = "http://www.biorxiv.org/content/biorxiv/early/2024/04/01/2024.04.01.587366.source.xml"
BODY = "Prime editing installs variants at their endogenous loci. " * 40
JATS = (f"<article><front><article-meta><title-group><article-title>High-throughput screening of human genetic "
        f"variants by pooled prime editing</article-title></title-group></article-meta></front><body><sec><title>"
        f"Introduction</title><p>{BODY}</p></sec></body></article>").encode()
ON = {"ask_crossref": True, "ask_openalex": True, "ask_datacite": True, "ask_biorxiv": True,
      "openalex_api_key": "test-key", "crossref_mailto": "curator@example.org",
      "datacite_mailto": "curator@example.org"}


def details_item(version: str) -> dict:
    return {"doi": PREPRINT, "title": "High-throughput screening of human genetic variants by pooled prime editing",
            "authors": "Herger, M.; Kajba, C. M.; Buckley, M.", "author_corresponding": "Gregory M. Findlay",
            "author_corresponding_institution": "The Francis Crick Institute", "date": f"2024-04-0{version}",
            "version": version, "type": "new results", "license": "cc_by", "category": "genomics",
            "jatsxml": JATS_URL, "abstract": "Understanding the effects of rare genetic variants remains challenging.",
            "published": PUBLISHED, "server": "bioRxiv"}


def serve_preprint(replay) -> None:
    replay.scholarly.add("biorxiv", PREPRINT, [details_item("1"), details_item("2")], replace=True)
    replay.answer(JATS_URL, JATS, "application/xml")


def test_preprint_full_text_from_its_jats(replay_server):
    replay, server = replay_server
    serve_preprint(replay)
    (pub,) = fetch_all(server, [PREPRINT], **ON)
    assert pub.preprint and pub.relations.items == [Relation("is-preprint-of", PUBLISHED.upper())]
    assert pub.fulltext.type is PartType.biorxiv and BODY.strip() in pub.fulltext.content
    assert (pub.license.content, pub.license.type) == ("cc_by", PartType.biorxiv)  # Crossref records no licence
    assert replay.scholarly.asked[("biorxiv", PREPRINT)] >= 1


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
    assert code in (0, 1) and [entry["doi"] for entry in out] == [PREPRINT.upper(), PUBLISHED.upper()]
    with open_store(str(db), readonly=True) as store:
        published = store.get_publication(PUBLISHED)
    assert published is not None and Relation("has-preprint", PREPRINT.upper()) in published.relations.items
