"""Publications, webpages and docs read from PubFetcher JSON files (``-pub-json``, ``-web-json``, ``-doc-json``).

Accepted shapes, so that every JSON form pubfetch and PubFetcher write can be read back:

* a whole document (``{"version": ..., "publications": [...], "webpages": [...], "docs": [...]}``): the array of the
  requested kind is taken;
* a bare array of entries, or a single entry object;
* JSON Lines (``--format jsonl``): one entry per line; a line's ``"kind"`` key, when present, must name the requested
  kind or the line is passed over (so one mixed stream can feed -pub-json and -web-json).

Entries may be full (``Publication.to_json``) or ``--plain``; plain publication parts become type ``external``, the
part type PubFetcher gives externally supplied content. A file that is not JSON, or an entry of the wrong shape, is
an error naming the file and line or entry; an entry whose IDs are invalid is reported and skipped like an invalid ID.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any, Literal, overload

from pubfetch import ids as idmod
from pubfetch.cli.errors import InputError
from pubfetch.cli.idsource import Problems, check_url
from pubfetch.ids import InvalidId
from pubfetch.model import PartName, PartType, Publication, Webpage

log = logging.getLogger(__name__)

SINGULAR = {"publications": "publication", "webpages": "webpage", "docs": "doc"}
_DOCUMENT_KEYS = ("version", "argv", "publications", "webpages", "docs")


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8-sig") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: JSON file is not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise InputError(f"cannot read JSON file '{path}': {e.strerror or e}") from None


def _json_lines(path: str, text: str) -> Iterator[tuple[str, Any]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield f"{path}:{number}", json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{number}: invalid JSON: {e.msg} (column {e.colno})") from None
        except RecursionError:
            raise InputError(f"{path}:{number}: JSON nested too deeply") from None


def _objects(path: str, text: str, kind: str) -> Iterator[tuple[str, Any]]:
    """(where, object) of each entry of ``kind`` in the file."""
    if not text.strip():
        return
    try:
        doc = json.loads(text)
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply") from None
    except json.JSONDecodeError as e:
        if e.msg != "Extra data":
            raise InputError(f"{path}: invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None
        yield from _json_lines(path, text)
        return
    if isinstance(doc, dict) and any(k in doc for k in _DOCUMENT_KEYS):
        entries = doc.get(kind, [])
        if not isinstance(entries, list):
            raise InputError(f"{path}: \"{kind}\" is not an array")
        yield from ((f"{path}: {kind}[{i}]", e) for i, e in enumerate(entries))
    elif isinstance(doc, dict):
        yield path, doc
    elif isinstance(doc, list):
        yield from ((f"{path}: entry {i + 1}", e) for i, e in enumerate(doc))
    else:
        raise InputError(f"{path}: expected a JSON object, an array of entries or JSON Lines")


def _is_plain(d: dict[str, Any]) -> bool:
    return any(isinstance(d.get(k), str) for k in ("pmid", "pmcid", "doi", "title", "abstract", "fulltext"))


def _plain_publication(d: dict[str, Any]) -> Publication:
    pub = Publication()
    for name in PartName:
        value = d.get(name.value)
        if value is None:
            continue
        empty = not value
        type_ = PartType.na.value if empty else PartType.external.value
        pub.part(name).load_json({"list": value, "type": type_} if name.is_list else {"content": value, "type": type_})
    return pub


def _publication(where: str, d: dict[str, Any]) -> Publication:
    try:
        return _plain_publication(d) if _is_plain(d) else Publication.from_json(d)
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise InputError(f"{where}: not a publication in PubFetcher's JSON form ({e})") from None


def _webpage(where: str, d: dict[str, Any]) -> Webpage:
    try:
        return Webpage.from_json(d)
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise InputError(f"{where}: not a webpage in PubFetcher's JSON form ({e})") from None


def _check_ids(pub: Publication) -> str | None:
    """Why the publication's IDs cannot be used, or None if they can; IDs given as pasted (``PMID: 123``,
    ``10.1038/nature12373.``) are replaced by the bare IDs they hold."""
    parts = ((pub.pmid, idmod.check_pmid), (pub.pmcid, idmod.check_pmcid), (pub.doi, idmod.check_doi))
    if not any(part.content.strip() for part, _ in parts):
        return "publication has no PMID, PMCID or DOI"
    try:
        checked = [check(part.content) if part.content.strip() else "" for part, check in parts]
    except InvalidId as e:
        return str(e)
    for (part, _), value in zip(parts, checked, strict=True):
        part.content = value
    return None


@overload
def read_json_entries(path: str, kind: Literal["publications"], strict: bool = False) -> list[Publication]: ...
@overload
def read_json_entries(path: str, kind: Literal["webpages", "docs"], strict: bool = False) -> list[Webpage]: ...
def read_json_entries(path: str, kind: str, strict: bool = False) -> list[Publication] | list[Webpage]:
    """The entries of ``kind`` ("publications", "webpages" or "docs") in a PubFetcher JSON file."""
    text = _read(path)
    problems = Problems(path, SINGULAR[kind], strict)
    publications: list[Publication] = []
    pages: list[Webpage] = []
    for where, found in _objects(path, text, kind):
        if not isinstance(found, dict):
            raise InputError(f"{where}: expected a JSON object, found {type(found).__name__}")
        if "kind" in found and found["kind"] != SINGULAR[kind]:
            continue
        obj = {k: v for k, v in found.items() if k != "kind"}
        problems.total += 1
        if kind == "publications":
            pub = _publication(where, obj)
            why = _check_ids(pub)
            if why is not None:
                problems.report(where, why)
                continue
            publications.append(pub)
        else:
            page = _webpage(where, obj)
            try:
                check_url(page.start_url)
            except InvalidId as e:
                problems.report(where, f"start URL: {e}")
                continue
            pages.append(page)
    problems.summarise()
    return publications if kind == "publications" else pages
