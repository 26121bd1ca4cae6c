"""The search answers read for their IDs, on the recorded answers of ../shared/corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.extract.errors import ParseError, ServiceError
from pubfetch.extract.searchpages import parse_esearch, parse_esummary_ids, parse_idlist_page


def body(corpus: Path, name: str) -> bytes:
    return (corpus / "files" / name).read_bytes()


def test_a_recorded_idlist_page_gives_each_hits_ids_together_and_the_next_cursor(corpus_dir: Path) -> None:
    page = parse_idlist_page(body(corpus_dir, "europepmc_search/pyepmc_search_cancer_idlist.json"))
    assert page.hit_count == 5059039 and page.next_cursor == "AoIIP4ZawSg1MzEyODI1MA=="
    assert page.hits == 25 and len(page.ids) + len(page.without_ids) == 25
    assert page.ids[0].pmid == "39709209" and not page.ids[0].pmcid
    assert (page.ids[1].pmid, page.ids[1].pmcid) == ("39709208", "PMC12124214")


def test_a_recorded_esearch_with_the_history_server_gives_count_webenv_and_pmids(corpus_dir: Path) -> None:
    answer = parse_esearch(body(corpus_dir, "eutils_esearch/eutils-esearch-pubmed-usehistory-reldate.xml"))
    assert (answer.count, answer.query_key, answer.web_env) == (42249, "1", "MCID_6927d6e7fee3e90f880ec190")
    assert len(answer.pmids) == 100 and answer.pmids[0] == "41297076"
    none = parse_esearch(body(corpus_dir, "eutils_esearch/eutils-esearch-protein-no-hits.xml"))
    assert none.count == 0 and none.pmids == [] and none.web_env == ""


def test_a_recorded_esummary_gives_the_pmids_of_its_docsums(corpus_dir: Path) -> None:
    ids = parse_esummary_ids(body(corpus_dir, "eutils_esummary/eutils-esummary-pubmed-two-ids.xml"))
    assert [i.pmid for i in ids] == ["11850928", "11482001"]


def test_esummary_article_ids_give_pmcid_and_doi() -> None:
    text = ('<eSummaryResult><DocSum><Id>1</Id><Item Name="DOI" Type="String">10.1/a</Item>'
            '<Item Name="ArticleIds" Type="List"><Item Name="pubmed" Type="String">1</Item>'
            '<Item Name="pmc" Type="String">PMC7</Item></Item></DocSum></eSummaryResult>')
    (ids,) = parse_esummary_ids(text)
    assert (ids.pmid, ids.pmcid, ids.doi) == ("1", "PMC7", "10.1/A")


@pytest.mark.parametrize("text, error", [
    ('{"errMsg": "bad query"}', ServiceError),
    ('{"version": "6.9"}', ParseError),
    ("<eSearchResult><ERROR>Invalid query</ERROR></eSearchResult>", ServiceError),
    ("<html>busy</html>", ParseError),
])
def test_answers_that_are_not_pages_of_hits_are_errors(text: str, error: type[Exception]) -> None:
    parse = parse_idlist_page if text.startswith("{") else parse_esearch
    with pytest.raises(error):
        parse(text)
