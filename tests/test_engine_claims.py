"""Claims: a paper given more than once (by PMID, PMCID or DOI) in the batches in flight together is held by the
publication that claimed it first; the others stop as the same publication."""

from __future__ import annotations

from pubfetch.engine.claims import Claims, identity_keys
from pubfetch.engine.run_batch import init_publication
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.model.publication import Publication
from pubfetch.resources.pubstate import PubState

ARGS = FetcherArgs()


def state_of(pmid: str = "", pmcid: str = "", doi: str = "") -> PubState:
    return PubState(init_publication(PublicationIds(pmid, pmcid, doi), ARGS))


def test_identity_keys_name_each_id_and_fold_the_dois_case() -> None:
    state = state_of("123", "PMC45", "10.1000/ABC")
    assert identity_keys(state.pub) == ["pmid:123", "pmcid:pmc45", "doi:10.1000/abc"]
    assert identity_keys(Publication()) == []


def test_a_paper_given_twice_in_one_batch_is_held_by_the_first() -> None:
    first, again, other = state_of("123", doi="10.1000/abc"), state_of(doi="10.1000/ABC"), state_of("456")
    Claims().claim([first, again, other], batch=1)
    assert again.same_as is first.pub and not again.keep_going
    assert first.same_as is None and first.keep_going
    assert other.same_as is None and other.keep_going


def test_claims_reach_the_next_batch_in_flight_until_forgotten() -> None:
    claims = Claims()
    first = state_of("123")
    claims.claim([first], batch=1)
    second = state_of("123")
    claims.claim([second], batch=2)
    assert second.same_as is first.pub
    claims.forget(1)
    third = state_of("123")
    claims.claim([third], batch=3)
    assert third.same_as is None and third.keep_going


def test_claiming_a_publication_again_does_not_mark_it_as_its_own_duplicate() -> None:
    claims = Claims()
    state = state_of("123")
    claims.claim([state], batch=1)
    claims.claim([state], batch=1)
    assert state.same_as is None and state.keep_going
