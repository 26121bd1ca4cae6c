"""Where an archival unit's content comes from: a ``wget --mirror`` directory, a WARC file, or memory.

LOCKSS reads an archival unit (AU) from its own repository; pubfetch users have content collected by other means, so
the metadata layer reads it through a :class:`ContentSource`: a set of URLs, each giving a :class:`CachedUrl` (URL,
content type, status, fetch time and lazily read bytes). Sources never guess silently: a file or record that cannot
be read raises :class:`SourceError` naming it.

* :class:`DirectorySource` -- a local mirror as ``wget --mirror`` writes it: ``<host>[:port]/<path>`` files (or, with
  ``base_url``, a tree without host directories, as ``wget -nH`` writes it). The content type comes from a sidecar
  ``<file>.headers`` (an HTTP response header block, status line optional), from headers ``wget --save-headers`` put
  at the top of the file (then removed from the content), else from the file extension, else from the first bytes.
  A file named ``index.html`` stands for its directory URL (``.../dir/``, wget's naming; ``.../dir/index.html`` is
  found too). In a file name, ``?`` starts the query and ``%2F`` in the query is ``/`` (wget escapes it). Mirror
  without ``--adjust-extension`` (``-E``): the suffix it adds would become part of the URLs.
* :class:`WarcSource` -- a WARC (optionally gzipped) read with warcio's ``ArchiveIterator``: ``response`` and
  ``resource`` records by ``WARC-Target-URI``, the content type from the HTTP headers (resource records: the WARC
  ``Content-Type``), bodies read on demand by seeking to the record. When a URL was recorded several times the last
  2xx response wins (else the last response). pubfetch's own ``--warc`` files (:class:`pubfetch.net.warc.
  WarcRecorder`) are read this way.
* :class:`MemorySource` -- URLs given in code, for library users and tests.

:func:`open_source(path, scheme="https")` picks the source for a path (a directory or a ``.warc``/``.warc.gz``
file); :class:`pubfetch.metadata.archival_unit.ArchivalUnit` bundles a source with the rest of an AU.

A cached URL "has content" when its status is 2xx (or unknown, as for mirror files): redirects and error pages that a
crawl recorded are in the source but are not content, as in a LOCKSS repository.
"""

from __future__ import annotations

import logging
import mimetypes
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Self
from urllib.parse import quote, urlsplit

from pubfetch.net.sniff import has_pdf_magic, media_type

__all__ = [
    "CachedUrl",
    "ContentSource",
    "DirectorySource",
    "MemorySource",
    "SourceError",
    "WarcSource",
    "guess_content_type",
    "open_source",
    "parse_header_block",
]

log = logging.getLogger(__name__)


class SourceError(OSError):
    """Content that cannot be read: a missing or unreadable file, a broken WARC record, a malformed headers file.

    An ``OSError`` on purpose: the article metadata extractor treats it as LOCKSS treats an I/O error (the article
    still gets a record with title-database defaults)."""


# --- cached URLs ---------------------------------------------------------------------------------------------------


@dataclass(eq=False)
class CachedUrl:
    """One URL of a source: what a crawl stored for it. ``content()`` reads the bytes (each call reads again)."""

    url: str
    content_type: str | None
    loader: Callable[[], bytes] = field(repr=False)
    status: int | None = None
    headers: tuple[tuple[str, str], ...] = ()
    fetch_time: int | None = None
    """Epoch milliseconds of the fetch (WARC-Date, file modification time), None when unknown."""
    source_name: str = ""

    @property
    def mime_type(self) -> str:
        """The media type without parameters, lower-cased (``""`` when unknown)."""
        return media_type(self.content_type)

    @property
    def charset(self) -> str | None:
        """The ``charset`` parameter of the content type, if any."""
        for param in (self.content_type or "").split(";")[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "charset" and value.strip():
                return value.strip().strip('"')
        return None

    def has_content(self) -> bool:
        """Whether the URL holds content: a 2xx response or a stored file (redirects and error pages do not)."""
        return self.status is None or 200 <= self.status < 300

    def content(self) -> bytes:
        """The stored bytes; :class:`SourceError` when they cannot be read."""
        try:
            data = self.loader()
        except SourceError:
            raise
        except OSError as e:
            raise SourceError(f"cannot read {self.url} from {self.source_name or 'its source'}: {e}") from e
        if not isinstance(data, bytes | bytearray):
            raise SourceError(f"content of {self.url} is {type(data).__name__}, not bytes")
        return bytes(data)

    def header(self, name: str) -> str | None:
        """The first stored HTTP header of that name (ignoring case), or None."""
        wanted = name.lower()
        for key, value in self.headers:
            if key.lower() == wanted:
                return value
        return None

    def __repr__(self) -> str:
        return f"CachedUrl({self.url!r}, {self.content_type!r}, status={self.status})"


# --- sources -------------------------------------------------------------------------------------------------------


class ContentSource(ABC):
    """A set of URLs with stored content. Sources are context managers (``close()`` releases open files)."""

    name: str = "source"

    @abstractmethod
    def urls(self) -> list[str]:
        """Every URL of the source, sorted."""

    @abstractmethod
    def get(self, url: str) -> CachedUrl | None:
        """The cached URL for ``url``, or None when the source does not hold it."""

    def has_content(self, url: str) -> bool:
        """Whether ``url`` is in the source and holds content."""
        cu = self.get(url)
        return cu is not None and cu.has_content()

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and self.get(url) is not None

    def __iter__(self) -> Iterator[CachedUrl]:
        for url in self.urls():
            cu = self.get(url)
            if cu is not None:
                yield cu

    def __len__(self) -> int:
        return len(self.urls())

    def close(self) -> None:  # noqa: B027 - a hook with a do-nothing default, not an abstract method
        """Release resources; sources holding none need not override it."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class MemorySource(ContentSource):
    """URLs given in code: ``MemorySource({url: (body, content_type)})``; a value may also be bare bytes/str
    (content type guessed), a :class:`CachedUrl`, or a ``(loader, content_type)`` pair whose loader is called on
    each read (tests use raising loaders)."""

    def __init__(self, entries: Mapping[str, Any] | None = None, name: str = "memory") -> None:
        self.name = name
        self._entries: dict[str, CachedUrl] = {}
        for url, value in (entries or {}).items():
            self.add(url, value)

    def add(self, url: str, value: Any, content_type: str | None = None, status: int | None = None) -> CachedUrl:
        """Add or replace one URL (see the class docstring for the forms of ``value``)."""
        if not isinstance(url, str) or not url:
            raise ValueError(f"a source URL must be a non-empty string, not {url!r}")
        if isinstance(value, CachedUrl):
            self._entries[url] = value
            return value
        if isinstance(value, tuple):
            if len(value) != 2:
                raise ValueError(f"{url}: expected (body, content_type), not a tuple of {len(value)}")
            value, content_type = value
        if callable(value):
            loader = value
        else:
            body = value.encode("utf-8") if isinstance(value, str) else value
            if not isinstance(body, bytes | bytearray):
                raise TypeError(f"{url}: content must be bytes, str or a loader, not {type(value).__name__}")
            body = bytes(body)
            if content_type is None:
                content_type = guess_content_type(url, body[:1024])
            loader = _constant(body)
        cu = CachedUrl(url, content_type, loader, status=status, source_name=self.name)
        self._entries[url] = cu
        return cu

    def urls(self) -> list[str]:
        return sorted(self._entries)

    def get(self, url: str) -> CachedUrl | None:
        return self._entries.get(url)


def _constant(body: bytes) -> Callable[[], bytes]:
    def load() -> bytes:
        return body

    return load


# --- content types -------------------------------------------------------------------------------------------------

_EXTRA_TYPES = {
    ".html": "text/html", ".htm": "text/html", ".xhtml": "application/xhtml+xml", ".pdf": "application/pdf",
    ".xml": "application/xml", ".nxml": "application/xml", ".txt": "text/plain", ".json": "application/json",
    ".epub": "application/epub+zip", ".ris": "application/x-research-info-systems", ".bib": "application/x-bibtex",
}


def _sniff(head: bytes) -> str | None:
    if has_pdf_magic(head):
        return "application/pdf"
    text = head.lstrip(b"\xef\xbb\xbf\x00 \t\r\n\x0c")[:1024].lower()
    if text.startswith(b"<?xml"):
        return "text/html" if b"<html" in text else "application/xml"
    if text.startswith((b"<!doctype html", b"<html", b"<head", b"<meta", b"<!--")):
        return "text/html"
    if text.startswith(b"<"):
        return "application/xml"
    return None


def guess_content_type(url_or_name: str, head: bytes = b"") -> str:
    """A content type from the name's extension, else from the first bytes; ``application/octet-stream`` if neither
    tells. Path extensions only count (a query is ignored)."""
    path = urlsplit(url_or_name).path if "://" in url_or_name else url_or_name.split("?", 1)[0]
    suffix = os.path.splitext(path)[1].lower()
    if suffix in _EXTRA_TYPES:
        return _EXTRA_TYPES[suffix]
    if suffix:
        guessed, _ = mimetypes.guess_type("x" + suffix, strict=False)
        if guessed:
            return guessed
    return _sniff(head) or "application/octet-stream"


def parse_header_block(text: str, where: str) -> tuple[int | None, list[tuple[str, str]]]:
    """Parse an HTTP response header block (optional ``HTTP/x y reason`` status line, then ``Name: value`` lines,
    continuation lines starting with blanks, up to the first empty line); :class:`SourceError` on malformed lines."""
    status: int | None = None
    headers: list[tuple[str, str]] = []
    lines = text.replace("\r\n", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            if number == 1:
                continue
            break
        if number == 1 and line.startswith("HTTP/"):
            parts = line.split(None, 2)
            if len(parts) < 2 or not parts[1].isdigit():
                raise SourceError(f"{where}:{number}: malformed status line {line!r}")
            status = int(parts[1])
            continue
        if line[0] in " \t" and headers:
            name, value = headers[-1]
            headers[-1] = (name, f"{value} {line.strip()}")
            continue
        name, colon, value = line.partition(":")
        if not colon or not name.strip() or any(c in name for c in " \t"):
            raise SourceError(f"{where}:{number}: not a 'Name: value' header line: {line!r}")
        headers.append((name.strip(), value.strip()))
    return status, headers


def _header(headers: Iterable[tuple[str, str]], name: str) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


# --- wget mirrors --------------------------------------------------------------------------------------------------

_SIDECAR = ".headers"
_INDEX = "index.html"


class DirectorySource(ContentSource):
    """A local mirror (see the module docstring). ``scheme`` is the scheme of the mirrored URLs (wget does not record
    it); with ``base_url`` the directory holds that URL's tree without host directories."""

    def __init__(self, root: str | os.PathLike[str], *, scheme: str = "https", base_url: str | None = None) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise SourceError(f"mirror directory {self.root} does not exist or is not a directory")
        if scheme not in ("http", "https"):
            raise ValueError(f"scheme must be 'http' or 'https', not {scheme!r}")
        if base_url is not None and not urlsplit(base_url).netloc:
            raise ValueError(f"base_url must be an absolute URL, not {base_url!r}")
        self.scheme = scheme
        self.base_url = base_url if base_url is None or base_url.endswith("/") else base_url + "/"
        self.name = str(self.root)
        self._files: dict[str, Path] = {}
        self._aliases: dict[str, str] = {}
        self._scan()

    def _scan(self) -> None:
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames.sort()
            for filename in sorted(filenames):
                if filename.endswith(_SIDECAR):
                    continue
                path = Path(dirpath) / filename
                relative = path.relative_to(self.root).as_posix()
                url = self._url_for(relative)
                if url is None:
                    log.warning("%s: %s is not under a host directory; ignored", self.root, relative)
                    continue
                if filename == _INDEX:
                    directory_url = url[: -len(_INDEX)]
                    self._aliases[url] = directory_url
                    url = directory_url
                self._files[url] = path

    def _url_for(self, relative: str) -> str | None:
        path, question, query = relative.partition("?")
        query = query.replace("%2F", "/").replace("%2f", "/")
        if self.base_url is not None:
            base = self.base_url
        else:
            host, slash, path = path.partition("/")
            if not slash:
                return None
            base = f"{self.scheme}://{host}/"
        url = base + quote(path, safe="/:@!$&'()*+,;=-._~%")
        return url + (question + query if question else "")

    def urls(self) -> list[str]:
        return sorted(self._files)

    def get(self, url: str) -> CachedUrl | None:
        url = self._aliases.get(url, url)
        path = self._files.get(url)
        if path is None:
            return None
        return self._cached_url(url, path)

    def _cached_url(self, url: str, path: Path) -> CachedUrl:
        sidecar = path.with_name(path.name + _SIDECAR)
        status: int | None = None
        headers: list[tuple[str, str]] = []
        inline = 0
        if sidecar.is_file():
            try:
                text = sidecar.read_text(encoding="latin-1")
            except OSError as e:
                raise SourceError(f"cannot read headers file {sidecar}: {e}") from e
            status, headers = parse_header_block(text, str(sidecar))
        else:
            head = _read_head(path)
            if head.startswith(b"HTTP/"):
                end = head.find(b"\r\n\r\n")
                size = 4
                if end < 0:
                    end, size = head.find(b"\n\n"), 2
                if end < 0:
                    raise SourceError(f"{path}: starts with an HTTP status line but the header block does not end "
                                      f"within {len(head)} bytes")
                status, headers = parse_header_block(head[:end].decode("latin-1"), str(path))
                inline = end + size
        content_type = _header(headers, "content-type")
        if content_type is None:
            content_type = guess_content_type(path.name, b"" if os.path.splitext(path.name)[1] else _read_head(path))
        try:
            mtime = int(path.stat().st_mtime * 1000)
        except OSError:
            mtime = None

        def load(path: Path = path, skip: int = inline) -> bytes:
            try:
                data = path.read_bytes()
            except OSError as e:
                raise SourceError(f"cannot read {path}: {e}") from e
            return data[skip:]

        return CachedUrl(url, content_type, load, status=status, headers=tuple(headers), fetch_time=mtime,
                         source_name=self.name)


def _read_head(path: Path, size: int = 65536) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except OSError as e:
        raise SourceError(f"cannot read {path}: {e}") from e


# --- WARC files ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _WarcEntry:
    offset: int
    status: int | None
    content_type: str | None
    headers: tuple[tuple[str, str], ...]
    fetch_time: int | None


def _warc_date_ms(value: str | None) -> int | None:
    if not value:
        return None
    try:
        return int(datetime.fromisoformat(value).timestamp() * 1000)
    except ValueError:
        try:
            return int(parsedate_to_datetime(value).timestamp() * 1000)
        except (TypeError, ValueError):
            return None


class WarcSource(ContentSource):
    """The response and resource records of a WARC file (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        from warcio.archiveiterator import ArchiveIterator
        from warcio.exceptions import ArchiveLoadFailed

        self.path = Path(path)
        self.name = str(self.path)
        self._iterator_class = ArchiveIterator
        self._entries: dict[str, _WarcEntry] = {}
        try:
            with open(self.path, "rb") as f:
                records = ArchiveIterator(f)
                for record in records:
                    entry = self._index(record, records.get_record_offset())
                    if entry is None:
                        continue
                    url, value = entry
                    old = self._entries.get(url)
                    if old is None or _is_ok(value.status) or not _is_ok(old.status):
                        self._entries[url] = value
        except OSError as e:
            raise SourceError(f"cannot read WARC file {self.path}: {e}") from e
        except ArchiveLoadFailed as e:
            raise SourceError(f"{self.path} is not a readable WARC file: {e}") from e

    @staticmethod
    def _index(record: Any, offset: int) -> tuple[str, _WarcEntry] | None:
        if record.rec_type not in ("response", "resource"):
            return None
        url = (record.rec_headers.get_header("WARC-Target-URI") or "").strip().strip("<>")
        if not url:
            log.warning("WARC %s record at offset %d without WARC-Target-URI; ignored", record.rec_type, offset)
            return None
        fetch_time = _warc_date_ms(record.rec_headers.get_header("WARC-Date"))
        if record.rec_type == "resource" or record.http_headers is None:
            content_type = record.rec_headers.get_header("Content-Type")
            return url, _WarcEntry(offset, None, content_type, (), fetch_time)
        http = record.http_headers
        code = http.get_statuscode()
        status = int(code) if code and code.isdigit() else None
        headers = tuple((str(k), str(v)) for k, v in http.headers)
        return url, _WarcEntry(offset, status, http.get_header("Content-Type"), headers, fetch_time)

    def urls(self) -> list[str]:
        return sorted(self._entries)

    def get(self, url: str) -> CachedUrl | None:
        entry = self._entries.get(url)
        if entry is None:
            return None
        return CachedUrl(url, entry.content_type, lambda: self._read(url, entry.offset), status=entry.status,
                         headers=entry.headers, fetch_time=entry.fetch_time, source_name=self.name)

    def _read(self, url: str, offset: int) -> bytes:
        try:
            with open(self.path, "rb") as f:
                f.seek(offset)
                record = next(iter(self._iterator_class(f)), None)
                if record is None:
                    raise SourceError(f"{self.path}: no WARC record at offset {offset} for {url}")
                return record.content_stream().read()
        except SourceError:
            raise
        except Exception as e:  # warcio raises assorted errors on damaged records
            raise SourceError(f"{self.path}: cannot read the record of {url} at offset {offset}: {e}") from e


def _is_ok(status: int | None) -> bool:
    return status is None or 200 <= status < 300


def open_source(path: str | os.PathLike[str], *, scheme: str = "https") -> ContentSource:
    """A :class:`DirectorySource` for a directory, a :class:`WarcSource` for a ``.warc``/``.warc.gz`` file."""
    location = Path(path)
    if location.is_dir():
        return DirectorySource(location, scheme=scheme)
    if location.is_file():
        if location.name.lower().endswith((".warc", ".warc.gz")):
            return WarcSource(location)
        raise SourceError(f"{location}: not a directory and not a .warc or .warc.gz file")
    raise SourceError(f"content source {location} does not exist")
