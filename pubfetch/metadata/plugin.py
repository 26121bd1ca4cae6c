"""Plugins: YAML files saying how to find a site's articles and read their metadata.

A LOCKSS plugin is an XML map plus Java classes; a pubfetch plugin is one YAML file with the same ingredients, so a
new site needs no code. It is loaded safely (safe tags, no aliases) and checked completely when loaded: every error
names the file and the key (``ojs.yaml: article_iterator.aspects[1].roles[0]: unknown role 'FullTextHTML'``), unknown
keys are errors (they are usually typos), and regexps, printf templates, replacement strings and field names are all
checked.

Keys (only ``id`` and ``name`` are required)::

    id: org.example.plugin.MyPlugin      # dotted, as LOCKSS plugin ids; the AU id starts with it
    name: My journal platform
    version: 1                           # optional, informative
    description: ...                     # optional
    params:                              # configuration parameters
      - base_url                         # a built-in LOCKSS parameter, by key
      - key: journal_code                # or a descriptor: key, type (code 1-12 or name such as Url, PosInt),
        type: String                     #   display_name, description, size, definitional, default_only
    default_article_mime_type: text/html
    bulk_content: false                  # true: disparate content (title-database bibliographic defaults unused)
    custom_roles: [MyRole]               # roles beyond the LOCKSS ones
    article_iterator:
      root_templates: ['"%s", base_url'] # or roots: [...]
      pattern_template: '"^%s", base_url' # or pattern: '...'; pattern_flags: [IGNORECASE]
      include_subtree_pattern(_template), exclude_subtree_pattern(_template), *_flags
      mime_types: [text/html, application/pdf]
      visit_archive_members: false       # true: zip/tar members (<archive>!/<member>) instead of the archives
      aspects:                           # the builder's aspects, in priority order
        - name: html
          patterns: ['^(.+)$']           # major aspect (omit for a minor one); flags: [IGNORECASE]
          replacements: ['$1']           # Java replacement syntax
          roles: [FullTextHtml, ArticleMetadata]
          mime_types: [text/html]        # optional: this rendition's types
      full_text_from_roles: [FullTextHtml, FullTextPdfFile]
      role_from_other_roles: {ArticleMetadata: [Abstract, FullTextHtml]}
    article_metadata:                    # the BaseArticleMetadataExtractor
      role: ArticleMetadata              # default: the full-text CU
      add_tdb_defaults: true
      check_access_url: true
      prefer_tdb_publisher: false
    metadata_extractors:                 # file metadata extractors by MIME type (type/*, * allowed)
      text/html:
        extractor: html_meta             # html_meta, jats, pubmed, pdf, xml, xpath
        cook_map:                        # omitted: the extractor's default; {}: raw keys only
          citation_doi: doi              # a field key,
          citation_authors: {field: author, split: ";"}     # split: sep | [sep, delim] | [sep, open, close]
          citation_date: {field: date, extract: {pattern: '(\\d{4})', group: 1}}
          citation_title: {field: article.title, html_text: true}
          citation_volume: [volume, dc.citation_volume]     # or a list of these
        options: {}                      # extractor options (pdf: max_pages, time_limit; xpath: xpaths
                                         #   {XPath: text|node|number|boolean}, namespaces {prefix: URI})

Without ``article_iterator`` every URL of the default article MIME type is an article; without
``metadata_extractors`` the default extractors are used (:func:`pubfetch.metadata.extractors.default_factory`).

Public API: :func:`load_plugin` (a path, or the name of a shipped plugin: ``highwire``, ``ojs``,
``jats_delivery``), :func:`plugin_from_dict`, :func:`shipped_plugins`, :class:`Plugin` (``make_au``,
``article_iterator``, ``article_metadata_extractor``, ``extractor_factory``, ``au_id``) and :class:`PluginError`.
The definition lives in :mod:`pubfetch.metadata.plugin_definition`, the key-by-key checks in
:mod:`pubfetch.metadata.plugin_reader`.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from pubfetch import yamlsafe
from pubfetch.metadata.plugin_definition import AspectDef, ExtractorDef, IteratorDef, Plugin, PluginError
from pubfetch.metadata.plugin_reader import PluginReader

__all__ = [
    "AspectDef",
    "ExtractorDef",
    "IteratorDef",
    "Plugin",
    "PluginError",
    "load_plugin",
    "plugin_from_dict",
    "shipped_plugin_path",
    "shipped_plugins",
]

SHIPPED_PACKAGE = "pubfetch.metadata.plugins"


def shipped_plugins() -> list[str]:
    """Names of the plugins shipped with pubfetch (``highwire``, ``jats_delivery``, ``ojs``)."""
    folder = resources.files(SHIPPED_PACKAGE)
    return sorted(entry.name[:-5] for entry in folder.iterdir() if entry.name.endswith(".yaml"))


def shipped_plugin_path(name: str) -> Path:
    """The file of a shipped plugin."""
    if name not in shipped_plugins():
        raise PluginError(name, "", f"no shipped plugin of that name; shipped: {', '.join(shipped_plugins())}")
    return Path(str(resources.files(SHIPPED_PACKAGE).joinpath(f"{name}.yaml")))


def load_plugin(plugin: str | os.PathLike[str]) -> Plugin:
    """Load and check a plugin file; a bare name without a path separator or ``.yaml`` that is not an existing file
    is looked up among the shipped plugins."""
    path = Path(plugin)
    bare_name = isinstance(plugin, str) and path.suffix == "" and os.sep not in plugin and "/" not in plugin
    if not path.exists() and bare_name:
        path = shipped_plugin_path(str(plugin))
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        shipped = ", ".join(shipped_plugins())
        raise PluginError(source, "", f"plugin file not found (shipped plugins: {shipped})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PluginError(source, "", f"cannot read the plugin file: {e}") from None
    try:
        data = yamlsafe.load(text)  # safe tags, and no aliases: an alias bomb is refused, not expanded
    except yaml.YAMLError as e:
        raise PluginError(source, "", f"not valid YAML: {e}") from None
    return plugin_from_dict(data, source)


def plugin_from_dict(data: Any, source: str = "<dict>") -> Plugin:
    """Check a parsed plugin definition and build the :class:`Plugin`."""
    return PluginReader(source).plugin(data)
