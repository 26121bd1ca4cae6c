"""bioRxiv/medRxiv through the chain: the ``details`` answer of a preprint and its JATS full text, through the replay
(the preprint is synthetic: tests/support/scholarly_runs.py says where its shape comes from)."""

from __future__ import annotations

from pubfetch.model.part_type import PartType
from pubfetch.model.rich import Relation
from support.replayrun import fetch_all
from support.scholarly_runs import BODY, PREPRINT, PUBLISHED, SCHOLARLY_ON, serve_preprint

ON = SCHOLARLY_ON


def test_preprint_full_text_from_its_jats(replay_server):
    replay, server = replay_server
    serve_preprint(replay)
    before = replay.scholarly.asked[("biorxiv", PREPRINT)]
    (pub,) = fetch_all(server, [PREPRINT], **ON)
    assert pub.preprint and pub.relations.items == [Relation("is-preprint-of", PUBLISHED.upper())]
    assert pub.fulltext.type is PartType.biorxiv and BODY.strip() in pub.fulltext.content
    assert (pub.license.content, pub.license.type) == ("cc_by", PartType.biorxiv)  # Crossref records no licence
    # asked once, of the server Crossref named (its posted-content record's institution, bioRxiv)
    assert replay.scholarly.asked[("biorxiv", PREPRINT)] == before + 1
