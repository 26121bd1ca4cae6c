"""JATS parsing: a hand-written article covering every selector, an efetch articleset, recorded full texts."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from pubfetch.extract.errors import ParseError
from pubfetch.extract.jats import element_text, parse_jats
from pubfetch.extract.xmlsafe import XmlError, parse_xml
from pubfetch.ids import normalise_doi
from pubfetch.model.parts import Author, CorrespAuthor
from pubfetch.model.record import ArticleRecord
from support.mutations import mutated
from support.readings import as_read

DOCS = Path(__file__).parent / "data" / "documents"


def _corpus(corpus_dir: Path, name: str) -> ArticleRecord:
    folder = "pmc_efetch" if name == "PMC3299399" else "europepmc_fulltext"
    (record,) = parse_jats((corpus_dir / "files" / folder / f"{name}.xml").read_bytes())
    return record


# ------------------------------------------------------------------------------------------ hand-written


@pytest.fixture(scope="module")
def article() -> ArticleRecord:
    (record,) = parse_jats((DOCS / "jats_article.xml").read_bytes())
    return record


def test_ids_title_keywords(article: ArticleRecord) -> None:
    assert (article.pmid, article.pmcid, article.doi) == ("30000001", "PMC6000001", "10.1234/EXAMPLE.2019.001")
    assert article.title == "A Drosophila model of Ca2+ signalling : waves in glia"
    assert article.keywords == ["glia", "calcium waves", "Drosophila"]


def test_abstract_takes_section_titles_and_every_abstract(article: ArticleRecord) -> None:
    assert article.abstract == ("Background\n\nGlial calcium waves are poorly understood.\n\n"
                                "Results\n\nWaves spread faster in mutants (p < 0.05).\n\n"
                                "Glia talk with calcium.")


def test_fulltext(article: ArticleRecord) -> None:
    """Body paragraphs and section titles one per paragraph, figures and tables on one line each, tex-math left out
    (its MathML twin kept), sig-block, acknowledgements, appendices, footnotes and references left out, glossary,
    notes, back sections and floats kept."""
    paragraphs = [
        "A Drosophila model of Ca2+ signalling : waves in glia",
        article.abstract,
        "Flies have glia.",
        "Introduction",
        "Calcium rises by \u0394F/F of 2\u2009fold [1].",
        "Glia",
        "Astrocytes and ensheathing glia.",
        "one two",
        "Results",
        "Figure 1 Waves. Calcium waves in glia.",
        "Table 1 Speeds. Genotype Speed wild type 1.0",
        "GECI",
        "genetically encoded calcium indicator",
        "Data availability",
        "Data are in Zenodo.",
        "Conflict of interest",
        "None declared.",
        "Table 2 Counts. n 12",
    ]
    assert article.fulltext == "\n\n".join(paragraphs)


def test_journal_and_biblio(article: ArticleRecord) -> None:
    assert article.journal_title == "Journal of Example Neuroscience"
    assert (article.volume, article.issue, article.pages) == ("12", "3", "101-110")
    assert (article.issn, article.eissn, article.publisher) == ("1234-5670", "1234-5679", "Example Press")
    assert article.pub_types == ["research-article"]
    assert article.pub_date == "2019-02-14"  # the earlier of epub and ppub; the year-only collection date loses


def test_authors(article: ArticleRecord) -> None:
    assert article.authors == [
        Author("Doe", "Jane", "", "https://orcid.org/0000-0001-2345-6789",
               ["Institute of Glial Biology, Example University, Tartu, Estonia"]),
        Author("Roe", "Richard A.", "", "",
               ["Institute of Glial Biology, Example University, Tartu, Estonia",
                "Department of Genetics, Example College, Oxford, UK"]),
        Author("Smith", "Ann", "", "", ["Department of Genetics, Example College, Oxford, UK"]),
    ]


def test_corresp_authors_matched_by_name(article: ArticleRecord) -> None:
    """Two corresponding contribs (xref to corresp, corresp="yes"), two e-mails in one corresp: each goes to the
    author whose name it resembles; the phone belongs to the first e-mail."""
    assert article.corresp_author == [
        CorrespAuthor("Jane Doe", "https://orcid.org/0000-0001-2345-6789", "j.doe@example.org", "+372 555 0101"),
        CorrespAuthor("Ann Smith", "", "asmith@example.ac.uk", ""),
    ]


@pytest.mark.usefixtures("as_parsed_from")
def test_articleset() -> None:
    first, second = parse_jats((DOCS / "pmc_articleset.xml").read_bytes())
    assert (first.pmid, first.pmcid, first.doi) == ("30000002", "PMC6000002", "10.3389/FEXAM.2019.00002")
    assert first.fulltext == "Reviewing glia\n\nGlia are reviewed.\n\nIntroduction\n\nGlia were long ignored."
    assert first.journal_title == "Frontiers in Examples"
    assert (first.pages, first.eissn, first.pub_date) == ("18", "1664-0000", "2019-03-09")
    # no contrib marked: the author named in the corresp note is found by surname, the e-mail by its label
    assert first.corresp_author == [CorrespAuthor("Liis Kask", "", "liis.kask@example.ee")]
    assert first.authors[0] == Author("Moss", "Tarmo", "", "", ["University of Examples, Estonia"])
    # labelled IDs are extracted, a DOI loses its doi: prefix; an article without body has no fulltext
    assert (second.pmid, second.pmcid, second.doi) == ("30000003", "PMC6000003", "10.5555/LETTERS.3")
    assert (second.title, second.abstract, second.fulltext) == ("A short note", "", "")
    # a month is no day: the record keeps it beside the date (as the meta-tag reader does) rather than invent the 1st
    assert (second.pub_date, second.flags["date_partial"]) == ("", "2018-06")
    assert second.journal_title == "Example Letters"


@pytest.mark.usefixtures("as_parsed_from")
def test_empty_articleset_and_errors(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="pubfetch.extract.jats"):
        assert parse_jats(b"<pmc-articleset><error>ID 1 not found</error></pmc-articleset>") == []
    # the service's reason is kept for the log file; the warning is its caller's, which names the ID and the URL
    # (a parser's "no article in pmc-articleset" told the user nothing they could act on)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.INFO, "no article in pmc-articleset: ID 1 not found")]
    with pytest.raises(ParseError, match="not a JATS document"):
        parse_jats(b"<eFetchResult><ERROR>Empty id list</ERROR></eFetchResult>")
    for bad in (b"", b"<article><front>", b"not xml", "\ufeff"):
        with pytest.raises(XmlError):
            parse_jats(bad)


@pytest.mark.usefixtures("as_parsed_from")
def test_an_article_in_an_article_is_part_of_it_read_as_it_comes_or_whole() -> None:
    """Large bytes are read article by article as they are parsed, text from its whole tree: either way only outermost
    articles are records, a wrapped one included, and an article nested in one is part of its text."""
    doc = ("<wrapper><article><front><article-meta><article-id pub-id-type='pmcid'>1</article-id></article-meta>"
           "</front><body><p>Outer.</p><article><body><p>Inner.</p></body></article></body></article>"
           "<box><article><front><article-meta><article-id pub-id-type='pmcid'>2</article-id></article-meta></front>"
           "</article></box></wrapper>")
    for data in (doc, doc.encode()):
        records = parse_jats(data)
        assert [r.pmcid for r in records] == ["PMC1", "PMC2"]
        assert "Inner." in records[0].fulltext
    assert as_read(parse_jats(doc.encode())) == as_read(parse_jats(doc))


@pytest.mark.parametrize("rich_parts", [True, False])
@pytest.mark.usefixtures("as_parsed_from")
def test_recorded_full_texts_read_as_they_come_are_read_as_a_whole_tree(corpus_dir: Path, corpus_manifest: list[dict],
                                                                       rich_parts: bool) -> None:
    """The recorded JATS answers, one by one and joined in one articleset as PMC's efetch gives a batch: the same
    records from their bytes (each article read once it is parsed) as from their text (the whole tree)."""
    bodies = [(corpus_dir / e["body"]).read_bytes() for e in corpus_manifest
              if e["resource"] in ("europepmc_fulltext", "pmc_efetch")]
    articles = [etree.tostring(article) for body in bodies for article in parse_xml(body).iter("{*}article")]
    joined = b"<pmc-articleset>" + b"".join(articles) + b"</pmc-articleset>"
    for body in [*bodies, joined]:
        whole = as_read(parse_jats(body.decode("utf-8"), rich_parts=rich_parts))
        assert whole and as_read(parse_jats(body, rich_parts=rich_parts)) == whole
    assert len(parse_jats(joined)) == len(articles) == len(bodies)


@pytest.mark.usefixtures("as_parsed_from")
def test_namespaced_article() -> None:
    doc = (b'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><GetRecord><record><metadata>'
           b'<article xmlns="https://jats.nlm.nih.gov/ns/archiving/1.3/"><front><article-meta>'
           b'<article-id pub-id-type="pmcid">123</article-id><title-group><article-title>T</article-title>'
           b"</title-group></article-meta></front><body><p>Body.</p></body></article></metadata></record>"
           b"</GetRecord></OAI-PMH>")
    (r,) = parse_jats(doc)
    assert (r.pmcid, r.title, r.fulltext) == ("PMC123", "T", "T\n\nBody.")


@pytest.mark.usefixtures("as_parsed_from")
def test_entities_are_not_expanded() -> None:
    doc = (b'<!DOCTYPE article [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           b"<article><front><article-meta><title-group><article-title>a &x; b</article-title></title-group>"
           b"</article-meta></front></article>")
    (r,) = parse_jats(doc)
    assert r.title == "a b"


def test_deep_nesting_is_refused_or_walked_without_recursion() -> None:
    deep = b"<article><body><p>" + b"<italic>" * 5000 + b"x" + b"</italic>" * 5000 + b"</p></body></article>"
    with pytest.raises(XmlError):
        parse_jats(deep)  # libxml2 refuses more than 256 levels without huge_tree
    el = parse_xml(b"<p>" + b"<i>" * 200 + b"x" + b"</i>" * 200 + b" y</p>")
    assert element_text(el) == "x y"


def test_element_text_spacing() -> None:
    el = parse_xml("<p>a<italic>b</italic>c<list><list-item>d</list-item><list-item>e</list-item></list>f"
                   "<tex-math>\\alpha</tex-math>g  \n h\u00a0i\u200bj</p>")
    assert element_text(el) == "abc d e fg h ij"


# ---------------------------------------------------------------------------------------------- corpus


def test_corpus_pmc3320746(corpus_dir: Path) -> None:
    r = _corpus(corpus_dir, "PMC3320746")
    assert (r.pmid, r.pmcid, r.doi) == ("22338609", "PMC3320746", "10.1021/PR200636X")
    assert r.title == ("Statistical Considerations of Optimal Study Design for Human Plasma Proteomics and Biomarker "
                       "Discovery")
    assert r.keywords == ["mass spectrometry", "plasma proteomics", "biomarkers", "power analysis"]
    assert r.journal_title == "Journal of Proteome Research"
    assert r.pub_date == "2012-02-17"
    assert (r.volume, r.issue, r.pages, r.issn, r.eissn) == ("11", "4", "2103-2113", "1535-3893", "1535-3907")
    assert r.corresp_author == [
        CorrespAuthor("Caroline Dive", "", "CDive@picr.man.ac.uk", "+44 (0)161 446 3036"),
        CorrespAuthor("Anthony D. Whetton", "", "tony.whetton@manchester.ac.uk", "+44 (0)161 275 0039"),
    ]
    assert r.fulltext.startswith(r.title + "\n\n" + r.abstract + "\n\nIntroduction\n\nDiscovery of novel biomarkers")
    assert r.fulltext.endswith("The authors declare no competing financial interest.")  # back notes kept
    assert "\n\nSupplementary Material\n\n" in r.fulltext


def test_corpus_structured_abstract_and_glossary(corpus_dir: Path) -> None:
    r = _corpus(corpus_dir, "PMC8164761")
    assert r.abstract.startswith("Background\n\nWater content variation during plant growth")
    assert "\n\nRF\n\nRadio frequency\n\nSWR\n\nStanding wave ratio\n\n" in r.fulltext  # back glossary
    assert r.corresp_author == [CorrespAuthor("Hyung Joo Kim", "http://orcid.org/0000-0001-6311-3748",
                                              "hyungkim@konkuk.ac.kr")]
    department = "Department of Biological Engineering, Konkuk University, Seoul, 05029 Republic of Korea"
    assert r.authors[0].affiliations == [department]  # without the GRID/ISNI identifiers


def test_corpus_abstract_title_and_body_paragraphs(corpus_dir: Path) -> None:
    r = _corpus(corpus_dir, "PMC8118396")
    assert (r.pmid, r.pmcid) == ("", "PMC8118396")  # this full text carries no PMID
    assert r.title == ("Complete mitochondrial genome sequence of the global invasive species Stictocephala bisonia "
                       "(Hemiptera: Membracidae: Smiliinae)")
    assert r.abstract.startswith("Abstract\n\nStictocephala bisonia Kopp et Yonke, 1977")
    assert "15,803\u2009bp" in r.abstract
    assert r.corresp_author == [CorrespAuthor("Xiangqun Yuan", "", "yuanxq@nwsuaf.edu.cn")]
    assert r.publisher == "Taylor & Francis"
    assert r.pub_date == "2021-05-05"


def test_corpus_floats_group_and_no_references(corpus_dir: Path) -> None:
    r = _corpus(corpus_dir, "PMC8071313")
    assert r.fulltext.endswith("CWM Leaf area 4.21 1 0.0401 CWM Plant height 0.27 1 0.6044")  # floats-group table
    assert r.pages == "775"  # elocation-id
    assert r.corresp_author == [CorrespAuthor("Kathrin Möhrle", "", "kathrin.moehrle@lfl.bayern.de")]
    assert "References" not in r.fulltext.split("\n\n")


def test_corpus_efetch(corpus_dir: Path) -> None:
    r = _corpus(corpus_dir, "PMC3299399")
    assert (r.pmid, r.pmcid, r.doi) == ("22416237", "PMC3299399", "10.3389/FPSYT.2012.00018")
    assert r.title == "The Effects of Psychosis Risk Variants on Brain Connectivity: A Review"
    assert r.journal_title == "Frontiers in Psychiatry"
    # PubFetcher's second rule: every author pointing to an author-notes fnN is corresponding
    assert [(c.name, c.email) for c in r.corresp_author] == [
        ("Omar Mothersill", ""), ("Sinead Kelly", ""), ("Gary Donohoe", "donoghug@tcd.ie")]
    assert r.fulltext.endswith("could be construed as a potential conflict of interest.")


def test_corpus_ids_match_manifest(corpus_dir: Path, corpus_manifest: list[dict]) -> None:
    entries = [e for e in corpus_manifest if e["resource"] in ("europepmc_fulltext", "pmc_efetch")]
    assert len(entries) == 8
    for entry in entries:
        (r,) = parse_jats((corpus_dir / entry["body"]).read_bytes())
        assert r.pmcid == entry["ids"]["pmcid"]
        assert r.doi == normalise_doi(entry["ids"]["doi"])
        assert r.pmid in ("", entry["ids"]["pmid"])  # some full texts carry no PMID (taken from elsewhere)
        assert len(r.fulltext) > 2000 and r.title and r.abstract and r.journal_title


# ------------------------------------------------------------------------------------------ property test


def _mutated() -> st.SearchStrategy[bytes]:
    return mutated(lambda: [(DOCS / "jats_article.xml").read_bytes(), (DOCS / "pmc_articleset.xml").read_bytes()])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_mutated_documents_raise_only_value_errors(data: bytes) -> None:
    try:
        records = parse_jats(data)
    except ValueError:
        return
    assert all(isinstance(r, ArticleRecord) for r in records)
