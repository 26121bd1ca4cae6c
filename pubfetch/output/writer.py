"""Writing entries in any format, one at a time, so that a batch of a million publications never has to sit in memory.

:class:`EntryWriter` keeps PubFetcher's document shapes while streaming:

* text and HTML: entries of one kind separated by a dashed line or ``<hr>`` (none between one-line plain part outputs);
  plain ID-only HTML wrapped in a table; HTML optionally as a standalone page;
* JSON: ``{"version": ..., "argv": [...], "publications": [...], "webpages": [...], "docs": [...]}``, byte for byte what
  ``json.dumps(document, indent=2, ensure_ascii=False)`` gives for the same document;
* Markdown: each entry a document of its own (:mod:`pubfetch.output.markdown`), a thematic break between two;
* JSON Lines: one compact entry object per line, exactly the objects of the JSON arrays (so each line reads back with
  ``Publication.from_json``), with no wrapper. Webpages and docs have the same shape; pass ``tag_kind=True`` to add a
  leading ``"kind"`` key when a single stream mixes them;
* chunks: JSON Lines of passages, one paragraph (or a part of one) a line (:mod:`pubfetch.output.chunks`).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Self, TextIO

from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage
from pubfetch.output import html as h
from pubfetch.output import markdown as md
from pubfetch.output import text as t
from pubfetch.output.common import (
    KINDS,
    Format,
    Kind,
    as_format,
    check_kind,
    is_id_only,
    is_one_liner,
    select_parts,
    version_info,
)
from pubfetch.output.jsonform import dumps, entry_json
from pubfetch.textutil import strip_terminal_controls

if TYPE_CHECKING:
    from pubfetch.fetcher_args import FetcherArgs


def _indent(s: str, prefix: str) -> str:
    return s.replace("\n", "\n" + prefix)


def kind_of(entry: Publication | Webpage) -> Kind:
    """Publication or webpage by type; docs are Webpages too, so a doc must be named explicitly."""
    if isinstance(entry, Publication):
        return "publication"
    if isinstance(entry, Webpage):
        return "webpage"
    raise TypeError(f"not a publication or webpage: {type(entry).__name__}")


class EntryWriter:
    """Streams publications, webpages and docs to ``out`` in one format; use as a context manager or call close().

    Kinds must come in PubFetcher's order (publications, webpages, docs) for the grouped formats; ``kinds`` lists the
    kinds this document is for, and with ``omit_empty=False`` their JSON arrays are written even when empty (as
    PubFetcher's ``-txt-pub`` does), while ``-out`` leaves empty arrays out (the default).
    """

    def __init__(self, out: TextIO, fmt: Format | str = Format.text, *, args: FetcherArgs | None = None,
                 plain: bool = False, parts: Iterable[PartName | str] | None = None, argv: Sequence[str] = (),
                 kinds: Sequence[Kind] = KINDS, omit_empty: bool = True, html_document: bool = True,
                 version: str | None = None, tag_kind: bool = False) -> None:
        self.out = out
        self.fmt = as_format(fmt)
        self.args = args
        self.plain = plain
        self.parts = select_parts(parts)
        self.argv = list(argv)
        wanted = {check_kind(k) for k in kinds}
        self.kinds = [k for k in KINDS if k in wanted]
        self.omit_empty = omit_empty
        self.html_document = html_document
        self.version = version
        self.tag_kind = tag_kind
        self._started = False
        self._closed = False
        self._kind: Kind | None = None
        self._count = 0
        self._done: list[Kind] = []

    # --- context manager -------------------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- public -------------------------------------------------------------------------------------------------------

    def write(self, entry: Publication | Webpage, kind: Kind | None = None) -> None:
        kind = check_kind(kind) if kind is not None else kind_of(entry)
        if self._closed:
            raise ValueError("write to a closed EntryWriter")
        if self.fmt.is_citation:
            self._write_citation(entry)
            return
        if self.fmt is Format.markdown:  # whole entries, whatever --out-part and --plain say; read on terminals too
            text = md.publication_markdown(entry) if isinstance(entry, Publication) else md.webpage_markdown(entry)
            self.out.write((md.SEPARATOR + "\n" if self._count else "") + strip_terminal_controls(text))
            self._count += 1
            return
        if self.fmt is Format.chunks:
            from pubfetch.output.chunks import entry_chunks

            self.out.writelines(dumps(chunk, pretty=False) + "\n" for chunk in entry_chunks(entry))
            return
        if self.fmt.is_jsonl:
            obj = self._entry_obj(kind, entry)
            if self.tag_kind:
                obj = {"kind": kind, **obj}
            self.out.write(dumps(obj, pretty=False) + "\n")
            return
        self._start()
        if kind != self._kind:
            self._open_kind(kind)
        if self.fmt.is_json:
            self.out.write(("\n" if self._count == 0 else ",\n") + "    "
                           + _indent(dumps(self._entry_obj(kind, entry)), "    "))
        else:
            if self._count > 0 and not (kind == "publication" and is_one_liner(self.parts, self.plain)):
                self.out.write(("\n" + t.SEPARATOR + "\n" if self.fmt is Format.text else h.SEPARATOR) + "\n")
            self.out.write(self._entry_text(kind, entry) + "\n")
        self._count += 1

    def write_all(self, entries: Iterable[Publication | Webpage], kind: Kind | None = None) -> None:
        for entry in entries:
            self.write(entry, kind)

    def close(self) -> None:
        if self._closed:
            return
        if self.fmt is Format.csljson:
            self.out.write("[]\n" if self._count == 0 else "\n]\n")
        elif not self.fmt.is_jsonl and not self.fmt.is_citation and self.fmt is not Format.markdown:
            self._start()
            self._close_kind()
            if self.fmt.is_json:
                if not self.omit_empty:
                    for k in self.kinds:
                        if k not in self._done:
                            self.out.write(f',\n  "{k}s": []')
                self.out.write("\n}\n")
            elif self.fmt is Format.html and self.html_document:
                self.out.write(h.HTML_DOCUMENT_END)
        self._closed = True

    # --- internals ----------------------------------------------------------------------------------------------------

    def _write_citation(self, entry: Publication | Webpage) -> None:
        """A publication as a citation; webpages and docs have no citation form and are left out."""
        if not isinstance(entry, Publication):
            return
        from pubfetch.output import citations

        if self.fmt is Format.csljson:
            item = _indent(dumps(citations.csl_item(entry)), "  ")
            self.out.write(("[\n  " if self._count == 0 else ",\n  ") + item)
        elif self.fmt is Format.bibtex:
            self.out.write(("\n" if self._count else "") + citations.bibtex_entries([entry]))
        else:
            self.out.write(citations.ris_records([entry]))
        self._count += 1

    def _entry_obj(self, kind: Kind, entry: Publication | Webpage) -> dict:
        if self.fmt in (Format.metadata, Format.metadata_jsonl):
            from pubfetch.metadata.publication_record import publication_record, webpage_record

            record = publication_record(entry) if isinstance(entry, Publication) else webpage_record(entry)
            return record.to_json()
        return entry_json(kind, entry, self.args, self.plain, self.parts)

    def _table(self, kind: Kind | None) -> bool:
        return self.fmt is Format.html and kind == "publication" and self.plain and is_id_only(self.parts)

    def _start(self) -> None:
        if self._started:
            return
        self._started = True
        if self.fmt.is_json:
            self.out.write('{\n  "version": ' + _indent(dumps(version_info(self.version)), "  ")
                           + ',\n  "argv": ' + _indent(dumps(self.argv), "  "))
        elif self.fmt is Format.html and self.html_document:
            self.out.write(h.html_document_start())

    def _open_kind(self, kind: Kind) -> None:
        order = list(KINDS)
        if kind in self._done or (self._kind is not None and order.index(kind) < order.index(self._kind)):
            raise ValueError(f"{kind}s must be written before {self._kind}s (publications, webpages, docs)")
        self._close_kind()
        if self.fmt.is_json:
            if not self.omit_empty:
                for k in self.kinds:
                    if k not in self._done and order.index(k) < order.index(kind):
                        self.out.write(f',\n  "{k}s": []')
                        self._done.append(k)
            self.out.write(f',\n  "{kind}s": [')
        elif self._table(kind):
            self.out.write('<table border="1">\n')
        self._kind = kind
        self._count = 0

    def _close_kind(self) -> None:
        if self._kind is None:
            return
        if self.fmt.is_json:
            self.out.write("\n  ]" if self._count else "]")
        elif self._table(self._kind):
            self.out.write("</table>\n")
        self._done.append(self._kind)
        self._kind = None

    def _entry_text(self, kind: Kind, entry: Publication | Webpage) -> str:
        text = self._formatted(kind, entry)
        return strip_terminal_controls(text) if self.fmt is Format.text else text

    def _formatted(self, kind: Kind, entry: Publication | Webpage) -> str:
        html = self.fmt is Format.html
        if kind == "publication":
            assert isinstance(entry, Publication)
            if self.parts is not None:
                fn = h.publication_parts_html if html else t.publication_parts_text
                return fn(entry, self.parts, self.plain)
            if self.plain:
                return h.publication_plain_html(entry) if html else t.publication_plain_text(entry)
            return h.publication_html(entry) if html else t.publication_text(entry)
        assert isinstance(entry, Webpage)
        if self.plain:
            return h.webpage_plain_html(entry) if html else t.webpage_plain_text(entry)
        return h.webpage_html(entry) if html else t.webpage_text(entry)


def write_entries(out: TextIO, publications: Iterable[Publication] | None = None,
                  webpages: Iterable[Webpage] | None = None, docs: Iterable[Webpage] | None = None, *,
                  fmt: Format | str = Format.text, args: FetcherArgs | None = None, plain: bool = False,
                  parts: Iterable[PartName | str] | None = None, argv: Sequence[str] = (), omit_empty: bool = True,
                  html_document: bool = True, version: str | None = None, tag_kind: bool = False) -> None:
    """Write all three kinds as one document (PubFetcher's ``-out``); None leaves a kind out entirely.

    ``parts`` (``--out-part``) applies to publications only. ``omit_empty=False`` keeps empty JSON arrays of the kinds
    given (PubFetcher's ``-txt-pub``/``-txt-web``/``-txt-doc`` write their array even when it is empty).
    """
    given = [(k, e) for k, e in zip(KINDS, (publications, webpages, docs), strict=True) if e is not None]
    with EntryWriter(out, fmt, args=args, plain=plain, parts=parts, argv=argv, kinds=[k for k, _ in given],
                     omit_empty=omit_empty, html_document=html_document, version=version, tag_kind=tag_kind) as w:
        for kind, entries in given:
            w.write_all(entries, kind)


def format_entries(publications: Iterable[Publication] | None = None, webpages: Iterable[Webpage] | None = None,
                   docs: Iterable[Webpage] | None = None, **options: object) -> str:
    """:func:`write_entries` into a string (same keyword options)."""
    buf = io.StringIO()
    write_entries(buf, publications, webpages, docs, **options)  # type: ignore[arg-type]
    return buf.getvalue()


def jsonl_line(entry: Publication | Webpage, kind: Kind | None = None, *, args: FetcherArgs | None = None,
               plain: bool = False, parts: Iterable[PartName | str] | None = None, tag_kind: bool = False) -> str:
    """One JSON Lines line (with its newline) for one entry, for callers that stream entries as they are fetched."""
    kind = check_kind(kind) if kind is not None else kind_of(entry)
    obj = entry_json(kind, entry, args, plain, select_parts(parts))
    if tag_kind:
        obj = {"kind": kind, **obj}
    return dumps(obj, pretty=False) + "\n"
