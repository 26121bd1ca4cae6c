"""Where the pipeline's IDs come from: the command line, ID files, databases, and PubFetcher JSON files.

IDs are checked as PubFetcher checks them (idsCheck): an invalid PMID, PMCID or DOI in an ID-file row is reported
and dropped, the row kept if another of its IDs is valid; an invalid URL is dropped. pubfetch reports each problem
with its file and line (the first few on stderr, all of them in ``--log``) and ends with one summary line per source,
so a batch of a million IDs is not stopped by one typo; ``--strict`` turns the first problem into an error instead.

IDs typed by the user get PubFetcher's provenance "URL": the program's name and version.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pubfetch import ids as idmod
from pubfetch._version import __version__
from pubfetch.cli.errors import InputError
from pubfetch.ids import InvalidId, PublicationIds
from pubfetch.store import open_store
from pubfetch.textutil import counted

log = logging.getLogger(__name__)

SOURCE = f"pubfetch {__version__}"
"""Provenance of IDs given on the command line or in ID files (PubFetcher writes its name and version there)."""

SHOWN_PER_SOURCE = 10
"""Problems of one source shown on stderr; the rest go to the log file only (a summary line counts them all)."""

URL_SCHEMES = ("http", "https", "ftp")


def check_url(url: str) -> str:
    """A webpage or doc URL as PubFetcher accepts it: absolute, with a scheme and a host; surrounding space removed."""
    u = url.strip()
    try:
        parts = urlsplit(u)
        host = parts.hostname
    except ValueError as e:
        raise InvalidId(f"malformed URL '{url}': {e}") from None
    if not parts.scheme:
        raise InvalidId(f"malformed URL '{url}': no scheme (expected an absolute URL such as https://example.org/)")
    if parts.scheme.lower() not in URL_SCHEMES:
        raise InvalidId(f"malformed URL '{url}': unsupported scheme '{parts.scheme}' (expected http, https or ftp)")
    if not host:
        raise InvalidId(f"malformed URL '{url}': no host")
    if any(c.isspace() for c in u):
        raise InvalidId(f"malformed URL '{url}': contains white space")
    return u


@dataclass
class Problems:
    """Counts and reports the invalid IDs of one source (a file, or the command line)."""

    source: str
    #: what an entry is, in the singular ("publication ID line")
    what: str
    strict: bool = False
    total: int = 0
    bad: int = 0
    dropped: int = 0
    #: count without saying anything (the first look at an ID file, before anything is created)
    silent: bool = False

    def report(self, where: str, message: str, dropped: bool = True) -> None:
        if self.strict:
            raise InputError(f"{where}: {message}")
        self.bad += 1
        self.dropped += dropped
        if self.silent:
            return
        level = logging.WARNING if self.bad <= SHOWN_PER_SOURCE else logging.INFO
        log.log(level, "%s: %s%s", where, message, "" if dropped else " (kept the valid IDs of the line)")

    def summarise(self) -> None:
        """The source's summary line; a source whose every entry is invalid is an error (it was surely not what was
        meant: a file of another kind, IDs of another column), before anything is fetched."""
        if self.bad == 0:
            log.info("%s: %s OK", self.source, counted(self.total, self.what))
            return
        if self.dropped == self.total:
            raise InputError(f"{self.source}: {counted(self.total, self.what)} given, none valid (see the warnings "
                             "above)")
        hidden = self.bad - SHOWN_PER_SOURCE
        more = f"; {hidden} not shown above (all are in the --log file)" if hidden > 0 else ""
        kept = f", {self.bad - self.dropped} kept with their valid IDs" if self.bad != self.dropped else ""
        log.warning("%s: %d of %s invalid, %d skipped%s%s", self.source, self.bad, counted(self.total, self.what),
                    self.dropped, kept, more)


def with_source(ids: PublicationIds, source: str = SOURCE) -> PublicationIds:
    """The same IDs with ``source`` as the provenance URL of each ID present."""
    return PublicationIds(ids.pmid, ids.pmcid, ids.doi, source, source, source)


# --- reading text files -----------------------------------------------------------------------------------------------


#: Longest line of an ID or URL file: a line of IDs or a URL is well under a kilobyte, and reading ``/dev/zero`` (one
#: endless line) must stop with an error instead of filling the memory.
MAX_LINE = 100_000


def _lines(path: str, what: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of the lines that carry data: not empty, not blank, not starting with #."""
    number = 0
    try:
        with open(path, encoding="utf-8-sig", newline=None) as f:
            for number, raw in enumerate(iter(lambda: f.readline(MAX_LINE + 1), ""), start=1):
                if len(raw) > MAX_LINE:
                    raise InputError(f"{path}:{number}: line longer than {MAX_LINE} characters; not a {what} file?")
                line = raw.rstrip("\r\n")
                if line.strip() and not line.startswith("#"):
                    yield number, line
    except UnicodeDecodeError as e:
        raise InputError(f"{path}:{number + 1}: {what} file is not UTF-8 text ({e.reason})") from None
    except OSError as e:
        raise InputError(f"cannot read {what} file '{path}': {e.strerror or e}") from None


def _pub_row(fields: list[str], problems: Problems, where: str) -> PublicationIds | None:
    """One ID-file row: three tab-separated columns (PubFetcher's form) or a single ID of any kind."""
    if len(fields) == 1:
        try:
            return with_source(idmod.classify(fields[0]))
        except InvalidId as e:
            problems.report(where, str(e))
            return None
    if len(fields) != 3:
        problems.report(where, f"expected 'pmid<TAB>pmcid<TAB>doi' or a single ID, found {len(fields)} "
                               f"tab-separated fields")
        return None
    checked: list[str] = []
    errors: list[str] = []
    for value, check in zip(fields, (idmod.check_pmid, idmod.check_pmcid, idmod.check_doi), strict=True):
        if not value.strip():
            checked.append("")
            continue
        try:
            checked.append(check(value))
        except InvalidId as e:
            checked.append("")
            errors.append(str(e))
    ids = PublicationIds(*checked)
    if ids.is_empty() and not errors:
        problems.report(where, "no publication ID given (all of PMID, PMCID and DOI are empty)")
        return None
    if errors:
        problems.report(where, "; ".join(errors), dropped=ids.is_empty())
    return None if ids.is_empty() else with_source(ids)


def iter_pub_file(path: str, strict: bool = False) -> Iterator[PublicationIds]:
    """The valid IDs of an ID file, read lazily line by line (a million-line file never sits in memory); problems are
    reported as met and summarised when the file is exhausted."""
    problems = Problems(path, "publication ID line", strict)
    for number, line in _lines(path, "publication ID"):
        problems.total += 1
        ids = _pub_row(line.split("\t"), problems, f"{path}:{number}")
        if ids is not None:
            yield ids
    problems.summarise()


def check_pub_file(path: str, strict: bool = False) -> None:
    """Before a streamed run creates its database: the file is readable and holds a valid ID (read up to the first
    one). Raises InputError, after warning about each of its lines, when every line is invalid."""
    problems = Problems(path, "publication ID line", strict, silent=True)
    for number, line in _lines(path, "publication ID"):
        problems.total += 1
        if _pub_row(line.split("\t"), problems, f"{path}:{number}") is not None:
            return
    if problems.total:
        read_pub_file(path, strict)  # says what is wrong with each line, then raises


def read_pub_file(path: str, strict: bool = False) -> list[PublicationIds]:
    return list(iter_pub_file(path, strict))


def read_url_file(path: str, what: str, strict: bool = False) -> list[str]:
    problems = Problems(path, f"{what} URL", strict)
    out: list[str] = []
    for number, line in _lines(path, f"{what} URL"):
        problems.total += 1
        try:
            out.append(check_url(line))
        except InvalidId as e:
            problems.report(f"{path}:{number}", str(e))
    problems.summarise()
    return out


# --- the command line ----------------------------------------------------------------------------------------------


def pub_ids_from_args(values: list[str], strict: bool = False) -> list[PublicationIds]:
    problems = Problems("-pub", "publication ID", strict)
    out: list[PublicationIds] = []
    for value in values:
        problems.total += 1
        try:
            out.append(with_source(idmod.classify(value)))
        except InvalidId as e:
            problems.report("-pub", str(e))
    problems.summarise()
    return out


def urls_from_args(option: str, values: list[str], strict: bool = False) -> list[str]:
    problems = Problems(option, "URL", strict)
    out: list[str] = []
    for value in values:
        problems.total += 1
        try:
            out.append(check_url(value))
        except InvalidId as e:
            problems.report(option, str(e))
    problems.summarise()
    return out


# --- databases -------------------------------------------------------------------------------------------------------


def pub_ids_from_db(path: str) -> list[PublicationIds]:
    with open_store(path, readonly=True) as db:
        ids = list(db.publication_ids())
    log.info("Got %s from database %s", counted(len(ids), "publication ID"), path)
    return ids


def urls_from_db(path: str, kind: str) -> list[str]:
    with open_store(path, readonly=True) as db:
        urls = list(db.page_urls(kind))
    log.info("Got %s from database %s", counted(len(urls), f"{kind[:-1]} URL"), path)
    return urls


# --- ordered sets -----------------------------------------------------------------------------------------------------


@dataclass
class IdSets:
    """The pipeline's IDs: ordered sets (dicts), duplicates ignored, first provenance kept (a LinkedHashSet)."""

    publications: dict[PublicationIds, None] = field(default_factory=dict)
    webpages: dict[str, None] = field(default_factory=dict)
    docs: dict[str, None] = field(default_factory=dict)

    def add(self, kind: str, items: list, source: str) -> None:
        target: dict = getattr(self, kind)
        before = len(target)
        target.update(dict.fromkeys(items))
        log.info("Got %s from %s", counted(len(target) - before, f"new distinct {_ID_WORDS[kind]}"), source)

    def sets(self) -> tuple[dict, dict, dict]:
        return self.publications, self.webpages, self.docs

    def replace(self, kind: str, items: list) -> None:
        setattr(self, kind, dict.fromkeys(items))


_ID_WORDS = {"publications": "publication ID", "webpages": "webpage URL", "docs": "doc URL"}
