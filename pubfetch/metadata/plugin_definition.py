"""A loaded plugin: the checked definition (:class:`Plugin`) and what it builds: AUs, the article iterator and the
metadata extractors. :mod:`pubfetch.metadata.plugin` reads plugin files into it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pubfetch.metadata.archival_unit import ArchivalUnit
from pubfetch.metadata.article_metadata import CookMap
from pubfetch.metadata.au import AuConfig
from pubfetch.metadata.extractors import (
    BaseArticleMetadataExtractor,
    ExtractorFactory,
    MetadataTarget,
    default_factory,
    make_extractor,
)
from pubfetch.metadata.iterators import Spec, SubTreeArticleIterator, SubTreeArticleIteratorBuilder
from pubfetch.metadata.params import ParamDescr
from pubfetch.metadata.sources import ContentSource
from pubfetch.metadata.templates import DEFAULT_FUNCTOR

if TYPE_CHECKING:
    from pubfetch.metadata.tdb import TdbAu

__all__ = ["AspectDef", "ExtractorDef", "IteratorDef", "Plugin", "PluginError"]


class PluginError(ValueError):
    """A plugin file that cannot be used; the message starts with the file and the key at fault."""

    def __init__(self, source: str, key: str, message: str) -> None:
        super().__init__(f"{source}: {key}: {message}" if key else f"{source}: {message}")
        self.source = source
        self.key = key
        self.detail = message


@dataclass(frozen=True)
class AspectDef:
    roles: tuple[str, ...]
    patterns: tuple[str, ...] = ()
    flags: int = 0
    replacements: tuple[str, ...] = ()
    mime_types: tuple[str, ...] = ()
    name: str = ""


@dataclass(frozen=True)
class IteratorDef:
    roots: tuple[str, ...] | None = None
    root_templates: tuple[str, ...] | None = None
    pattern: str | None = None
    pattern_template: str | None = None
    pattern_flags: int = 0
    include_subtree_pattern: str | None = None
    include_subtree_pattern_template: str | None = None
    include_subtree_flags: int = 0
    exclude_subtree_pattern: str | None = None
    exclude_subtree_pattern_template: str | None = None
    exclude_subtree_flags: int = 0
    mime_types: tuple[str, ...] | None = None
    aspects: tuple[AspectDef, ...] = ()
    full_text_from_roles: tuple[str, ...] = ()
    role_from_other_roles: tuple[tuple[str, tuple[str, ...]], ...] = ()
    visit_archive_members: bool = False

    def spec(self, target: MetadataTarget | None) -> Spec:
        return Spec(target=target, mime_type=self.mime_types, roots=self.roots, root_templates=self.root_templates,
                    pattern=self.pattern, pattern_template=self.pattern_template, pattern_flags=self.pattern_flags,
                    include_subtree_pattern=self.include_subtree_pattern,
                    include_subtree_pattern_template=self.include_subtree_pattern_template,
                    include_subtree_flags=self.include_subtree_flags,
                    exclude_subtree_pattern=self.exclude_subtree_pattern,
                    exclude_subtree_pattern_template=self.exclude_subtree_pattern_template,
                    exclude_subtree_flags=self.exclude_subtree_flags,
                    visit_archive_members=self.visit_archive_members)


@dataclass(frozen=True)
class ExtractorDef:
    mime_type: str
    kind: str
    cook_map: CookMap | None
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Plugin:
    """A loaded, checked plugin definition (see the module docstring)."""

    id: str
    name: str
    params: tuple[ParamDescr, ...] = ()
    iterator: IteratorDef | None = None
    extractors: tuple[ExtractorDef, ...] = ()
    metadata_role: str | None = None
    add_tdb_defaults: bool = True
    check_access_url: bool = True
    prefer_tdb_publisher: bool = False
    default_article_mime_type: str | None = None
    bulk_content: bool = False
    version: str = ""
    description: str = ""
    custom_roles: tuple[str, ...] = ()
    source: str = "<dict>"

    # --- AUs ---

    def au_config(self, params: Mapping[str, str] | None = None, tdb_au: TdbAu | None = None) -> AuConfig:
        """The AU configuration from a title-database AU and/or explicit values (explicit ones win)."""
        raw: dict[str, str] = {}
        if tdb_au is not None:
            base = tdb_au.au_config(self.params)
            raw.update(base.raw)
            raw.update(base.extras)
        raw.update(params or {})
        return AuConfig.parse(raw, self.params)

    def au_id(self, config: AuConfig) -> str:
        return config.au_id(self.id)

    def make_au(self, source: ContentSource, params: Mapping[str, str] | None = None, tdb_au: TdbAu | None = None,
                *, name: str = "") -> ArchivalUnit:
        """An archival unit of this plugin over ``source``; every definitional parameter must have a value."""
        config = self.au_config(params, tdb_au)
        self.au_id(config)  # AuIdError (a ValueError) naming missing definitional parameters
        return ArchivalUnit(source, config, tdb_au, self.id, self.default_article_mime_type, self.bulk_content,
                            name or (tdb_au.name if tdb_au is not None else ""))

    # --- iteration and extraction ---

    def article_iterator(self, au: ArchivalUnit, target: MetadataTarget | None = None) -> SubTreeArticleIterator:
        """The article iterator of this plugin over ``au``."""
        definition = self.iterator or IteratorDef()
        spec = definition.spec(target)
        if not definition.aspects:
            return SubTreeArticleIterator(au, spec, functor=DEFAULT_FUNCTOR)
        builder = SubTreeArticleIteratorBuilder(au, spec)
        for aspect in definition.aspects:
            builder.add_aspect(list(aspect.patterns), list(aspect.replacements), list(aspect.roles),
                               flags=aspect.flags, mime_types=aspect.mime_types or None, name=aspect.name)
        if definition.full_text_from_roles:
            builder.set_full_text_from_roles(*definition.full_text_from_roles)
        for role, others in definition.role_from_other_roles:
            builder.set_role_from_other_roles(role, *others)
        return builder.get_sub_tree_article_iterator()

    def extractor_factory(self) -> ExtractorFactory:
        if not self.extractors:
            return default_factory()
        return ExtractorFactory({d.mime_type: make_extractor(d.kind, d.cook_map, **dict(d.options))
                                 for d in self.extractors})

    def article_metadata_extractor(self, target: MetadataTarget | None = None) -> BaseArticleMetadataExtractor:
        return BaseArticleMetadataExtractor(self.metadata_role, factory=self.extractor_factory(),
                                            add_tdb_defaults=self.add_tdb_defaults,
                                            check_access_url=self.check_access_url,
                                            prefer_tdb_publisher=self.prefer_tdb_publisher)

    def __repr__(self) -> str:
        return f"Plugin({self.id!r}, {self.source!r})"
