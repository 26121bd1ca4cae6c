"""The rules of Frontiers, F1000Research/Wellcome Open Research, PeerJ, Taylor & Francis, Thieme and Copernicus on
pages made in each platform's layouts, old and current (tests/data/pages/journals/), and on the recorded Taylor &
Francis page: title, structured abstract with its labels, keywords, and a body without back matter or references;
then each page read as a publication's DOI page (rule, generic reader for what the rule misses, merge)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubfetch.extract.clean import parse_html
from pubfetch.extract.scrape import scrape_journal
from pubfetch.model.part_type import PartType
from pubfetch.model.parts import CorrespAuthor
from pubfetch.model.record import ArticleRecord
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import site
from support.fetchrun import fetch_run
from support.journal_pages import PAGES, RULES, scrape


def body(record: ArticleRecord) -> str:
    """The full text without the title and abstract the scraper puts in front of it."""
    head = f"{record.title}\n\n{record.abstract}\n\n"
    assert record.fulltext.startswith(head)
    return record.fulltext[len(head):]


def pdf_links(record: ArticleRecord) -> list[str]:
    return [link.url for link in record.links if link.kind == "pdf"]


def test_frontiers_2024_layout() -> None:
    url = "https://www.frontiersin.org/journals/psychology/articles/10.3389/fpsyg.2024.1300123/full"
    r = scrape("frontiers_2024_article.html", url, "frontiers")
    assert r.doi == "10.3389/FPSYG.2024.1300123"
    assert r.title == "Sleep spindles predict word learning in children"
    assert r.keywords == ["sleep", "spindles", "word learning", "children"]
    assert r.abstract == (
        "Background: Children learn new words faster after sleep than after a day awake, but which part of sleep "
        "matters is unclear.\n\nMethods: Forty children aged 6 to 8 learned twelve invented words in the evening and "
        "were tested before and after a night recorded with polysomnography.\n\nResults: The density of fast spindles "
        "predicted the overnight gain in recall.")
    assert body(r) == (
        "1 Introduction\n\nSleep supports the consolidation of new memories (Diekelmann and Born, 2010). Whether "
        "spindles carry this effect in children is less well known.\n\n2 Materials and methods\n\n2.1 Participants\n\n"
        "Forty children took part with the written consent of their parents.\n\nFigure 1. Recall before and after "
        "sleep.\n\n3 Results\n\nFast spindle density correlated with the gain in recall (r = 0.52).\n\n"
        "Data availability statement\n\nThe data are available from the authors on request.")
    assert pdf_links(r) == ["https://www.frontiersin.org/journals/psychology/articles/10.3389/fpsyg.2024.1300123/pdf"]


def test_frontiers_2024_layout_without_the_article_content_wrapper() -> None:
    """Provisionally accepted articles put the abstract block straight into the content column."""
    html = (PAGES / "frontiers_2024_article.html").read_text(encoding="utf-8")
    unwrapped = html.replace('<div class="ArticleContent">\n', "").replace("</ul>\n</div>\n</div>\n</div>\n",
                                                                          "</ul>\n</div>\n</div>\n")
    assert unwrapped.count("<div") == unwrapped.count("</div>") and "ArticleContent" not in unwrapped
    url = "https://www.frontiersin.org/journals/psychology/articles/10.3389/fpsyg.2024.1300123/full"
    rule = RULES.journal_rule(url)
    wrapped = scrape("frontiers_2024_article.html", url, "frontiers")
    r = scrape_journal(unwrapped, url, rule)
    assert (r.title, r.abstract, r.keywords, r.fulltext) == (wrapped.title, wrapped.abstract, wrapped.keywords,
                                                             wrapped.fulltext)
    abstract_only = unwrapped[:unwrapped.index('<div id="h2">')] + unwrapped[unwrapped.index('<div class="Summary">'):]
    r = scrape_journal(abstract_only.replace('<div class="Summary">', '</div>\n<div class="Summary">', 1), url, rule)
    assert r.abstract == wrapped.abstract and r.fulltext == ""


def test_frontiers_classic_page_at_its_2013_address() -> None:
    url = "https://www.frontiersin.org/Journal/10.3389/fmicb.2013.00570/full"
    r = scrape("frontiers_article.html", url, "frontiers")
    assert r.title == "Soil microbiome shifts after wildfire"
    assert body(r).startswith("Introduction\n\nFire frequency is rising")
    assert "Abatzoglou, J. T." not in r.fulltext and "Author Contributions" not in r.fulltext


def test_taylor_and_francis_full_text() -> None:
    url = "https://www.tandfonline.com/doi/full/10.1080/17512549.2021.1900001"
    r = scrape("tandf_fulltext.html", url, "tandf")
    assert r.doi == "10.1080/17512549.2021.1900001"
    assert r.title == "Commuting by bicycle and sickness absence in two Dutch cities"
    assert r.keywords == ["Cycling", "sickness absence", "commuting"]
    assert r.abstract == (
        "Background\n\nCycling to work is linked to better health, but its link with sickness absence is less studied."
        "\n\nMethods\n\nWe linked commuting surveys of 3,100 employees with their employers' absence records.\n\n"
        "Results\n\nCycling commuters had one day less absence a year than others.")
    assert body(r) == (
        "1. Introduction\n\nActive commuting adds physical activity to daily life (Oja et al. 2011).\n\n2. Methods\n\n"
        "2.1. Data\n\nEmployees of two municipalities answered a commuting survey in 2019.\n\n3. Results\n\n"
        "Sickness absence was lower among cyclists in both cities.\n\n"
        "Figure 1. Days of absence a year by mode of commuting.")
    assert pdf_links(r) == ["https://www.tandfonline.com/doi/pdf/10.1080/17512549.2021.1900001?download=true"]


def test_taylor_and_francis_recorded_abstract_page(corpus_dir: Path) -> None:
    with open(corpus_dir / "pages.jsonl", encoding="utf-8") as f:
        entry = next(e for e in map(json.loads, f) if e["name"] == "page-tandf-0144929X.2019.1578828-paywall")
    rule = RULES.journal_rule(entry["url"])
    assert rule is not None and rule.site == "tandf"
    r = scrape_journal((corpus_dir / entry["body"]).read_bytes(), entry["url"], rule)
    assert r.title == ("Recognise misinformation and verify before sharing: a reasoned action and information "
                       "literacy perspective")
    assert r.abstract.startswith("The menace of misinformation online has gained considerable media attention")
    assert "ABSTRACT" not in r.abstract
    assert r.keywords[:2] == ["Misinformation", "self-efficacy"]
    assert r.fulltext == ""  # the disclosure statement of a page without full text is no body


def test_wellcome_open_research_current_layout() -> None:
    url = "https://wellcomeopenresearch.org/articles/8-101/v1"
    r = scrape("f1000_article.html", url, "f1000")
    assert r.doi == "10.12688/WELLCOMEOPENRES.19001.1"
    assert r.title == "A reproducible pipeline for malaria parasite counts in blood smears"
    assert r.keywords == ["malaria", "microscopy", "image analysis"]
    assert r.abstract.startswith("Background: Counting parasites in thick blood smears")
    assert "\n\nMethods: We built a pipeline" in r.abstract and "\n\nResults: Counts agreed" in r.abstract
    assert body(r) == (
        "Introduction\n\nMicroscopy remains the reference method for malaria diagnosis in many clinics1.\n\nMethods\n\n"
        "Implementation\n\nThe pipeline is written in Python and runs on a laptop.\n\nData availability\n\n"
        "The slide images are deposited in Zenodo.")
    assert r.corresp_author == [CorrespAuthor(name="Kwame Mensah", email="k.mensah@example.org")]
    assert pdf_links(r) == ["https://wellcomeopenresearch.org/articles/8-101/v1/pdf"]


def test_f1000research_2015_layout() -> None:
    """The title block of these pages carries a version badge and the referee status: the rule leaves the title to
    the page's meta tags rather than take them into it."""
    r = scrape("f1000_2015_article.html", "https://f1000research.com/articles/4-55/v1", "f1000")
    assert r.title == ""
    assert r.doi == "10.12688/F1000RESEARCH.5501.1"
    assert r.abstract == ("We fitted 60 bumblebee workers with radio tags and followed their foraging trips for a "
                          "summer. Tagged bees made as many trips as untagged ones.")
    assert r.fulltext == (
        f"{r.abstract}\n\nIntroduction\n\nHow far bumblebees fly to forage decides how landscapes support them "
        "(Osborne et al., 2008).\n\nMethods\n\nWorkers were tagged at the nest entrance.\n\nTracking\n\nEach bee was "
        "followed with a handheld receiver.\n\nResults\n\nWorkers foraged up to 800 metres from the nest.\n\n"
        "Figure 1. Foraging distances of tagged workers.\n\nTable 1. Trips per colony.")
    assert r.corresp_author == [CorrespAuthor(email="svoboda@example.cz")]
    assert pdf_links(r) == ["http://f1000research.com/articles/4-55/v1/pdf"]


def test_peerj_2015_layout_with_the_sections_in_collapsible_rows() -> None:
    """The 2015 pages leave main > .body empty; the declarations after the sections are no body."""
    r = scrape("peerj_2015_article.html", "https://peerj.com/articles/1111/", "peerj")
    assert r.doi == "10.7717/PEERJ.1111"
    assert r.title == "Shell shape of garden snails varies with altitude"
    assert r.keywords == ["Snail", "Altitude", "Morphometrics"]
    assert r.abstract == ("Background\n\nLand snails living high in the mountains face cold and dry air.\n\nMethods\n\n"
                          "We measured 900 shells from twelve sites between 200 and 1,800 metres.\n\nResults\n\n"
                          "Shells were rounder and thicker at higher sites.")
    assert body(r) == ("Introduction\n\nShell shape responds to climate in many snails (Goodfriend, 1986).\n\n"
                       "Materials and Methods\n\nSampling\n\nShells were photographed and outlined with landmarks.\n\n"
                       "Results\n\nAltitude explained a third of the variation in shape.")
    assert r.corresp_author == [CorrespAuthor(name="Marta Kowalska", email="m.kowalska@example.pl")]


def test_thieme_full_text() -> None:
    url = "https://www.thieme-connect.com/products/ejournals/html/10.1055/a-1234-5678"
    r = scrape("thieme_fulltext.html", url, "thieme")
    assert r.title == "Cold snare polypectomy of small colorectal polyps: a randomized trial"
    assert r.keywords == ["colonoscopy", "polypectomy", "bleeding"]
    assert r.abstract == (
        "Background Hot snare polypectomy of small polyps carries a risk of delayed bleeding.\n\nMethods In this "
        "trial, 520 patients with polyps of 4 to 9 mm were randomized to cold or hot snare resection.\n\nResults "
        "Delayed bleeding occurred in 0.4 % after cold and 1.9 % after hot snare resection.")
    assert body(r) == (
        "Introduction\n\nMost polyps found at colonoscopy are smaller than 10 mm [1].\n\nPatients and methods\n\n"
        "Study design\n\nThe trial ran at six German centres from 2019 to 2022.\n\nDiscussion\n\nCold snare resection "
        "was as complete as hot snare resection and safer.")
    assert pdf_links(r) == ["https://www.thieme-connect.com/products/ejournals/pdf/10.1055/a-1234-5678.pdf"]
    assert r.corresp_author == [CorrespAuthor(email="jonas.weber@example.de")]
    assert "Rex DK" not in r.fulltext and "Publication History" not in r.fulltext


def test_copernicus_article_page_with_its_full_text() -> None:
    r = scrape("copernicus_2023_article.html", "https://gmd.copernicus.org/articles/16/4321/2023/", "copernicus")
    assert r.title == "A fast snow model for land surface schemes"
    assert r.abstract == ("Snow on the ground controls the energy balance of cold regions. We present a three-layer "
                          "snow model that runs twenty times faster than detailed models and reproduces snow depth "
                          "at 30 stations.")
    assert body(r) == (
        "1 Introduction\n\nLand surface schemes need snow models that are both fast and realistic (Essery et al., 2013)."
        "\n\n2 Model description\n\nThe model has three layers whose density grows by compaction.\n\n2.1 Compaction\n\n"
        "Compaction follows an overburden law.\n\n3 Conclusions\n\nThe model is fast enough for global runs.\n\n"
        "Code availability\n\nThe code is on Zenodo.")
    assert pdf_links(r) == ["https://gmd.copernicus.org/articles/16/4321/2023/gmd-16-4321-2023.pdf"]


def test_copernicus_journal_site_before_2019() -> None:
    url = "http://www.atmos-chem-phys.net/14/4400/2014/acp-14-4400-2014.html"
    r = scrape("copernicus_2014_landing.html", url, "copernicus")
    assert r.title == "Nitrous oxide over the Southern Ocean"
    assert r.abstract == ("We measured nitrous oxide in the marine boundary layer on two cruises. Concentrations were "
                          "highest over upwelling regions near the Antarctic coast.")
    assert r.fulltext == ""
    assert pdf_links(r) == ["http://www.atmos-chem-phys.net/14/4400/2014/acp-14-4400-2014.pdf"]


@pytest.mark.parametrize(("name", "site"), [
    ("frontiers_2024_article.html", "frontiers"),
    ("frontiers_article.html", "frontiers"),
    ("copernicus_2023_article.html", "copernicus"),
    ("copernicus_2014_landing.html", "copernicus"),
])  # fmt: skip
def test_platform_recognised_on_a_host_no_regex_knows(name: str, site: str) -> None:
    url = "https://mirror.example.org/article/" + name
    assert RULES.journal_rule(url) is None
    assert RULES.page_rule(url, parse_html((PAGES / name).read_bytes())).site == site


@pytest.mark.parametrize(("url", "site"), [
    ("https://www.frontiersin.org/Journal/Abstract.aspx?s=1&name=neuroscience&ART_DOI=10.3389/fnins.2011.00001",
     "frontiers"),
    ("https://www.frontiersin.org/Human_Neuroscience/10.3389/fnhum.2012.00001/abstract", "frontiers"),
    ("https://peerj.com/preprints/1205/", "peerj"),
    ("https://openresearcheurope.ec.europa.eu/articles/1-12/v1", "f1000"),
    ("https://www.tandfonline.com/doi/abs/10.1080/17512549.2021.1900001", "tandf"),
    ("https://www.thieme-connect.de/ejournals/abstract/10.1055/s-0029-1214947", "thieme"),
    ("https://www.thieme-connect.com/DOI/DOI?10.1055/s-0028-1085467", "thieme"),
    ("https://bg.copernicus.org/preprints/bg-2023-12/", "copernicus"),
    ("http://www.biogeosciences.net/10/1/2013/", "copernicus"),
    ("http://www.the-cryosphere-discuss.net/tc-2016-12/", "copernicus"),
])  # fmt: skip
def test_old_and_current_addresses_lead_to_the_platform_rule(url: str, site: str) -> None:
    assert RULES.site(url) == site


def test_taylor_and_francis_2015_summation_layout() -> None:
    """The full text's sections are heading/section pairs; the reference pop-ups and the figure viewer's copy of the
    article header inside them are no body text."""
    url = "https://www.tandfonline.com/doi/full/10.1080/01431161.2015.1000001"
    r = scrape("tandf_2015_fulltext.html", url, "tandf")
    assert r.doi == "10.1080/01431161.2015.1000001"
    assert r.title == "Snow cover duration in the Tatra Mountains from satellite data"
    assert r.keywords == ["snow cover", "MODIS", "Tatra Mountains"]
    assert r.abstract == ("We mapped snow cover in the Tatra Mountains from daily satellite images of 2000-2013. Snow "
                          "lay two weeks shorter at the end of the period than at its start.")
    assert body(r) == (
        "1. Introduction\n\nSnow cover controls the water supply of mountain valleys (Kowalczyk 2011).\nSatellite "
        "images give daily maps of snow at a resolution of 500 m.\nFigure 1. The study area.\n\n2. Results\n\n"
        "The snow season shortened by 14 days between 2000 and 2013.")
    assert pdf_links(r) == ["https://www.tandfonline.com/doi/pdf/10.1080/01431161.2015.1000001"]


def test_taylor_and_francis_2015_abstract_page() -> None:
    """On the abstract page (no full-text panel) the abstract is the overview's abstract module."""
    html = (PAGES / "tandf_2015_fulltext.html").read_text(encoding="utf-8")
    abstract_page = html[:html.index('<div id="tabModule"')] + "</body></html>"
    url = "https://www.tandfonline.com/doi/abs/10.1080/01431161.2015.1000001"
    r = scrape_journal(abstract_page, url, RULES.journal_rule(url))
    assert r.title == "Snow cover duration in the Tatra Mountains from satellite data"
    assert r.abstract.startswith("We mapped snow cover") and r.abstract.endswith("than at its start.")
    assert r.fulltext == ""


#: page, its URL, its DOI, the title, the abstract's opening, the body's opening (None: no full text), text of the
#: page's back matter or reference list that the publication must not hold
THROUGH_THE_FETCHER = [
    ("frontiers_2024_article.html",
     "https://www.frontiersin.org/journals/psychology/articles/10.3389/fpsyg.2024.1300123/full",
     "10.3389/fpsyg.2024.1300123", "Sleep spindles predict word learning in children",
     "Background: Children learn new words", "1 Introduction", ("Diekelmann, S., and Born", "AM designed")),
    ("tandf_fulltext.html", "https://www.tandfonline.com/doi/full/10.1080/17512549.2021.1900001",
     "10.1080/17512549.2021.1900001", "Commuting by bicycle and sickness absence in two Dutch cities",
     "Background\n\nCycling to work", "1. Introduction", ("Health benefits of cycling", "No potential conflict")),
    ("tandf_2015_fulltext.html", "https://www.tandfonline.com/doi/full/10.1080/01431161.2015.1000001",
     "10.1080/01431161.2015.1000001", "Snow cover duration in the Tatra Mountains from satellite data",
     "We mapped snow cover", "1. Introduction", ("Geographia Polonica", "National Science Centre", "All authors")),
    ("f1000_article.html", "https://wellcomeopenresearch.org/articles/8-101/v1", "10.12688/wellcomeopenres.19001.1",
     "A reproducible pipeline for malaria parasite counts in blood smears", "Background: Counting parasites",
     "Introduction", ("quality assurance manual", "supported by Wellcome")),
    ("f1000_2015_article.html", "https://f1000research.com/articles/4-55/v1", "10.12688/f1000research.5501.1",
     "Tracking bumblebee foraging with radio tags", "We fitted 60 bumblebee workers", "Introduction",
     ("Bumblebee flight distances in relation", "JS tagged the bees", "ref status", "PowerPoint", "Col…")),
    ("peerj_2015_article.html", "https://peerj.com/articles/1111/", "10.7717/peerj.1111",
     "Shell shape of garden snails varies with altitude", "Background\n\nLand snails", "Introduction",
     ("Variation in land-snail shell form", "park rangers", "no competing interests")),
    ("thieme_fulltext.html", "https://www.thieme-connect.com/products/ejournals/html/10.1055/a-1234-5678",
     "10.1055/a-1234-5678", "Cold snare polypectomy of small colorectal polyps: a randomized trial",
     "Background Hot snare polypectomy", "Introduction", ("Polyp detection at colonoscopy", "no conflict of")),
    ("copernicus_2023_article.html", "https://gmd.copernicus.org/articles/16/4321/2023/", "10.5194/gmd-16-4321-2023",
     "A fast snow model for land surface schemes", "Snow on the ground controls", "1 Introduction",
     ("A comparison of 1701 snow models", "station operators", "Abstract.")),
    ("copernicus_2014_landing.html", "http://www.atmos-chem-phys.net/14/4400/2014/acp-14-4400-2014.html",
     "10.5194/acp-14-4400-2014", "Nitrous oxide over the Southern Ocean", "We measured nitrous oxide", None,
     ("Citation:",)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "url", "doi", "title", "abstract", "body", "absent"), THROUGH_THE_FETCHER,
                         ids=[case[0] for case in THROUGH_THE_FETCHER])
def test_the_publication_a_layout_gives_through_the_doi_page_code(name, url, doi, title, abstract, body,
                                                                   absent) -> None:
    """The page read as the publication's DOI page: the rule's fields, the generic reader for what they miss (the
    title of F1000's 2015 page from its meta tags), merged into the publication."""
    run = fetch_run(1, answers={url: Canned(200, (PAGES / name).read_bytes(), "text/html; charset=utf-8")})
    state = run.pub_state(doi)
    with run.context() as ctx:
        site.fetch_site(ctx, state, url, PartType.doi, "https://doi.org/" + doi, meta=True, keywords=True)
    pub = state.pub
    assert pub.title.content == title
    assert pub.abstract.content.startswith(abstract)
    if body is None:
        assert pub.fulltext.content == ""
    else:
        assert pub.fulltext.content.startswith(f"{title}\n\n{pub.abstract.content}\n\n{body}\n\n")
    for text in absent:
        assert text not in pub.fulltext.content and text not in pub.abstract.content
