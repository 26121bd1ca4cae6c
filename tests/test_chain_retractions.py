"""Retractions for any DOI through the chain: a retraction notice in Crossref's shape marks its paper retracted
whichever work records it (the paper's ``updated-by``, or only the notice's ``update-to``, found by the
``filter=updates:`` request), with the run's retraction warning; OpenAlex's flag marks it too.

No recorded answer holds a retraction (../shared/corpus/README.md, "Gaps"): the works below are synthetic, in the shape
of the recorded correction notices (``updated-by`` of 10.1073/pnas.1414271111: ``updated``, ``DOI``, ``type``,
``source``, ``label``) with Crossref's update type ``retraction``, and OpenAlex's recorded work fields with
``is_retracted`` true. They are served by the replay beside the recorded works."""

from __future__ import annotations

import logging

from pubfetch.model.retraction import RetractionSource
from pubfetch.model.rich import Update
from support.replayrun import fetch_all

ON = {"ask_crossref": True, "ask_openalex": True, "ask_datacite": True, "ask_biorxiv": False,
      "openalex_api_key": "test-key", "crossref_mailto": "curator@example.org",
      "datacite_mailto": "curator@example.org"}


def notice(doi: str) -> dict:
    return {"updated": {"date-parts": [[2021, 3, 4]], "date-time": "2021-03-04T00:00:00Z", "timestamp": 1614816000000},
            "DOI": doi, "type": "retraction", "source": "retraction-watch", "label": "Retraction"}


def work(doi: str, title: str, **fields: object) -> dict:
    return {"DOI": doi, "type": "journal-article", "title": [title], "prefix": doi.split("/")[0], **fields}


def test_retraction_in_either_direction_with_the_warning(replay_server, caplog):
    replay, server = replay_server
    works = replay.scholarly
    works.add("crossref", "10.9990/paper.a", work("10.9990/paper.a", "A paper whose record names its retraction",
                                                  **{"updated-by": [notice("10.9990/notice.a")]}))
    works.add("crossref", "10.9990/paper.b", work("10.9990/paper.b", "A paper whose record does not name it"))
    works.add("crossref", "10.9990/notice.b", work("10.9990/notice.b", "Retraction notice",
                                                   **{"update-to": [notice("10.9990/paper.b")]}))
    with caplog.at_level(logging.WARNING):
        pubs = {p.doi.content: p for p in fetch_all(server, ["10.9990/paper.a", "10.9990/paper.b",
                                                             "10.9990/notice.b"], **ON)}
    a, b, notice_b = pubs["10.9990/PAPER.A"], pubs["10.9990/PAPER.B"], pubs["10.9990/NOTICE.B"]
    assert a.retracted and a.updates.items == [Update("RetractionIn", doi="10.9990/NOTICE.A")]
    assert b.retracted and b.updates.items == [Update("RetractionIn", doi="10.9990/NOTICE.B")]
    assert not notice_b.retracted and notice_b.updates.items == [Update("RetractionOf", doi="10.9990/PAPER.B")]
    assert a.retraction.sources() == b.retraction.sources() == [RetractionSource.crossref]  # Crossref's own verdict
    assert notice_b.retraction.to_json() == {"crossref": False}
    warned = [r.getMessage() for r in caplog.records if "retracted publication" in r.getMessage()]
    assert len(warned) == 2 and any("10.9990/NOTICE.B" in line for line in warned), warned


def test_openalex_flag(replay_server):
    replay, server = replay_server
    replay.scholarly.add("crossref", "10.9991/paper.c", work("10.9991/paper.c", "A paper only OpenAlex says is "
                                                                                "retracted"))
    replay.scholarly.add("openalex", "10.9991/paper.c", {
        "id": "https://openalex.org/W1", "doi": "https://doi.org/10.9991/paper.c", "title": "A paper",
        "ids": {"openalex": "https://openalex.org/W1", "doi": "https://doi.org/10.9991/paper.c"},
        "is_retracted": True, "cited_by_count": 4})
    (pub,) = fetch_all(server, ["10.9991/paper.c"], **ON)
    assert pub.retracted and pub.citations_count == 4
    assert pub.retraction.to_json() == {"crossref": False, "openalex": True}  # each source its own verdict
