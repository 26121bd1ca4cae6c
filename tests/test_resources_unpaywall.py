"""Unpaywall's resource (pubfetch/resources/unpaywall.py) called directly, over the in-process transport: what an
answer gives a publication (open access, journal, title, licence, the open copies queued as links), the address never
recorded, and which failures make the entry retryable."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.model.part_type import PartType
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import unpaywall
from pubfetch.resources.base import PubfetchWarning
from pubfetch.resources.pubstate import PubFlag
from support.fetchrun import fetch_run

ANSWER = (Path(__file__).parent / "data" / "documents" / "unpaywall.json").read_text(encoding="utf-8")
DOI = "10.1234/example.2019.001"


def unpaywall_run(answer: Canned, **changes):
    run = fetch_run(1, **changes)
    run.transport.answers[run.services.base + "/unpaywall/*"] = answer
    return run


def test_an_answer_gives_open_access_journal_title_and_queues_the_open_copies() -> None:
    run = unpaywall_run(Canned(200, ANSWER, "application/json"))
    state = run.pub_state(DOI)
    with run.context() as ctx:
        unpaywall.fetch_unpaywall(ctx, [state])
        unpaywall.fetch_unpaywall(ctx, [state])  # asked once per fetch
    [sent] = run.transport.sent
    assert sent.url == run.services.base + "/unpaywall/" + DOI.upper()  # DOIs are kept upper-case
    pub = state.pub
    assert pub.oa and pub.journal_title == "Journal of Example Neuroscience"
    assert pub.title.content == "A Drosophila model of Ca2+ signalling" and pub.title.type is PartType.oadoi
    assert "email" not in pub.title.url  # the address is sent, never stored
    assert "https://repo.example.org/1/paper.pdf" in [link.url for link in state.links]
    assert state.has(PubFlag.OADOI)
    assert (pub.license.content, pub.license.type) == ("cc-by", PartType.oadoi)  # the best open location's
    assert "email" not in pub.license.url


def test_the_email_address_goes_with_the_request_and_its_absence_is_warned_about() -> None:
    run = unpaywall_run(Canned(200, ANSWER, "application/json"), oadoi_email="curator@example.org")
    with run.context() as ctx:
        unpaywall.fetch_unpaywall(ctx, [run.pub_state(DOI)])
    [sent] = run.transport.sent
    assert sent.url.endswith("?email=curator%40example.org")
    anonymous = unpaywall_run(Canned(200, ANSWER, "application/json"))  # PubFetcher's default "@": none
    with anonymous.context() as ctx, pytest.warns(PubfetchWarning, match="without an e-mail address"):
        unpaywall.fetch_unpaywall(ctx, [anonymous.pub_state(DOI)])
    [sent] = anonymous.transport.sent
    assert "email" not in sent.url


def test_an_unknown_doi_is_an_answer_and_a_busy_service_a_failure() -> None:
    unknown = unpaywall_run(Canned(404, '{"error": true}', "application/json"))
    gone = unknown.pub_state(DOI)
    with unknown.context() as ctx:
        unpaywall.fetch_unpaywall(ctx, [gone])
    assert not gone.pub.state.fetch_exception and not gone.again_flags
    busy = unpaywall_run(Canned(503, "busy", "text/plain"))
    waiting = busy.pub_state(DOI)
    with busy.context() as ctx:
        unpaywall.fetch_unpaywall(ctx, [waiting])
    assert waiting.pub.state.fetch_exception and waiting.again_flags == {PubFlag.OADOI}


def test_an_answer_that_is_not_unpaywalls_is_a_glitch_retried_later() -> None:
    run = unpaywall_run(Canned(200, "<html>maintenance</html>", "application/json"))
    state = run.pub_state(DOI)
    with run.context() as ctx:
        unpaywall.fetch_unpaywall(ctx, [state])
    assert state.pub.state.fetch_exception
    assert state.pub.title.is_empty() and not state.pub.oa


def test_a_publication_without_a_doi_is_not_asked() -> None:
    run = unpaywall_run(Canned(200, ANSWER, "application/json"))
    with run.context() as ctx:
        unpaywall.fetch_unpaywall(ctx, [run.pub_state("31114920")])
    assert run.transport.sent == []
