"""Rejected and unverified sites in both stores: kept as the entry's ``rejectedSites`` and ``unverifiedSites``."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.model.identity import Reason
from pubfetch.store import init_store, open_store
from support.publications import checked_publication


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(tmp_path / "checked.db") if request.param == "sqlite" else request.getfixturevalue("pg_url")


def test_rejected_and_unverified_sites_round_trip_through_the_store(target: str) -> None:
    pub = checked_publication()
    with init_store(target) as store:
        assert store.put_publication(pub)
    with open_store(target) as store:
        again = store.get_publication("10.5555/identity.redirect")
    assert again is not None
    assert again.rejected_sites == pub.rejected_sites and again.unverified_sites == pub.unverified_sites
    assert again.rejected_sites[0].reason is Reason.ID and again.rejected_sites[0].doi == "10.1371/JOURNAL.PONE.0213978"
