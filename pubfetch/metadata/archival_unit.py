"""An archival unit as the metadata layer sees it: a content source with the AU's configuration, title-database entry
and the plugin facts that article iterators and metadata extractors need.

It sits above both :mod:`pubfetch.metadata.sources` (where the content comes from) and
:mod:`pubfetch.metadata.archives` (zip and tar members as ``<archive>!/<member>`` URLs), because resolving a URL may
open an archive that a source holds.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pubfetch.metadata.archives import ArchiveMemberSpec, OpenArchive, archive_kind
from pubfetch.metadata.au import AuConfig
from pubfetch.metadata.sources import CachedUrl, ContentSource, SourceError

if TYPE_CHECKING:
    from pubfetch.metadata.tdb import TdbAu

__all__ = ["ArchivalUnit"]

log = logging.getLogger(__name__)


def _empty_config() -> AuConfig:
    return AuConfig.parse({})


@dataclass
class ArchivalUnit:
    """An AU as the metadata layer sees it: its content, its parameter values and what the plugin and title database
    say about it. ``bulk_content`` marks disparate content from many sources (title-database bibliographic defaults
    then do not apply)."""

    source: ContentSource
    config: AuConfig = field(default_factory=_empty_config)
    tdb_au: TdbAu | None = None
    plugin_id: str | None = None
    default_mime_type: str | None = None
    bulk_content: bool = False
    name: str = ""
    extras: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    _archives: dict[tuple[str, int | None, int | None], OpenArchive] = field(default_factory=dict, init=False,
                                                                            repr=False, compare=False)

    def make_cached_url(self, url: str) -> CachedUrl | None:
        """The cached URL of ``url`` in this AU, or None. A URL ``<archive>!/<member>`` that the source does not hold
        itself names a member of a zip or tar archive in the AU (LOCKSS' ArchiveMemberSpec)."""
        found = self.source.get(url)
        if found is not None:
            return found
        spec = ArchiveMemberSpec.from_url(url)
        archive = self.source.get(spec.archive_url) if spec is not None else None
        if spec is None or archive is None or not archive.has_content() or archive_kind(archive) is None:
            return None
        try:
            return self.open_archive(archive).member(spec.member)
        except SourceError as e:
            log.warning("%s: %s", url, e)
            return None

    def open_archive(self, cu: CachedUrl) -> OpenArchive:
        """The archive ``cu`` read once; the last two opened stay open, so aspects resolving members of the archive
        being iterated do not read it again. :class:`SourceError` when it is not a readable zip or tar archive."""
        key = (cu.url, cu.fetch_time, cu.status)
        opened = self._archives.pop(key, None) or OpenArchive(cu)
        self._archives[key] = opened
        while len(self._archives) > 2:
            del self._archives[next(iter(self._archives))]
        return opened

    def has_content(self, url: str | None) -> bool:
        if url is None:
            return False
        if self.source.has_content(url):
            return True
        cu = self.make_cached_url(url) if "!/" in url else None
        return cu is not None and cu.has_content()

    def urls(self) -> list[str]:
        return self.source.urls()

    @property
    def au_id(self) -> str | None:
        """The AU id (None without a plugin id); raises :class:`~pubfetch.metadata.au.AuIdError` when a definitional
        parameter is missing."""
        return self.config.au_id(self.plugin_id) if self.plugin_id else None

    def __repr__(self) -> str:
        return f"ArchivalUnit({self.name or self.plugin_id!r}, source={self.source.name!r})"

