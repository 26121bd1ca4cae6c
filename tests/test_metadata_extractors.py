"""Tests for the file metadata extractors, their factory and BaseArticleMetadataExtractor (spec lockss.md sections
3 and 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.extract.jats import parse_jats
from pubfetch.extract.meta import meta_tags
from pubfetch.metadata import fields as mf
from pubfetch.metadata.archival_unit import ArchivalUnit
from pubfetch.metadata.article_files import ROLE_ARTICLE_METADATA, ROLE_FULL_TEXT_PDF, ArticleFiles
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMap
from pubfetch.metadata.au import AuConfig
from pubfetch.metadata.extractors import (
    HIGHWIRE_COOK_MAP,
    JATS_COOK_MAP,
    BaseArticleMetadataExtractor,
    ExtractorFactory,
    FileMetadataExtractor,
    HtmlMetaTagExtractor,
    JatsXmlExtractor,
    MetadataTarget,
    PdfMetadataExtractor,
    PubMedXmlExtractor,
    Purpose,
    XmlAutoExtractor,
    XPathXmlExtractor,
    default_factory,
    extractor_kinds,
    make_extractor,
    normalise_issn,
)
from pubfetch.metadata.plugin import load_plugin
from pubfetch.metadata.sources import CachedUrl, MemorySource, SourceError
from pubfetch.metadata.tdb import TdbAu, parse_tdb

FIXTURES = Path(__file__).parent / "data" / "archival_units"
BATCH = FIXTURES / "jats_delivery" / "deliveries.example.com" / "2024" / "batch1"
TINY_PDF = (FIXTURES / "tiny_article.pdf").read_bytes()
ANY = MetadataTarget()


def cu(body: bytes | str, content_type: str = "text/html", url: str = "https://x/a") -> CachedUrl:
    data = body.encode("utf-8") if isinstance(body, str) else body
    return CachedUrl(url, content_type, lambda: data)


def meta(*tags: str) -> str:
    return "<html><head>" + "".join(tags) + "</head><body></body></html>"


def raw_only(html: str) -> ArticleMetadata:
    (am,) = HtmlMetaTagExtractor(CookMap()).extract(ANY, cu(html))
    return am


# --- targets -------------------------------------------------------------------------------------------------------


def test_metadata_target_purposes_and_format() -> None:
    assert [p.value for p in Purpose] == ["Any", "DOI", "OpenURL", "Article"]
    assert MetadataTarget.article().is_article() and not MetadataTarget.any().is_article()
    assert (MetadataTarget.doi().purpose, MetadataTarget.open_url().purpose) == (Purpose.DOI, Purpose.OPENURL)
    target = MetadataTarget("Any", format="application/pdf", include_files_changed_after=5)
    assert (target.purpose, target.format, target.include_files_changed_after) == (Purpose.ANY, "application/pdf", 5)
    with pytest.raises(ValueError, match="non-empty string"):
        MetadataTarget("")
    with pytest.raises(ValueError, match="include_files_changed_after"):
        MetadataTarget(include_files_changed_after=-1)


def test_metadata_target_takes_any_purpose_string() -> None:
    """LOCKSS' MetadataTarget(String purpose): any purpose; the four known names are the Purpose members."""
    custom = MetadataTarget("Sometimes", format="text/html")
    assert (custom.purpose, custom.purpose_name, custom.is_article()) == ("Sometimes", "Sometimes", False)
    assert MetadataTarget("Article").purpose is Purpose.ARTICLE and MetadataTarget("Article").is_article()
    assert MetadataTarget("DOI").purpose_name == "DOI" and MetadataTarget(Purpose.OPENURL).purpose is Purpose.OPENURL
    assert MetadataTarget("Sometimes") == MetadataTarget("Sometimes", None, 0) != custom
    assert MetadataTarget("article").purpose == "article"  # purposes are case-sensitive, as in LOCKSS


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


def test_highwire_cook_map() -> None:
    html = meta(
        '<meta name="citation_title" content="Waves">', '<meta name="DC.title" content="Not this">',
        '<meta name="citation_author" content="Ana Example">', '<meta name="citation_author" content="Bo Sample">',
        '<meta name="citation_journal_title" content="J Ex">', '<meta name="citation_doi" content="doi:10.5555/w.1">',
        '<meta name="DC.identifier" content="10274">', '<meta name="citation_issn" content="0740-2783">',
        '<meta name="citation_volume" content="6">', '<meta name="citation_firstpage" content="e4375">',
        '<meta name="citation_keywords" content="Open access; Open science; ">',
        '<meta name="citation_online_date" content="2018/02/13">',
        '<meta name="citation_fulltext_html_url" content="https://x/a">',
        '<meta name="citation_publisher" content="Ex Press">')
    (am,) = HtmlMetaTagExtractor().extract(ANY, cu(html))
    assert am.to_json()["cooked"] == {
        "access.url": "https://x/a", "article.title": "Waves", "author": ["Ana Example", "Bo Sample"],
        "date": "2018/02/13", "doi": "10.5555/w.1", "issn": "0740-2783", "keywords": ["Open access", "Open science"],
        "publication.title": "J Ex", "publisher": "Ex Press", "startpage": "e4375", "volume": "6",
    }
    assert HtmlMetaTagExtractor().cook_map is HIGHWIRE_COOK_MAP


def test_dublin_core_fallbacks_of_the_highwire_map() -> None:
    html = meta('<meta name="dc.identifier" content="doi:10.7554/eLife.44753">',
                '<meta name="dc.title" content="Parallel visual circuitry">',
                '<meta name="dc.date" content="2019-04-18">',
                '<meta name="dc.publisher" content="eLife">')
    (am,) = HtmlMetaTagExtractor().extract(ANY, cu(html))
    assert am.to_json()["cooked"] == {"article.title": "Parallel visual circuitry", "date": "2019-04-18",
                                      "doi": "10.7554/eLife.44753", "publisher": "eLife"}


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


def test_jats_cook_map_fields() -> None:
    (am,) = JatsXmlExtractor().extract(ANY, cu((BATCH / "a1.xml").read_bytes(), "application/xml"))
    assert am.to_json()["cooked"] == {
        "abstract": "We measured sediment transport in two estuaries.",
        "article.title": "Sediment transport in estuaries : A two-year field study",
        "author": ["Example, Ana M.", "Sample, Bo"],
        "date": "2024-03-05",
        "doi": "10.5555/joe.2024.101",
        "eissn": "1558-843X",
        "endpage": "118",
        "issn": "0740-2783",
        "issue": "3",
        "keywords": ["sediment", "estuary"],
        "publication.title": "Journal of Examples",
        "publisher": "Example Society Press",
        "startpage": "101",
        "volume": "12",
    }
    assert am.get_raw("front/article-meta/article-id[@pub-id-type='pmid']") == "39000001"
    assert am.get_raw("front/journal-meta/journal-title-group") == "Journal of Examples"
    assert JatsXmlExtractor().cook_map is JATS_COOK_MAP


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


def test_xpath_extractor_value_types_and_lower_cased_raw_keys() -> None:
    extractor = XPathXmlExtractor(
        {"/Record/Title": mf.FIELD_ARTICLE_TITLE, "//Author": mf.FIELD_AUTHOR},
        xpaths={"/Record/Title": "text", "//Author": "text", "count(//Author)": "number", "/Record/Vol": "number",
                "/Record/Ratio": "number", "/Record/Title/i": "number", "boolean(//Free)": "boolean",
                "//x:Note": "node", "string(/Record/@id)": "text"},
        namespaces={"x": "urn:notes"})
    data = ("<Record id='r1' xmlns:n='urn:notes'><Title>A <i>b</i> c</Title><Author>X</Author><Author>Y</Author>"
            "<Vol> 12 </Vol><Ratio>2.5</Ratio><n:Note>see <b>this</b></n:Note></Record>")
    (am,) = extractor.extract(ANY, cu(data, "text/xml"))
    assert am.raw_items() == [
        ("/record/title", ["A b c"]), ("//author", ["X", "Y"]), ("count(//author)", ["2"]), ("/record/vol", ["12"]),
        ("/record/ratio", ["2.5"]), ("boolean(//free)", ["false"]),
        ("//x:note", ['<n:Note xmlns:n="urn:notes">see <b>this</b></n:Note>']), ("string(/record/@id)", ["r1"]),
    ]
    assert am.to_json()["cooked"] == {"article.title": "A b c", "author": ["X", "Y"]}
    (broken,) = extractor.extract(ANY, cu("<Record>", "text/xml"))
    assert broken.is_empty() and broken.raw_size() == 0
    with pytest.raises(ValueError, match="needs xpaths"):
        XPathXmlExtractor()
    with pytest.raises(ValueError, match="value type must be one of text, node, number, boolean"):
        XPathXmlExtractor(xpaths={"/a": "string"})
    with pytest.raises(ValueError, match="invalid XPath '/a\\['"):
        XPathXmlExtractor(xpaths={"/a[": "text"})


def test_xpath_text_is_the_dom_text_content() -> None:
    """LOCKSS' XmlDomMetadataExtractor stores getTextContent: mixed-content pieces joined without added blanks,
    trailing blanks kept."""
    extractor = XPathXmlExtractor(xpaths={"/root/second": "text", "/root/trail": "text", "string(/root/trail)": "text"})
    data = ("<root><second>SecondValue<a>ThirdValue</a><b>MoreValue</b>Second</second>"
            "<trail>value with blank </trail></root>")
    (am,) = extractor.extract(ANY, cu(data, "text/xml"))
    assert am.get_raw("/root/second") == "SecondValueThirdValueMoreValueSecond"
    assert am.get_raw("/root/trail") == "value with blank "
    assert am.get_raw("string(/root/trail)") == "value with blank "


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


# --- factory -------------------------------------------------------------------------------------------------------


def test_factory_chooses_by_content_type() -> None:
    html, pdf, anything = HtmlMetaTagExtractor(), PdfMetadataExtractor(), JatsXmlExtractor()
    factory = ExtractorFactory({"text/html": html, "application/*": pdf})
    assert factory.for_content_type("Text/HTML; charset=utf-8") is html
    assert factory.for_content_type("application/pdf") is pdf
    assert factory.for_content_type("image/png") is None
    assert factory.for_content_type(None) is None
    factory.register("*", anything)
    assert factory.for_content_type("image/png") is anything
    assert factory.for_cu(cu("", "text/html")) is html
    assert factory.mime_types() == ["text/html", "application/*", "*"]
    with pytest.raises(ValueError, match="not a MIME type"):
        factory.register("html", html)
    with pytest.raises(TypeError, match="not a FileMetadataExtractor"):
        factory.register("text/html", object())  # type: ignore[arg-type]


def test_default_factory_and_extractor_kinds() -> None:
    factory = default_factory()
    assert isinstance(factory.for_content_type("text/html"), HtmlMetaTagExtractor)
    assert isinstance(factory.for_content_type("application/xml"), XmlAutoExtractor)
    assert isinstance(factory.for_content_type("application/pdf"), PdfMetadataExtractor)
    assert extractor_kinds() == ["html_meta", "jats", "pdf", "pubmed", "xml", "xpath"]
    assert make_extractor("pdf", None, max_pages=3).max_pages == 3
    with pytest.raises(ValueError, match="unknown metadata extractor 'rdf'"):
        make_extractor("rdf")
    with pytest.raises(ValueError, match="bad options for metadata extractor 'html_meta'"):
        make_extractor("html_meta", None, max_pages=3)


# --- BaseArticleMetadataExtractor (section 4) ----------------------------------------------------------------------

TDB = parse_tdb("""
{
  publisher < name = Tdb Publisher >
  provider = Tdb Provider
  plugin = org.example.Plugin
  implicit < status ; year ; volume ; attr[issue] ; name ; param[base_url] ; param[journal_id] >
  {
    title < name = Tdb Journal ; issn = 0740-2783 ; eissn = 1558-8432 >
    au < released ; 2017-2018 ; 16 ; 3-4 ; Tdb Journal Volume 16 ; http://x/ ; tj >
  }
  {
    title < name = Tdb Book Series ; issn = 1111-2222 >
    implicit < status ; name ; attr[isbn] ; attr[eisbn] ; param[base_url] ; param[book_id] >
    au < released ; Tdb Book 1 ; 978-1-58562-317-4 ; 978-1-58562-317-3 ; http://x/ ; b1 >
  }
}
{
  title < name = Orphan Journal >
  plugin = org.example.Plugin
  implicit < name ; param[base_url] >
  au < Orphan AU ; http://x/ >
}
""")
JOURNAL_AU, BOOK_AU, ORPHAN_AU = TDB.aus


class FixedExtractor(FileMetadataExtractor):
    """Emits copies of given records (or raises a given exception)."""

    kind = "fixed"

    def __init__(self, *records: dict[str, str], error: Exception | None = None) -> None:
        super().__init__(CookMap())
        self.records = records
        self.error = error

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        if self.error is not None:
            raise self.error
        out = []
        for values in self.records:
            am = ArticleMetadata()
            for key, value in values.items():
                am.put(mf.find_field(key), value)
            out.append(am)
        return out


def article(*records: dict[str, str], tdb_au: TdbAu | None = None, bulk: bool = False, error: Exception | None = None,
            in_au: tuple[str, ...] = (), role_cu: bool = True, content_type: str = "text/html",
            **options: bool) -> list[ArticleMetadata]:
    """Run the base extractor on an article whose full text (and ArticleMetadata role) is the CU "fullurl"."""
    source = MemorySource({"fullurl": (b"<html></html>", content_type)})
    for url in in_au:
        source.add(url, b"x", "text/html")
    full = source.get("fullurl")
    af = ArticleFiles(full)
    if role_cu:
        af.set_role_cu(ROLE_ARTICLE_METADATA, full)
    au = ArchivalUnit(source, AuConfig.parse({}), tdb_au=tdb_au, bulk_content=bulk)
    factory = ExtractorFactory({"text/html": FixedExtractor(*records, error=error)})
    extractor = BaseArticleMetadataExtractor(ROLE_ARTICLE_METADATA, factory=factory, **options)
    return extractor.extract(ANY, af, au)


def test_no_tdb_provider_from_publisher_and_access_url_from_the_full_text() -> None:
    (am,) = article({"publisher": "extracted pub"})
    assert am.get(mf.FIELD_PROVIDER) == "extracted pub"
    assert am.get(mf.FIELD_ACCESS_URL) == "fullurl"


def test_invalid_extracted_issn_is_replaced_by_the_tdb_one_but_valid_values_win() -> None:
    (am,) = article({"issn": "not_an_issn", "volume": "vol16", "eissn": "9999-9999"}, tdb_au=JOURNAL_AU)
    assert am.get(mf.FIELD_ISSN) == "0740-2783"
    assert am.get(mf.FIELD_VOLUME) == "vol16"
    assert am.get(mf.FIELD_EISSN) == "9999-9999"


def test_access_url_not_in_the_au_is_replaced_by_the_full_text_url() -> None:
    (am,) = article({"access.url": "wow"})
    assert am.get(mf.FIELD_ACCESS_URL) == "fullurl"
    (kept,) = article({"access.url": "https://x/landing"}, in_au=("https://x/landing",))
    assert kept.get(mf.FIELD_ACCESS_URL) == "https://x/landing"


def test_tdb_defaults_fill_every_bibliographic_field() -> None:
    (am,) = article({}, tdb_au=JOURNAL_AU)
    assert am.to_json()["cooked"] == {
        "access.url": "fullurl", "date": "2017", "eissn": "1558-8432", "issn": "0740-2783", "issue": "3",
        "proprietary_identifier": "tj", "provider": "Tdb Provider", "publication.title": "Tdb Journal",
        "publisher": "Tdb Publisher", "pubtype": "journal", "volume": "16",
    }
    (book,) = article({}, tdb_au=BOOK_AU)
    assert book.to_json()["cooked"] == {
        "access.url": "fullurl", "eisbn": "978-1-58562-317-3", "isbn": "978-1-58562-317-4", "issn": "1111-2222",
        "proprietary_identifier": "b1", "provider": "Tdb Provider", "publication.title": "Tdb Book 1",
        "publisher": "Tdb Publisher", "pubtype": "bookSeries", "series.title": "Tdb Book Series",
    }


def test_prefer_tdb_publisher_replaces_extracted_publisher_and_provider() -> None:
    values = {"publisher": "extracted pub", "provider": "extracted provider"}
    (plain,) = article(values, tdb_au=JOURNAL_AU)
    assert (plain.get(mf.FIELD_PUBLISHER), plain.get(mf.FIELD_PROVIDER)) == ("extracted pub", "extracted provider")
    (preferred,) = article(values, tdb_au=JOURNAL_AU, prefer_tdb_publisher=True)
    assert (preferred.get(mf.FIELD_PUBLISHER), preferred.get(mf.FIELD_PROVIDER)) == ("Tdb Publisher", "Tdb Provider")
    (unknown,) = article(values, tdb_au=ORPHAN_AU, prefer_tdb_publisher=True)
    assert unknown.get(mf.FIELD_PUBLISHER) == "extracted pub"
    (unknown_empty,) = article({}, tdb_au=ORPHAN_AU)
    assert unknown_empty.get(mf.FIELD_PUBLISHER) == "Publisher of [Orphan Journal]"


def test_bulk_content_takes_only_publisher_and_provider_from_the_tdb() -> None:
    (am,) = article({}, tdb_au=JOURNAL_AU, bulk=True)
    assert am.to_json()["cooked"] == {"access.url": "fullurl", "provider": "Tdb Provider",
                                      "publisher": "Tdb Publisher"}


def test_tdb_defaults_and_access_url_check_can_be_turned_off() -> None:
    (am,) = article({"access.url": "wow"}, tdb_au=JOURNAL_AU, add_tdb_defaults=False, check_access_url=False)
    assert am.to_json()["cooked"] == {"access.url": "wow"}


def test_missing_role_no_extractor_or_io_error_give_one_record_with_tdb_data_only(
        caplog: pytest.LogCaptureFixture) -> None:
    expected = {"access.url": "fullurl", "provider": "Tdb Provider", "publisher": "Tdb Publisher",
                "publication.title": "Tdb Journal"}
    for records in (article({"doi": "10.1234/56"}, tdb_au=JOURNAL_AU, role_cu=False),
                    article({"doi": "10.1234/56"}, tdb_au=JOURNAL_AU, content_type="image/png"),
                    article(tdb_au=JOURNAL_AU, error=SourceError("disk on fire"))):
        (am,) = records
        assert {k: am.get(k) for k in expected} == expected
        assert am.get(mf.FIELD_DOI) is None and am.raw_size() == 0
    assert "cannot extract metadata (disk on fire)" in caplog.text


def test_extractor_emitting_nothing_or_several_records() -> None:
    assert article() == []
    first, second = article({"doi": "10.1234/1"}, {"doi": "10.1234/2"})
    assert (first.get(mf.FIELD_DOI), second.get(mf.FIELD_DOI)) == ("10.1234/1", "10.1234/2")
    assert first.get(mf.FIELD_ACCESS_URL) == second.get(mf.FIELD_ACCESS_URL) == "fullurl"


def test_other_extractor_errors_propagate() -> None:
    with pytest.raises(RuntimeError, match="bug"):
        article(error=RuntimeError("bug"))


def test_default_role_is_the_full_text() -> None:
    source = MemorySource({"https://x/a.pdf": (TINY_PDF, "application/pdf")})
    af = ArticleFiles(source.get("https://x/a.pdf"))
    af.set_role_cu(ROLE_FULL_TEXT_PDF, source.get("https://x/a.pdf"))
    (am,) = BaseArticleMetadataExtractor().extract(None, af, ArchivalUnit(source))
    assert (am.get(mf.FIELD_DOI), am.get(mf.FIELD_ACCESS_URL)) == ("10.5555/joe.2020.17", "https://x/a.pdf")
    assert BaseArticleMetadataExtractor().extract(None, ArticleFiles(), ArchivalUnit(source)) == []
