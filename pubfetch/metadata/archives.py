"""Members of zip and tar archives in an archival unit, addressed as LOCKSS addresses them: ``<archive URL>!/<member>``.

Publishers deliver content in archives (a zip of JATS files and PDFs per issue, a ``.tar.gz`` per batch); LOCKSS
stores the archive as one URL and lets article iterators and extractors reach inside it (``ArchiveMemberSpec``,
``CachedUrl.getArchiveMemberCu``, ``SubTreeArticleIterator`` with ``visitArchiveMembers``). Here:

* :class:`ArchiveMemberSpec` (``archive_url``, ``member``): ``from_url("https://x/a.zip!/dir/b.xml")`` splits at the
  first ``!/`` (None for a URL without one); ``url`` joins them back.
* ``archive_kind(cu)``: ``"zip"`` or ``"tar"`` for a cached URL whose name (``.zip``; ``.tar``, ``.tar.gz``, ``.tgz``,
  ``.tar.bz2``, ``.tar.xz``) or media type (``application/zip``, ``application/x-tar``, ...) says it is one, else None.
* ``archive_members(cu)``: a :class:`~pubfetch.metadata.sources.CachedUrl` per regular file in the archive, in archive
  order, with the content type guessed from the member name and first bytes, the archive's status and fetch time, and
  the bytes read on demand. ``member_cu(cu, name)``: one of them, or None. :class:`OpenArchive` reads an archive
  once for many members (an :class:`~pubfetch.metadata.archival_unit.ArchivalUnit` keeps the last two it opened).

Bounds, since archives come from publishers: at most :data:`MAX_MEMBERS` members are listed and a member larger than
:data:`MAX_MEMBER_BYTES` (as the archive declares it, and as read) is a :class:`~pubfetch.metadata.sources.SourceError`
when read. An archive that does not open as its kind is a ``SourceError`` too (the iterator logs it and goes on).
"""

from __future__ import annotations

import io
import logging
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pubfetch.metadata.sources import CachedUrl, SourceError, guess_content_type

__all__ = [
    "MAX_MEMBERS",
    "MAX_MEMBER_BYTES",
    "MEMBER_SEPARATOR",
    "ArchiveMemberSpec",
    "OpenArchive",
    "archive_kind",
    "archive_members",
    "member_cu",
]

log = logging.getLogger(__name__)

MEMBER_SEPARATOR = "!/"
MAX_MEMBERS = 100_000
MAX_MEMBER_BYTES = 512 * 1024 * 1024

ArchiveKind = Literal["zip", "tar"]

_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
_ZIP_TYPES = frozenset({"application/zip", "application/x-zip-compressed", "application/x-zip"})
_TAR_TYPES = frozenset({"application/x-tar", "application/x-gtar", "application/x-gzip-compressed-tar"})


@dataclass(frozen=True)
class ArchiveMemberSpec:
    """An archive URL and the name of one member inside it (LOCKSS' ArchiveMemberSpec)."""

    archive_url: str
    member: str

    @classmethod
    def from_url(cls, url: str) -> ArchiveMemberSpec | None:
        archive_url, separator, member = url.partition(MEMBER_SEPARATOR)
        if not separator or not archive_url or not member:
            return None
        return cls(archive_url, member)

    @property
    def url(self) -> str:
        return self.archive_url + MEMBER_SEPARATOR + self.member


def archive_kind(cu: CachedUrl) -> ArchiveKind | None:
    """``zip`` or ``tar`` by the URL's name (query ignored), else by the media type; None otherwise."""
    name = cu.url.split("?", 1)[0].split("#", 1)[0].lower()
    if name.endswith(".zip") or cu.mime_type in _ZIP_TYPES:
        return "zip"
    if name.endswith(_TAR_SUFFIXES) or cu.mime_type in _TAR_TYPES:
        return "tar"
    return None


def _member_names(kind: ArchiveKind, data: bytes, where: str) -> list[tuple[str, int]]:
    """(name, declared size) of the regular files, in archive order."""
    try:
        if kind == "zip":
            with zipfile.ZipFile(io.BytesIO(data)) as zipped:
                return [(i.filename, i.file_size) for i in zipped.infolist() if not i.is_dir()]
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tarred:
            return [(m.name, m.size) for m in tarred.getmembers() if m.isfile()]
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as e:
        raise SourceError(f"{where} is not a readable {kind} archive: {e}") from e


def _read_member(kind: ArchiveKind, data: bytes, name: str, where: str) -> bytes:
    try:
        if kind == "zip":
            with zipfile.ZipFile(io.BytesIO(data)) as zipped, zipped.open(name) as member:
                body = member.read(MAX_MEMBER_BYTES + 1)
        else:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tarred:
                extracted = tarred.extractfile(name)
                if extracted is None:
                    raise SourceError(f"{where}: {name} is not a regular file")
                body = extracted.read(MAX_MEMBER_BYTES + 1)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, KeyError, ValueError) as e:
        raise SourceError(f"cannot read {name} from {where}: {e}") from e
    if len(body) > MAX_MEMBER_BYTES:
        raise SourceError(f"{name} in {where} is larger than {MAX_MEMBER_BYTES} bytes")
    return body


class OpenArchive:
    """An archive read once: its bytes, kind and member names; member CUs read from these bytes (so iterating and
    resolving many members of one archive reads it once)."""

    def __init__(self, cu: CachedUrl) -> None:
        kind = archive_kind(cu)
        if kind is None:
            raise SourceError(f"{cu.url} is not a zip or tar archive")
        self.cu = cu
        self.kind: ArchiveKind = kind
        self.data = cu.content()
        names = _member_names(kind, self.data, cu.url)
        if len(names) > MAX_MEMBERS:
            log.warning("%s has %d members; listing the first %d", cu.url, len(names), MAX_MEMBERS)
            names = names[:MAX_MEMBERS]
        self.sizes = dict(names)

    def read(self, name: str) -> bytes:
        return _read_member(self.kind, self.data, name, self.cu.url)

    def _loader(self, name: str) -> Callable[[], bytes]:
        def load() -> bytes:
            return self.read(name)

        return load

    def _member(self, name: str, head: bytes) -> CachedUrl:
        size = self.sizes[name]
        if size > MAX_MEMBER_BYTES:
            log.warning("%s in %s declares %d bytes, more than %d: it will not be read", name, self.cu.url, size,
                        MAX_MEMBER_BYTES)
        return CachedUrl(ArchiveMemberSpec(self.cu.url, name).url, guess_content_type(name, head), self._loader(name),
                         status=self.cu.status, fetch_time=self.cu.fetch_time, source_name=self.cu.source_name)

    def members(self) -> list[CachedUrl]:
        """A CU per regular file, in archive order (content type from the member name)."""
        return [self._member(name, b"") for name in self.sizes]

    def member(self, name: str) -> CachedUrl | None:
        """The member ``name`` (content type from its name, else its first bytes), or None."""
        if name not in self.sizes:
            return None
        head = self.read(name)[:512] if self.sizes[name] <= MAX_MEMBER_BYTES else b""
        return self._member(name, head)


def archive_members(cu: CachedUrl) -> list[CachedUrl]:
    """The regular files of the archive ``cu`` as cached URLs (see the module docstring); [] when it is no archive."""
    return OpenArchive(cu).members() if archive_kind(cu) is not None else []


def member_cu(cu: CachedUrl, name: str) -> CachedUrl | None:
    """The member ``name`` of the archive ``cu``, or None (also when ``cu`` is no archive)."""
    return OpenArchive(cu).member(name) if archive_kind(cu) is not None else None
