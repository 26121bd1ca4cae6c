"""Tests for pubfetch.metadata.extract_au: the records of a whole archival unit from a plugin, AU parameters or a
title-database AU, and content in a mirror, a WARC or memory, end to end over the shipped plugins."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from pubfetch.extract.meta_scan import meta_tags
from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata
from pubfetch.metadata.extract_au import archival_unit, extract_au
from pubfetch.metadata.extractors import HtmlMetaTagExtractor, MetadataTarget
from pubfetch.metadata.plugin import load_plugin, plugin_from_dict
from pubfetch.metadata.sources import SourceError
from pubfetch.metadata.tdb import load_tdb
from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.warc import WarcRecorder
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
