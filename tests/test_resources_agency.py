"""DOI registration agencies: doi.org's answer read, looked up once per prefix, and kept in the database between
runs (the replay answers ``doi.org/ra/`` for the prefixes of the recorded works)."""

from __future__ import annotations

import json

import pytest

from pubfetch.extract.errors import ParseError
from pubfetch.resources.agency import prefix_of, read_agencies
from support.replayrun import fetch_all
from support.scholarly_runs import CROSSREF_DOIS, SCHOLARLY_ON

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
