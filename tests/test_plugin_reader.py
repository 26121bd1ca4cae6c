"""Tests for pubfetch.metadata.plugin_reader: a plugin definition checked key by key (errors name the file and the
key) and built into a working plugin: parameters, article iterator, roles, cook maps and extractors."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata
from pubfetch.metadata.extract_au import extract_au
from pubfetch.metadata.params import ParamType
from pubfetch.metadata.plugin import Plugin, PluginError, plugin_from_dict
from pubfetch.metadata.sources import MemorySource

FIXTURES = Path(__file__).parent / "data" / "archival_units"
TINY_PDF = (FIXTURES / "tiny_article.pdf").read_bytes()


def cooked(am: ArticleMetadata) -> dict[str, Any]:
    return am.to_json()["cooked"]


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


def test_plugin_without_iterator_or_extractors_uses_the_defaults() -> None:
    plugin = plugin_from_dict({"id": "org.x.Bare", "name": "Bare", "default_article_mime_type": "application/pdf"})
    source = MemorySource({"https://x/a.pdf": (TINY_PDF, "application/pdf"), "https://x/b": ("<html/>", "text/html")})
    (am, af), = extract_au(plugin, None, source)
    assert af.full_text_url == "https://x/a.pdf" and am.get(mf.FIELD_DOI) == "10.5555/joe.2020.17"
    with pytest.raises(PluginError, match="full_text_from_roles and role_from_other_roles need aspects"):
        plugin_from_dict({"id": "org.x.Bare", "name": "Bare",
                          "article_iterator": {"full_text_from_roles": ["Abstract"]}})
