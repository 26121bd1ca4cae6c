"""Extract the metadata records of a whole archival unit: plugin + AU parameters + content -> records.

This is the metadata pipeline of LOCKSS in one call for library users: the plugin's article iterator groups the AU's
URLs into articles, its article metadata extractor reads each article's metadata file, and every record comes back
with the article's files::

    from pubfetch.metadata.extract_au import extract_au

    for am, af in extract_au("highwire", {"base_url": "https://peerj.com/"}, "crawl.warc.gz"):
        print(am.get("doi"), am.get("article.title"), af.full_text_url)

Public API:

* ``extract_au(plugin, au, source, *, params=None, target=None, errors=None)`` -> iterator of ``(ArticleMetadata,
  ArticleFiles)`` -- ``plugin`` is a :class:`~pubfetch.metadata.plugin.Plugin`, a plugin file or a shipped plugin
  name; ``au`` is a mapping of parameter values, a :class:`~pubfetch.metadata.tdb.TdbAu` (title-database defaults
  then apply), or None for a plugin without parameters (``params`` add to or override the AU's values); ``source`` is
  a :class:`~pubfetch.metadata.sources.ContentSource` or the path of a mirror directory or WARC file (opened here and
  closed when the iteration ends). A mirror directory's scheme is taken from the ``base_url`` parameter. An article
  whose extraction fails is logged and skipped; pass a list as ``errors`` to collect ``(url, exception)`` pairs.
* ``archival_unit(plugin, au, source, *, params=None) -> ArchivalUnit`` -- the AU alone (for running iterators by hand).

Bad input raises at once, before the first record: an unusable plugin (:class:`~pubfetch.metadata.plugin.
PluginError`), a parameter value that does not parse (:class:`~pubfetch.metadata.params.InvalidParamValue`), a missing
definitional parameter (:class:`~pubfetch.metadata.au.AuIdError`), an unreadable source
(:class:`~pubfetch.metadata.sources.SourceError`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from urllib.parse import urlsplit

from pubfetch.metadata.archival_unit import ArchivalUnit
from pubfetch.metadata.article_files import ArticleFiles
from pubfetch.metadata.article_metadata import ArticleMetadata
from pubfetch.metadata.extractors import MetadataTarget
from pubfetch.metadata.plugin import Plugin, load_plugin
from pubfetch.metadata.sources import ContentSource, open_source
from pubfetch.metadata.tdb import TdbAu

__all__ = ["archival_unit", "extract_au"]

log = logging.getLogger(__name__)

PluginLike = Plugin | str | os.PathLike[str]
AuLike = Mapping[str, str] | TdbAu | None
SourceLike = ContentSource | str | os.PathLike[str]


def _plugin(plugin: PluginLike) -> Plugin:
    return plugin if isinstance(plugin, Plugin) else load_plugin(plugin)


def _split_au(au: AuLike) -> tuple[dict[str, str], TdbAu | None]:
    if au is None:
        return {}, None
    if isinstance(au, TdbAu):
        return {}, au
    if isinstance(au, Mapping):
        return dict(au), None
    raise TypeError(f"AU must be a mapping of parameter values, a TdbAu or None, not {type(au).__name__}")


def archival_unit(plugin: PluginLike, au: AuLike, source: SourceLike, *,
                  params: Mapping[str, str] | None = None) -> ArchivalUnit:
    """The archival unit of ``plugin`` with ``au``'s parameters (``params`` override them) over ``source`` (opened
    when it is a path)."""
    loaded = _plugin(plugin)
    params_given, tdb_au = _split_au(au)
    params = {**params_given, **(params or {})}
    if tdb_au is not None and tdb_au.plugin != loaded.id:
        log.warning("title-database AU %r names plugin %s; extracting with %s", tdb_au.name, tdb_au.plugin, loaded.id)
    config = loaded.au_config(params, tdb_au)
    loaded.au_id(config)
    if not isinstance(source, ContentSource):
        base_url = config.get("base_url")
        scheme = urlsplit(base_url).scheme if isinstance(base_url, str) else ""
        source = open_source(source, scheme=scheme if scheme in ("http", "https") else "https")
    return loaded.make_au(source, params, tdb_au)


def extract_au(plugin: PluginLike, au: AuLike, source: SourceLike, *, params: Mapping[str, str] | None = None,
               target: MetadataTarget | None = None, errors: list[tuple[str | None, Exception]] | None = None,
               ) -> Iterator[tuple[ArticleMetadata, ArticleFiles]]:
    """The records of every article of the AU, in article order (see the module docstring)."""
    loaded = _plugin(plugin)
    unit = archival_unit(loaded, au, source, params=params)
    owns_source = not isinstance(source, ContentSource)
    return _records(loaded, unit, target, errors, owns_source)


def _records(plugin: Plugin, unit: ArchivalUnit, target: MetadataTarget | None,
             errors: list[tuple[str | None, Exception]] | None,
             owns_source: bool) -> Iterator[tuple[ArticleMetadata, ArticleFiles]]:
    extractor = plugin.article_metadata_extractor(target)
    try:
        for af in plugin.article_iterator(unit, target):
            try:
                records = extractor.extract(target, af, unit)
            except Exception as e:  # one article's failure must not lose the others
                log.warning("metadata extraction failed for %s: %s: %s", af.full_text_url, type(e).__name__, e)
                log.debug("traceback of the failure for %s", af.full_text_url, exc_info=True)
                if errors is not None:
                    errors.append((af.full_text_url, e))
                continue
            for am in records:
                yield am, af
    finally:
        if owns_source:
            unit.source.close()
