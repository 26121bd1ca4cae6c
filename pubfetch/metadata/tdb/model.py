"""The title database's data model: publishers, titles, archival units with their accessors, and the database.

See :mod:`pubfetch.metadata.tdb` for the accessor rules (what LOCKSS' TdbAu does) and the public API.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from pubfetch.metadata.au import AuConfig, au_id
from pubfetch.metadata.fields import is_isbn, is_issn
from pubfetch.metadata.params import ParamDescr
from pubfetch.metadata.tdb.ranges import coverage_includes, range_set_end, range_set_start

__all__ = ["Tdb", "TdbAu", "TdbError", "TdbPublisher", "TdbTitle"]

log = logging.getLogger(__name__)


class TdbError(ValueError):
    """A syntax or structure error in a title database, located as ``file:line:column``."""

    def __init__(self, message: str, source: str, line: int, column: int) -> None:
        super().__init__(f"{source}:{line}:{column}: {message}")
        self.detail = message
        self.source = source
        self.line = line
        self.column = column


# --- the data model ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TdbPublisher:
    name: str
    props: Mapping[str, str]
    source: str = "<string>"
    line: int = 0

    def __repr__(self) -> str:
        return f"TdbPublisher({self.name!r})"


@dataclass(frozen=True, eq=False)
class TdbTitle:
    name: str
    publisher: TdbPublisher | None
    props: Mapping[str, str]
    source: str = "<string>"
    line: int = 0

    @property
    def issn(self) -> str | None:
        return self.props.get("issn")

    @property
    def eissn(self) -> str | None:
        return self.props.get("eissn")

    @property
    def issnl(self) -> str | None:
        return self.props.get("issnl")

    @property
    def publisher_name(self) -> str:
        """The publisher's name, or ``Publisher of [<title>]`` when the title has no publisher (as LOCKSS names it)."""
        return self.publisher.name if self.publisher is not None else f"Publisher of [{self.name}]"

    def __repr__(self) -> str:
        return f"TdbTitle({self.name!r})"


_ATTRIBUTE_KEYS = ("year", "volume", "issue", "edition", "isbn", "eisbn")
_ISSUE_PARAMS = ("issue", "num_issue_range", "issue_set", "issue_no", "issues", "issue_no.", "issue_dir")
_VOLUME_PARAMS = ("volume_name", "volume_str", "volume")
_JOURNAL_IDS = ("journal_id", "journal_code", "journal_abbr")
_BOOK_IDS = ("book_id", "book_code", "book_abbr")
_DOWN_STATUSES = frozenset({"down", "superseded"})


def _sub_keys(settings: Mapping[str, str], prefix: str) -> dict[str, str]:
    start = prefix + "["
    return {key[len(start):-1]: value for key, value in settings.items() if key.startswith(start) and key.endswith("]")}


class _RangeSetEnd:
    """``start_<x>`` / ``end_<x>`` of a TdbAu: the first or last value of its ``<x>`` range set."""

    def __init__(self, attribute: str, end: Literal["start", "end"]) -> None:
        self.attribute = attribute
        self.end = end

    def __get__(self, au: TdbAu | None, owner: type | None = None) -> str | None:
        if au is None:
            return None
        text = getattr(au, self.attribute)
        return range_set_start(text) if self.end == "start" else range_set_end(text)


@dataclass(frozen=True, eq=False)
class TdbAu:
    """One AU line with everything it inherited (see the module docstring for the accessor rules)."""

    title: TdbTitle
    settings: Mapping[str, str]
    source: str = "<string>"
    line: int = 0

    def __repr__(self) -> str:
        return f"TdbAu({self.name!r}, plugin={self.plugin!r})"

    @property
    def id_key(self) -> tuple[str, frozenset[tuple[str, str]]]:
        """What identifies the AU: its plugin and ``param[...]`` values (LOCKSS' TdbAu.Id)."""
        return self.plugin, frozenset(self.params.items())

    def _props(self) -> dict[str, str]:
        return {k: v for k, v in self.settings.items()
                if k != "name" and not k.startswith(("param[", "attr["))}

    def __eq__(self, other: object) -> bool:
        """Value equality as LOCKSS' TdbAu.equals: same id (plugin and parameters), name, attributes and other
        properties; the enclosing title is not compared."""
        if not isinstance(other, TdbAu):
            return NotImplemented
        return self is other or (self.id_key == other.id_key and self.name == other.name
                                 and self.attrs == other.attrs and self._props() == other._props())

    def __hash__(self) -> int:
        return hash(self.id_key)

    # --- raw groups ---

    def get(self, key: str) -> str | None:
        return self.settings.get(key)

    @property
    def name(self) -> str:
        return self.settings["name"]

    @property
    def plugin(self) -> str:
        plugin = self.settings.get("plugin")
        if plugin:
            return plugin
        return self.settings["pluginPrefix"] + self.settings["pluginSuffix"]

    @property
    def status(self) -> str | None:
        return self.settings.get("status")

    @property
    def params(self) -> dict[str, str]:
        return _sub_keys(self.settings, "param")

    def param(self, key: str) -> str | None:
        return self.settings.get(f"param[{key}]")

    @property
    def nondef_params(self) -> dict[str, str]:
        """Non-definitional parameters; empty values mean "not set" (as in LOCKSS' tdb tools) and are left out."""
        return {k: v for k, v in _sub_keys(self.settings, "nondefparam").items() if v}

    @property
    def attrs(self) -> dict[str, str]:
        attrs = {key: self.settings[key] for key in _ATTRIBUTE_KEYS if key in self.settings}
        attrs.update(_sub_keys(self.settings, "attr"))
        return attrs

    def attr(self, key: str) -> str | None:
        explicit = self.settings.get(f"attr[{key}]")
        if explicit is not None:
            return explicit
        return self.settings.get(key) if key in _ATTRIBUTE_KEYS else None

    # --- publisher and provider ---

    @property
    def publisher_name(self) -> str:
        return self.title.publisher_name

    @property
    def is_unknown_publisher(self) -> bool:
        return self.title.publisher is None

    @property
    def provider_name(self) -> str:
        """The ``provider`` setting, else the publisher's name (the provider is usually the publisher)."""
        return self.settings.get("provider") or self.publisher_name

    # --- identifiers ---

    @property
    def print_issn(self) -> str | None:
        return self.title.issn

    @property
    def eissn(self) -> str | None:
        return self.title.eissn

    @property
    def issnl(self) -> str | None:
        return self.title.issnl

    @property
    def issn(self) -> str | None:
        """A representative ISSN: ISSN-L, else print, else e-ISSN; only a well-formed one."""
        for candidate in (self.issnl, self.print_issn, self.eissn):
            if is_issn(candidate):
                return candidate
        return None

    @property
    def print_isbn(self) -> str | None:
        return self.attr("isbn")

    @property
    def eisbn(self) -> str | None:
        return self.attr("eisbn")

    @property
    def isbn(self) -> str | None:
        """A representative ISBN: e-ISBN, else print ISBN, else the title's ``isbn``; only a well-formed one."""
        for candidate in (self.eisbn, self.print_isbn, self.title.props.get("isbn")):
            if is_isbn(candidate):
                return candidate
        return None

    # --- bibliographic values ---

    @property
    def publication_type(self) -> str:
        explicit = self.title.props.get("type") or self.settings.get("type")
        if explicit:
            return explicit
        if self.isbn is not None:
            return "bookSeries" if self.issn is not None else "book"
        return "journal"

    @property
    def _is_book(self) -> bool:
        return self.publication_type.lower() in ("book", "bookseries")

    @property
    def publication_title(self) -> str:
        """The AU name for books and book series, else the title name."""
        return self.name if self._is_book else self.title.name

    @property
    def series_title(self) -> str | None:
        return self.title.name if self.publication_type.lower() == "bookseries" else None

    @property
    def year(self) -> str | None:
        return self.attr("year") or self.param("year")

    start_year = _RangeSetEnd("year", "start")
    end_year = _RangeSetEnd("year", "end")

    def includes_year(self, year: str) -> bool:
        return coverage_includes(self.year, year)

    @property
    def volume(self) -> str | None:
        return self.attr("volume") or _first(self.param(k) for k in _VOLUME_PARAMS)

    start_volume = _RangeSetEnd("volume", "start")
    end_volume = _RangeSetEnd("volume", "end")

    def includes_volume(self, volume: str) -> bool:
        return coverage_includes(self.volume, volume)

    @property
    def issue(self) -> str | None:
        return self.attr("issue") or _first(self.param(k) for k in _ISSUE_PARAMS)

    start_issue = _RangeSetEnd("issue", "start")
    end_issue = _RangeSetEnd("issue", "end")

    def includes_issue(self, issue: str) -> bool:
        return coverage_includes(self.issue, issue)

    @property
    def coverage_depth(self) -> str:
        """``au_coverage_depth`` (``fulltext``, ``abstracts``, ``tablesofcontents``), ``fulltext`` when unset."""
        return self.attr("au_coverage_depth") or "fulltext"

    @property
    def is_serial(self) -> bool:
        """A journal or book series AU (LOCKSS compares the publication type exactly: ``bookseries`` is not one)."""
        return self.publication_type in ("journal", "bookSeries")

    @property
    def edition(self) -> str | None:
        return self.attr("edition") or self.param("edition")

    def _proprietary(self, keys: tuple[str, ...]) -> str | None:
        return _first(self.attr(k) for k in keys) or _first(self.param(k) for k in keys)

    @property
    def proprietary_id(self) -> str | None:
        return self._proprietary(_BOOK_IDS if self._is_book else _JOURNAL_IDS)

    @property
    def proprietary_series_id(self) -> str | None:
        return self._proprietary(_JOURNAL_IDS) if self.publication_type.lower() == "bookseries" else None

    @property
    def is_down(self) -> bool:
        """Status ``down`` or ``superseded`` (LOCKSS' tools then set ``pub_down``), or ``param[pub_down]`` true."""
        return (self.status or "").lower() in _DOWN_STATUSES or (self.param("pub_down") or "").lower() == "true"

    # --- AU configuration and id ---

    def au_config(self, descriptors: Iterable[ParamDescr | str] = ()) -> AuConfig:
        """The AU's configuration: parameters, non-definitional parameters, ``pub_down`` when down and
        ``crawl_proxy`` from ``proxy``/``hidden[proxy]``, typed by ``descriptors``."""
        raw = dict(self.params)
        raw.update(self.nondef_params)
        if self.is_down:
            raw.setdefault("pub_down", "true")
        proxy = self.settings.get("proxy") or self.settings.get("hidden[proxy]")
        if proxy:
            raw.setdefault("crawl_proxy", proxy)
        return AuConfig.parse(raw, descriptors)

    def au_id(self, descriptors: Iterable[ParamDescr | str] | None = None) -> str:
        """The AU id. With the plugin's ``descriptors`` the definitional ones among all parameters (``param[...]`` and
        ``nondefparam[...]``) count, as in LOCKSS' TdbAu; without them every ``param[...]`` does, as LOCKSS' tdb
        tools compute it."""
        if descriptors is None:
            return au_id(self.plugin, self.params)
        return au_id(self.plugin, {**self.nondef_params, **self.params}, descriptors)


def _first(values: Iterable[str | None]) -> str | None:
    for value in values:
        if value:
            return value
    return None


@dataclass
class Tdb:
    """The contents of one or more title database files, in file order."""

    publishers: list[TdbPublisher] = field(default_factory=list)
    titles: list[TdbTitle] = field(default_factory=list)
    aus: list[TdbAu] = field(default_factory=list)
    _by_id: dict[tuple[str, frozenset[tuple[str, str]]], TdbAu] = field(default_factory=dict, init=False, repr=False,
                                                                          compare=False)

    def __post_init__(self) -> None:
        for au in self.aus:
            self._by_id.setdefault(au.id_key, au)

    def extend(self, other: Tdb) -> None:
        """Merge another database (another file) into this one as LOCKSS' Tdb.copyFrom does: an AU whose plugin and
        parameters this database already holds is left out, and an error is logged when its name, title or publisher
        differ (one of the two entries probably has a typo; the first file's entry stays)."""
        self.publishers.extend(other.publishers)
        self.titles.extend(other.titles)
        for au in other.aus:
            existing = self._by_id.get(au.id_key)
            if existing is None:
                self.add_au(au)
            elif (existing.name, existing.title.name, existing.publisher_name) != (
                    au.name, au.title.name, au.publisher_name):
                log.error("%s:%d: ignoring duplicate AU %r (title %r, publisher %r): %s:%d has the same plugin and "
                          "parameters as %r (title %r, publisher %r)", au.source, au.line, au.name, au.title.name,
                          au.publisher_name, existing.source, existing.line, existing.name, existing.title.name,
                          existing.publisher_name)

    def add_au(self, au: TdbAu) -> bool:
        """Add an AU; False when this very AU is already there. Another AU with the same id (plugin and parameters)
        is a :class:`TdbError` naming both places, even an exact repeat, as in LOCKSS' Tdb.addTdbAu: two entries
        for one AU mean a typo in one of them, which would otherwise hide an AU."""
        existing = self._by_id.get(au.id_key)
        if existing is au:
            return False
        if existing is None:
            self._by_id[au.id_key] = au
            self.aus.append(au)
            return True
        what = "repeats" if existing.name == au.name else "has the plugin and parameters of"
        raise TdbError(f"duplicate AU: {au.name!r} {what} {existing.name!r} ({existing.source}:{existing.line})",
                       au.source, au.line, 1)

    def duplicate_ids(self) -> dict[tuple[str, frozenset[tuple[str, str]]], list[TdbAu]]:
        """AUs sharing an id, for a database assembled by hand (``aus`` appended directly)."""
        groups: dict[tuple[str, frozenset[tuple[str, str]]], list[TdbAu]] = {}
        for au in self.aus:
            groups.setdefault(au.id_key, []).append(au)
        return {key: aus for key, aus in groups.items() if len(aus) > 1}

    def find_au(self, plugin_id: str, params: Mapping[str, str]) -> TdbAu | None:
        """The first AU of ``plugin_id`` whose ``param[...]`` settings are exactly ``params``."""
        wanted = dict(params)
        for au in self.aus:
            if au.plugin == plugin_id and au.params == wanted:
                return au
        return None
