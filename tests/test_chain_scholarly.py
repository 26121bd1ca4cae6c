"""The scholarly APIs in the chain, through the replay of ../shared/corpus (tests/support/replay_apis.py answers
Crossref ``filter=doi:`` and ``filter=updates:`` batches, OpenAlex ``filter=doi:a|b`` and DataCite ``ids=`` batches
from the recorded works): each DOI goes to the service its registration agency says, and every service is asked once
per DOI in a run, in batches; switched off, none is asked. The parts each gives: tests/test_resources_*.py."""

from __future__ import annotations

from support.replayrun import fetch_all
from support.scholarly_runs import CROSSREF_DOIS, DATACITE_DOIS, SCHOLARLY_ON

ON = SCHOLARLY_ON


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


def test_off_means_not_asked(replay_server):
    replay, server = replay_server
    before = dict(replay.counts)
    fetch_all(server, CROSSREF_DOIS[:2] + DATACITE_DOIS[:1])
    assert all(replay.counts[k] == before.get(k, 0) for k in ("crossref", "openalex", "datacite", "doi_ra"))
    assert sum(replay.counts.values()) > sum(before.values())  # the run asked the other services
