"""The scholarly APIs in the chain, through the replay of ../shared/corpus (tests/support/replay_apis.py answers
Crossref ``filter=doi:`` and ``filter=updates:`` batches, OpenAlex ``filter=doi:a|b`` and DataCite ``ids=`` batches
from the recorded works): each DOI goes to the service its registration agency says, every service is asked once
per DOI in a run and in batches, and the parts are the recorded works'. Expected values are read from the recorded
JSON here."""

from __future__ import annotations

import json

from pubfetch.model.part_type import PartType
from pubfetch.model.rich import Relation, Update
from support.apis_corpus import answered, upper_doi
from support.loopback import Reply
from support.replay_apis import JSON
from support.replayrun import fetch_all

ON = {"ask_crossref": True, "ask_openalex": True, "ask_datacite": True, "ask_biorxiv": True,
      "openalex_api_key": "test-key", "crossref_mailto": "curator@example.org",
      "datacite_mailto": "curator@example.org"}
CROSSREF_DOIS = ["10.1073/pnas.1414271111", "10.3389/fgene.2017.00147", "10.1101/2024.04.01.587366",
                 "10.1162/qss_a_00348", "10.1016/j.xgen.2025.100814", "10.1515/crelle-2013-0024"]
DATACITE_DOIS = ["10.5061/dryad.8515", "10.5438/6423", "10.1594/pangaea.721193"]


def recorded_work(corpus_dir, doi: str) -> dict:
    for _, doc in answered(corpus_dir, "crossref_work", "crossref_works_filter"):
        message = doc["message"]
        for work in [message] if doc["message-type"] == "work" else message.get("items", []):
            if work["DOI"].lower() == doi:
                return work
    raise AssertionError(doi)


def test_each_doi_to_its_agency_once_in_batches(corpus_dir, replay_server):
    replay, server = replay_server
    before = dict(replay.counts)
    asked_before = dict(replay.scholarly.asked)
    pubs = fetch_all(server, CROSSREF_DOIS + DATACITE_DOIS, **ON)
    asked = {k: n - asked_before.get(k, 0) for k, n in replay.scholarly.asked.items() if n > asked_before.get(k, 0)}
    counts = {k: n - before.get(k, 0) for k, n in replay.counts.items()}
    for doi in CROSSREF_DOIS:
        assert asked.get(("crossref", doi)) == 1 and ("datacite", doi) not in asked, doi
        assert asked.get(("crossref_updates", doi)) == 1, doi
    for doi in DATACITE_DOIS:
        assert asked.get(("datacite", doi)) == 1 and ("crossref", doi) not in asked, doi
    for doi in CROSSREF_DOIS + DATACITE_DOIS:
        assert asked.get(("openalex", doi)) == 1, doi
    # batched: a request names many DOIs (how many requests follows arrival timing; fewer than one per DOI)
    assert counts["crossref"] < 2 * len(CROSSREF_DOIS) and counts["openalex"] < len(CROSSREF_DOIS + DATACITE_DOIS)
    assert counts["datacite"] < len(DATACITE_DOIS)
    assert counts["doi_ra"] <= len({d.split("/")[0] for d in CROSSREF_DOIS + DATACITE_DOIS})
    by_doi = {p.doi.content: p for p in pubs}
    assert set(by_doi) == {d.upper() for d in CROSSREF_DOIS + DATACITE_DOIS}


def test_parts_are_the_recorded_works(corpus_dir, replay_server):
    _, server = replay_server
    pubs = {p.doi.content: p for p in fetch_all(server, CROSSREF_DOIS + DATACITE_DOIS, **ON)}
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
    dryad = pubs["10.5061/DRYAD.8515"]
    (doc,) = [d for _, d in answered(corpus_dir, "datacite_doi") if d["data"]["id"] == "10.5061/dryad.8515"]
    assert dryad.title.content == doc["data"]["attributes"]["titles"][0]["title"]
    assert dryad.title.type is PartType.datacite
    assert dryad.license.content == doc["data"]["attributes"]["rightsList"][0]["rightsUri"]


def test_openalex_count_and_ids(corpus_dir, replay_server):
    """A DOI whose only record is OpenAlex's gets its citation count and its PMID (the chain then asks PubMed)."""
    _, server = replay_server
    (doc,) = [d for e, d in answered(corpus_dir, "openalex_work") if e["name"] == "openalex-work-doi-xgen.2025.100814"]
    (pub,) = fetch_all(server, ["10.1016/j.xgen.2025.100814"], **ON)
    assert pub.citations_count == doc["cited_by_count"]
    assert pub.pmid.content == doc["ids"]["pmid"].rsplit("/", 1)[-1] and pub.pmid.type is PartType.openalex


def test_openalex_without_key_is_skipped_with_one_line(replay_server, recwarn):
    replay, server = replay_server
    before = replay.counts["openalex"]
    fetch_all(server, CROSSREF_DOIS[:2], **{**ON, "openalex_api_key": ""})
    assert replay.counts["openalex"] == before
    lines = [str(w.message) for w in recwarn if "OpenAlex" in str(w.message)]
    assert len(lines) == 1 and "PUBFETCH_OPENALEX_API_KEY" in lines[0]


def test_off_means_not_asked(replay_server):
    replay, server = replay_server
    before = dict(replay.counts)
    fetch_all(server, CROSSREF_DOIS[:2] + DATACITE_DOIS[:1])
    assert all(replay.counts[k] == before.get(k, 0) for k in ("crossref", "openalex", "datacite", "doi_ra"))
    assert sum(replay.counts.values()) > sum(before.values())  # the run asked the other services


def test_agencies_are_kept_in_the_database(replay_server, tmp_path):
    """A DOI prefix's agency is looked up once and kept: a later run into the same database asks doi.org nothing."""
    replay, server = replay_server
    db = str(tmp_path / "pubs.db")
    before = replay.counts["doi_ra"]
    fetch_all(server, CROSSREF_DOIS[:2], db=db, **ON)
    assert replay.counts["doi_ra"] == before + 1
    asked = replay.scholarly.asked[("crossref", "10.1073/unrecorded.1")]
    fetch_all(server, ["10.1073/unrecorded.1", "10.3389/unrecorded.2"], db=db, **ON)  # the same prefixes
    assert replay.counts["doi_ra"] == before + 1
    assert replay.scholarly.asked[("crossref", "10.1073/unrecorded.1")] == asked + 1  # Crossref's, from the database


def test_a_refused_list_is_asked_one_doi_at_a_time(corpus_dir, replay_server):
    """A service that refuses a list for one DOI in it (Crossref validates every filter value) costs only that DOI's
    answer: the others are asked alone."""
    replay, server = replay_server
    refuse = "10.1073/refused-by-crossref"
    handler = replay.scholarly._crossref

    def refusing(path, req):
        if refuse in (req.param("filter") or "") and "," in (req.param("filter") or ""):
            return Reply(400, json.dumps({"status": "failed", "message-type": "validation-failure",
                                          "message": [{"type": "invalid-filter", "message": "bad DOI"}]}), JSON)
        return handler(path, req)

    replay.scholarly._crossref = refusing
    try:
        pubs = {p.doi.content: p for p in fetch_all(server, [CROSSREF_DOIS[0], CROSSREF_DOIS[1], refuse], **ON)}
    finally:
        replay.scholarly._crossref = handler
    assert pubs["10.1073/PNAS.1414271111"].updates.type is PartType.crossref
    assert pubs["10.3389/FGENE.2017.00147"].relations.items == [Relation("has-preprint", "10.1101/171108")]
