"""The cyclic collector held off while a parser makes a batch's records (pubfetch/extract/gcpause.py): back as it was
found afterwards, an error or not, and never turned on when a program turned it off."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from pubfetch.extract.gcpause import collection_paused
from pubfetch.extract.pubmed import parse_pubmed_xml

_SET = (b"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>T</ArticleTitle>"
        b"</Article></MedlineCitation></PubmedArticle></PubmedArticleSet>")


@pytest.fixture
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_in_the_block_and_on_again_after_it(collector_restored: None) -> None:
    gc.enable()
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), collection_paused():
        raise ValueError("a parse that fails")
    assert gc.isenabled()


def test_a_collector_turned_off_stays_off(collector_restored: None) -> None:
    gc.disable()
    with collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()
    assert parse_pubmed_xml(_SET)[0].pmid == "1"
    assert not gc.isenabled()


def test_a_pubmed_parse_leaves_the_collector_on(collector_restored: None) -> None:
    gc.enable()
    assert parse_pubmed_xml(_SET)[0].title == "T"
    assert gc.isenabled()
