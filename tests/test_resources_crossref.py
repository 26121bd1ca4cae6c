"""Crossref through the chain, on the recorded works (tests/support/replay_apis.py serves them; expected values read
from the recorded JSON here) and on synthetic retraction notices. A retraction notice in Crossref's shape marks its
paper retracted whichever work records it (the paper's ``updated-by``, or only the notice's ``update-to``, found by
the ``filter=updates:`` request), with the run's retraction warning.

No recorded answer holds a retraction (../shared/corpus/README.md, "Gaps"): the notices below are synthetic, in the
shape of the recorded correction notices (``updated-by`` of 10.1073/pnas.1414271111: ``updated``, ``DOI``, ``type``,
``source``, ``label``) with Crossref's update type ``retraction``."""

from __future__ import annotations

import logging

from pubfetch.model.part_type import PartType
from pubfetch.model.retraction import RetractionSource
from pubfetch.model.rich import Relation, Update
from support.apis_corpus import answered, upper_doi
from support.replayrun import fetch_all
from support.scholarly_runs import CROSSREF_DOIS, SCHOLARLY_ON

ON = {**SCHOLARLY_ON, "ask_biorxiv": False}


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


def recorded_work(corpus_dir, doi: str) -> dict:
    for _, doc in answered(corpus_dir, "crossref_work", "crossref_works_filter"):
        message = doc["message"]
        for work in [message] if doc["message-type"] == "work" else message.get("items", []):
            if work["DOI"].lower() == doi:
                return work
    raise AssertionError(doi)


def test_parts_are_the_recorded_works(corpus_dir, replay_server):
    _, server = replay_server
    pubs = {p.doi.content: p for p in fetch_all(server, CROSSREF_DOIS, **ON)}
    pnas = pubs["10.1073/PNAS.1414271111"]
    work = recorded_work(corpus_dir, "10.1073/pnas.1414271111")
    assert pnas.updates.items == [Update("ErratumIn", doi=upper_doi(u["DOI"])) for u in work["updated-by"]]
    assert pnas.updates.type is PartType.crossref and not pnas.retracted
    assert [r.doi for r in pnas.references.items] == [upper_doi(r.get("DOI")) for r in work["reference"]]
    preprint = pubs["10.1101/2024.04.01.587366"]
    assert preprint.relations.items == [Relation("is-preprint-of", "10.1016/J.XGEN.2025.100814")]
    assert preprint.preprint
    assert pubs["10.3389/FGENE.2017.00147"].relations.items == [Relation("has-preprint", "10.1101/171108")]
    crelle = pubs["10.1515/CRELLE-2013-0024"]
    crelle_work = recorded_work(corpus_dir, "10.1515/crelle-2013-0024")
    assert crelle.title.content == crelle_work["title"][0] and crelle.title.type is PartType.crossref
    assert [(g.agency, g.grant_id) for g in crelle.funding.items] == [
        (f["name"], a) for f in crelle_work["funder"] for a in f["award"]]
    assert [(a.given, a.family) for a in crelle.authors] == [(a["given"], a["family"]) for a in crelle_work["author"]]


def test_without_a_contact_address_the_public_pool_with_one_line(replay_server, recwarn):
    """Without ``crossref_mailto`` Crossref is still asked (in its public pool, whose lower limit the limiter then
    keeps: tests/test_config_limits.py) and the run says once how to join the polite pool; with one, nothing is said
    and the address goes with the requests."""
    replay, server = replay_server
    fetch_all(server, CROSSREF_DOIS[:2], **{**ON, "crossref_mailto": ""})
    lines = [str(w.message) for w in recwarn if "Crossref" in str(w.message)]
    assert len(lines) == 1 and "PUBFETCH_CROSSREF_MAILTO" in lines[0] and "none is set" in lines[0]
    recwarn.clear()
    fetch_all(server, CROSSREF_DOIS[:1], **{**ON, "crossref_mailto": "curator"})
    lines = [str(w.message) for w in recwarn if "Crossref" in str(w.message)]
    assert len(lines) == 1 and "'curator' (crossref_mailto) is not an address" in lines[0]
    recwarn.clear()
    fetch_all(server, CROSSREF_DOIS[:2], **ON)
    assert not [w for w in recwarn if "Crossref" in str(w.message)]
