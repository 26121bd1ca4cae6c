"""Title database (TDB): parse LOCKSS ``.tdb`` files into publishers, titles and archival units (AUs).

A title database lists, per publisher and title, the AUs a network preserves, with each AU's plugin, parameters and
bibliographic attributes. pubfetch reads it to fill bibliographic defaults into extracted metadata (what LOCKSS'
BaseArticleMetadataExtractor does with ``TdbAu``) and to build AU configurations and ids (spec lockss.md section 10).

The ``.tdb`` language (as written in lockss-daemon's ``tdb/`` files)::

    {
      publisher < name = Ubiquity Press >
      plugin = org.lockss.plugin.ubiquitypress.upn.ClockssUbiquityPartnerNetworkPlugin
      implicit < status ; year ; volume ; name ; param[year] ; param[base_url] >
      {
        title < name = Studium ; issn = 1876-9055 ; eissn = 2212-7283 >
        nondefparam[journal_id] = studium      # comments start with '#' where a token may start
        au < released ; 2008 ; 1 ; Studium Volume 2008 ; 2008 ; https://www.gewina-studium.nl/ >
      }
    }

* ``{ }`` opens a scope; settings made in a scope apply to everything nested in it, and an inner scope may override
  them. Within a scope the statements come in this order: an optional ``publisher <...>`` or ``title <...>`` header,
  then settings (``key = value``, ``key[sub] = value``) and ``implicit <...>``, then nested scopes and ``au <...>``
  lines. Keys are ``[A-Za-z0-9_./]+`` optionally followed by ``[subkey]``.
* ``publisher < name = ... ; ... >`` and ``title < name = ... ; issn = ... ; eissn = ... >`` name the publisher and
  title of the scope (a title needs no publisher: its publisher is then ``Publisher of [<title>]``).
* ``implicit < k1 ; k2 ; ... >`` gives the keys of the positional fields of later ``au < v1 ; v2 ; ... >`` lines, which
  must have exactly that many fields.
* Values: an unquoted value runs to the end of the line (or ``;`` / ``>`` inside ``< >``); surrounding blanks are
  dropped; ``\\;``, ``\\>``, ``\\ ``, ``\\\\`` (and ``\\"`` first) escape. A quoted value ``"..."`` stays on one line
  and escapes ``\\"`` and ``\\\\``. ``key =`` with nothing after it is the empty string.

Every error is a :class:`TdbError` whose message starts ``file:line:column:``.

Public API:

* ``parse_tdb(text, source="<string>") -> Tdb``, ``load_tdb(path) -> Tdb``, ``load_tdb_files(paths) -> Tdb``.
* :class:`Tdb`: ``publishers``, ``titles``, ``aus`` (file order), ``extend(other)``, ``find_au(plugin_id, params)``.
* :class:`TdbPublisher` (``name``, ``props``), :class:`TdbTitle` (``name``, ``publisher``, ``props``, ``issn``,
  ``eissn``, ``issnl``, ``publisher_name``), :class:`TdbAu` with ``settings`` (every key as written, inherited ones
  included) and accessors: ``name``, ``plugin``, ``status``, ``params``, ``nondef_params``, ``param(k)``, ``attrs``,
  ``attr(k)``, ``publisher_name``, ``is_unknown_publisher``, ``provider_name``, ``print_issn``, ``eissn``, ``issnl``,
  ``issn`` (ISSN-L, else print, else e-ISSN, well-formed only), ``print_isbn``, ``eisbn``, ``isbn``,
  ``publication_type``, ``publication_title``, ``series_title``, ``year``/``start_year``, ``volume``/``start_volume``,
  ``issue``/``start_issue``, ``edition``, ``proprietary_id``, ``proprietary_series_id``, ``is_down``,
  ``au_config(descriptors)`` and ``au_id(descriptors=None)``.
* ``range_set_start(text)``, ``range_set_end(text)``: the first and last value of a range set ("2003-2004" ->
  "2003" / "2004"; Roman numerals count as numbers: "MCMLXXI-1977" -> "MCMLXXI"); ``coverage_includes(text, value)``.
* TdbAu ranges and coverage (LOCKSS TdbAu): ``end_year``/``end_volume``/``end_issue``, ``includes_year(y)``,
  ``includes_volume(v)``, ``includes_issue(i)``, ``coverage_depth`` (attribute ``au_coverage_depth``, default
  ``fulltext``), ``is_serial`` (journal or bookSeries); value equality (plugin, parameters, name, attributes and
  other settings; LOCKSS' TdbAu.equals). Within one database a second AU with the plugin and parameters of another is
  a :class:`TdbError` (LOCKSS' Tdb.addTdbAu), even when it repeats the first exactly; :func:`load_tdb_files` merges
  the files' databases as LOCKSS' Tdb.copyFrom does: an AU whose plugin and parameters an earlier file already gave
  is left out, with an error logged when its name, title or publisher differ.

Accessor rules (LOCKSS TdbAu): attributes are ``attr[k]`` settings, and the AU-level keys ``year``, ``volume``,
``issue``, ``edition``, ``isbn`` and ``eisbn`` (what LOCKSS' tdb tools turn into attributes) unless ``attr[k]`` is set;
publication type is the ``type`` setting, else ``bookSeries`` with an ISBN and an ISSN, ``book`` with an ISBN only, else
``journal``; year is the year attribute, else ``param[year]``; volume the attribute, else ``param[volume_name]``,
``param[volume_str]``, ``param[volume]``; issue the attribute, else ``param[issue]``, ``num_issue_range``,
``issue_set``, ``issue_no``, ``issues``, ``issue_no.``, ``issue_dir``; proprietary ids come from ``journal_id``,
``journal_code``, ``journal_abbr`` (attribute first, then parameter; ``book_*`` for books).
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from pubfetch.metadata.au import AuConfig, au_id
from pubfetch.metadata.fields import is_isbn, is_issn
from pubfetch.params import ParamDescr

__all__ = [
    "Tdb",
    "TdbAu",
    "TdbError",
    "TdbPublisher",
    "TdbTitle",
    "load_tdb",
    "load_tdb_files",
    "coverage_includes",
    "parse_tdb",
    "range_set_end",
    "range_set_start",
]


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


def _shape(text: str) -> str:
    return re.sub(r"(\d)+", "0", re.sub(r"[^\W\d_]+", "a", text))


_ROMAN = re.compile(r"M{0,4}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})", re.IGNORECASE)
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _number(text: str) -> int | None:
    """The value of an Arabic or Roman number ("1977", "MCMLXXI", "xiv"), else None (LOCKSS' NumberUtil)."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    if not text or not _ROMAN.fullmatch(text):
        return None
    values = [_ROMAN_VALUES[c] for c in text.upper()]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _range_ends(text: str) -> tuple[str, str] | None:
    """The two ends of ``a-b`` when it is a genuine range: both ends numbers (Arabic or Roman, so "MCMLXXI-1977"
    splits) or of the same letters/digits shape ("1a-1c"); None for a single value or an identifier with a hyphen
    ("s2-1")."""
    low, dash, high = text.partition("-")
    low, high = low.strip(), high.strip()
    if not dash or not low or not high or "-" in high:
        return None
    if (_number(low) is not None and _number(high) is not None) or _shape(low) == _shape(high):
        return low, high
    return None


def _ranges(text: str | None) -> list[str]:
    return [part.strip() for part in re.split(r"[,;]", text or "") if part.strip()]


def range_set_start(text: str | None) -> str | None:
    """The first value of a range set: the first of a ``,``/``;`` list, and of ``a-b`` when it is a genuine range
    (see :func:`_range_ends`): "2003-2004" -> "2003", "1990, 1992-1995" -> "1990", "MCMLXXI-1977" -> "MCMLXXI", but
    "s2-1" stays whole (LOCKSS' BibliographicUtil.getRangeSetStart)."""
    ranges = _ranges(text)
    if not ranges:
        return None
    ends = _range_ends(ranges[0])
    return ends[0] if ends else ranges[0]


def range_set_end(text: str | None) -> str | None:
    """The last value of a range set: the end of its last range ("1990, 1992-1995" -> "1995"; LOCKSS'
    BibliographicUtil.getRangeSetEnd)."""
    ranges = _ranges(text)
    if not ranges:
        return None
    ends = _range_ends(ranges[-1])
    return ends[1] if ends else ranges[-1]


def _natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(part)) if part.isdigit() else (1, part.lower())
                 for part in re.findall(r"\d+|\D+", text))


def _same_value(a: str, b: str) -> bool:
    na, nb = _number(a), _number(b)
    return na == nb if na is not None and nb is not None else a.strip().lower() == b.strip().lower()


def _range_includes(part: str, value: str) -> bool:
    ends = _range_ends(part)
    if ends is None:
        return _same_value(part, value)
    low, high = ends
    if _same_value(low, value) or _same_value(high, value):
        return True
    numbers = (_number(low), _number(value), _number(high))
    if None not in numbers:
        return numbers[0] <= numbers[1] <= numbers[2]  # type: ignore[operator]
    # A topic range ("Ge-Ma", the volume of an encyclopaedia) holds every topic from its start up to and including
    # those that begin with its end: "Georgia", "Kansas", "Massachusetts" (LOCKSS' NumberUtil.rangeIncludes).
    under_end = value.lower().startswith(high.lower())
    if _shape(low) == _shape(high) and (under_end or _shape(value) == _shape(low)):
        key = _natural_key(value)
        return _natural_key(low) <= key and (under_end or key <= _natural_key(high))
    return False


def coverage_includes(coverage: str | None, value: str | None) -> bool:
    """Whether a range set ("1990, 1992-1995", "MCMLXXI-1977", "v1-v3", "Ge-Ma") includes ``value``: numbers (Arabic
    or Roman) compare by value, same-shaped identifiers in natural order ("1a" < "1c"), a value beginning with a
    topic range's end belongs to it ("Mathematics" to "Ge-Ma"), anything else by equality (LOCKSS'
    BibliographicUtil.coverageIncludes)."""
    if not value or not value.strip():
        return False
    return any(_range_includes(part, value.strip()) for part in _ranges(coverage))


@dataclass
class Tdb:
    """The contents of one or more title database files, in file order."""

    publishers: list[TdbPublisher] = field(default_factory=list)
    titles: list[TdbTitle] = field(default_factory=list)
    aus: list[TdbAu] = field(default_factory=list)
    _by_id: dict[tuple[str, frozenset[tuple[str, str]]], TdbAu] = field(default_factory=dict, repr=False,
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


# --- parsing -------------------------------------------------------------------------------------------------------

_KEY = re.compile(r"[A-Za-z0-9_./]+(?:\[[A-Za-z0-9_./]+\])?")
_KEYWORD = re.compile(r"(publisher|title|au|implicit)(?=[ \t<]|\r?\n|$)")
_UNQUOTED_ESCAPABLE = frozenset(";> \\")
_PLAIN_RUN = re.compile(r"[^\n;>\\]+")


@dataclass
class _Scope:
    settings: dict[str, str]
    implicit: tuple[str, ...] | None = None
    publisher: TdbPublisher | None = None
    title: TdbTitle | None = None
    defined: dict[str, int] = field(default_factory=dict)  # keys set in this very scope -> line


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        self.source = source
        self.pos = 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        self.tdb = Tdb()

    # --- positions and errors ---

    def where(self, pos: int | None = None) -> tuple[int, int]:
        pos = self.pos if pos is None else pos
        index = bisect.bisect_right(self.line_starts, pos) - 1
        return index + 1, pos - self.line_starts[index] + 1

    def error(self, message: str, pos: int | None = None) -> TdbError:
        line, column = self.where(pos)
        return TdbError(message, self.source, line, column)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def describe(self) -> str:
        char = self.peek()
        if not char:
            return "end of file"
        if char == "\n":
            return "end of line"
        return repr(char)

    # --- lexical helpers ---

    def skip_blanks(self) -> None:
        """Skip spaces and tabs on the current line."""
        while self.peek() in (" ", "\t", "\f", "\v"):
            self.pos += 1

    def skip_space(self, comments: bool = True) -> None:
        """Skip whitespace across lines, and comments ('#' to end of line) where a token may start."""
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char.isspace():
                self.pos += 1
            elif char == "#" and comments:
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            else:
                return

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected {char!r} {what} but got {self.describe()}")
        self.pos += 1

    def keyword(self) -> str | None:
        match = _KEYWORD.match(self.text, self.pos)
        return match.group(1) if match else None

    def read_key(self) -> str:
        match = _KEY.match(self.text, self.pos)
        if not match:
            raise self.error("expected a key ([A-Za-z0-9_./] characters, optionally [subkey]) "
                             f"but got {self.describe()}")
        self.pos = match.end()
        return match.group(0)

    def read_value(self, in_angle: bool) -> str:
        """A value after '=' or inside 'au <': quoted, or unquoted up to end of line (or ';' / '>' in '< >')."""
        self.skip_blanks()
        if self.peek() == '"':
            return self.read_quoted()
        start = self.pos
        chunks: list[str] = []
        length = kept = 0  # characters read so far; length up to the last non-blank or escaped character
        while self.pos < len(self.text):
            plain = _PLAIN_RUN.match(self.text, self.pos)
            if plain:
                chunk = plain.group(0)
                chunks.append(chunk)
                length += len(chunk)
                trailing = len(chunk) - len(chunk.rstrip())
                if trailing < len(chunk):
                    kept = length - trailing
                self.pos = plain.end()
                continue
            if self.text[self.pos] != "\\":
                break  # end of line, ';' or '>'
            following = self.text[self.pos + 1:self.pos + 2]
            if (following and following in _UNQUOTED_ESCAPABLE) or (following == '"' and self.pos == start):
                chunks.append(following)
                length += 1
                kept = length
                self.pos += 2
                continue
            raise self.error(f"invalid escape '\\{following}' in unquoted value "
                             "(only \\; \\> \\space \\\\ and a leading \\\" are allowed)")
        if not in_angle and self.peek() in (";", ">"):
            raise self.error(f"unexpected {self.peek()!r} in value (write \\{self.peek()} for a literal one)")
        return "".join(chunks)[:kept]

    def read_quoted(self) -> str:
        open_pos = self.pos
        self.pos += 1
        chars: list[str] = []
        while True:
            char = self.peek()
            if char in ("", "\n"):
                raise self.error("run-on quoted string (a quoted value must end on its line)", open_pos)
            if char == '"':
                self.pos += 1
                return "".join(chars)
            if char == "\\":
                following = self.text[self.pos + 1:self.pos + 2]
                if following not in ('"', "\\"):
                    raise self.error(f"invalid escape '\\{following}' in quoted value (only \\\" and \\\\)")
                chars.append(following)
                self.pos += 2
                continue
            chars.append(char)
            self.pos += 1

    def end_of_line(self, what: str) -> None:
        """After a value: only blanks and an optional comment may follow on the line."""
        self.skip_blanks()
        if self.peek() == "#":
            end = self.text.find("\n", self.pos)
            self.pos = len(self.text) if end < 0 else end
        if self.peek() not in ("", "\n"):
            raise self.error(f"unexpected {self.describe()} after {what}")

    # --- grammar ---

    def parse(self) -> Tdb:
        root = _Scope({})
        while True:
            self.skip_space()
            if not self.peek():
                return self.tdb
            if self.peek() == "}":
                raise self.error("unmatched '}'")
            if self.peek() != "{":
                raise self.error("expected '{' (a title database is a list of { } scopes) "
                                 f"but got {self.describe()}")
            self.block(root)

    def block(self, parent: _Scope) -> None:
        open_pos = self.pos
        self.pos += 1
        scope = _Scope(dict(parent.settings), parent.implicit, parent.publisher, parent.title)
        phase = 0  # 0: header allowed, 1: settings, 2: nested scopes and au lines
        while True:
            self.skip_space()
            char = self.peek()
            start = self.pos
            if not char:
                line, _ = self.where(open_pos)
                raise self.error(f"end of file inside the '{{' opened at line {line}")
            if char == "}":
                self.pos += 1
                return
            if char == "{":
                phase = 2
                self.block(scope)
                continue
            word = self.keyword()
            if word in ("publisher", "title"):
                if phase > 0:
                    raise self.error(f"'{word} <...>' must be the first statement of its {{ }} scope", start)
                self.pos += len(word)
                self.header(word, scope, start)
                phase = 1
            elif word == "implicit":
                if phase == 2:
                    raise self.error("'implicit <...>' must come before nested scopes and au lines", start)
                self.pos += len(word)
                self.implicit(scope)
                phase = 1
            elif word == "au":
                self.pos += len(word)
                self.au(scope, start)
                phase = 2
            elif _KEY.match(self.text, self.pos):
                if phase == 2:
                    raise self.error("settings must come before nested scopes and au lines "
                                     "(they apply to the whole scope)", start)
                self.assignment(scope)
                phase = 1
            else:
                raise self.error(f"unexpected {self.describe()}")

    def assignment(self, scope: _Scope) -> None:
        start = self.pos
        key = self.read_key()
        self.skip_blanks()
        self.expect("=", f"after {key}")
        value = self.read_value(in_angle=False)
        self.end_of_line(f"the value of {key}")
        self.set(scope, key, value, start)

    def set(self, scope: _Scope, key: str, value: str, pos: int) -> None:
        if key in scope.defined:
            raise self.error(f"{key} is already set in this scope (line {scope.defined[key]})", pos)
        scope.defined[key] = self.where(pos)[0]
        scope.settings[key] = value

    def angle_assignments(self, what: str) -> dict[str, str]:
        self.skip_space()
        self.expect("<", f"after {what}")
        values: dict[str, str] = {}
        while True:
            self.skip_space()
            start = self.pos
            key = self.read_key()
            if key in values:
                raise self.error(f"{key} given twice in {what} <...>", start)
            self.skip_blanks()
            self.expect("=", f"after {key}")
            values[key] = self.read_value(in_angle=True)
            self.skip_space()
            if self.peek() == ">":
                self.pos += 1
                return values
            self.expect(";", f"or '>' after the value of {key} in {what} <...>")

    def header(self, word: str, scope: _Scope, start: int) -> None:
        line = self.where(start)[0]
        props = self.angle_assignments(word)
        name = props.get("name")
        if not name:
            raise self.error(f"{word} <...> without a name", start)
        frozen = MappingProxyType(props)
        if word == "publisher":
            if scope.publisher is not None:
                raise self.error(f"publisher <{name}> inside the scope of publisher <{scope.publisher.name}>", start)
            if scope.title is not None:
                raise self.error(f"publisher <{name}> inside the scope of title <{scope.title.name}>", start)
            scope.publisher = TdbPublisher(name, frozen, self.source, line)
            self.tdb.publishers.append(scope.publisher)
        else:
            if scope.title is not None:
                raise self.error(f"title <{name}> inside the scope of title <{scope.title.name}>", start)
            scope.title = TdbTitle(name, scope.publisher, frozen, self.source, line)
            self.tdb.titles.append(scope.title)

    def implicit(self, scope: _Scope) -> None:
        self.skip_space()
        self.expect("<", "after implicit")
        keys: list[str] = []
        while True:
            self.skip_space()
            start = self.pos
            key = self.read_key()
            if key in keys:
                raise self.error(f"{key} appears twice in implicit <...>", start)
            keys.append(key)
            self.skip_space()
            if self.peek() == ">":
                self.pos += 1
                break
            self.expect(";", "or '>' in implicit <...>")
        if "implicit" in scope.defined:
            raise self.error(f"implicit is already set in this scope (line {scope.defined['implicit']})")
        scope.defined["implicit"] = self.where()[0]
        scope.implicit = tuple(keys)

    def au(self, scope: _Scope, start: int) -> None:
        self.skip_space()
        self.expect("<", "after au")
        values: list[str] = []
        while True:
            self.skip_space(comments=False)
            if self.peek() in (";", ">"):
                values.append("")
            else:
                values.append(self.read_value(in_angle=True))
                self.skip_space(comments=False)
            if self.peek() == ">":
                self.pos += 1
                break
            self.expect(";", "or '>' in au <...>")
        if scope.title is None:
            raise self.error("au <...> outside the scope of a title <...>", start)
        if scope.implicit is None:
            raise self.error("au <...> without an implicit <...> in scope", start)
        if len(values) != len(scope.implicit):
            raise self.error(f"expected {len(scope.implicit)} implicit values ({' ; '.join(scope.implicit)}) "
                             f"but got {len(values)}", start)
        settings = dict(scope.settings)
        settings.update(zip(scope.implicit, values, strict=True))
        if not settings.get("name"):
            raise self.error("au <...> without a name", start)
        if not settings.get("plugin") and not (settings.get("pluginPrefix") and settings.get("pluginSuffix")):
            raise self.error(f"au <{settings['name']}> without a plugin", start)
        self.tdb.add_au(TdbAu(scope.title, MappingProxyType(settings), self.source, self.where(start)[0]))


def parse_tdb(text: str, source: str = "<string>") -> Tdb:
    """Parse the text of a ``.tdb`` file; ``source`` names it in error messages."""
    if not isinstance(text, str):
        raise TypeError(f"parse_tdb takes text, not {type(text).__name__}")
    return _Parser(text, source).parse()


def load_tdb(path: str | PathLike[str]) -> Tdb:
    """Read and parse one ``.tdb`` file (UTF-8, a byte order mark is ignored)."""
    file = Path(path)
    return parse_tdb(file.read_text(encoding="utf-8"), str(file))


def load_tdb_files(paths: Iterable[str | PathLike[str]]) -> Tdb:
    """Read several ``.tdb`` files into one :class:`Tdb`, in the order given."""
    tdb = Tdb()
    for path in paths:
        tdb.extend(load_tdb(path))
    return tdb
