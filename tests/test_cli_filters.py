"""ID filters and content filters: each option keeps exactly the entries PubFetcher's semantics say it keeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import CorrespAuthor, FetchState, MeshTerm, PartType, Publication, VisitedSite, Webpage
from pubfetch.model.retraction import RetractionSource, RetractionVerdict
from pubfetch.model.timefmt import parse_instant
from pubfetch.output.writer import format_entries
from support.cli import Cli
from support.publications import checked_publication

MS = parse_instant


def _p1() -> Publication:
    a = FetcherArgs()
    p = Publication(clock=lambda: MS("2021-06-01"))
    src = "https://www.ebi.ac.uk/europepmc/webservices/rest/search?query=ext_id:1"
    p.set_pmid("1", PartType.europepmc, src, a)
    p.set_title("Alpha tool for sequence alignment", PartType.europepmc, src, a)
    p.set_keywords(["alignment", "sequence"], PartType.europepmc, src, a)
    p.set_mesh([MeshTerm("Humans", False, "D006801")], PartType.pubmed_xml, src, a)
    p.set_abstract("An abstract. " * 20, PartType.europepmc, src, a)
    p.set_fulltext("Full text. " * 250, PartType.europepmc_xml, "https://academic.oup.com/x/fulltext", a)
    p.state = FetchState(MS("2021-06-01"), 0, False)
    p.oa = True
    p.journal_title = "Bioinformatics"
    p.set_pub_date("2020-01-01")
    p.citations_count, p.citations_timestamp = 10, MS("2021-01-01")
    p.corresp_author = [CorrespAuthor(name="Ann Author", email="ann@example.org")]
    p.visited_sites = [VisitedSite("https://www.academic.oup.com/x", PartType.doi, "https://doi.org/10.1/x",
                                   MS("2021-06-01"))]
    return p


def _p2() -> Publication:
    a = FetcherArgs()
    p = Publication(clock=lambda: MS("2022-01-01"))
    page = "https://www.biorxiv.org/content/10.1101/2"
    p.set_pmid("2", PartType.external, "pubfetch 0.1.0", a)
    p.set_pmcid("PMC2", PartType.external, "pubfetch 0.1.0", a)
    p.set_title("Beta", PartType.doi, page, a)
    p.set_abstract("Short abstract from Open Graph.", PartType.og, page, a)
    p.state = FetchState(MS("2022-01-01"), 2, True)
    p.preprint = True
    p.set_pub_date("2022-05-05")
    p.citations_count, p.citations_timestamp = 0, MS("2022-01-01")
    p.corresp_author = [CorrespAuthor(orcid="https://orcid.org/0000-0002-1825-0097")]
    p.visited_sites = [VisitedSite(page + ".full.pdf", PartType.pdf_doi, page, MS("2022-01-01")),
                       VisitedSite(page, PartType.link_oadoi, "https://api.unpaywall.org/v2/10.1101/2",
                                   MS("2022-01-02"))]
    return p


def _p3() -> Publication:
    p = Publication(clock=lambda: 0)
    p.set_doi("10.1000/xyz", PartType.external, "pubfetch 0.1.0", FetcherArgs())
    return p


W1 = Webpage(start_url="https://www.example.org/tool", final_url="https://www.example.org/tool", status_code=200,
             content_type="text/html", title="Tool", content="A tool that does things. " * 4, license="MIT",
             language="Python", content_time=MS("2023-03-03"), state=FetchState(MS("2023-03-03"), 0, False))
W2 = Webpage(start_url="http://example.com/x", state=FetchState(MS("2023-04-04"), 1, True))
D1 = Webpage(start_url="https://docs.example.org/", final_url="https://docs.example.org/", status_code=200,
             content_type="text/html; charset=UTF-8", title="Docs", content="Documentation of the tool, at length.",
             state=FetchState(MS("2023-05-05"), 0, False))


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("filters") / "entries.json"
    path.write_text(format_entries([_p3(), _p1(), _p2()], [W1, W2], [D1], fmt="json"), encoding="utf-8")
    return path


def _name(obj: dict) -> str:
    return obj.get("startUrl") or obj.get("pmid") or obj.get("doi")


@pytest.fixture
def kept(entries: Path, cli: Cli):
    """Run the filter options over all fixture entries and return the names of the entries kept (PMID, DOI or URL)."""

    def run(*options: str, kinds: tuple[str, ...] = ("pub", "web", "doc")) -> list[str]:
        argv = [a for k in kinds for a in (f"-{k}-json", str(entries))]
        code, out, err = cli(*argv, *options, "-out", "--format", "jsonl", "--plain")
        assert (code, err) == (0, ""), err
        return [_name(json.loads(line)) for line in out.splitlines()]

    return run


def pubs(kept, *options: str) -> list[str]:
    return kept(*options, kinds=("pub",))


# --- ID filters ------------------------------------------------------------------------------------------------------


def test_no_filter_keeps_everything_in_order(kept) -> None:
    assert kept() == ["10.1000/XYZ", "1", "2", "https://www.example.org/tool", "http://example.com/x",
                      "https://docs.example.org/"]


def test_id_presence_and_regex_filters(kept) -> None:
    assert pubs(kept, "-has-pmid") == ["1", "2"]
    assert pubs(kept, "-not-has-pmid") == ["10.1000/XYZ"]
    assert pubs(kept, "-has-pmcid") == ["2"]
    assert pubs(kept, "-not-has-doi", "-not-has-pmcid") == ["1"]
    assert pubs(kept, "-pmid", "^1$") == ["1"]
    assert pubs(kept, "-not-pmid", "1") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-pmid-url", "europepmc") == ["1"]
    assert pubs(kept, "-not-pmcid-url", "pubfetch") == ["10.1000/XYZ", "1"]
    assert pubs(kept, "-doi", "XYZ") == ["10.1000/XYZ"]
    assert pubs(kept, "-doi-registrant", "1000", "1093") == ["10.1000/XYZ"]
    assert pubs(kept, "-not-doi-registrant", "1000") == ["1", "2"]


def test_url_filters(kept) -> None:
    assert kept("-url", "example\\.org") == ["10.1000/XYZ", "1", "2", "https://www.example.org/tool",
                                              "https://docs.example.org/"]
    assert kept("-not-url", "^https", kinds=("web", "doc")) == ["http://example.com/x"]
    assert kept("-url-host", "EXAMPLE.org", "www.example.com", kinds=("web", "doc")) == [
        "https://www.example.org/tool", "http://example.com/x"]
    assert kept("-not-url-host", "example.org", kinds=("web", "doc")) == ["http://example.com/x",
                                                                         "https://docs.example.org/"]


def test_in_db_filters(kept, entries: Path, tmp_path: Path, cli: Cli) -> None:
    db = tmp_path / "some.db"
    assert cli("-db-init", db, "-pub-json", entries, "-web-json", entries, "-pmid", "^1$", "-url", "tool",
               "-put", db).code == 0
    assert kept("-in-db", str(db)) == ["1", "https://www.example.org/tool"]
    assert kept("-not-in-db", str(db)) == ["10.1000/XYZ", "2", "http://example.com/x", "https://docs.example.org/"]


# --- content filters ------------------------------------------------------------------------------------------------


def test_state_filters(kept) -> None:
    assert kept("-fetch-time-more", "2022-01-01T00:00:00Z") == ["2", "https://www.example.org/tool",
                                                                "http://example.com/x", "https://docs.example.org/"]
    assert kept("-fetch-time-less", "2021-06-01") == ["10.1000/XYZ", "1"]
    assert kept("-retry-counter", "1", "2") == ["2", "http://example.com/x"]
    assert kept("-not-retry-counter", "0") == ["2", "http://example.com/x"]
    assert kept("-retry-counter-more", "1") == ["2"]
    assert kept("-retry-counter-less", "1") == ["10.1000/XYZ", "1", "https://www.example.org/tool",
                                                "https://docs.example.org/"]
    assert kept("-fetch-exception") == ["2", "http://example.com/x"]
    assert kept("-not-fetch-exception", kinds=("pub",)) == ["10.1000/XYZ", "1"]


def test_finality_filters(kept) -> None:
    assert kept("-empty") == ["10.1000/XYZ", "http://example.com/x"]
    assert kept("-not-empty") == ["1", "2", "https://www.example.org/tool", "https://docs.example.org/"]
    assert kept("-usable") == ["1", "2", "https://www.example.org/tool"]
    assert kept("-not-usable") == ["10.1000/XYZ", "http://example.com/x", "https://docs.example.org/"]
    assert kept("-final") == ["1", "https://www.example.org/tool"]
    assert pubs(kept, "-not-final") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-totally-final") == []
    assert pubs(kept, "-not-totally-final") == ["10.1000/XYZ", "1", "2"]


def test_grep(kept) -> None:
    assert kept("-grep", "(?i)alpha|tool that") == ["1", "https://www.example.org/tool"]
    assert kept("-not-grep", "[Tt]ool") == ["10.1000/XYZ", "2", "http://example.com/x"]


def test_publication_filters(kept) -> None:
    assert pubs(kept, "-oa") == ["1"]
    assert pubs(kept, "-not-oa") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-preprint") == ["2"]
    assert pubs(kept, "-journal-title", "^Bio") == ["1"]
    assert pubs(kept, "-journal-title-empty") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-pub-date-more", "2020-01-01T00:00:00Z") == ["1", "2"]
    assert pubs(kept, "-pub-date-less", "2021-12-31") == ["10.1000/XYZ", "1"]
    assert pubs(kept, "-citations-count", "0") == ["2"]
    assert pubs(kept, "-not-citations-count", "0", "10") == ["10.1000/XYZ"]
    assert pubs(kept, "-citations-count-more", "-1") == ["1", "2"]
    assert pubs(kept, "-citations-count-less", "0") == ["10.1000/XYZ"]
    assert pubs(kept, "-citations-timestamp-more", "2021-01-01") == ["1", "2"]


def test_corresponding_author_filters(kept) -> None:
    assert pubs(kept, "-corresp-author-name", "Ann") == ["1"]
    assert pubs(kept, "-not-corresp-author-name", "Ann") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-corresp-author-name-empty") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-not-corresp-author-name-empty") == ["1"]
    assert pubs(kept, "-corresp-author-orcid", "0000-0002") == ["2"]
    assert pubs(kept, "-corresp-author-email", "@example") == ["1"]
    assert pubs(kept, "-not-corresp-author-email-empty") == ["1"]
    assert pubs(kept, "-corresp-author-phone-empty") == ["10.1000/XYZ", "1", "2"]
    assert pubs(kept, "-corresp-author-size", "0") == ["10.1000/XYZ"]
    assert pubs(kept, "-not-corresp-author-size", "0") == ["1", "2"]
    assert pubs(kept, "-corresp-author-size-more", "0") == ["1", "2"]


def test_visited_site_filters(kept) -> None:
    assert pubs(kept, "-visited", "oup") == ["1"]
    assert pubs(kept, "-not-visited", "oup") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-visited-host", "academic.oup.com") == ["1"]
    assert pubs(kept, "-not-visited-host", "biorxiv.org") == ["10.1000/XYZ", "1"]
    assert pubs(kept, "-visited-type", "pdf_doi", "oadoi") == ["2"]
    assert pubs(kept, "-not-visited-type", "doi") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-visited-type-more", "citation") == ["1", "2"]
    assert pubs(kept, "-visited-type-more", "link") == [], "final types are not better than one another"
    assert pubs(kept, "-visited-type-less", "citation") == ["2"]
    assert pubs(kept, "-visited-type-final") == ["1", "2"]
    assert pubs(kept, "-not-visited-type-final") == ["10.1000/XYZ"]
    assert pubs(kept, "-visited-type-pdf") == ["2"]
    assert pubs(kept, "-not-visited-type-pdf") == ["10.1000/XYZ", "1"]
    assert pubs(kept, "-visited-from", "unpaywall") == ["2"]
    assert pubs(kept, "-visited-from-host", "doi.org") == ["1"]
    assert pubs(kept, "-visited-time-more", "2022-01-02") == ["2"]
    assert pubs(kept, "-visited-time-less", "2021-06-01") == ["1"]
    assert pubs(kept, "-visited-size", "2") == ["2"]
    assert pubs(kept, "-not-visited-size", "0") == ["1", "2"]
    assert pubs(kept, "-visited-size-more", "0") == ["1", "2"]
    assert pubs(kept, "-visited-size-less", "2") == ["10.1000/XYZ", "1"]


def test_part_filters(kept) -> None:
    assert pubs(kept, "-part-empty", "fulltext") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-not-part-empty", "title", "abstract") == ["1", "2"]
    assert pubs(kept, "-part-usable", "abstract") == ["1"]
    assert pubs(kept, "-not-part-usable", "fulltext", "keywords") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-part-final", "title", "theAbstract") == ["1"]
    assert pubs(kept, "-not-part-final", "pmid") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-part-content", "Alpha", "-part-content-part", "title") == ["1"]
    assert pubs(kept, "-part-content", "^Humans$", "-part-content-part", "mesh") == ["1"]
    assert pubs(kept, "-not-part-content", "Alpha", "-not-part-content-part", "title", "abstract") == [
        "10.1000/XYZ", "2"]
    assert pubs(kept, "-part-size", "0", "-part-size-part", "fulltext", "keywords") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-not-part-size", "0", "-not-part-size-part", "title") == ["1", "2"]
    assert pubs(kept, "-part-size-more", "100", "-part-size-more-part", "abstract", "fulltext") == ["1"]
    assert pubs(kept, "-part-size-less", "5", "-part-size-less-part", "title") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-part-type", "og", "-part-type-part", "abstract") == ["2"]
    assert pubs(kept, "-not-part-type", "na", "-not-part-type-part", "title") == ["1", "2"]
    assert pubs(kept, "-part-type-more", "webpage", "-part-type-more-part", "title") == ["1", "2"]
    assert pubs(kept, "-part-type-less", "europepmc", "-part-type-less-part", "title") == ["10.1000/XYZ"]
    assert pubs(kept, "-part-type-final", "-part-type-final-part", "title") == ["1", "2"]
    assert pubs(kept, "-not-part-type-final", "-not-part-type-final-part", "abstract") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-part-type-pdf", "-part-type-pdf-part", "title") == []
    assert pubs(kept, "-part-url", "oup", "-part-url-part", "fulltext") == ["1"]
    assert pubs(kept, "-part-url-host", "www.ebi.ac.uk", "-part-url-host-part", "title") == ["1"]
    assert pubs(kept, "-not-part-url-host", "ebi.ac.uk", "-not-part-url-host-part", "title") == ["10.1000/XYZ", "2"]
    assert pubs(kept, "-part-time-more", "2021-06-01", "-part-time-more-part", "title") == ["1", "2"]
    assert pubs(kept, "-part-time-less", "2021-12-31", "-part-time-less-part", "pmid") == ["10.1000/XYZ", "1"]


def test_webpage_filters(kept) -> None:
    web = ("web", "doc")
    assert kept("-broken", kinds=web) == ["http://example.com/x"]
    assert kept("-not-broken", kinds=web) == ["https://www.example.org/tool", "https://docs.example.org/"]
    assert kept("-start-url", "^https", kinds=web) == ["https://www.example.org/tool", "https://docs.example.org/"]
    assert kept("-start-url-host", "example.org", kinds=web) == ["https://www.example.org/tool"]
    assert kept("-final-url", "docs", kinds=web) == ["https://docs.example.org/"]
    assert kept("-not-final-url-host", "docs.example.org", kinds=web) == ["https://www.example.org/tool",
                                                                         "http://example.com/x"]
    assert kept("-final-url-empty", kinds=web) == ["http://example.com/x"]
    assert kept("-content-type", "(?i)utf-8", kinds=web) == ["https://docs.example.org/"]
    assert kept("-not-content-type-empty", kinds=web) == ["https://www.example.org/tool", "https://docs.example.org/"]
    assert kept("-status-code", "200", kinds=web) == ["https://www.example.org/tool", "https://docs.example.org/"]
    assert kept("-not-status-code", "200", kinds=web) == ["http://example.com/x"]
    assert kept("-status-code-less", "200", kinds=web) == ["http://example.com/x"]
    assert kept("-status-code-more", "199", kinds=web) == ["https://www.example.org/tool",
                                                            "https://docs.example.org/"]
    assert kept("-title", "^T", kinds=web) == ["https://www.example.org/tool"]
    assert kept("-title-size", "4", kinds=web) == ["https://www.example.org/tool", "https://docs.example.org/"]
    assert kept("-title-size-less", "1", kinds=web) == ["http://example.com/x"]
    assert kept("-content", "length", kinds=web) == ["https://docs.example.org/"]
    assert kept("-content-size-more", "50", kinds=web) == ["https://www.example.org/tool"]
    assert kept("-not-content-size", "0", kinds=web) == ["https://www.example.org/tool", "https://docs.example.org/"]
    assert kept("-content-time-more", "2023-03-03", kinds=web) == ["https://www.example.org/tool"]
    assert kept("-license", "MIT", kinds=web) == ["https://www.example.org/tool"]
    assert kept("-license-empty", kinds=web) == ["http://example.com/x", "https://docs.example.org/"]
    assert kept("-language", "Py", kinds=web) == ["https://www.example.org/tool"]
    assert kept("-not-language-empty", kinds=web) == ["https://www.example.org/tool"]


def test_filters_combine(kept) -> None:
    assert kept("-not-empty", "-usable", "-not-oa", "-not-broken") == ["2", "https://www.example.org/tool"]


def test_limit_before_or_after_filters(kept) -> None:
    """Without --pre-filter the limit applies first (PubFetcher's rule); with it, only passing entries count."""
    assert pubs(kept, "--limit", "1", "-usable") == []
    assert pubs(kept, "--limit", "1", "-usable", "--pre-filter") == ["1"]
    assert pubs(kept, "--limit", "2", "-oa", "--pre-filter") == ["1"]


def test_has_scrape_needs_scraping_rules(entries: Path, cli: Cli) -> None:
    assert cli("-web-json", entries, "-has-scrape", "-out") == (
        2, "", "pubfetch: error: operation -has-scrape needs the scraping rules, which is not available in this version\n")


def test_rejected_and_unverified_site_filters(tmp_path: Path, cli: Cli) -> None:
    path = tmp_path / "checked.json"
    path.write_text(format_entries([checked_publication(), _p1()], [], [], fmt="json"), encoding="utf-8")

    def kept_pubs(*options: str) -> list[str]:
        code, out, err = cli("-pub-json", str(path), *options, "-out", "--format", "jsonl", "--plain")
        assert (code, err) == (0, ""), err
        return [_name(json.loads(line)) for line in out.splitlines()]

    assert kept_pubs("-rejected", ".") == ["10.5555/IDENTITY.REDIRECT"]
    assert kept_pubs("-rejected", "journals\\.plos\\.org") == ["10.5555/IDENTITY.REDIRECT"]
    assert kept_pubs("-rejected", "nature\\.com") == []
    assert kept_pubs("-not-rejected", ".") == ["1"]
    assert kept_pubs("-unverified", "old\\.example\\.org") == ["10.5555/IDENTITY.REDIRECT"]
    assert kept_pubs("-not-unverified", ".") == ["1"]


def test_retracted_filter(tmp_path: Path, cli: Cli) -> None:
    """A paper marked retracted (from any source's flag or notice) is kept by -retracted, left out by -not-retracted."""
    retracted = _p3()
    retracted.set_retraction(RetractionVerdict(RetractionSource.crossref, True))
    path = tmp_path / "retracted.json"
    path.write_text(format_entries([retracted, _p1(), _p2()], [], [], fmt="json"), encoding="utf-8")

    def kept_pubs(*options: str) -> list[str]:
        code, out, err = cli("-pub-json", str(path), *options, "-out", "--format", "jsonl", "--plain")
        assert (code, err) == (0, ""), err
        return [_name(json.loads(line)) for line in out.splitlines()]

    assert kept_pubs("-retracted") == ["10.1000/XYZ"]
    assert kept_pubs("-not-retracted") == ["1", "2"]
