"""Where the pipeline's output goes: stdout or the ``-txt-*`` files, in the format of ``--format`` and ``--plain``.

The shapes are PubFetcher's: ``-out`` and ``-out-ids`` leave out the kinds that have nothing to show, while a
``-txt-*`` file always gets its kind (an empty JSON array rather than a missing key), so a script can rely on it.
With ``--format jsonl`` there is no wrapper at all; when ``-out`` writes more than one kind of entry (IDs of more
than one kind were given), each line starts with ``"kind"`` so the stream can be split again.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

from pubfetch.cli.errors import InputError
from pubfetch.cli.parser import ParsedArgs
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.model import Publication, Webpage
from pubfetch.output.common import Format
from pubfetch.output.summary import write_ids, write_top_hosts
from pubfetch.output.writer import write_entries


def write_file(path: str, write: Callable[[TextIO], None]) -> None:
    """Write an output file atomically: into a temporary file beside it, renamed over it only when complete, so an
    interrupted or killed run never leaves a half-written JSON or JSON Lines file for the next pipeline step (parent
    directories are created, as PubFetcher does). Problems are the user's to fix."""
    parent = os.path.dirname(path)
    tmp = None
    try:
        if parent:
            os.makedirs(parent, exist_ok=True)
        remove_stale_temporaries(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.{os.getpid()}.", suffix=".tmp",
                                   dir=parent or ".")
        os.fchmod(fd, _mode_for(path))  # mkstemp's 0600 is for secrets; an output file is made as any other
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise InputError(f"cannot write output file '{path}': {e.strerror or e}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _mode_for(path: str) -> int:
    """The permissions of the file replaced, or for a new file those the umask gives (as ``open(path, "w")``)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (changing it races other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def remove_stale_temporaries(path: str) -> list[str]:
    """Remove the temporary files a killed run left beside ``path`` (``.NAME.PID.XXXX.tmp`` of a process that is gone;
    a live process's file, another run writing the same output now, is left alone). Returns the names removed."""
    parent = os.path.dirname(path) or "."
    pattern = re.compile(rf"\.{re.escape(os.path.basename(path))}\.([0-9]+)\.[^./]+\.tmp")
    removed = []
    with contextlib.suppress(OSError):
        for name in os.listdir(parent):
            match = pattern.fullmatch(name)
            if match and not _process_alive(int(match.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(parent, name))
                    removed.append(name)
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's process, or not a PID this system can have: leave its file alone
    return True


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
            plain=self.plain, parts=self.parts, argv=self.argv, omit_empty=False))

    # --- IDs ----------------------------------------------------------------------------------------------------------

    def ids(self, publication_ids: list[PublicationIds], webpage_urls: list[str], doc_urls: list[str]) -> None:
        write_ids(self.out, publication_ids, webpage_urls, doc_urls, fmt=self.fmt, plain=self.plain, argv=self.argv)

    def ids_file(self, path: str, kind: str, items: list) -> None:
        lists: dict[str, list | None] = {"publications": None, "webpages": None, "docs": None}
        lists[kind] = items
        write_file(path, lambda f: write_ids(f, lists["publications"], lists["webpages"], lists["docs"], fmt=self.fmt,
                                             plain=self.plain, argv=self.argv, omit_empty=False))

    # --- top hosts ----------------------------------------------------------------------------------------------------

    def top_hosts(self, hosts: Mapping[str, Mapping[str, int]]) -> None:
        write_top_hosts(self.out, hosts["publications"], hosts["webpages"], hosts["docs"], fmt=self.fmt,
                        argv=self.argv)

    def top_hosts_file(self, path: str, kind: str, hosts: Mapping[str, int]) -> None:
        maps: dict[str, Mapping[str, int] | None] = {"publications": None, "webpages": None, "docs": None}
        maps[kind] = hosts
        write_file(path, lambda f: write_top_hosts(f, maps["publications"], maps["webpages"], maps["docs"],
                                                   fmt=self.fmt, argv=self.argv, omit_empty=False))
