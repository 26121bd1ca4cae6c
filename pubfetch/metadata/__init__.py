"""The LOCKSS-style metadata layer: fields, article metadata records, AU parameters and ids, printf templates, TDB.

Records are interchangeable with LOCKSS ones (same keys, cardinalities, validation rules and AU id encoding; spec
lockss.md). Modules, each documenting its public API in its docstring:

* :mod:`~pubfetch.metadata.fields` -- :class:`MetadataField`, cardinalities, validators, splitters, extractors, the
  built-in ``FIELD_*`` / ``DC_FIELD_*`` fields and the metadata errors.
* :mod:`~pubfetch.metadata.article_metadata` -- :class:`ArticleMetadata` (raw multi-map + cooked map), :class:`CookMap`,
  :class:`InvalidValue`.
* :mod:`~pubfetch.metadata.au` -- :class:`AuConfig` (typed plugin parameters with derived ``_host``/``_path``/
  ``au_short_*``) and AU ids.
* :mod:`~pubfetch.metadata.templates` -- printf templates converted to URL lists, regexps and display names; functors.
* :mod:`~pubfetch.metadata.tdb` -- the ``.tdb`` title database parser and its TdbAu accessors.
* :mod:`~pubfetch.metadata.identifiers` -- ISSN/ISBN check digits, ISBN-10/13 conversion, closest locale (LOCKSS
  MetadataUtil).
* :mod:`~pubfetch.metadata.archives` -- zip and tar members of an AU as ``<archive>!/<member>`` URLs (LOCKSS
  ArchiveMemberSpec).

docs/lockss.md names the LOCKSS class each module mirrors.

The built-in fields are reached through the module (``from pubfetch.metadata import fields as mf``; ``mf.FIELD_DOI``);
everything else listed in ``__all__`` is importable from here.
"""

from pubfetch.metadata import fields
from pubfetch.metadata.article_files import ArticleFiles
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMap, InvalidValue
from pubfetch.metadata.au import (
    AuConfig,
    AuIdError,
    au_id,
    au_key,
    decode_prop_key,
    encode_prop_key,
    parse_au_id,
    plugin_key,
)
from pubfetch.metadata.extract_au import extract_au
from pubfetch.metadata.fields import (
    BUILTIN_FIELDS,
    Cardinality,
    CardinalityError,
    MetadataError,
    MetadataField,
    ValidationError,
    find_field,
    group_extractor,
    html_text_extractor,
    split_at,
)
from pubfetch.metadata.plugin import load_plugin
from pubfetch.metadata.publication_record import publication_record, webpage_record
from pubfetch.metadata.tdb import Tdb, TdbAu, TdbError, TdbPublisher, TdbTitle, load_tdb, load_tdb_files, parse_tdb
from pubfetch.metadata.templates import (
    DEFAULT_FUNCTOR,
    MatchPattern,
    ParamFunctor,
    PrintfTemplate,
    TemplateError,
    display_name,
    match_pattern,
    parse_template,
    url_list,
)

__all__ = [
    "BUILTIN_FIELDS",
    "DEFAULT_FUNCTOR",
    "ArticleFiles",
    "ArticleMetadata",
    "AuConfig",
    "AuIdError",
    "Cardinality",
    "CardinalityError",
    "CookMap",
    "InvalidValue",
    "MatchPattern",
    "MetadataError",
    "MetadataField",
    "ParamFunctor",
    "PrintfTemplate",
    "Tdb",
    "TdbAu",
    "TdbError",
    "TdbPublisher",
    "TdbTitle",
    "TemplateError",
    "ValidationError",
    "au_id",
    "au_key",
    "decode_prop_key",
    "display_name",
    "encode_prop_key",
    "extract_au",
    "fields",
    "find_field",
    "group_extractor",
    "html_text_extractor",
    "load_plugin",
    "load_tdb",
    "load_tdb_files",
    "match_pattern",
    "parse_au_id",
    "parse_tdb",
    "parse_template",
    "plugin_key",
    "publication_record",
    "split_at",
    "url_list",
    "webpage_record",
]
