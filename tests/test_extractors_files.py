"""Tests for pubfetch.metadata.extractors.files: the file metadata extractors (HTML meta tags, JATS, PubMed, XML
chosen by root element, PDF) reading one cached URL into raw and cooked records (spec lockss.md section 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.extract.jats import parse_jats
from pubfetch.extract.meta_scan import meta_tags
from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMap
from pubfetch.metadata.extractors import (
    HtmlMetaTagExtractor,
    JatsXmlExtractor,
    MetadataTarget,
    PdfMetadataExtractor,
    PubMedXmlExtractor,
    XmlAutoExtractor,
    XPathXmlExtractor,
    normalise_issn,
)
from pubfetch.metadata.plugin import load_plugin
from support.cached_urls import cu, meta

FIXTURES = Path(__file__).parent / "data" / "archival_units"
BATCH = FIXTURES / "jats_delivery" / "deliveries.example.com" / "2024" / "batch1"
TINY_PDF = (FIXTURES / "tiny_article.pdf").read_bytes()
ANY = MetadataTarget()


def raw_only(html: str) -> ArticleMetadata:
    (am,) = HtmlMetaTagExtractor(CookMap()).extract(ANY, cu(html))
    return am


# --- HTML meta tags ------------------------------------------------------------------------------------------------


def test_meta_values_are_cleaned_the_lockss_way() -> None:
    am = raw_only(meta('<meta name="a" content="foo\n&#xA;  \t   bar">',
                       '<meta name="b" content="&#34;Quoted&#34; Title">',
                       '<meta name="c" content="l&lt;g&gt;a&amp;z">', '<meta name="d" content="x <b>bold</b> y">'))
    assert [am.get_raw(k) for k in "abcd"] == ["foo bar", '"Quoted" Title', "l<g>a&z", "x bold y"]


def test_meta_values_keep_leading_and_trailing_blanks_as_lockss_does() -> None:
    """LOCKSS' SimpleHtmlMetaTagMetadataExtractor keeps a trailing blank (``foo"bar" ``); the fetcher's parser,
    which gives publications their values, still trims."""
    page = meta('<meta name="a" content="foo&quot;bar&quot; ">', '<meta name="b" content="  two\n words\t">',
                '<meta name="citation_title" content="Title ">')
    am = raw_only(page)
    assert [am.get_raw("a"), am.get_raw("b")] == ['foo"bar" ', " two words "]
    (cooked,) = HtmlMetaTagExtractor().extract(ANY, cu(page))
    assert cooked.get(mf.FIELD_ARTICLE_TITLE) == "Title "
    assert meta_tags(page) == [("a", 'foo"bar"'), ("b", "two words"), ("citation_title", "Title")]


def test_meta_names_lower_cased_any_attribute_order_and_quoting_duplicates_kept() -> None:
    am = raw_only(meta('<meta content="T1" name="DC.Title">', "<meta name='citation_author' content='A One'>",
                       "<meta name=citation_author content=Two>", '<META NAME="Citation_Author" CONTENT="A Three">',
                       '<meta property="og:title" content="not a name">', '<meta content="no name">'))
    assert am.raw_keys() == ["dc.title", "citation_author"]
    assert am.get_raw("DC.TITLE") == "T1"
    assert am.get_raw_list("citation_author") == ["A One", "Two", "A Three"]
    assert am.is_empty()  # no cooking without a cook map


def test_html_uses_the_declared_charset() -> None:
    page = meta('<meta name="citation_title" content="Caf\u00e9 na\u00efve">').encode("iso-8859-1")
    (am,) = HtmlMetaTagExtractor().extract(ANY, cu(page, "text/html; charset=ISO-8859-1"))
    assert am.get(mf.FIELD_ARTICLE_TITLE) == "Caf\u00e9 na\u00efve"
    (am,) = HtmlMetaTagExtractor().extract(ANY, cu(page, "text/html; charset=no-such-charset"))
    assert am.get_raw("citation_title") is not None


def test_ojs_cook_map() -> None:
    factory = load_plugin("ojs").extractor_factory()
    html = meta(
        '<meta name="DC.Format" content="text/html">', '<meta name="DC.Language" content="en">',
        '<meta name="DC.Title" content="Tides">', '<meta name="DC.Identifier" content="17">',
        '<meta name="DC.Date" content="2020-05-01">', '<meta name="DC.Contributor" content="Sponsor">',
        '<meta name="DC.Publisher" content="Example Society">',
        '<meta name="citation_journal_title" content="Journal of Examples">',
        '<meta name="citation_title" content="Tidal patterns">', '<meta name="citation_date" content="2020/05/01">',
        '<meta name="citation_author" content="Ana Example">',
        '<meta name="citation_authors" content="Doe, Jane; Roe, Richard">',
        '<meta name="citation_issn" content="0740-2783">', '<meta name="citation_volume" content="16">',
        '<meta name="citation_issue" content="2">', '<meta name="citation_firstpage" content="5">',
        '<meta name="citation_lastpage" content="19">', '<meta name="citation_doi" content="10.5555/joe.2020.17">',
        '<meta name="citation_public_url" content="https://x/article/view/17">')
    (am,) = factory.for_content_type("text/html").extract(ANY, cu(html))
    assert am.to_json()["cooked"] == {
        "access.url": "https://x/article/view/17", "article.title": "Tidal patterns",
        "author": ["Ana Example", "Doe, Jane", "Roe, Richard"], "date": "2020/05/01", "dc.citation.issue": "2",
        "dc.citation_volume": "16", "dc.contributor": ["Sponsor"], "dc.date": "2020-05-01", "dc.format": "text/html",
        "dc.identifier": ["17"], "dc.language": "en", "dc.publisher": "Example Society", "dc.title": "Tides",
        "doi": "10.5555/joe.2020.17", "endpage": "19", "issn": "0740-2783", "issue": "2",
        "publication.title": "Journal of Examples", "publisher": "Example Society", "startpage": "5", "volume": "16",
    }


def test_invalid_values_stay_visible_after_cooking() -> None:
    (am,) = HtmlMetaTagExtractor().extract(ANY, cu(meta('<meta name="citation_issn" content="not_an_issn">',
                                                        '<meta name="citation_author" content=", , : /">')))
    assert am.get(mf.FIELD_ISSN) is None and am.get_invalid(mf.FIELD_ISSN).raw_value == "not_an_issn"
    assert am.get_list(mf.FIELD_AUTHOR) == []


# --- JATS, PubMed, XML ---------------------------------------------------------------------------------------------


MIXED_DATES = """<article><front><journal-meta><journal-title-group><journal-title>Annals</journal-title>
<journal-subtitle>Of Examples</journal-subtitle></journal-title-group></journal-meta><article-meta>
<article-id pub-id-type="doi">10.5555/Mixed.1</article-id>
<title-group><article-title>Dates</article-title><subtitle>and keywords</subtitle></title-group>
<pub-date pub-type="ppub"><month>Jun</month><year>2021</year></pub-date>
<pub-date pub-type="epub"><day>3</day><month>2</month><year>2021</year></pub-date>
<pub-date pub-type="collection"><year>2020</year></pub-date>
<kwd-group><kwd>tide</kwd><kwd>silt</kwd><kwd>tide</kwd></kwd-group></article-meta></front></article>"""


@pytest.mark.parametrize("document", [BATCH / "a1.xml", BATCH / "set.xml", MIXED_DATES])
def test_a_jats_file_reads_the_same_to_the_fetcher_and_the_lockss_extractor(document: Path | str) -> None:
    """One JATS reader: the LOCKSS extractor's title, journal title, date, keywords and authors are the fetcher's
    (the date at the precision the file gives it), so records from a fetch and from an archive compare equal."""
    data = document.read_bytes() if isinstance(document, Path) else document.encode()
    records = parse_jats(data)
    extracted = JatsXmlExtractor().extract(ANY, cu(data, "application/xml"))
    assert len(records) == len(extracted) >= 1
    for rec, am in zip(records, extracted, strict=True):
        assert am.get(mf.FIELD_ARTICLE_TITLE) == rec.title
        assert am.get(mf.FIELD_PUBLICATION_TITLE) == (rec.journal_title or None)
        assert am.get(mf.FIELD_DATE) == (rec.pub_date or rec.flags.get("date_partial"))
        assert (am.get_list(mf.FIELD_KEYWORDS) or []) == rec.keywords
        assert len(am.get_list(mf.FIELD_AUTHOR) or []) == len(rec.authors)
    if document is MIXED_DATES:
        (am,) = extracted
        assert (am.get(mf.FIELD_ARTICLE_TITLE), am.get(mf.FIELD_PUBLICATION_TITLE), am.get(mf.FIELD_DATE)) == (
            "Dates : and keywords", "Annals: Of Examples", "2021-02-03")  # the earliest electronic or print date
        assert am.get_list(mf.FIELD_KEYWORDS) == ["tide", "silt"]
        assert am.get(mf.FIELD_DOI) == "10.5555/Mixed.1" and records[0].doi == "10.5555/MIXED.1"  # LOCKSS: as written


def test_recorded_jats_reads_the_same_to_the_fetcher_and_the_lockss_extractor(corpus_dir: Path,
                                                                             corpus_manifest: list[dict]) -> None:
    """The recorded Europe PMC and PMC full texts: same titles, journal titles, dates and keywords from both."""
    bodies = [corpus_dir / row["body"] for row in corpus_manifest
              if row["resource"] in ("europepmc_fulltext", "pmc_efetch") and row["status"] == 200 and row.get("body")]
    compared = 0
    for path in bodies:
        data = path.read_bytes()
        for rec, am in zip(parse_jats(data), JatsXmlExtractor().extract(ANY, cu(data, "application/xml")),
                           strict=True):
            assert (am.get(mf.FIELD_ARTICLE_TITLE), am.get(mf.FIELD_PUBLICATION_TITLE), am.get(mf.FIELD_DATE),
                    am.get_list(mf.FIELD_KEYWORDS)) == (
                rec.title or None, rec.journal_title or None, rec.pub_date or rec.flags.get("date_partial"),
                rec.keywords), path.name
            compared += 1
    assert compared >= 5


def test_jats_journal_title_keeps_its_subtitle() -> None:
    """LOCKSS' JATS helper cooks journal-title + journal-subtitle into publication.title."""
    doc = ("<article><front><journal-meta><journal-title-group><journal-title>Excellent Journal - Smart</journal-title>"
           "<journal-subtitle>With a Subtitle</journal-subtitle></journal-title-group></journal-meta>"
           "<article-meta><title-group><article-title>T</article-title></title-group></article-meta></front></article>")
    (am,) = JatsXmlExtractor().extract(ANY, cu(doc, "application/xml"))
    assert am.get(mf.FIELD_PUBLICATION_TITLE) == "Excellent Journal - Smart: With a Subtitle"
    only_subtitle = doc.replace("<journal-title>Excellent Journal - Smart</journal-title>", "")
    (am,) = JatsXmlExtractor().extract(ANY, cu(only_subtitle, "application/xml"))
    assert am.get(mf.FIELD_PUBLICATION_TITLE) == "With a Subtitle"


def test_jats_values_stay_trimmed_a_deliberate_difference() -> None:
    """Unlike LOCKSS' DOM text (kept by the XPath extractor), the JATS extractor shares the fetcher's JATS reader and
    trims; docs/lockss.md lists this difference."""
    doc = ("<article><front><article-meta><title-group><article-title>Padded title </article-title></title-group>"
           "<volume> 7 </volume></article-meta></front></article>")
    (am,) = JatsXmlExtractor().extract(ANY, cu(doc, "application/xml"))
    assert (am.get(mf.FIELD_ARTICLE_TITLE), am.get(mf.FIELD_VOLUME)) == ("Padded title", "7")
    (raw,) = XPathXmlExtractor(xpaths={"/article/front/article-meta/volume": "text"}).extract(
        ANY, cu(doc, "application/xml"))
    assert raw.get_raw("/article/front/article-meta/volume") == " 7 "


def test_jats_article_set_gives_one_record_per_article_year_only_dates_and_namespaces() -> None:
    first, second = JatsXmlExtractor().extract(ANY, cu((BATCH / "set.xml").read_bytes(), "text/xml"))
    assert first.to_json()["cooked"] == {"article.title": "Editorial", "author": ["The Example Consortium"],
                                         "date": "2024", "doi": "10.5555/aoe.2024.1", "issn": "2049-3630",
                                         "publication.title": "Annals of Examples", "volume": "3"}
    assert second.to_json()["cooked"] == {"article.title": "A letter", "author": ["Writer"], "date": "2024-07",
                                          "doi": "10.5555/aoe.2024.2", "publication.title": "Annals of Examples"}


def test_xml_that_does_not_parse_gives_one_empty_record(caplog: pytest.LogCaptureFixture) -> None:
    (am,) = JatsXmlExtractor().extract(ANY, cu((BATCH / "broken.xml").read_bytes(), "application/xml"))
    assert am.is_empty() and am.raw_size() == 0
    assert "emitting an empty record" in caplog.text
    (am,) = PubMedXmlExtractor().extract(ANY, cu("<eFetchResult><ERROR>bad id</ERROR></eFetchResult>", "text/xml"))
    assert am.is_empty()
    assert JatsXmlExtractor().extract(ANY, cu("<pmc-articleset/>", "text/xml")) == []


def test_jats_refuses_hostile_entities() -> None:
    hostile = ('<?xml version="1.0"?><!DOCTYPE article [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
               "<article><front><article-meta><title-group><article-title>&x;</article-title></title-group>"
               "</article-meta></front></article>")
    records = JatsXmlExtractor().extract(ANY, cu(hostile, "application/xml"))
    assert all("root:" not in str(am.to_json()) for am in records)


def test_normalise_issn() -> None:
    assert [normalise_issn(v) for v in ("07402783", "0740 2783", "1558-843x", "ISSN 1", " 1234-5678 ")] == [
        "0740-2783", "0740-2783", "1558-843X", "ISSN 1", "1234-5678"]


def test_pubmed_records() -> None:
    (am,) = PubMedXmlExtractor().extract(ANY, cu((FIXTURES / "pubmed_sample.xml").read_bytes(), "text/xml"))
    assert am.to_json()["cooked"] == {
        "abstract": "Waves were counted.", "article.title": "Waves on example beaches.",
        "author": ["Example, Ana M", "Sample, Bo"], "date": "2024-04-02", "doi": "10.5555/joe.2024.201",
        "eissn": "1558-8432", "endpage": "210", "issue": "4", "keywords": ["waves", "beaches"],
        "publication.title": "Journal of examples", "startpage": "201", "volume": "12",
    }
    assert am.get_raw("pmid") == "39000002"


def test_xml_auto_chooses_pubmed_or_jats() -> None:
    auto = XmlAutoExtractor()
    (pubmed,) = auto.extract(ANY, cu((FIXTURES / "pubmed_sample.xml").read_bytes(), "text/xml"))
    (jats,) = auto.extract(ANY, cu((BATCH / "a1.xml").read_bytes(), "text/xml"))
    assert (pubmed.get(mf.FIELD_DOI), jats.get(mf.FIELD_DOI)) == ("10.5555/joe.2024.201", "10.5555/joe.2024.101")
    (broken,) = auto.extract(ANY, cu("<article>", "text/xml"))
    assert broken.is_empty()


# --- PDF -----------------------------------------------------------------------------------------------------------


def test_pdf_info_dictionary_and_doi() -> None:
    (am,) = PdfMetadataExtractor().extract(ANY, cu(TINY_PDF, "application/pdf"))
    assert am.to_json()["cooked"] == {"article.title": "A Tiny Test Article", "doi": "10.5555/joe.2020.17",
                                      "keywords": ["tiny", "test"]}
    assert am.get_raw("subject") == "Journal of Examples, doi:10.5555/joe.2020.17"


def test_pdf_that_is_not_a_pdf_gives_an_empty_record(caplog: pytest.LogCaptureFixture) -> None:
    (am,) = PdfMetadataExtractor().extract(ANY, cu("<html>challenge</html>", "application/pdf"))
    assert am.is_empty() and am.raw_size() == 0
    assert "PDF not fully read (not_pdf" in caplog.text
    with pytest.raises(ValueError, match="max_pages"):
        PdfMetadataExtractor(max_pages=0)


def test_real_pdf_from_the_corpus(corpus_dir: Path) -> None:
    data = (corpus_dir / "files" / "pdf" / "peerj.1120.pdf").read_bytes()
    (am,) = PdfMetadataExtractor().extract(ANY, cu(data, "application/pdf"))
    assert am.get(mf.FIELD_DOI) == "10.7717/peerj.1120"
    assert am.get(mf.FIELD_ARTICLE_TITLE) == ("Suffering and mental health among older people living in nursing "
                                              "homes---a mixed-methods study")
