"""The library says when it failed: FetchError, errors="skip"|"raise", a database created on first use, a short repr
and a problems summary for partial results."""

from __future__ import annotations

import io
import logging
import socket
import warnings
from pathlib import Path

import pytest

import pubfetch
from pubfetch.ids import InvalidId, classify
from pubfetch.store import open_store
from support.loopback import LoopbackServer
from support.synthetic import Article, SyntheticServices


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_fetch_raises_fetch_error_with_the_publication_when_every_service_is_unreachable(
        env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    down = f"http://127.0.0.1:{_closed_port()}"
    for name in ("EUROPEPMC", "EUROPEPMC_ANNOTATIONS", "EUTILS", "PUBMED", "DOI", "UNPAYWALL"):
        monkeypatch.setenv(f"PUBFETCH_{name}_URL", f"{down}/{name.lower()}/")
    db = env / "new" / "pubs.db"
    db.parent.mkdir()
    with pytest.raises(pubfetch.FetchError) as info:
        pubfetch.fetch("22338609", db=db)
    pub = info.value.publication
    assert pub.pmid.content == "22338609" and pub.title.content == "" and pub.state.fetch_exception
    assert str(info.value).startswith("nothing could be fetched for 22338609: the requests failed: transient (")
    assert str(info.value).endswith("the network or the services may be down or busy: fetching again later may work")
    assert set(info.value.failures) == {"transient"}
    with open_store(db) as store:  # the database did not exist: it was created, and the attempt is recorded
        stored = store.get_publication(pub.ids)
    assert stored is not None and stored.state.fetch_exception and stored.state.fetch_time > 0


def test_fetch_error_says_not_found_when_every_service_answered_404(env: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every service answering 404 is not a network problem: the error names what came back and says to check the
    ID, not that the network is down."""
    with LoopbackServer({}) as server:  # every path: 404
        for name in ("EUROPEPMC", "EUROPEPMC_ANNOTATIONS", "EUTILS", "PUBMED", "DOI", "UNPAYWALL"):
            monkeypatch.setenv(f"PUBFETCH_{name}_URL", server.url(f"/{name.lower()}/"))
        with pytest.raises(pubfetch.FetchError) as info:
            pubfetch.fetch("22338609", db=env / "pubs.db", allow_private_addresses=True)
    message = str(info.value)
    assert message.startswith("nothing could be fetched for 22338609: the requests failed: not found ("), message
    assert "transient" not in message and "network" not in message and "busy" not in message
    assert message.endswith("the services do not know this ID or refused it: check it")
    assert set(info.value.failures) == {"not found"}


def test_a_missing_e_mail_is_one_python_warning_per_process_not_one_per_call(
        services: SyntheticServices, monkeypatch: pytest.MonkeyPatch) -> None:
    """Library calls warn the Python way: a PubfetchWarning (its category is the prefix Python prints, and it can be
    filtered), shown once however many calls make it."""
    for name in ("PUBFETCH_NCBI_EMAIL", "PUBFETCH_UNPAYWALL_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")  # Python's own: once per place and text
        for i in (0, 1, 2):
            pubfetch.fetch(Article(i).pmid)
    ours = [w for w in seen if issubclass(w.category, pubfetch.PubfetchWarning)]
    assert sorted(str(w.message).split(":")[0] for w in ours) == [
        "NCBI E-utilities are asked without an e-mail address", "Unpaywall is asked without an e-mail address and may "
        "refuse"]


def test_a_partial_result_is_returned_with_its_problems(services: SyntheticServices) -> None:
    pub = pubfetch.fetch(Article(1).pmid)  # closed access: no full text anywhere
    assert pub.title.content == Article(1).title
    assert pub.status(pubfetch.FetcherArgs()) == "non-final"
    assert pub.problems() == ["no fulltext"]
    text = repr(pub)
    assert text == (f"<Publication {Article(1).pmid}, 10.5555/SYNTH.1: {Article(1).title!r}; final: title keywords "
                    f"mesh abstract>")
    assert pubfetch.fetch(Article(0).pmid).problems() == []


def test_fetch_many_skips_an_invalid_id_with_a_warning_or_raises_when_asked(
        services: SyntheticServices, caplog: pytest.LogCaptureFixture) -> None:
    ids = [Article(0).pmid, "PMC-not-an-id", Article(2).pmid]
    with pytest.raises(InvalidId) as invalid:
        classify("PMC-not-an-id")
    reason = str(invalid.value)
    with caplog.at_level(logging.WARNING, logger="pubfetch"):
        pubs = list(pubfetch.fetch_many(ids))
    assert [p.pmid.content for p in pubs] == [Article(0).pmid, Article(2).pmid]
    assert [r.getMessage() for r in caplog.records if r.name == "pubfetch.engine.run_batch"] == [
        f"skipping 'PMC-not-an-id': {reason}"]
    with pytest.raises(InvalidId):
        list(pubfetch.fetch_many(ids, errors="raise"))
    with pytest.raises(ValueError, match="errors must be 'skip' or 'raise'"):
        list(pubfetch.fetch_many(ids, errors="ignore"))


def test_fetch_many_reads_the_lines_of_an_id_file(services: SyntheticServices,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    lines = io.StringIO(f"# two papers\n\n{Article(0).pmid}\n  {Article(2).pmid}  \n")
    with caplog.at_level(logging.WARNING, logger="pubfetch"):
        pubs = list(pubfetch.fetch_many(lines))
    assert [p.pmid.content for p in pubs] == [Article(0).pmid, Article(2).pmid]
    assert [r for r in caplog.records if r.name == "pubfetch.engine.run_batch"] == []
