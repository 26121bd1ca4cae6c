"""Tests for pubfetch.metadata.plugin_definition: what a loaded plugin builds: typed AU configurations and ids, AUs,
article iterators and metadata extractors."""

from __future__ import annotations

import pytest

from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import CookMap
from pubfetch.metadata.au import AuIdError
from pubfetch.metadata.descriptors import BUILTIN_DESCRIPTORS
from pubfetch.metadata.extractors import MetadataTarget, PdfMetadataExtractor
from pubfetch.metadata.params import InvalidParamValue
from pubfetch.metadata.plugin import load_plugin
from pubfetch.metadata.plugin_definition import AspectDef, ExtractorDef, IteratorDef, Plugin, PluginError
from pubfetch.metadata.sources import MemorySource
from pubfetch.metadata.tdb import parse_tdb


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


PARAMS = (BUILTIN_DESCRIPTORS["base_url"], BUILTIN_DESCRIPTORS["journal_id"])


def two_articles() -> MemorySource:
    return MemorySource({
        "https://x/j/art/1": ("<meta name='citation_doi' content='10.1234/1'>", "text/html"),
        "https://x/j/art/1.pdf": (b"%PDF-1.4 not really", "application/pdf"),
        "https://x/j/art/2": ("<meta name='citation_doi' content='10.1234/2'>", "text/html"),
        "https://x/k/art/3": ("<meta name='citation_doi' content='10.1234/3'>", "text/html"),
    })


def test_plugin_error_message_starts_with_the_file_and_the_key() -> None:
    error = PluginError("site.yaml", "params[0]", "'base_ur' is not a built-in parameter")
    assert str(error) == "site.yaml: params[0]: 'base_ur' is not a built-in parameter"
    assert (error.source, error.key, error.detail) == ("site.yaml", "params[0]", "'base_ur' is not a built-in parameter")
    assert str(PluginError("site.yaml", "", "not valid YAML")) == "site.yaml: not valid YAML"


def test_make_au_carries_the_plugin_facts_and_the_title_database_name() -> None:
    plugin = Plugin("org.example.plugin.Test", "Test", params=PARAMS, default_article_mime_type="text/html",
                    bulk_content=True)
    au = plugin.make_au(two_articles(), {"base_url": "https://x/", "journal_id": "j"}, name="Journal J")
    assert au.au_id == "org|example|plugin|Test&base_url~https%3A%2F%2Fx%2F&journal_id~j"
    assert (au.plugin_id, au.default_mime_type, au.bulk_content, au.name) == (
        "org.example.plugin.Test", "text/html", True, "Journal J")
    assert au.config["base_url_host"] == "x"


def test_explicit_parameters_win_over_the_title_database_au() -> None:
    tdb_au = parse_tdb("""{ publisher < name = P >
  plugin = org.example.plugin.Test
  implicit < name ; param[base_url] ; param[journal_id] >
  { title < name = T >
    au < From the TDB ; https://tdb/ ; tdb > } }""").aus[0]
    plugin = Plugin("org.example.plugin.Test", "Test", params=PARAMS)
    assert plugin.au_config(None, tdb_au)["journal_id"] == "tdb"
    config = plugin.au_config({"journal_id": "mine"}, tdb_au)
    assert (config["base_url"], config["journal_id"]) == ("https://tdb/", "mine")
    assert plugin.make_au(MemorySource(), None, tdb_au).name == "From the TDB"


def test_article_iterator_groups_urls_by_the_plugins_aspects() -> None:
    iterator = IteratorDef(
        root_templates=('"%s", base_url',), pattern_template='"^%s%s/", base_url, journal_id',
        aspects=(AspectDef(("FullTextHtml",), patterns=(r"/art/(\d+)$",), replacements=("/art/$1",)),
                 AspectDef(("FullTextPdfFile",), replacements=("/art/$1.pdf",))))
    plugin = Plugin("org.example.plugin.Test", "Test", params=PARAMS, iterator=iterator)
    au = plugin.make_au(two_articles(), {"base_url": "https://x/", "journal_id": "j"})
    articles = list(plugin.article_iterator(au))
    assert [af.full_text_url for af in articles] == ["https://x/j/art/1", "https://x/j/art/2"]
    assert articles[0].get_role_url("FullTextPdfFile") == "https://x/j/art/1.pdf"
    assert articles[1].get_role_url("FullTextPdfFile") is None


def test_without_an_iterator_every_url_of_the_default_type_is_an_article() -> None:
    plugin = Plugin("org.example.plugin.Bare", "Bare", default_article_mime_type="text/html")
    au = plugin.make_au(two_articles())
    assert [af.full_text_url for af in plugin.article_iterator(au)] == [
        "https://x/j/art/1", "https://x/j/art/2", "https://x/k/art/3"]


def test_extractors_follow_the_definition_else_the_defaults() -> None:
    html = ExtractorDef("text/html", "html_meta", CookMap().put("citation_doi", mf.FIELD_DOI))
    plugin = Plugin("org.example.plugin.Test", "Test", extractors=(html,), metadata_role="FullTextHtml",
                    add_tdb_defaults=False, prefer_tdb_publisher=True)
    factory = plugin.extractor_factory()
    assert factory.mime_types() == ["text/html"] and factory.for_content_type("application/pdf") is None
    (am,) = factory.for_content_type("text/html").extract(MetadataTarget(), two_articles().get("https://x/j/art/2"))
    assert am.to_json()["cooked"] == {"doi": "10.1234/2"}
    extractor = plugin.article_metadata_extractor()
    assert (extractor.role, extractor.add_tdb_defaults, extractor.check_access_url, extractor.prefer_tdb_publisher) == (
        "FullTextHtml", False, True, True)
    bare = Plugin("org.example.plugin.Bare", "Bare")
    assert isinstance(bare.extractor_factory().for_content_type("application/pdf"), PdfMetadataExtractor)
    assert repr(bare) == "Plugin('org.example.plugin.Bare', '<dict>')"
