"""Where the pipeline's output goes: stdout or the ``-txt-*`` files, in the format of ``--format`` and ``--plain``.

The shapes are PubFetcher's: ``-out`` and ``-out-ids`` leave out the kinds that have nothing to show, while a
``-txt-*`` file always gets its kind (an empty JSON array rather than a missing key), so a script can rely on it.
With ``--format jsonl`` there is no wrapper at all; when ``-out`` writes more than one kind of entry (IDs of more
than one kind were given), each line starts with ``"kind"`` so the stream can be split again.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO

from pubfetch.cli.errors import InputError
from pubfetch.cli.parser import ParsedArgs
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.model import Publication, Webpage
from pubfetch.outfiles import remove_stale_temporaries, write_output_file
from pubfetch.output.common import Format
from pubfetch.output.summary import write_ids, write_top_hosts
from pubfetch.output.writer import write_entries

__all__ = ["Emitter", "StandardOutput", "remove_stale_temporaries", "write_file"]


class StandardOutput:
    """The command's standard output, as its operations write to it: a write that fails (a full disk, a device that
    takes nothing) is one error line and exit status 2 (:class:`InputError`), not an internal error; a reader that
    went away (BrokenPipeError) is left to the command, which ends quietly as other tools do."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._guarded(self._stream.write, text)

    def writelines(self, lines: Iterable[str]) -> None:
        self._guarded(self._stream.writelines, lines)

    def flush(self) -> None:
        self._guarded(self._stream.flush)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    @staticmethod
    def _guarded(call: Callable[..., Any], *args: Any) -> Any:
        try:
            return call(*args)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise InputError(f"cannot write standard output: {e.strerror or e}") from None


def write_file(path: str, write: Callable[[TextIO], None], stdout: TextIO | None = None) -> None:
    """Write an output file (:func:`~pubfetch.outfiles.write_output_file`: atomically for a regular file, in place
    for a device or FIFO, through a symbolic link); ``-`` is stdout, as for other command-line tools. Problems are the
    user's to fix. ``stdout`` is the command's standard output (``sys.stdout`` unless given)."""
    if path == "-":
        out = stdout or sys.stdout
        write(out)
        out.flush()
        return
    try:
        write_output_file(path, write)
    except OSError as e:
        raise InputError(f"cannot write output file '{path}': {e.strerror or e}") from None


class Emitter:
    """The output modifiers of one run, applied to every output operation."""

    def __init__(self, out: TextIO, args: ParsedArgs, fetcher_args: FetcherArgs, argv: Sequence[str]) -> None:
        self.out = out
        self.fmt: Format = args.get("format", Format.text)
        self.plain = args.flag("plain")
        self.parts = args.get("out-part")
        self.fetcher_args = fetcher_args
        self.argv = list(argv)

    # --- entries ------------------------------------------------------------------------------------------------------

    def entries(self, publications: list[Publication], webpages: list[Webpage], docs: list[Webpage],
                tag_kind: bool) -> None:
        """``-out``: kinds without entries are left out."""
        write_entries(self.out, publications or None, webpages or None, docs or None, fmt=self.fmt,
                      args=self.fetcher_args, plain=self.plain, parts=self.parts, argv=self.argv,
                      tag_kind=tag_kind and self.fmt.is_jsonl)

    def entries_file(self, path: str, kind: str, entries: list) -> None:
        """``-txt-pub``/``-txt-web``/``-txt-doc``: the file gets its kind even when there are no entries."""
        lists: dict[str, list | None] = {"publications": None, "webpages": None, "docs": None}
        lists[kind] = entries
        write_file(path, lambda f: write_entries(
            f, lists["publications"], lists["webpages"], lists["docs"], fmt=self.fmt, args=self.fetcher_args,
            plain=self.plain, parts=self.parts, argv=self.argv, omit_empty=False), self.out)

    # --- IDs ----------------------------------------------------------------------------------------------------------

    def ids(self, publication_ids: list[PublicationIds], webpage_urls: list[str], doc_urls: list[str]) -> None:
        write_ids(self.out, publication_ids, webpage_urls, doc_urls, fmt=self.fmt, plain=self.plain, argv=self.argv)

    def ids_file(self, path: str, kind: str, items: list) -> None:
        lists: dict[str, list | None] = {"publications": None, "webpages": None, "docs": None}
        lists[kind] = items
        write_file(path, lambda f: write_ids(f, lists["publications"], lists["webpages"], lists["docs"], fmt=self.fmt,
                                             plain=self.plain, argv=self.argv, omit_empty=False), self.out)

    # --- top hosts ----------------------------------------------------------------------------------------------------

    def top_hosts(self, hosts: Mapping[str, Mapping[str, int]]) -> None:
        write_top_hosts(self.out, hosts["publications"], hosts["webpages"], hosts["docs"], fmt=self.fmt,
                        argv=self.argv)

    def top_hosts_file(self, path: str, kind: str, hosts: Mapping[str, int]) -> None:
        maps: dict[str, Mapping[str, int] | None] = {"publications": None, "webpages": None, "docs": None}
        maps[kind] = hosts
        write_file(path, lambda f: write_top_hosts(f, maps["publications"], maps["webpages"], maps["docs"],
                                                   fmt=self.fmt, argv=self.argv, omit_empty=False), self.out)
