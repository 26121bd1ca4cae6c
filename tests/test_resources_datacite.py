"""DataCite through the chain: DataCite DOIs (their agency looked up) asked of DataCite in ``dois?ids=`` batches and
never of Crossref, their parts the recorded DOIs' (tests/support/replay_apis.py serves them; expected values read from
the recorded JSON here)."""

from __future__ import annotations

from pubfetch.model.part_type import PartType
from pubfetch.model.rich import Reference
from support.apis_corpus import answered, upper_doi
from support.replayrun import fetch_all
from support.scholarly_runs import DATACITE_DOIS, SCHOLARLY_ON


def test_datacite_parts_are_the_recorded_dois(corpus_dir, replay_server):
    replay, server = replay_server
    asked = dict(replay.scholarly.asked)
    pubs = {p.doi.content: p for p in fetch_all(server, DATACITE_DOIS, **SCHOLARLY_ON)}
    for doi in DATACITE_DOIS:
        assert replay.scholarly.asked[("datacite", doi)] == asked.get(("datacite", doi), 0) + 1
        assert replay.scholarly.asked[("crossref", doi)] == asked.get(("crossref", doi), 0)
    recorded = {d["data"]["id"]: d["data"]["attributes"] for _, d in answered(corpus_dir, "datacite_doi")}
    dryad, thor = pubs["10.5061/DRYAD.8515"], pubs["10.5438/6423"]
    attributes = recorded["10.5061/dryad.8515"]
    assert (dryad.title.content, dryad.title.type) == (attributes["titles"][0]["title"], PartType.datacite)
    assert dryad.license.content == attributes["rightsList"][0]["rightsUri"]
    thor_attributes = recorded["10.5438/6423"]
    assert [(g.agency, g.grant_id) for g in thor.funding.items] == [
        (f["funderName"], f.get("awardNumber", "")) for f in thor_attributes["fundingReferences"]]
    assert [a.orcid for a in thor.authors][:1] == [thor_attributes["creators"][0]["nameIdentifiers"][0]["nameIdentifier"]]
    pangaea = pubs["10.1594/PANGAEA.721193"]
    related = recorded["10.1594/pangaea.721193"]["relatedIdentifiers"]
    assert pangaea.references.items == [Reference(doi=upper_doi(r["relatedIdentifier"])) for r in related
                                        if r["relationType"] in ("References", "Cites")]
