"""Meta-tag parser: recorded publisher pages (corpus), hand-written pages, PubFetcher's site exceptions, encodings and
dates, and mutated pages. The tag scanner and the part types have files of their own (test_extract_meta_scan.py,
test_extract_meta_types.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubfetch.extract.errors import ParseError
from pubfetch.extract.identity_claims import page_claims
from pubfetch.extract.meta import meta_date, page_meta_tags, parse_meta
from pubfetch.extract.meta_scan import meta_tags
from pubfetch.model.parts import Author, CorrespAuthor
from pubfetch.model.record import ArticleRecord, Link
from support.corpus_pages import recorded_publisher_pages
from support.mutations import MUTATIONS, mutate

DOCS = Path(__file__).parent / "data" / "documents" / "meta"
HIGHWIRE = DOCS / "highwire_page.html"
HIGHWIRE_URL = "https://jir.example.org/content/12/3/101"
EPRINTS = DOCS / "eprints_page.html"
EPRINTS_URL = "https://repo.example.edu/4242/"


def page(corpus_dir: Path, name: str) -> tuple[bytes, str]:
    """Body and URL of a recorded publisher page, by manifest name."""
    with open(corpus_dir / "manifest.jsonl", encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if entry["name"] == name:
                return (corpus_dir / entry["body"]).read_bytes(), entry["url"]
    pytest.skip(f"no recorded page {name}")


def head(*tags: str) -> str:
    return "<html><head>" + "".join(tags) + "</head><body></body></html>"


# ------------------------------------------------------------------------------------------------------ corpus


def test_plos_page(corpus_dir: Path) -> None:
    body, url = page(corpus_dir, "page-plos-one-article")
    r = parse_meta(body, url)
    assert r.title == ("Assessment on reticuloendotheliosis virus infection in specific-pathogen-free chickens based "
                       "on detection of yolk antibody")
    assert (r.pmid, r.pmcid, r.doi) == ("", "", "10.1371/journal.pone.0213978")
    assert r.abstract.startswith("Reticuloendotheliosis virus (REV) is the most frequent exogenous virus that")
    assert r.keywords == ["Chickens", "Antibodies", "Livestock", "Attenuated vaccines", "Enzyme-linked immunoassays",
                          "Poultry", "Animal sexual behavior", "Vaccines"]
    assert r.flags["types"] == {"doi": "citation", "title": "citation", "abstract": "citation", "keywords": "meta"}
    assert len(r.authors) == 11
    assert r.authors[0] == Author(family="Li", given="Yang", affiliations=["China Animal Health and Epidemiology Center, Qingdao, China"])
    assert r.authors[6].affiliations == ["College of Animal Sciences and Technology, Zhejiang A&F University, Hangzhou, China"]
    assert (r.authors[-1].family, r.authors[-1].given) == ("Zhao", "Peng")  # "Zhao, Peng" read family first
    assert (r.journal_title, r.volume, r.issue, r.pages, r.issn) == ("PLOS ONE", "14", "4", "e0213978", "1932-6203")
    assert r.publisher == "Public Library of Science"
    assert r.pub_date == "2019-04-22" and r.flags["date"] == "Apr 22, 2019"
    assert r.pub_types == ["Research Article"]
    assert r.links == [Link("https://journals.plos.org/plosone/article/file?id=10.1371/journal.pone.0213978&type=printable",
                            "pdf", "citation_pdf_url")]


def test_peerj_page(corpus_dir: Path) -> None:
    body, url = page(corpus_dir, "page-peerj-oa-article")
    r = parse_meta(body, url)
    assert r.title == "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles"
    assert r.doi == "10.7717/peerj.4375"
    assert r.keywords == ["Open access", "Open science", "Scientometrics", "Publishing", "Libraries",
                          "Scholarly communication", "Bibliometrics", "Science policy"]
    assert r.flags["types"]["abstract"] == "twitter"  # no citation/eprints/dc/og abstract on the page
    assert [a.full_name for a in r.authors] == ["Heather Piwowar", "Jason Priem", "Vincent Larivière", "Juan Pablo Alperin",
                                           "Lisa Matthias", "Bree Norlander", "Ashley Farley", "Jevin West",
                                           "Stefanie Haustein"]
    assert r.authors[2].affiliations[1].startswith("Observatoire des Sciences et des Technologies (OST)")
    assert r.corresp_author == [CorrespAuthor(name="Heather Piwowar", email="heather@impactstory.org"),
                                CorrespAuthor(name="Jason Priem", email="jason@impactstory.org")]
    assert [(link.url, link.kind) for link in r.links] == [("https://peerj.com/articles/4375", "html"),
                                                           ("https://peerj.com/articles/4375.pdf", "pdf")]
    assert (r.pub_date, r.volume, r.pages, r.publisher) == ("2018-02-13", "6", "e4375", "PeerJ Inc.")


def test_elife_page_uses_dublin_core(corpus_dir: Path) -> None:
    body, url = page(corpus_dir, "page-elife-article")
    r = parse_meta(body, url)
    assert (r.title, r.doi) == ("Parallel visual circuitry in a basal chordate", "10.7554/eLife.44753")
    assert r.flags["types"] == {"doi": "dc", "title": "dc", "abstract": "og"}
    assert r.abstract == ("The ascidian Ciona integrates visual information from two photoreceptor types through "
                          "convergent excitatory and disinhibitory circuits, thereby evoking swim behaviors.")
    assert [a.full_name for a in r.authors] == ["Matthew J Kourakis", "Cezar Borba", "Angela Zhang", "Erin Newman-Smith",
                                                "Priscilla Salas", "B Manjunath", "William C Smith"]
    # dc.creator names are split into the parts citation styles abbreviate and sort by
    assert (r.authors[0].family, r.authors[0].given, r.authors[0].literal) == ("Kourakis", "Matthew J", "")
    assert (r.authors[3].family, r.authors[5].family) == ("Newman-Smith", "Manjunath")
    assert r.pub_date == "2019-04-18"
    assert r.publisher == "eLife Sciences Publications Limited"


def test_nature_descriptions_are_not_abstracts(corpus_dir: Path) -> None:
    body, url = page(corpus_dir, "page-nature-article")
    r = parse_meta(body, url)
    assert r.title == "More than 100 scientific journals have disappeared from the Internet"
    assert r.doi == "10.1038/d41586-020-02610-z"
    assert r.abstract == ""  # dc, og, twitter and plain descriptions are all skipped on nature.com
    assert r.keywords == ["Publishing"]
    assert [a.full_name for a in r.authors] == ["Diana Kwon"]
    # the same page elsewhere would give its description
    assert parse_meta(body, "https://example.org/x").flags["types"]["abstract"] == "dc"


def test_ojs_landing_page(corpus_dir: Path) -> None:
    body, url = page(corpus_dir, "page-first-monday-ojs3-landingpage")
    r = parse_meta(body, url)
    assert r.title == "Surveillance, stigma & sociotechnical design for HIV"
    assert r.doi == "10.5210/fm.v25i10.10274"  # citation_doi; DC.Identifier "10274" is no DOI
    assert [a.full_name for a in r.authors] == ["Calvin Liang", "Jevan Alexander Hutson", "Os Keyes"]
    assert r.authors[1].affiliations == ["University of Washington, School of Law"]
    assert r.keywords[:3] == ["HIV", "online dating", "design"]
    assert r.flags["types"]["abstract"] == "dc"
    assert r.abstract.startswith("Online dating and hookup platforms have fundamentally changed people’s day-to-day")
    assert (r.journal_title, r.issn, r.pub_date) == ("First Monday", "1396-0466", "2020-09-10")
    assert r.links == [Link("https://firstmonday.org/ojs/index.php/fm/article/view/10274/9729", "html",
                            "citation_fulltext_html_url")]
    raw = meta_tags(body)
    assert ("dc.title", "Surveillance, stigma & sociotechnical design for HIV") in raw
    assert raw.count(("citation_author", "Os Keyes")) == 1


def test_pages_without_bibliographic_tags(corpus_dir: Path) -> None:
    body, url = page(corpus_dir, "page-dlib-05vanhyning")
    r = parse_meta(body, url)
    assert r.is_empty() and r.flags["types"] == {}  # its DOI meta has id=, not name=
    body, url = page(corpus_dir, "page-genders-g58-fairlie")
    r = parse_meta(body, url)
    assert r.flags["types"] == {"keywords": "meta", "abstract": "meta"}
    assert r.keywords[:4] == ["homosexuality", "homophobia", "Cold War", "the closet"]


# -------------------------------------------------------------------------------------------- hand-written pages


def test_highwire_page() -> None:
    r = parse_meta(HIGHWIRE.read_bytes(), HIGHWIRE_URL)
    assert r.title == 'Counting proteins in the dark: a "quiet" method'  # first tag wins, escaped markup removed
    assert r.doi == "10.9999/jir.2021.0042"  # doi: prefix dropped; the one in a <script> is not a tag
    assert r.pmid == "34000042"  # the first valid one
    assert r.abstract == "We count proteins that no one has seen.\n\nSecond paragraph of the abstract."
    assert r.keywords == ["proteomics", "dark proteome", "mass spectrometry", "Proteomics", "counting"]
    assert r.flags["types"] == {"pmid": "citation", "doi": "citation", "title": "citation", "keywords": "citation",
                                "abstract": "citation"}
    assert r.authors == [
        Author(family="Kask", given="Liis", orcid="https://orcid.org/0000-0002-1825-0097",
               affiliations=["Department of Chemistry, University of Somewhere"]),
        Author(family="Tamm", given="Peeter", affiliations=["Institute of Elsewhere", "Department of Chemistry, University of Somewhere"]),
    ]
    assert r.corresp_author == [CorrespAuthor(name="Liis Kask", orcid="https://orcid.org/0000-0002-1825-0097",
                                              email="liis.kask@example.org")]
    assert (r.volume, r.issue, r.pages, r.issn, r.eissn) == ("12", "3", "101-117", "1234-5679", "2345-6784")
    assert (r.journal_title, r.publisher, r.pub_date) == ("Journal of Invented Results", "Invented Press", "2021-06-30")
    assert r.flags["language"] == "en"
    assert r.links == [  # relative link resolved, javascript: dropped
        Link("https://jir.example.org/content/12/3/101.full", "html", "citation_fulltext_html_url"),
        Link("https://jir.example.org/content/12/3/101.full.pdf", "pdf", "citation_pdf_url"),
        Link("https://mirror.example.net/101.pdf", "pdf", "fulltext_pdf"),
    ]


def test_eprints_and_bepress_page() -> None:
    r = parse_meta(EPRINTS.read_text(encoding="utf-8"), EPRINTS_URL)
    assert r.flags["types"] == {"pmid": "eprints", "doi": "bepress", "title": "bepress", "keywords": "eprints",
                                "abstract": "eprints"}
    assert r.title == "Soil microbes under snow (bepress)"  # the empty eprints.title leaves it to bepress
    assert (r.pmid, r.doi) == ("31500007", "10.8888/isl.7.2.33")
    assert r.keywords == ["soil", "snow", "winter ecology"]
    assert [a.full_name for a in r.authors] == ["Anu Lepp", "Toomas Kuusk"]
    assert (r.journal_title, r.volume, r.issue, r.pages, r.issn) == ("Invented Soil Letters", "7", "2", "33-40",
                                                                     "3456-7890")
    assert r.pub_date == "" and r.flags["date_partial"] == "2019-11"
    assert r.links == [Link("https://repo.example.edu/4242/1/snow.pdf", "html", "eprints.document_url"),
                       Link("https://repo.example.edu/cgi/viewcontent.cgi?article=4242", "pdf", "bepress_citation_pdf_url")]


@pytest.mark.parametrize("name", ["DC.title", "dc:title", "DC:Title", " dc.title ", "dc.TITLE"])
def test_name_variants_and_property(name: str) -> None:
    r = parse_meta(head(f'<meta name="{name}" content="A title">'), "https://example.org/")
    assert (r.title, r.flags["types"]["title"]) == ("A title", "dc")
    r = parse_meta(head(f'<meta property="{name}" content="A title">'), "https://example.org/")
    assert (r.title, r.flags["types"]["title"]) == ("A title", "dc")


def test_dublin_core_doi_variants() -> None:
    html = head('<meta name="DC.Identifier" content="urn:isbn:123">',
                '<meta name="dc:identifier:doi" content="https://doi.org/10.5555/abc">')
    r = parse_meta(html, "https://example.org/")
    assert (r.doi, r.flags["types"]["doi"]) == ("10.5555/abc", "dc")


def test_og_title_and_description() -> None:
    r = parse_meta(head('<meta property="og:title" content="OG">', '<meta property="og:description" content="Desc">'),
                   "https://example.org/")
    assert (r.title, r.abstract, r.flags["types"]) == ("OG", "Desc", {"title": "og", "abstract": "og"})


# ------------------------------------------------------------------------------------------------ site exceptions


@pytest.mark.parametrize(("url", "expected"), [
    ("https://www.nature.com/articles/x", "citation"),
    ("https://example.org/x", "dc"),
])
def test_citation_abstract_is_trusted_everywhere(url: str, expected: str) -> None:
    html = head('<meta name="dc.description" content="dc">') if expected == "dc" else head(
        '<meta name="citation_abstract" content="cit">', '<meta name="dc.description" content="dc">')
    assert parse_meta(html, url).flags["types"]["abstract"] == expected


@pytest.mark.parametrize(("url", "kept"), [
    ("https://www.nature.com/articles/x", None),
    ("https://science.sciencemag.org/content/1", "twitter"),
    ("https://onlinelibrary.wiley.com/doi/10.1/x", "dc"),
    ("https://example.org/x", "dc"),
])
def test_abstract_site_exceptions(url: str, kept: str | None) -> None:
    html = head('<meta name="dc.description" content="dc">', '<meta property="og:description" content="og">',
                '<meta name="twitter:description" content="tw">', '<meta name="description" content="meta">')
    r = parse_meta(html, url)
    assert r.flags["types"].get("abstract") == kept
    assert r.abstract == {None: "", "twitter": "tw", "dc": "dc"}[kept]


def test_wiley_skips_only_open_graph() -> None:
    html = head('<meta property="og:description" content="og">', '<meta name="description" content="meta">')
    assert parse_meta(html, "https://onlinelibrary.wiley.com/doi/x").abstract == "meta"


def test_keyword_site_exceptions() -> None:
    html = head('<meta name="dc.subject" content="Subject area">', '<meta name="keywords" content="a, b">')
    assert parse_meta(html, "https://bmcbioinformatics.biomedcentral.com/articles/1").keywords == ["a", "b"]
    assert parse_meta(html, "https://citeseerx.ist.psu.edu/doc/1").keywords == ["Subject area"]
    assert parse_meta(head('<meta name="keywords" content="a, b">'), "https://citeseerx.ist.psu.edu/x").keywords == []
    f1000 = head('<meta name="citation_keywords" content="single">', '<meta name="citation_keywords" content="x | y">')
    assert parse_meta(f1000, "https://f1000research.com/articles/7-1").keywords == ["x", "y"]
    assert parse_meta(f1000, "https://example.org/a").keywords == ["single", "x", "y"]


def test_link_site_exceptions() -> None:
    html = head('<meta name="citation_full_html_url" content="https://h.example/full">',
                '<meta name="citation_pdf_url" content="https://h.example/full.pdf">')
    assert parse_meta(html, "https://www.biorxiv.org/content/1v1").links == []
    assert [link.source for link in parse_meta(html, "https://h.example/a", site="highwire2").links] == [
        "citation_full_html_url"]
    assert len(parse_meta(html, "https://h.example/a").links) == 2


# ------------------------------------------------------------------------------------------- encodings and dates


def test_bytes_in_a_declared_encoding() -> None:
    html = '<meta charset="windows-1252"><meta name="citation_title" content="Caf\u00e9 \u2013 r\u00e9sum\u00e9">'
    assert parse_meta(html.encode("cp1252"), "https://example.org/").title == "Caf\u00e9 \u2013 r\u00e9sum\u00e9"


def test_meta_dates() -> None:
    assert meta_date("2018-02-13T10:00:00Z") == ("2018-02-13", "2018-02-13")
    assert meta_date("22 April 2019") == ("2019-04-22", "2019-04-22")
    assert meta_date("2019") == ("", "2019")
    assert meta_date("2019-02-30") == ("", "2019-02")
    assert meta_date("10/09/2020") == ("", "")


def test_non_text_input_raises() -> None:
    with pytest.raises(ParseError):
        parse_meta(12345, "https://example.org/")  # type: ignore[arg-type]
    assert parse_meta(None, "").is_empty()


# -------------------------------------------------------------------------------------------------- properties






def _check(data: bytes, url: str) -> None:
    try:
        record = parse_meta(data, url)
    except ValueError:
        return
    assert isinstance(record, ArticleRecord)
    assert all(isinstance(link, Link) and link.url for link in record.links)
    assert isinstance(meta_tags(data), list)


@settings(max_examples=150, deadline=None)
@given(which=st.booleans(), cuts=MUTATIONS)
def test_mutated_hand_written_pages(which: bool, cuts: list[tuple[int, int, int]]) -> None:
    path, url = (HIGHWIRE, HIGHWIRE_URL) if which else (EPRINTS, EPRINTS_URL)
    _check(mutate(path.read_bytes(), cuts), url)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(index=st.integers(0, 7), cuts=MUTATIONS)
def test_mutated_recorded_pages(corpus_dir: Path, index: int, cuts: list[tuple[int, int, int]]) -> None:
    files = sorted((corpus_dir / "files" / "publisher_page").glob("*.html"))
    path = files[index % len(files)]
    _check(mutate(path.read_bytes(), cuts), "https://example.org/" + path.name)


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("<>=\"' /!-metanamcontprysiplc:.&;#x\n")), max_size=200))
def test_random_markup_never_breaks_the_scanner(text: str) -> None:
    _check(text.encode("utf-8"), "https://example.org/")


def test_the_tags_read_once_for_a_page_give_what_each_reader_reads_itself(corpus_dir: Path) -> None:
    """read_page scans a page's tags once for the meta parser and the claims: the same record and claims as each
    reading them itself, on every recorded publisher page (the JSON-LD ones among them)."""
    pages = recorded_publisher_pages(corpus_dir)
    jsonld = 0
    for entry, text in pages:
        tags = page_meta_tags(text)
        jsonld += any(t.name.startswith("jsonld.") for t in tags)
        assert parse_meta(text, entry["url"], tags=tags) == parse_meta(text, entry["url"])
        assert page_claims(text, entry["url"], None, tags) == page_claims(text, entry["url"])
    assert len(pages) >= 40 and jsonld > 0
