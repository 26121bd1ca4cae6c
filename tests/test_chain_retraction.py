"""Retraction through the chain: PubMed and Europe PMC each set and clear only their own flag, run after run through
the database, and a publisher page's ``citation_article_type`` (on the DOI's page or on a copy Unpaywall lists) marks
nothing."""

from __future__ import annotations

from pathlib import Path

from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.model.retraction import RetractionSource
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import site
from support.fetchrun import fetch_run
from support.synthetic import Article, SyntheticServices

RETRACTED_TYPE = "<PublicationTypeList><PublicationType>Retracted Publication</PublicationType></PublicationTypeList>"


class Retracting(SyntheticServices):
    """The synthetic services, where PubMed's record and Europe PMC's search result say what ``pubmed_says`` and
    ``europepmc_says`` hold (the PMIDs each marks retracted), as each writes it."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.pubmed_says: set[str] = set()
        self.europepmc_says: set[str] = set()

    def pubmed_xml(self, a: Article) -> str:
        xml = super().pubmed_xml(a)
        return xml.replace("</AuthorList></Article>", "</AuthorList>" + RETRACTED_TYPE + "</Article>") \
            if a.pmid in self.pubmed_says else xml

    def search_record(self, a: Article) -> dict:
        record = super().search_record(a)
        if a.pmid in self.europepmc_says:
            record["pubTypeList"] = {"pubType": ["Journal Article", "Retracted Publication"]}
        return record


CLOSED = Article(1)  # no full text: fetched again on the next run (a retry of a non-final entry)


def _run(services: Retracting, db: Path) -> Publication:
    [pub] = fetch_run(services).fetch([CLOSED.pmid], db=str(db))
    return pub


def test_pubmed_sets_its_flag_and_a_later_pubmed_answer_clears_it(tmp_path: Path) -> None:
    services = Retracting(2)
    services.pubmed_says.add(CLOSED.pmid)
    first = _run(services, tmp_path / "r.db")
    assert services.counts["efetch_pubmed"] >= 1
    assert first.retracted and first.retraction.sources() == [RetractionSource.pubmed]
    services.pubmed_says.clear()  # the record is no longer marked retracted
    again = _run(services, tmp_path / "r.db")
    assert not again.retracted
    assert again.to_json()["retractionFlags"] == {"europepmc": False, "pubmed": False}


def test_europe_pmcs_flag_is_independent_of_pubmeds(tmp_path: Path) -> None:
    services = Retracting(2)
    services.pubmed_says.add(CLOSED.pmid)
    services.europepmc_says.add(CLOSED.pmid)
    both = _run(services, tmp_path / "r.db")
    assert both.retraction.sources() == [RetractionSource.europepmc, RetractionSource.pubmed]
    services.pubmed_says.clear()
    europepmc_only = _run(services, tmp_path / "r.db")
    assert europepmc_only.retracted and europepmc_only.retraction.sources() == [RetractionSource.europepmc]
    services.europepmc_says.clear()
    services.pubmed_says.add(CLOSED.pmid)
    pubmed_only = _run(services, tmp_path / "r.db")
    assert pubmed_only.retracted and pubmed_only.retraction.sources() == [RetractionSource.pubmed]


def _page(a: Article) -> bytes:
    return (f'<html><head><meta name="citation_title" content="{a.title}"><meta name="citation_doi" content="{a.doi}">'
            '<meta name="citation_article_type" content="Retracted Publication"></head>'
            f"<body><h1>{a.title}</h1><p>{a.abstract}</p></body></html>").encode()


def test_a_pages_citation_article_type_never_marks_it_retracted() -> None:
    """Neither the DOI's page (the publisher's) nor a copy elsewhere that Unpaywall lists."""
    article = Article(3)
    for url, part_type in (("https://publisher.example/article/3", PartType.doi),
                           ("https://copies.example/3.html", PartType.link_oadoi)):
        run = fetch_run(4, answers={url: Canned(200, _page(article), "text/html; charset=utf-8")})
        state = run.pub_state(article.doi)
        with run.context() as ctx:
            site.fetch_site(ctx, state, url, part_type, "https://doi.org/" + article.doi, meta=True, keywords=True)
        pub = state.pub
        assert pub.title.url == url  # the page was read and merged
        assert pub.pub_types == ["Retracted Publication"]  # what it says of itself is kept as its type
        assert not pub.retracted and pub.to_json()["retractionFlags"] == {}
