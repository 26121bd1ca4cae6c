"""What an import is given, made into local files in the order they are applied: files, directories, and HTTPS URLs
of a file or of a directory listing (NLM's ``updatefiles/``), each checked against the ``.md5`` published beside it.

Downloads go through the run's HTTP client (its shared rate limits, retries and address guard) in ranges of
:data:`RANGE_BYTES`, appended to ``NAME.part`` in the download directory: an interrupted download goes on from the
bytes it has, and no body larger than one range is held in memory.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urljoin, urlsplit

__all__ = ["BulkFile", "Download", "FileProblem", "checked_md5", "listed_files", "local_files", "published_md5"]

#: bytes asked per request of a download
RANGE_BYTES = 16 * 1024 * 1024
_MD5_LINE = re.compile(r"^MD5\s*\((?P<name>[^)]*)\)\s*=\s*(?P<hex>[0-9a-fA-F]{32})\s*$")
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class FileProblem(ValueError):
    """A file that cannot be imported (missing, wrong MD5, failed download): said with its name, the others go on."""


@dataclass(frozen=True)
class BulkFile:
    """A local file to import, under the name it is recorded by (its base name: the same file from a mirror, a
    download or a directory counts once)."""

    name: str
    path: str


class Getter(Protocol):
    def get(self, url: str, *, headers: dict[str, str] | None = None, any_media: bool = False,
            untrusted: bool = False) -> object: ...


def published_md5(path: str) -> str | None:
    """The hex digest of ``PATH.md5`` (``MD5(name)= hex``), None when there is no such file."""
    md5_path = path + ".md5"
    if not os.path.exists(md5_path):
        return None
    with open(md5_path, encoding="ascii", errors="replace") as f:
        match = _MD5_LINE.match(f.read().strip())
    if match is None:
        raise FileProblem(f"{os.path.basename(md5_path)}: not of the form 'MD5(name)= hex'")
    return match.group("hex").lower()


def file_md5(path: str) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checked_md5(path: str) -> str:
    """The file's MD5; FileProblem when a published one beside it differs ("" when none is published)."""
    expected = published_md5(path)
    if expected is None:
        return ""
    actual = file_md5(path)
    if actual != expected:
        raise FileProblem(f"{os.path.basename(path)}: MD5 {actual} differs from the published {expected} "
                          "(the file is damaged or incomplete: download it again)")
    return actual


def local_files(args: Iterable[str], suffixes: tuple[str, ...]) -> Iterator[BulkFile]:
    """Files and directories as given: a directory's files with one of ``suffixes``, by name."""
    for arg in args:
        if os.path.isdir(arg):
            names = sorted(n for n in os.listdir(arg) if n.endswith(suffixes))
            yield from (BulkFile(n, os.path.join(arg, n)) for n in names)
        elif os.path.isfile(arg):
            yield BulkFile(os.path.basename(arg), arg)
        else:
            raise FileProblem(f"{arg}: no such file or directory")


def check_url(url: str) -> None:
    """HTTPS only (plain HTTP to this machine, for a local mirror)."""
    parts = urlsplit(url)
    if parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOOPBACK):
        return
    raise FileProblem(f"{url}: bulk files are downloaded over HTTPS only (https://...)")


def listed_files(listing_html: str, base: str, pattern: re.Pattern[str]) -> list[str]:
    """The URLs of the files a directory listing links to whose names match ``pattern``, by name."""
    names = {m for m in re.findall(r'href="([^"?#/]+)"', listing_html) if pattern.fullmatch(m)}
    return [urljoin(base, n) for n in sorted(names)]


class Download:
    """Files fetched into ``directory`` through ``client`` (a :class:`~pubfetch.net.client.HttpClient`)."""

    def __init__(self, client: Getter, directory: str, say: Callable[[str], None] = lambda _: None, *,
                 untrusted: bool = False) -> None:
        self.client = client
        self.directory = directory
        self.say = say
        #: the URLs come from someone else (a queued task): the address guard refuses private and loopback targets
        #: unless the client's configuration allows them, as for a link read from a page
        self.untrusted = untrusted
        os.makedirs(directory, exist_ok=True)

    def text(self, url: str) -> str:
        result = self.client.get(url)
        if not getattr(result, "ok", False):
            raise FileProblem(f"{url}: {getattr(result, 'message', '') or 'request failed'}")
        body: bytes = getattr(result, "body", b"")
        return body.decode("utf-8", "replace")

    def file(self, url: str) -> BulkFile:
        """The file at ``url`` with its ``.md5`` when the server has one; a complete local copy is not fetched
        again."""
        check_url(url)
        name = os.path.basename(urlsplit(url).path)
        path = os.path.join(self.directory, name)
        if not os.path.exists(path):
            self._fetch(url, path)
        if not os.path.exists(path + ".md5"):
            md5 = self.client.get(url + ".md5", any_media=True, untrusted=self.untrusted)
            if getattr(md5, "ok", False):
                with open(path + ".md5", "wb") as f:
                    f.write(getattr(md5, "body", b""))
        return BulkFile(name, path)

    def _fetch(self, url: str, path: str) -> None:
        part = path + ".part"
        have = os.path.getsize(part) if os.path.exists(part) else 0
        if have:
            self.say(f"resuming the download of {url} at byte {have}")
        while True:
            result = self.client.get(url, headers={"Range": f"bytes={have}-{have + RANGE_BYTES - 1}"}, any_media=True,
                                     untrusted=self.untrusted)
            status = getattr(result, "status", None)
            if status == 416:  # asked beyond the end: the part file is whole
                break
            if not getattr(result, "ok", False):
                raise FileProblem(f"{url}: {getattr(result, 'message', '') or f'HTTP {status}'} (run the import "
                                  "again to go on from the bytes already downloaded)")
            body: bytes = getattr(result, "body", b"")
            mode = "ab" if status == 206 else "wb"  # a server ignoring Range sends the whole file
            with open(part, mode) as f:
                f.write(body)
            have = os.path.getsize(part)
            total = _total(getattr(result, "headers", {}).get("Content-Range", ""))
            if status != 206 or not body or (total is not None and have >= total):
                break
        os.replace(part, path)


def _total(content_range: str) -> int | None:
    match = re.match(r"bytes \d+-\d+/(\d+)", content_range or "")
    return int(match.group(1)) if match else None
