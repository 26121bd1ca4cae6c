"""Tests for YAML plugins, the shipped plugins, extract_au and the CLI support functions, end to end over real
content: a WARC recorded while fetching the corpus' publisher pages, a wget-style OJS mirror with a title database,
and a JATS delivery."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from pubfetch.extract.meta_scan import meta_tags
from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata
from pubfetch.metadata.au import AuIdError
from pubfetch.metadata.extract_au import archival_unit, extract_au
from pubfetch.metadata.extractors import HtmlMetaTagExtractor, MetadataTarget, PdfMetadataExtractor
from pubfetch.metadata.plugin import Plugin, PluginError, load_plugin, plugin_from_dict, shipped_plugins
from pubfetch.metadata.record_writer import run_plugin_operation, select_tdb_au
from pubfetch.metadata.sources import MemorySource, SourceError
from pubfetch.metadata.tdb import load_tdb
from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.warc import WarcRecorder
from pubfetch.params import InvalidParamValue, ParamType
from support.loopback import LoopbackServer, Reply

FIXTURES = Path(__file__).parent / "data" / "archival_units"
OJS_MIRROR = FIXTURES / "ojs_mirror"
OJS_TDB = FIXTURES / "ojs.tdb"
JATS_DELIVERY = FIXTURES / "jats_delivery"
TINY_PDF = (FIXTURES / "tiny_article.pdf").read_bytes()
JOE = "https://journal.example.org/ojs/index.php/joe/article/"
BATCH = "https://deliveries.example.com/2024/batch1/"


def cooked(am: ArticleMetadata) -> dict[str, Any]:
    return am.to_json()["cooked"]


# --- shipped plugins -----------------------------------------------------------------------------------------------


def test_shipped_plugins_load() -> None:
    assert shipped_plugins() == ["highwire", "jats_delivery", "ojs"]
    ojs = load_plugin("ojs")
    assert ojs.id == "org.pubfetch.plugin.ojs.OJSPlugin" and ojs.name == "Open Journal Systems journal"
    assert [p.key for p in ojs.params] == ["base_url", "journal_id"]
    assert (ojs.metadata_role, ojs.default_article_mime_type, ojs.bulk_content) == ("ArticleMetadata", "text/html",
                                                                                     False)
    assert load_plugin("jats_delivery").bulk_content is True
    highwire = load_plugin(str(Path(load_plugin("highwire").source)))
    assert highwire.id == "org.pubfetch.plugin.highwire.HighWireMetaTagsPlugin"
    assert isinstance(highwire.extractor_factory().for_content_type("application/pdf"), PdfMetadataExtractor)


def test_plugin_parameters_make_typed_au_configs_and_au_ids() -> None:
    ojs = load_plugin("ojs")
    config = ojs.au_config({"base_url": "https://journal.example.org/ojs/", "journal_id": "joe"})
    assert config["base_url_host"] == "journal.example.org" and config["base_url_path"] == "/ojs/"
    assert ojs.au_id(config) == ("org|pubfetch|plugin|ojs|OJSPlugin&base_url~https%3A%2F%2Fjournal%2Eexample%2Eorg"
                                 "%2Fojs%2F&journal_id~joe")
    with pytest.raises(AuIdError, match="missing definitional parameter\\(s\\): journal_id"):
        ojs.make_au(MemorySource(), {"base_url": "https://journal.example.org/ojs/"})
    with pytest.raises(InvalidParamValue, match="base_url"):
        ojs.au_config({"base_url": "abc", "journal_id": "joe"})
    jats = load_plugin("jats_delivery")
    assert jats.au_config({"base_url": "https://d/", "year": "2024"})["au_short_year"] == 24


# --- HighWire over a WARC of the corpus' publisher pages (done-when) ------------------------------------------------


def _record_corpus_pages(corpus_dir: Path, manifest: list[dict], warc: Path) -> tuple[str, dict[str, dict]]:
    """Serve every publisher page at /<host><path>, plus two PDFs, fetch them all through a recording HttpClient;
    returns the loopback base URL and the pages by their loopback URL."""
    pages = [e for e in manifest if e["resource"] == "publisher_page"]
    assert len(pages) == 8
    routes: dict[str, Reply] = {}
    targets: dict[str, dict] = {}
    for entry in pages:
        parts = urlsplit(entry["url"])
        path = "/" + parts.netloc + parts.path
        routes[path] = Reply(entry["status"], (corpus_dir / entry["body"]).read_bytes(),
                             entry["headers"]["Content-Type"])
        targets[path + (f"?{parts.query}" if parts.query else "")] = entry
    # The PeerJ page's citation_pdf_url (a small stand-in PDF), and a PDF whose article page was not collected.
    routes["/peerj.com/articles/4375.pdf"] = Reply(200, TINY_PDF, "application/pdf")
    peerj_1120 = next(e for e in manifest if e["name"] == "pdf-peerj.1120")
    routes["/peerj.com/articles/1120.pdf"] = Reply(200, (corpus_dir / peerj_1120["body"]).read_bytes(),
                                                   "application/pdf")
    with LoopbackServer(routes) as server, WarcRecorder(warc) as recorder:
        client = HttpClient(HttpConfig(allow_private_addresses=True), response_hook=recorder)
        for target in [*targets, "/peerj.com/articles/4375.pdf", "/peerj.com/articles/1120.pdf"]:
            assert client.get(server.url(target)).ok
        base = server.base + "/"
    return base, {base + target[1:]: entry for target, entry in targets.items()}


def test_highwire_plugin_over_a_recorded_warc(corpus_dir: Path, corpus_manifest: list[dict], tmp_path: Path) -> None:
    warc = tmp_path / "crawl.warc.gz"
    base, pages = _record_corpus_pages(corpus_dir, corpus_manifest, warc)
    results = list(extract_au("highwire", {"base_url": base}, warc))
    by_url = {af.full_text_url: (am, af) for am, af in results}
    assert len(results) == len(by_url) == 9  # 8 pages, the lone PDF; PeerJ's HTML + PDF article only once
    assert set(by_url) == {*pages, base + "peerj.com/articles/1120.pdf"}

    with_citation_tags = 0
    for url, entry in pages.items():
        am, _af = by_url[url]
        tags = meta_tags((corpus_dir / entry["body"]).read_bytes())
        values = {name: [v for n, v in tags if n == name] for name in
                  ("citation_doi", "citation_title", "citation_author", "citation_journal_title")}
        assert am.get(mf.FIELD_ACCESS_URL) == url  # citation_*_url links lead outside the AU
        if not values["citation_title"]:
            continue
        with_citation_tags += 1
        assert am.get(mf.FIELD_DOI) == values["citation_doi"][0] == entry["ids"]["doi"]
        assert am.get(mf.FIELD_ARTICLE_TITLE) == values["citation_title"][0]
        assert am.get_list(mf.FIELD_AUTHOR) == values["citation_author"]
        assert am.get(mf.FIELD_PUBLICATION_TITLE) == values["citation_journal_title"][0]
    assert with_citation_tags == 3  # PLOS ONE, PeerJ, First Monday landing page

    peerj, peerj_files = by_url[base + "peerj.com/articles/4375"]
    assert peerj_files.roles() == ["FullTextHtml", "FullTextPdfFile", "ArticleMetadata"]
    assert peerj_files.get_role_url("FullTextPdfFile") == base + "peerj.com/articles/4375.pdf"
    assert peerj_files.get_role_url("ArticleMetadata") == base + "peerj.com/articles/4375"
    assert (peerj.get(mf.FIELD_PROVIDER), peerj.get(mf.FIELD_ISSN)) == ("PeerJ Inc.", "2167-8359")
    assert peerj.get_list(mf.FIELD_AUTHOR)[0] == "Heather Piwowar"

    elife, _ = by_url[base + "elifesciences.org/articles/44753"]
    assert (elife.get(mf.FIELD_DOI), elife.get(mf.FIELD_ARTICLE_TITLE)) == (
        "10.7554/eLife.44753", "Parallel visual circuitry in a basal chordate")  # Dublin Core fallbacks

    lone_pdf, lone_files = by_url[base + "peerj.com/articles/1120.pdf"]
    assert lone_files.roles() == ["FullTextPdfFile", "ArticleMetadata"]
    assert lone_pdf.get(mf.FIELD_DOI) == "10.7717/peerj.1120"


# --- OJS over a mirror with a title database (done-when) -----------------------------------------------------------


def test_ojs_au_from_the_title_database_over_a_mirror() -> None:
    tdb_au = load_tdb(OJS_TDB).aus[0]
    results = list(extract_au("ojs", tdb_au, OJS_MIRROR))
    assert [af.full_text_url for _, af in results] == [JOE + "view/17", JOE + "view/18", JOE + "view/19/50"]
    first, second, third = (am for am, _ in results)
    # an invalid extracted ISSN gets the title database's ISSN; valid extracted values win
    assert first.get(mf.FIELD_ISSN) == "0740-2783"
    assert first.get_invalid(mf.FIELD_ISSN) is None
    assert second.get(mf.FIELD_ISSN) == "1234-5678"
    assert first.get(mf.FIELD_VOLUME) == "vol16" and second.get(mf.FIELD_VOLUME) == "16"
    # an access.url outside the AU gets the full-text URL; one inside is kept
    assert first.get(mf.FIELD_ACCESS_URL) == JOE + "view/17"
    assert second.get(mf.FIELD_ACCESS_URL) == JOE + "view/18"
    assert cooked(first) == {
        "access.url": JOE + "view/17",
        "article.title": 'Tidal patterns in <i>Example</i> Bay: "a" first look',
        "author": ["Ana Example", "Bo Sample"], "date": "2020/05/01", "dc.citation.issue": "2",
        "dc.citation_volume": "vol16", "dc.format": "text/html", "dc.identifier": ["17"], "dc.language": "en",
        "dc.publisher": "Example Society", "dc.title": "Tidal patterns in Example Bay", "doi": "10.5555/joe.2020.17",
        "eissn": "1558-8432", "endpage": "19", "issn": "0740-2783", "issue": "2", "proprietary_identifier": "joe",
        "provider": "Example Society Press", "publication.title": "Journal of Examples", "publisher": "Example Society",
        "pubtype": "journal", "startpage": "5", "volume": "vol16",
    }
    assert second.get_list(mf.FIELD_AUTHOR) == ["Doe, Jane", "Roe, Richard"]
    assert (third.get(mf.FIELD_ARTICLE_TITLE), third.get(mf.FIELD_DATE)) == ("Galley without landing page", "2020")
    roles = results[0][1]
    assert roles.roles() == ["FullTextHtmlLanding", "Abstract", "ArticleMetadata"]


def test_ojs_with_explicit_parameters_has_no_title_database_defaults() -> None:
    params = {"base_url": "https://journal.example.org/ojs/", "journal_id": "joe"}
    first, _ = next(extract_au("ojs", params, OJS_MIRROR))
    assert first.get_invalid(mf.FIELD_ISSN).raw_value == "not_an_issn"
    assert (first.get(mf.FIELD_PROVIDER), first.get(mf.FIELD_PUBLISHER)) == ("Example Society", "Example Society")
    other_journal = list(extract_au("ojs", {**params, "journal_id": "joe2"}, OJS_MIRROR))
    assert other_journal == []


def test_explicit_parameters_override_the_title_database() -> None:
    tdb_au = load_tdb(OJS_TDB).aus[1]
    assert list(extract_au("ojs", tdb_au, OJS_MIRROR)) == []
    overridden = list(extract_au("ojs", tdb_au, OJS_MIRROR, params={"journal_id": "joe"}))
    assert len(overridden) == 3 and overridden[0][0].get(mf.FIELD_VOLUME) == "vol16"
    assert overridden[1][0].get(mf.FIELD_VOLUME) == "17"


def test_prefer_tdb_publisher_from_the_plugin() -> None:
    data = yaml.safe_load(Path(load_plugin("ojs").source).read_text())
    data["article_metadata"]["prefer_tdb_publisher"] = True
    plugin = plugin_from_dict(data, "ojs-preferring.yaml")
    first, _ = next(extract_au(plugin, load_tdb(OJS_TDB).aus[0], OJS_MIRROR))
    assert first.get(mf.FIELD_PUBLISHER) == first.get(mf.FIELD_PROVIDER) == "Example Society Press"


# --- JATS delivery -------------------------------------------------------------------------------------------------


def test_jats_delivery_plugin() -> None:
    results = list(extract_au("jats_delivery", {"base_url": "https://deliveries.example.com/", "year": "2024"},
                              JATS_DELIVERY))
    assert [(af.full_text_url, am.get(mf.FIELD_DOI)) for am, af in results] == [
        (BATCH + "a1.pdf", "10.5555/joe.2024.101"),
        (BATCH + "broken.xml", None),
        (BATCH + "set.xml", "10.5555/aoe.2024.1"),
        (BATCH + "set.xml", "10.5555/aoe.2024.2"),
    ]
    a1, files = results[0]
    assert {role: files.get_role_url(role) for role in files.roles()} == {
        "FullTextXml": BATCH + "a1.xml", "ArticleMetadata": BATCH + "a1.xml", "FullTextPdfFile": BATCH + "a1.pdf"}
    assert a1.get(mf.FIELD_ARTICLE_TITLE) == "Sediment transport in estuaries : A two-year field study"
    assert a1.get(mf.FIELD_ACCESS_URL) == BATCH + "a1.pdf"
    assert cooked(results[1][0]) == {"access.url": BATCH + "broken.xml"}


def test_article_target_and_format_override() -> None:
    params = {"base_url": "https://deliveries.example.com/", "year": "2024"}
    counted = list(extract_au("jats_delivery", params, JATS_DELIVERY, target=MetadataTarget.article()))
    assert counted[0][1].roles() == ["FullTextXml", "ArticleMetadata"]
    pdf_only = list(extract_au("jats_delivery", params, JATS_DELIVERY,
                               target=MetadataTarget(format="application/pdf")))
    assert [af.full_text_url for _, af in pdf_only] == []  # the PDF defers to its XML


def test_failing_articles_are_logged_skipped_and_collected(caplog: pytest.LogCaptureFixture,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    original = HtmlMetaTagExtractor.extract

    def flaky(self: HtmlMetaTagExtractor, target: MetadataTarget, cu: Any) -> list[ArticleMetadata]:
        if cu.url.endswith("/18"):
            raise RuntimeError("parser bug")
        return original(self, target, cu)

    monkeypatch.setattr(HtmlMetaTagExtractor, "extract", flaky)
    errors: list[tuple[str | None, Exception]] = []
    results = list(extract_au("ojs", load_tdb(OJS_TDB).aus[0], OJS_MIRROR, errors=errors))
    assert [af.full_text_url for _, af in results] == [JOE + "view/17", JOE + "view/19/50"]
    assert [(url, str(e)) for url, e in errors] == [(JOE + "view/18", "parser bug")]
    assert "metadata extraction failed for " + JOE + "view/18: RuntimeError: parser bug" in caplog.text


def test_archival_unit_from_a_path_takes_the_scheme_from_base_url(caplog: pytest.LogCaptureFixture) -> None:
    unit = archival_unit("ojs", {"base_url": "http://journal.example.org/ojs/", "journal_id": "joe"}, OJS_MIRROR)
    assert unit.urls()[0].startswith("http://journal.example.org/")
    assert unit.au_id.startswith("org|pubfetch|plugin|ojs|OJSPlugin&")
    tdb_au = load_tdb(OJS_TDB).aus[0]
    archival_unit("highwire", tdb_au, OJS_MIRROR)
    assert "names plugin org.pubfetch.plugin.ojs.OJSPlugin; extracting with org.pubfetch.plugin.highwire" in caplog.text
    with pytest.raises(SourceError, match="does not exist"):
        archival_unit("ojs", {"base_url": "http://j/", "journal_id": "j"}, OJS_MIRROR / "nothing")
    with pytest.raises(TypeError, match="AU must be a mapping"):
        archival_unit("ojs", ["base_url"], OJS_MIRROR)  # type: ignore[arg-type]


# --- plugin file checks --------------------------------------------------------------------------------------------

MINIMAL: dict[str, Any] = {
    "id": "org.example.plugin.Test",
    "name": "Test",
    "params": ["base_url", {"key": "journal_code", "type": "String"}],
    "article_iterator": {
        "root_templates": ['"%s", base_url'],
        "pattern_template": '"^%s%s/", base_url, journal_code',
        "aspects": [
            {"patterns": [r"/art/(\d+)$"], "replacements": ["/art/$1"], "roles": ["FullTextHtml"]},
            {"replacements": ["/art/$1.pdf"], "roles": ["FullTextPdfFile"]},
        ],
    },
    "metadata_extractors": {"text/html": {"extractor": "html_meta", "cook_map": {"citation_doi": "doi"}}},
}


def with_changes(path: str, value: Any) -> dict[str, Any]:
    """MINIMAL with one value replaced (``a.b[0].c`` paths); value ``...`` deletes the key."""
    data = json.loads(json.dumps(MINIMAL))
    target: Any = data
    keys = path.replace("]", "").replace("[", ".").split(".")
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if value is ...:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return data


def test_minimal_plugin_loads() -> None:
    plugin = plugin_from_dict(MINIMAL, "test.yaml")
    assert isinstance(plugin, Plugin)
    assert [(p.key, p.type) for p in plugin.params] == [("base_url", ParamType.URL), ("journal_code", ParamType.STRING)]
    source = MemorySource({"https://x/j/art/1": ("<meta name='citation_doi' content='10.1234/56'>", "text/html"),
                           "https://x/j/art/1.pdf": (TINY_PDF, "application/pdf"),
                           "https://x/k/art/2": ("<html></html>", "text/html")})
    (am, af), = extract_au(plugin, {"base_url": "https://x/", "journal_code": "j"}, source)
    assert cooked(am) == {"access.url": "https://x/j/art/1", "doi": "10.1234/56"}
    assert af.get_role_url("FullTextPdfFile") == "https://x/j/art/1.pdf"


@pytest.mark.parametrize(("path", "value", "message"), [
    ("idd", "x", "test.yaml: idd: unknown key \\(did you mean 'id'\\?\\)"),
    ("id", ..., "test.yaml: id: missing"),
    ("id", "not an id", "test.yaml: id: 'not an id' is not a dotted identifier"),
    ("name", 5, "test.yaml: name: expected a non-empty string, not the number 5"),
    ("params", "base_url", "test.yaml: params: expected a list of parameters"),
    ("params[0]", "base_ur", "test.yaml: params\\[0\\]: 'base_ur' is not a built-in parameter"),
    ("params[1]", {"key": "journal_code"},
     "params\\[1\\]: parameter 'journal_code' is not built in, so it needs a type"),
    ("params[1].type", "Text", "params\\[1\\].type: unknown parameter type 'Text'"),
    ("params[1].type", 13, "params\\[1\\].type: unknown parameter type code 13"),
    ("params[1].size", -1, "params\\[1\\].size: expected a non-negative integer"),
    ("params[1].key", "base_url", "params\\[1\\]: parameter 'base_url' is declared twice"),
    ("params[1].key", "reserved.wrapper", "params\\[1\\]: parameter 'reserved.wrapper' uses the reserved name space"),
    ("article_iterator.roots", ["https://x/"], "article_iterator: give roots or root_templates, not both"),
    ("article_iterator.root_templates[0]", '"%s", base', ("root_templates\\[0\\]: template argument 'base' names no "
                                                          "parameter")),
    ("article_iterator.root_templates[0]", '"%s", shout(base_url)', "Undefined function: shout"),
    ("article_iterator.root_templates[0]", "\"%s%s\", base_url", "root_templates\\[0\\]: invalid printf template"),
    ("article_iterator.pattern", "(", "article_iterator: give pattern or pattern_template, not both"),
    ("article_iterator.pattern_flags", ["LOUD"], "article_iterator.pattern_flags\\[0\\]: unknown regexp flag 'LOUD'"),
    ("article_iterator.mime_types", ["html"], "article_iterator.mime_types\\[0\\]: not a MIME type: 'html'"),
    ("article_iterator.aspects[0].roles", ["FullTextHTML"],
     "aspects\\[0\\].roles\\[0\\]: unknown role 'FullTextHTML' \\(did you mean 'FullTextHtml'\\?\\)"),
    ("article_iterator.aspects[0].roles", ..., "aspects\\[0\\]: an aspect needs roles"),
    ("article_iterator.aspects[0].patterns", ["(unclosed"], ("aspects\\[0\\].patterns\\[0\\]: invalid regular "
                                                            "expression")),
    ("article_iterator.aspects[1].replacements", ["/art/$2.pdf"],
     "aspects\\[1\\].replacements\\[0\\]: refers to group 2 which pattern .* of aspect \\[0\\] does not have"),
    ("article_iterator.aspects[1].replacements", ["/art/$.pdf"], "aspects\\[1\\].replacements\\[0\\]: Illegal group"),
    ("article_iterator.aspects[1].replacements", [], ("aspects\\[1\\]: an aspect needs patterns \\(a major aspect\\) "
                                                     "or replacements")),
    ("article_iterator.aspects[0].patterns", ..., "article_iterator.aspects: no aspect has patterns"),
    ("article_iterator.aspects[0].colour", "red", "aspects\\[0\\].colour: unknown key"),
    ("article_iterator.full_text_from_roles", ["Pdf"], "full_text_from_roles\\[0\\]: unknown role 'Pdf'"),
    ("article_iterator.role_from_other_roles", ["Abstract"], "role_from_other_roles: expected a mapping"),
    ("metadata_extractors.text/html.extractor", "rdf", ("metadata_extractors.text/html.extractor: unknown extractor "
                                                       "'rdf'")),
    ("metadata_extractors.text/html.extractor", ..., "metadata_extractors.text/html: missing extractor"),
    ("metadata_extractors.text/html.cook_map", {"citation_doi": "dio"},
     "cook_map.citation_doi: 'dio' is not a metadata field \\(did you mean 'doi'\\?\\)"),
    ("metadata_extractors.text/html.cook_map", {"citation_doi": {"field": "doi", "split": ";"}},
     "cook_map.citation_doi: field doi holds one value; only multi-valued fields can be split"),
    ("metadata_extractors.text/html.cook_map", {"a": {"field": "author", "split": ";", "html_text": True}},
     "cook_map.a: give one of split, extract, html_text, not split and html_text"),
    ("metadata_extractors.text/html.cook_map", {"a": {"field": "date", "extract": {"pattern": "(", "group": 1}}},
     "cook_map.a.extract.pattern: invalid regular expression"),
    ("metadata_extractors.text/html.cook_map", {"a": {"field": "date", "extract": {"pattern": "(x)", "group": 2}}},
     "cook_map.a: group_extractor: pattern '\\(x\\)' has no group 2"),
    ("metadata_extractors.text/html.options", {"max_pages": 2}, "options: bad options for metadata extractor"),
    ("metadata_extractors", {"html": {"extractor": "html_meta"}}, "metadata_extractors\\[0\\]: not a MIME type"),
    ("article_metadata", {"role": "Metadata"}, "article_metadata.role: unknown role 'Metadata'"),
    ("article_metadata", {"check_access_url": "yes"}, "article_metadata.check_access_url: expected true or false"),
    ("bulk_content", 1, "bulk_content: expected true or false, not the number 1"),
])
def test_plugin_errors_name_file_and_key(path: str, value: Any, message: str) -> None:
    with pytest.raises(PluginError, match=message):
        plugin_from_dict(with_changes(path, value), "test.yaml")


def test_custom_roles_and_cook_map_variants() -> None:
    data = with_changes("article_iterator.aspects[1].roles", ["Supplement"])
    with pytest.raises(PluginError, match="unknown role 'Supplement'"):
        plugin_from_dict(data, "test.yaml")
    data["custom_roles"] = ["Supplement"]
    data["metadata_extractors"]["text/html"]["cook_map"] = {
        "citation_keywords": {"field": "keywords", "split": ","},
        "citation_authors": {"field": "author", "split": [";", "(", ")"]},
        "citation_title": {"field": "article.title", "html_text": True},
        "citation_date": {"field": "date", "extract": {"pattern": r"(\d{4})", "group": 1}},
        "citation_volume": ["volume", "dc.citation_volume"],
        "citation_fulltext_html_url": "access.url",
        "citation_online_date": "date",
    }
    plugin = plugin_from_dict(data, "test.yaml")
    assert plugin.custom_roles == ("Supplement",)
    html = ("<meta name='citation_keywords' content='a, b,,c'><meta name='citation_authors' content=' (X ; ; Y) '>"
            "<meta name='citation_title' content='Ag&lt;sup&gt;&amp;reg;&lt;/sup&gt;)'>"
            "<meta name='citation_date' content='May 2019'><meta name='citation_online_date' content='2019-05-02'>"
            "<meta name='citation_volume' content='7'><meta name='citation_fulltext_html_url' content='https://x/j/art/3'>")
    source = MemorySource({"https://x/j/art/3": (html, "text/html")})
    (am, _), = extract_au(plugin, {"base_url": "https://x/", "journal_code": "j"}, source)
    assert cooked(am) == {"access.url": "https://x/j/art/3", "article.title": "Ag\u00ae)", "author": ["X", "Y"],
                          "date": "2019", "dc.citation_volume": "7", "keywords": ["a", "b", "c"], "volume": "7"}


def test_xpath_extractor_from_a_plugin() -> None:
    data = json.loads(json.dumps(MINIMAL))
    data["article_iterator"]["mime_types"] = ["application/xml"]
    data["metadata_extractors"] = {"application/xml": {
        "extractor": "xpath", "options": {"xpaths": {"/rec/doi": "text", "/rec/title": "text"}},
        "cook_map": {"/rec/doi": "doi", "/REC/TITLE": "article.title"}}}
    plugin = plugin_from_dict(data, "test.yaml")
    source = MemorySource({"https://x/j/art/4": ("<rec><doi>10.1234/56</doi><title>T</title></rec>",
                                                 "application/xml")})
    (am, _), = extract_au(plugin, {"base_url": "https://x/", "journal_code": "j"}, source)
    assert cooked(am) == {"access.url": "https://x/j/art/4", "article.title": "T", "doi": "10.1234/56"}
    data["metadata_extractors"]["application/xml"]["options"] = {"xpaths": {"/rec/doi": "date"}}
    with pytest.raises(PluginError, match="metadata_extractors.application/xml.options: XPath '/rec/doi': value type"):
        plugin_from_dict(data, "test.yaml")


def test_plugin_iterator_visits_archive_members() -> None:
    """visit_archive_members in a plugin: a zip delivery's JATS members are extracted one record each."""
    data = json.loads(json.dumps(MINIMAL))
    data["article_iterator"] = {"mime_types": ["application/xml"], "visit_archive_members": True}
    data["metadata_extractors"] = {"application/xml": {"extractor": "jats"}}
    plugin = plugin_from_dict(data, "test.yaml")
    assert plugin.iterator is not None and plugin.iterator.visit_archive_members
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number in (1, 2):
            archive.writestr(f"v1/a{number}.xml", f"<article><front><article-meta><article-id pub-id-type='doi'>"
                                                  f"10.1234/a{number}</article-id></article-meta></front></article>")
    source = MemorySource({"https://x/j/v1.zip": (buffer.getvalue(), "application/zip")})
    records = extract_au(plugin, {"base_url": "https://x/", "journal_code": "j"}, source)
    assert [(cooked(am)["doi"], af.full_text_url) for am, af in records] == [
        ("10.1234/a1", "https://x/j/v1.zip!/v1/a1.xml"), ("10.1234/a2", "https://x/j/v1.zip!/v1/a2.xml")]
    data["article_iterator"]["visit_archive_members"] = "yes"
    with pytest.raises(PluginError, match="article_iterator.visit_archive_members: expected true or false"):
        plugin_from_dict(data, "test.yaml")


def test_plugin_file_errors(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match="plugin file not found \\(shipped plugins: highwire, jats_delivery, ojs\\)"):
        load_plugin(tmp_path / "none.yaml")
    with pytest.raises(PluginError, match="no shipped plugin of that name"):
        load_plugin("wordpress")
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: [unclosed\n")
    with pytest.raises(PluginError, match=f"{bad}: not valid YAML"):
        load_plugin(bad)
    bad.write_text("")
    with pytest.raises(PluginError, match="the plugin file is empty"):
        load_plugin(bad)
    bad.write_text("- a list\n")
    with pytest.raises(PluginError, match="\\(top level\\): expected a mapping, not a list"):
        load_plugin(bad)
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(MINIMAL))
    assert load_plugin(good).source == str(good)


def test_plugin_without_iterator_or_extractors_uses_the_defaults() -> None:
    plugin = plugin_from_dict({"id": "org.x.Bare", "name": "Bare", "default_article_mime_type": "application/pdf"})
    source = MemorySource({"https://x/a.pdf": (TINY_PDF, "application/pdf"), "https://x/b": ("<html/>", "text/html")})
    (am, af), = extract_au(plugin, None, source)
    assert af.full_text_url == "https://x/a.pdf" and am.get(mf.FIELD_DOI) == "10.5555/joe.2020.17"
    with pytest.raises(PluginError, match="full_text_from_roles and role_from_other_roles need aspects"):
        plugin_from_dict({"id": "org.x.Bare", "name": "Bare",
                          "article_iterator": {"full_text_from_roles": ["Abstract"]}})


# --- CLI support ---------------------------------------------------------------------------------------------------


def test_run_plugin_operation_json_and_jsonl() -> None:
    out = io.StringIO()
    code = run_plugin_operation("ojs", None, str(OJS_TDB), "Journal of Examples Volume 16", str(OJS_MIRROR), out,
                                "json")
    assert code == 0
    records = [ArticleMetadata.from_json(r) for r in json.loads(out.getvalue())]
    assert [r.get(mf.FIELD_ACCESS_URL) for r in records] == [JOE + "view/17", JOE + "view/18", JOE + "view/19/50"]
    assert records[0].get(mf.FIELD_ISSN) == "0740-2783"
    lines = io.StringIO()
    params = {"base_url": "https://journal.example.org/ojs/", "journal_id": "joe"}
    assert run_plugin_operation("ojs", params, None, None, str(OJS_MIRROR), lines, "jsonl") == 0
    parsed = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert [p["cooked"]["access.url"] for p in parsed] == [JOE + "view/17", JOE + "view/18", JOE + "view/19/50"]
    assert parsed[0]["invalid"] == {"issn": {"raw": "not_an_issn", "error": "Illegal ISSN: not_an_issn"}}
    empty = io.StringIO()
    assert run_plugin_operation("ojs", {**params, "journal_id": "none"}, None, None, str(OJS_MIRROR), empty,
                                "json") == 0
    assert json.loads(empty.getvalue()) == []


def test_run_plugin_operation_reports_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: HtmlMetaTagExtractor, target: MetadataTarget, cu: Any) -> list[ArticleMetadata]:
        raise RuntimeError("parser bug")

    monkeypatch.setattr(HtmlMetaTagExtractor, "extract", broken)
    out = io.StringIO()
    assert run_plugin_operation("ojs", None, str(OJS_TDB), "Journal of Examples Volume 16", str(OJS_MIRROR), out,
                                "jsonl") == 1
    assert out.getvalue() == ""


def test_run_plugin_operation_input_errors() -> None:
    out = io.StringIO()
    with pytest.raises(ValueError, match="lists 2 AUs; name one of them: 'Journal of Examples Volume 16'"):
        run_plugin_operation("ojs", None, str(OJS_TDB), None, str(OJS_MIRROR), out, "json")
    with pytest.raises(ValueError, match="has no AU named 'Volume 99'"):
        run_plugin_operation("ojs", None, str(OJS_TDB), "Volume 99", str(OJS_MIRROR), out, "json")
    with pytest.raises(ValueError, match="an AU name needs a title database"):
        run_plugin_operation("ojs", None, None, "Volume 16", str(OJS_MIRROR), out, "json")
    with pytest.raises(AuIdError, match="missing definitional parameter"):
        run_plugin_operation("ojs", {}, None, None, str(OJS_MIRROR), out, "json")
    with pytest.raises(ValueError, match="output format must be 'json' or 'jsonl'"):
        run_plugin_operation("ojs", {}, None, None, str(OJS_MIRROR), out, "xml")  # type: ignore[arg-type]
    assert out.getvalue() == ""


def test_select_tdb_au_prefers_the_plugins_only_au() -> None:
    tdb = load_tdb(OJS_TDB)
    with pytest.raises(ValueError, match="lists 2 AUs"):
        select_tdb_au(tdb, load_plugin("ojs"), None)
    tdb.aus.pop()
    assert select_tdb_au(tdb, load_plugin("highwire"), None).name == "Journal of Examples Volume 16"
