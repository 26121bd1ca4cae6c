"""DOI registration agencies: doi.org's answer read, looked up once per prefix, and kept in the database between
runs (the replay answers ``doi.org/ra/`` for the prefixes of the recorded works)."""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import pytest

from pubfetch.extract.errors import ParseError
from pubfetch.model.publication import Publication
from pubfetch.resources.agency import agency_of, fetch_agencies, prefix_of, read_agencies
from pubfetch.resources.base import Lookups
from pubfetch.resources.pubstate import PubState
from support.replayrun import fetch_all
from support.scholarly_runs import CROSSREF_DOIS, SCHOLARLY_ON
from support.waits import wait_until

ON = SCHOLARLY_ON


def test_read_agencies_by_prefix():
    answer = [{"DOI": "10.1101", "RA": "Crossref"}, {"DOI": "10.5061/dryad.8515", "RA": "DataCite"},
              {"DOI": "10.9999", "status": "DOI does not exist"}]
    assert read_agencies(json.dumps(answer).encode()) == {"10.1101": "crossref", "10.5061": "datacite"}
    assert prefix_of(" 10.1101/2024.04.01.587366") == "10.1101"
    with pytest.raises(ParseError):
        read_agencies(b'{"DOI": "10.1101"}')


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


def test_a_prefix_being_looked_up_is_not_asked_again_by_another_batch_of_the_run():
    """Two batches of a run reach the agency step while the first lookup of their prefix is out: the second waits for
    that answer and asks doi.org only for the prefix nobody is asking for."""
    asked: list[str] = []
    first_out, answer_first = threading.Event(), threading.Event()

    def get(url: str, headers: dict[str, str]) -> SimpleNamespace:
        asked.append(url)
        if len(asked) == 1:
            first_out.set()
            answer_first.wait(30)
        prefixes = url.rsplit("/", 1)[1].split(",")
        body = json.dumps([{"DOI": prefix, "RA": "Crossref"} for prefix in prefixes]).encode()
        return SimpleNamespace(ok=True, body=body)

    run = SimpleNamespace(ask_crossref=True, ask_datacite=False)
    ctx = SimpleNamespace(config=SimpleNamespace(run=run), endpoints=SimpleNamespace(doi="https://doi.test/"),
                          client=SimpleNamespace(get=get), agency_cache=None, doi_agencies={},
                          agency_lookups=Lookups())

    def batch(*dois: str) -> list[PubState]:
        states = [PubState(Publication()) for _ in dois]
        for state, doi in zip(states, dois, strict=True):
            state.pub.doi.content = doi
        return states

    first = threading.Thread(target=fetch_agencies, args=(ctx, batch("10.1101/a", "10.1101/b")))
    first.start()
    assert first_out.wait(30)
    second = threading.Thread(target=fetch_agencies, args=(ctx, batch("10.1101/c", "10.5061/d")))
    second.start()
    wait_until(lambda: len(asked) == 2, 30, "the second batch's own prefix asked")
    assert "10.1101" not in ctx.doi_agencies and second.is_alive()  # the second batch waits for the first's answer
    answer_first.set()
    first.join(30)
    second.join(30)
    assert asked == ["https://doi.test/ra/10.1101", "https://doi.test/ra/10.5061"]
    assert agency_of(ctx, "10.1101/c") == agency_of(ctx, "10.5061/d") == "crossref"  # type: ignore[arg-type]
