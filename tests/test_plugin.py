"""Tests for pubfetch.metadata.plugin: the shipped plugins and loading plugin files (by path or shipped name), with
the errors a missing, unreadable or malformed file gives."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pubfetch.metadata.extractors import PdfMetadataExtractor
from pubfetch.metadata.plugin import PluginError, load_plugin, shipped_plugins

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


# --- plugin file checks --------------------------------------------------------------------------------------------

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
    good.write_text(yaml.safe_dump({"id": "org.example.plugin.Good", "name": "Good"}))
    assert load_plugin(good).source == str(good)
