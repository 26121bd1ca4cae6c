"""Writing metadata records to a text stream: the records of an AU a plugin extracts, or of publications.

The command line owns argument parsing and exit codes; these functions do the work and write to a text stream, so
the CLI (and tests) need no knowledge of plugins, title databases or sources:

* ``run_plugin_operation(plugin_path, au_params, tdb_path, au_name, source_path, out, fmt) -> int`` -- extract the
  records of one archival unit and write them as ArticleMetadata JSON (``fmt="json"``: one array) or JSON Lines
  (``fmt="jsonl"``: one record per line), in article order. ``plugin_path`` is a plugin file or a shipped plugin
  name; the AU comes from ``au_params`` (parameter values), or from the title database ``tdb_path`` (the AU named
  ``au_name``; without a name, the only AU of the plugin, or the only AU at all), in which case ``au_params`` override
  its values; ``source_path`` is a mirror directory or a WARC file. Returns 0 when every article was extracted, 1 when
  some failed (they are logged and left out). Unusable input raises before anything is written: ``PluginError``,
  ``TdbError``, ``SourceError``, ``InvalidParamValue``, ``AuIdError`` or ``ValueError`` (all ValueError/OSError
  subclasses with messages fit for the user).
* ``records_output(pubs, out, fmt) -> int`` -- write publications (:mod:`pubfetch.metadata.publication_record`) the
  same way; returns the number written.

Every record is ``ArticleMetadata.to_json()`` (``cooked``, ``raw``, ``invalid``), so output can be read back with
``ArticleMetadata.from_json``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TextIO

from pubfetch.metadata.article_metadata import ArticleMetadata
from pubfetch.metadata.extract_au import extract_au
from pubfetch.metadata.plugin import Plugin, load_plugin
from pubfetch.metadata.publication_record import publication_record
from pubfetch.metadata.tdb import Tdb, TdbAu, load_tdb
from pubfetch.model.publication import Publication

__all__ = ["RecordWriter", "records_output", "run_plugin_operation", "select_tdb_au"]

log = logging.getLogger(__name__)

Format = Literal["json", "jsonl"]


class RecordWriter:
    """Writes records as one JSON array (written as it goes) or as JSON Lines."""

    def __init__(self, out: TextIO, fmt: Format) -> None:
        if fmt not in ("json", "jsonl"):
            raise ValueError(f"output format must be 'json' or 'jsonl', not {fmt!r}")
        self.out = out
        self.fmt = fmt
        self.count = 0

    def write(self, record: Mapping[str, Any]) -> None:
        if self.fmt == "jsonl":
            self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            self.out.write(("[\n" if self.count == 0 else ",\n") + json.dumps(record, ensure_ascii=False, indent=2))
        self.count += 1

    def close(self) -> None:
        if self.fmt == "json":
            self.out.write("[]\n" if self.count == 0 else "\n]\n")
        self.out.flush()


def select_tdb_au(tdb: Tdb, plugin: Plugin, au_name: str | None, where: str = "title database") -> TdbAu:
    """The AU named ``au_name``; without a name, the only AU of the plugin, else the only AU (ValueError otherwise,
    listing the names to choose from)."""
    if au_name is not None:
        for au in tdb.aus:
            if au.name == au_name:
                return au
        names = ", ".join(repr(a.name) for a in tdb.aus[:20]) or "none"
        raise ValueError(f"{where} has no AU named {au_name!r}; AUs: {names}")
    candidates = [a for a in tdb.aus if a.plugin == plugin.id] or tdb.aus
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise ValueError(f"{where} lists no AU")
    names = ", ".join(repr(a.name) for a in candidates[:20])
    raise ValueError(f"{where} lists {len(candidates)} AUs; name one of them: {names}")


def run_plugin_operation(plugin_path: str, au_params: dict[str, str] | None, tdb_path: str | None,
                         au_name: str | None, source_path: str, out: TextIO, fmt: Format) -> int:
    """Extract one AU's records and write them (see the module docstring); 0 on success, 1 when articles failed."""
    writer = RecordWriter(out, fmt)
    plugin = load_plugin(plugin_path)
    tdb_au: TdbAu | None = None
    if tdb_path is not None:
        tdb_au = select_tdb_au(load_tdb(tdb_path), plugin, au_name, tdb_path)
    elif au_name is not None:
        raise ValueError("an AU name needs a title database to look it up in")
    errors: list[tuple[str | None, Exception]] = []
    au: TdbAu | dict[str, str] = tdb_au if tdb_au is not None else {}
    iterator = extract_au(plugin, au, source_path, params=au_params, errors=errors)
    for am, _af in iterator:
        writer.write(am.to_json())
    writer.close()
    if errors:
        log.warning("%d article(s) could not be extracted", len(errors))
        return 1
    return 0


def records_output(pubs: Iterable[Publication], out: TextIO, fmt: Format) -> int:
    """Write publications as ArticleMetadata JSON or JSON Lines; returns how many were written."""
    writer = RecordWriter(out, fmt)
    for pub in pubs:
        record: ArticleMetadata = publication_record(pub)
        writer.write(record.to_json())
    writer.close()
    return writer.count
