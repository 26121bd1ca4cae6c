"""Typed parameters: the 12 LOCKSS plugin parameter types, parameter descriptors, and PubFetcher's fetching parameters.

LOCKSS describes every configurable value of a plugin with a descriptor (``ConfigParamDescr``) whose type code says how
the text is parsed (``AuParamType``); see spec lockss.md section 7 and the seed page on plugin configuration parameters.
pubfetch keeps the type codes, keys and parsing rules so that plugin definitions and AU records stay interchangeable
with LOCKSS ones, and reuses the same machinery for PubFetcher's fetching parameters (pubfetcher.md section 3), so that
the CLI, library users and UIs (EDAMmap shows id, label, default, min, max and description) all validate values in one
place and get the same error messages.

Deliberate differences from LOCKSS, where its behaviour is clearly accidental:

* Range and NumRange split at the first ``-`` and keep the rest (LOCKSS silently drops text after a second ``-``).
* UserPasswd splits at the first ``:`` so that passwords may contain colons (spec: ``foo:bar:colon`` -> ``(foo,
bar:colon)``).
* Year needs exactly four ASCII digits (LOCKSS also took ``+123`` because it only checked the length).
* Set keeps exactly the first :data:`MAX_SET_SIZE` elements of the expansion (LOCKSS' count was off by the number of
  elements not yet added).
* Long and TimeInterval values outside the signed 64-bit range are rejected instead of wrapping around.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "BUILTIN_DESCRIPTORS",
    "FETCHER_DESCRIPTORS",
    "MAX_SET_SIZE",
    "FetcherArgs",
    "InvalidParamValue",
    "ParamDescr",
    "ParamType",
    "UnknownParameter",
    "derived_values",
    "fetcher_descriptor",
    "parse_fetcher_option",
    "parse_value",
]

log = logging.getLogger(__name__)

MAX_SET_SIZE = 10000
"""A Set value never has more elements than this; the rest is dropped with a warning (as in LOCKSS)."""

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

SECOND_MS = 1000
MINUTE_MS = 60 * SECOND_MS
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS
WEEK_MS = 7 * DAY_MS
YEAR_MS = 365 * DAY_MS


class InvalidParamValue(ValueError):
    """A parameter value that does not parse or is out of range.

    The message names the parameter (when known), the offending value and the expected form, because the value usually
    comes from a command line or a configuration file where the user needs all three to fix it.
    """

    def __init__(self, value: object, expected: str, key: str | None = None) -> None:
        self.value = value
        self.expected = expected
        self.key = key
        where = f" for parameter {key}" if key else ""
        super().__init__(f"invalid value {value!r}{where}: expected {expected}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep the structured fields when the exception crosses a process boundary.
        return (type(self), (self.value, self.expected, self.key))


class UnknownParameter(ValueError):
    """A parameter name that is not one of the known fetching parameters (a typo is better reported than ignored)."""


class _Reject(Exception):
    """Internal: a parser's refusal, turned into :class:`InvalidParamValue` by the caller that knows the key."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(detail)
        self.detail = detail


class ParamType(enum.IntEnum):
    """The LOCKSS parameter types; the values are the type codes found in plugin definitions (``<type>3</type>``)."""

    STRING = 1
    INT = 2
    URL = 3
    YEAR = 4
    BOOLEAN = 5
    POS_INT = 6
    RANGE = 7
    NUM_RANGE = 8
    SET = 9
    USER_PASSWD = 10
    LONG = 11
    TIME_INTERVAL = 12

    @property
    def lockss_name(self) -> str:
        """The LOCKSS enum name (``AuParamType``), e.g. ``PosInt``."""
        return _TYPE_INFO[self][0]

    @property
    def label(self) -> str:
        """The human name used in the LOCKSS documentation, e.g. ``Non-Negative Integer``."""
        return _TYPE_INFO[self][1]

    @property
    def expected(self) -> str:
        """What a valid value looks like, for error messages."""
        return _TYPE_INFO[self][2]

    def parse(self, text: str, key: str | None = None) -> Any:
        """Parse ``text`` as a value of this type; see :func:`parse_value`."""
        return parse_value(self, text, key=key)

    @property
    def sample_value(self) -> str:
        """A valid example value, LOCKSS' ``AuParamType`` sample (``42``, ``SampleString``, ``52-63``, ...)."""
        return _SAMPLE_VALUES[self]

    @property
    def default_size(self) -> int:
        """The input-field size a descriptor of this type gets when it names none (LOCKSS' ConfigParamDescr)."""
        return _DEFAULT_SIZES.get(self, 0)


def _time_expected(unit_ms: int) -> str:
    if unit_ms == 1:
        return "a time interval such as 30s, 5m, 12h, 1d (a plain number is milliseconds)"
    return f"a time interval such as 30m, 12h, 1d (a plain number is {_unit_name(unit_ms)})"


def _unit_name(unit_ms: int) -> str:
    return _UNIT_NAMES.get(unit_ms, f"units of {unit_ms} ms")


_UNIT_NAMES = {1: "milliseconds", SECOND_MS: "seconds", MINUTE_MS: "minutes", HOUR_MS: "hours", DAY_MS: "days"}

_TYPE_INFO: dict[ParamType, tuple[str, str, str]] = {
    ParamType.STRING: ("String", "String", "a non-empty string"),
    ParamType.INT: ("Int", "Integer", "a 32-bit integer such as 7 or -432"),
    ParamType.URL: ("Url", "URL", "a URL such as http://example.com/path"),
    ParamType.YEAR: ("Year", "Year", "a four-digit year such as 2004, or 0 for an unspecified year"),
    ParamType.BOOLEAN: ("Boolean", "Boolean", "true, yes, on, 1, false, no, off or 0"),
    ParamType.POS_INT: ("PosInt", "Non-Negative Integer", "a non-negative 32-bit integer such as 7"),
    ParamType.RANGE: ("Range", "String Range", "a range min-max with min <= max (string order), or a single value"),
    ParamType.NUM_RANGE: ("NumRange", "Numeric Range",
                          "a range min-max with min <= max such as 1-22, or a single number"),
    ParamType.SET: ("Set", "Set", "a comma-separated list such as 1, 2, {3-6}"),
    ParamType.USER_PASSWD: ("UserPasswd", "User Credentials", "user:password with both parts non-empty"),
    ParamType.LONG: ("Long", "Long Integer", "a 64-bit integer"),
    ParamType.TIME_INTERVAL: ("TimeInterval", "Time Interval", _time_expected(1)),
}

_SAMPLE_VALUES: dict[ParamType, str] = {
    ParamType.STRING: "SampleString", ParamType.INT: "42", ParamType.URL: "http://example.com/path/file.ext",
    ParamType.YEAR: "2038", ParamType.BOOLEAN: "true", ParamType.POS_INT: "42", ParamType.RANGE: "abc-def",
    ParamType.NUM_RANGE: "52-63", ParamType.SET: "winter,spring,summer,fall", ParamType.USER_PASSWD: "username:passwd",
    ParamType.LONG: "42", ParamType.TIME_INTERVAL: "10d",
}
_DEFAULT_SIZES = {ParamType.BOOLEAN: 4, ParamType.YEAR: 4, ParamType.INT: 10, ParamType.POS_INT: 10,
                  ParamType.LONG: 10, ParamType.TIME_INTERVAL: 10}

# Java's String.trim() removes every char <= U+0020; Python's str.strip() would also remove Unicode spaces.
_JAVA_TRIM = "".join(chr(c) for c in range(0x21))
_INTEGER = re.compile(r"[+-]?[0-9]+")
_TIME_INTERVAL = re.compile(r"([+-]?[0-9]+)(ms|[smhdwy])?", re.IGNORECASE)
_TIME_SUFFIX_MS = {"ms": 1, "s": SECOND_MS, "m": MINUTE_MS, "h": HOUR_MS, "d": DAY_MS, "w": WEEK_MS, "y": YEAR_MS}
_SET_MACRO = re.compile(r"\{[ \t\n\x0b\f\r]*([0-9]+)[ \t\n\x0b\f\r]*-[ \t\n\x0b\f\r]*([0-9]+)[ \t\n\x0b\f\r]*\}")
_URL_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
# Protocols java.net.URL has handlers for out of the box; any other scheme is a MalformedURLException there.
_URL_PROTOCOLS = frozenset({"http", "https", "ftp", "file", "jar", "mailto"})


def _java_integer(text: str, lo: int, hi: int) -> int | None:
    """Integer.valueOf / Long.valueOf: optional sign, ASCII digits, no spaces, in range; None if not such a number."""
    if not _INTEGER.fullmatch(text):
        return None
    value = int(text)
    return value if lo <= value <= hi else None


def _parse_string(text: str) -> str:
    if not text:
        raise _Reject()
    return text


def _parse_int(text: str) -> int:
    value = _java_integer(text, INT_MIN, INT_MAX)
    if value is None:
        raise _Reject()
    return value


def _parse_pos_int(text: str) -> int:
    value = _parse_int(text)
    if value < 0:
        raise _Reject("it is negative")
    return value


def _parse_long(text: str) -> int:
    value = _java_integer(text, LONG_MIN, LONG_MAX)
    if value is None:
        raise _Reject()
    return value


def _parse_url(text: str) -> str:
    """Accept what ``new java.net.URL(text)`` accepts: surrounding blanks trimmed, a known protocol, a numeric port."""
    spec = text.strip(_JAVA_TRIM)
    match = _URL_SCHEME.match(spec)
    if not match:
        raise _Reject("no protocol")
    protocol = match.group(1).lower()
    if protocol not in _URL_PROTOCOLS:
        raise _Reject(f"unknown protocol {protocol}")
    if protocol == "jar" and "!/" not in spec:
        raise _Reject("no !/ in a jar URL")
    try:
        urlsplit(spec).port  # noqa: B018 - evaluated only for the ValueError it raises on a bad port or IPv6 host
    except ValueError as e:
        raise _Reject(str(e)) from None
    return protocol + spec[len(protocol) :]


def _parse_year(text: str) -> int:
    if text == "0":
        return 0
    if len(text) != 4 or not text.isascii() or not text.isdigit():
        raise _Reject()
    return int(text)


_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def _parse_boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise _Reject()


def _split_range(text: str) -> tuple[str, str]:
    """Split "min-max" at the first '-' (a value without '-' is the range of that value alone); both ends non-empty."""
    if "-" not in text:
        low = high = text.strip(_JAVA_TRIM)
    else:
        low, _, high = text.partition("-")
        low, high = low.strip(_JAVA_TRIM), high.strip(_JAVA_TRIM)
    if not low or not high:
        raise _Reject("an end of the range is empty")
    return low, high


def _parse_range(text: str) -> tuple[str, str]:
    low, high = _split_range(text)
    if low > high:
        raise _Reject(f"{low!r} sorts after {high!r}")
    return low, high


def _parse_num_range(text: str) -> tuple[int, int] | tuple[str, str]:
    """Numbers when both ends are longs (compared as numbers), otherwise a string range, as in LOCKSS."""
    low, high = _split_range(text)
    low_num, high_num = _java_integer(low, LONG_MIN, LONG_MAX), _java_integer(high, LONG_MIN, LONG_MAX)
    if low_num is not None and high_num is not None:
        if low_num > high_num:
            raise _Reject(f"{low_num} > {high_num}")
        return low_num, high_num
    if low > high:
        raise _Reject(f"{low!r} sorts after {high!r}")
    return low, high


def _parse_set(text: str) -> list[str]:
    """Comma list, trimmed, empties dropped; "{a-b}" becomes the integers a..b; at most MAX_SET_SIZE elements.

    A macro whose bounds are not 32-bit numbers (or that is not of the exact form, like "{-2}") is kept literally, and
    "{6-2}" expands to nothing, as in LOCKSS.
    """
    result: list[str] = []
    for raw in text.split(","):
        element = raw.strip(_JAVA_TRIM)
        if not element:
            continue
        match = _SET_MACRO.fullmatch(element)
        begin, end = (int(match.group(1)), int(match.group(2))) if match else (0, -1)
        if match and begin <= INT_MAX and end <= INT_MAX:
            stop = min(end, begin + MAX_SET_SIZE - len(result) - 1)
            result.extend(str(i) for i in range(begin, stop + 1))
            if stop < end:
                return _truncated_set(text, result)
        else:
            result.append(element)
        if len(result) > MAX_SET_SIZE:
            return _truncated_set(text, result)
    return result


def _truncated_set(text: str, result: list[str]) -> list[str]:
    log.warning("Set value has more than %d elements; only the first %d are used: %.200s", MAX_SET_SIZE, MAX_SET_SIZE,
                text)
    return result[:MAX_SET_SIZE]


def _parse_user_passwd(text: str) -> tuple[str, str]:
    user, colon, password = text.partition(":")
    if not colon or not user or not password:
        raise _Reject()
    return user, password


def _time_interval(text: str, unit_ms: int) -> int:
    """A TimeInterval in units of ``unit_ms``: a plain number is already in that unit, a suffixed one is converted.

    A suffixed value that is not a whole number of units is refused rather than rounded, because rounding can change
    the meaning (a 30 s cooldown rounded down to 0 minutes would mean "always refetch").
    """
    match = _TIME_INTERVAL.fullmatch(text)
    if not match:
        raise _Reject()
    number, suffix = int(match.group(1)), match.group(2)
    if suffix is None:
        value, millis = number, number * unit_ms
    else:
        millis = number * _TIME_SUFFIX_MS[suffix.lower()]
        value, remainder = divmod(millis, unit_ms)
        if remainder:
            raise _Reject(f"{text} is not a whole number of {_unit_name(unit_ms)}")
    if not LONG_MIN <= millis <= LONG_MAX:
        raise _Reject("it does not fit in 64 bits of milliseconds")
    return value


def _parse_time_interval(text: str) -> int:
    return _time_interval(text, 1)


_PARSERS: dict[ParamType, Callable[[str], Any]] = {
    ParamType.STRING: _parse_string,
    ParamType.INT: _parse_int,
    ParamType.URL: _parse_url,
    ParamType.YEAR: _parse_year,
    ParamType.BOOLEAN: _parse_boolean,
    ParamType.POS_INT: _parse_pos_int,
    ParamType.RANGE: _parse_range,
    ParamType.NUM_RANGE: _parse_num_range,
    ParamType.SET: _parse_set,
    ParamType.USER_PASSWD: _parse_user_passwd,
    ParamType.LONG: _parse_long,
    ParamType.TIME_INTERVAL: _parse_time_interval,
}


def _invalid(text: object, expected: str, key: str | None, reject: _Reject) -> InvalidParamValue:
    return InvalidParamValue(text, f"{expected} ({reject.detail})" if reject.detail else expected, key)


def parse_value(type: ParamType | int, text: str, key: str | None = None) -> Any:
    """Parse ``text`` with the LOCKSS rules of ``type`` (a :class:`ParamType` or its integer code).

    Returns str (String, Url: the trimmed URL with a lower-case protocol), int (Int, Year, PosInt, Long, TimeInterval in
    milliseconds), bool (Boolean), tuple[str, str] (Range, UserPasswd), tuple[int, int] or tuple[str, str] (NumRange)
    or list[str] (Set). Raises :class:`InvalidParamValue` naming ``key`` when given.
    """
    param_type = ParamType(type)
    if not isinstance(text, str):
        raise InvalidParamValue(text, f"{param_type.expected}, given as text", key)
    try:
        return _PARSERS[param_type](text)
    except _Reject as reject:
        raise _invalid(text, param_type.expected, key, reject) from None


def derived_values(key: str, type: ParamType | int, value: Any) -> dict[str, Any]:
    """The derivative parameters LOCKSS defines for a parsed value: ``key_host``/``key_path`` for a Url,
    ``au_short_key`` (the year modulo 100, an int) for a Year; nothing for other types. Plugins' templates may refer to
    these names."""
    param_type = ParamType(type)
    if param_type is ParamType.URL:
        parts = urlsplit(value)
        host = parts.netloc.rpartition("@")[2]
        host = host[: host.index("]") + 1] if host.startswith("[") else host.partition(":")[0]
        return {f"{key}_host": host, f"{key}_path": parts.path}
    if param_type is ParamType.YEAR:
        return {f"au_short_{key}": value % 100}
    return {}


_INT_TYPES = frozenset({ParamType.INT, ParamType.POS_INT, ParamType.LONG, ParamType.YEAR, ParamType.TIME_INTERVAL})
_INT_LIMITS = {
    ParamType.INT: (INT_MIN, INT_MAX),
    ParamType.POS_INT: (0, INT_MAX),
    ParamType.LONG: (LONG_MIN, LONG_MAX),
    ParamType.YEAR: (0, 9999),
    ParamType.TIME_INTERVAL: (LONG_MIN, LONG_MAX),
}


@dataclass(frozen=True)
class ParamDescr:
    """Describes one parameter: what LOCKSS' ``ConfigParamDescr`` holds, plus what PubFetcher's UIs need.

    ``min``/``max`` bound numeric values (inclusive, in the value's unit). ``unit_ms`` applies to TimeInterval only: a
    plain number is in that unit and parsed values are returned in it (1 = LOCKSS milliseconds; PubFetcher's cooldowns
    use minutes). ``allow_empty`` lets a String be empty, which LOCKSS never allows but PubFetcher's e-mails and file
    names default to. An empty ``display_name`` means the key and a zero ``size`` the type's default size, as in
    LOCKSS. Descriptors sort by display name (ConfigParamDescr.compareTo).
    """

    key: str
    type: ParamType
    display_name: str = ""
    description: str = ""
    size: int = 0
    definitional: bool = True
    default_only: bool = False
    derived: bool = False
    min: int | None = None
    max: int | None = None
    default: Any = None
    unit_ms: int = 1
    allow_empty: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", ParamType(self.type))
        if not self.display_name:
            object.__setattr__(self, "display_name", self.key)
        if not self.size:
            object.__setattr__(self, "size", self.type.default_size)
        if self.unit_ms != 1 and self.type is not ParamType.TIME_INTERVAL:
            raise ValueError(f"parameter {self.key}: unit_ms applies to TimeInterval parameters only")
        if self.unit_ms < 1:
            raise ValueError(f"parameter {self.key}: unit_ms must be positive")

    def __lt__(self, other: ParamDescr) -> bool:
        if not isinstance(other, ParamDescr):
            return NotImplemented
        return self.display_name < other.display_name

    @property
    def sample_value(self) -> str:
        return self.type.sample_value

    @property
    def form(self) -> str:
        """What a well-formed value looks like (without the bounds), for error messages."""
        if self.type is ParamType.TIME_INTERVAL:
            return _time_expected(self.unit_ms)
        if self.allow_empty and self.type is ParamType.STRING:
            return "a string (may be empty)"
        return self.type.expected

    @property
    def bounds(self) -> str:
        """The min/max bounds in words ("at least 0 milliseconds"), or "" when unbounded."""
        if self.min is not None and self.max is not None:
            text = f"between {self.min} and {self.max}"
        elif self.min is not None:
            text = f"at least {self.min}"
        elif self.max is not None:
            text = f"at most {self.max}"
        else:
            return ""
        return f"{text} {_unit_name(self.unit_ms)}" if self.type is ParamType.TIME_INTERVAL else text

    @property
    def expected(self) -> str:
        """The form and the bounds together, for help texts."""
        return f"{self.form}, {self.bounds}" if self.bounds else self.form

    def parse(self, text: str) -> Any:
        """Parse and validate ``text`` (type rules, then min/max); :class:`InvalidParamValue` names this key."""
        if not isinstance(text, str):
            raise InvalidParamValue(text, f"{self.expected}, given as text", self.key)
        if self.allow_empty and self.type is ParamType.STRING:
            return text
        try:
            if self.type is ParamType.TIME_INTERVAL:
                value = _time_interval(text, self.unit_ms)
            else:
                value = _PARSERS[self.type](text)
        except _Reject as reject:
            raise _invalid(text, self.form, self.key, reject) from None
        self._check_bounds(text, value)
        return value

    def validate(self, value: Any) -> Any:
        """Check an already-typed value (as set in code rather than parsed): its Python type, the limits of the LOCKSS
        type and min/max. Values of the structured types (ranges, sets, URLs) are only checked to be present."""
        if self.type is ParamType.BOOLEAN:
            if not isinstance(value, bool):
                raise InvalidParamValue(value, self.expected, self.key)
        elif self.type in _INT_TYPES:
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidParamValue(value, self.expected, self.key)
            low, high = _INT_LIMITS[self.type]
            if self.type is ParamType.TIME_INTERVAL:
                low, high = -(-low // self.unit_ms), high // self.unit_ms
            if not low <= value <= high:
                raise InvalidParamValue(value, self.expected, self.key)
            self._check_bounds(value, value)
        elif self.type is ParamType.STRING:
            if not isinstance(value, str) or (not value and not self.allow_empty):
                raise InvalidParamValue(value, self.expected, self.key)
        elif value is None:
            raise InvalidParamValue(value, self.expected, self.key)
        return value

    def _check_bounds(self, given: object, value: Any) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            return
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            of = "" if self.min is not None and self.max is not None else "of "
            raise InvalidParamValue(given, f"a value {of}{self.bounds}", self.key)


def _builtin(key: str, type: ParamType, display_name: str, description: str, size: int, *, definitional: bool = True,
             default_only: bool = False) -> ParamDescr:
    return ParamDescr(key, type, display_name, description, size, definitional=definitional, default_only=default_only)


_T = ParamType
BUILTIN_DESCRIPTORS: dict[str, ParamDescr] = {
    d.key: d
    for d in (
        # Definitional: together they are the identity of an AU.
        _builtin("base_url", _T.URL, "Base URL", "Usually of the form http://<journal-name>.com/", 40),
        _builtin("base_url2", _T.URL, "Second Base URL", "Use if AU spans two hosts", 40),
        _builtin("year", _T.YEAR, "Year", "Four digit year (e.g., 2004)", 4),
        _builtin("volume", _T.POS_INT, "Volume No.", "Numeric volume number, e.g. 7", 8),
        _builtin("volume_name", _T.STRING, "Volume Name", "Volume name, e.g. 23A", 20),
        _builtin("issue_range", _T.RANGE, "Issue Range", "A Range of issues in the form: aaa-zzz", 20),
        _builtin("num_issue_range", _T.NUM_RANGE, "Numeric Issue Range", "A Range of issues in the form: min-max", 20),
        _builtin("issue_set", _T.SET, "Issue Set", "A comma delimited list of issues. (eg issue1, issue2)", 20),
        _builtin("journal_dir", _T.STRING, "Journal Directory",
                 "Directory name for journal content (i.e. 'american_imago').", 40),
        _builtin("journal_abbr", _T.STRING, "Journal Abbreviation",
                 "Abbreviation for journal (often used as part of file names).", 10),
        _builtin("journal_id", _T.STRING, "Journal Identifier",
                 "Identifier for journal (often used as part of file names).", 40),
        _builtin("journal_issn", _T.STRING, "Journal ISSN", "International Standard Serial Number.", 20),
        _builtin("publisher_name", _T.STRING, "Publisher Name", "Publisher Name for Archival Unit", 40),
        _builtin("oai_request_url", _T.URL, "OAI Request URL", "Usually of the form http://<journal-name>.com/", 40),
        _builtin("oai_spec", _T.STRING, "OAI Spec", "Spec for journal in the OAI crawl", 40),
        # Non-definitional: needed by rules and the AU lifecycle, but changing them does not make another AU.
        _builtin("user_pass", _T.USER_PASSWD, "Username:Password",
                 "Colon-separated username and password string, e.g. myuser:mypass", 30, definitional=False),
        _builtin("pub_down", _T.BOOLEAN, "Pub Down", "If true, AU is no longer available from the publisher", 4,
                 definitional=False, default_only=True),
        _builtin("pub_never", _T.BOOLEAN, "Pub Never", "If true, don't try to access any content from publisher", 4,
                 definitional=False, default_only=True),
        _builtin("au_closed", _T.BOOLEAN, "AU Closed", "If true, AU is complete, no more content will be added", 4,
                 definitional=False, default_only=True),
        _builtin("crawl_proxy", _T.STRING, "Crawl Proxy",
                 "If set to host:port, crawls of this AU will be proxied. "
                 "If set to DIRECT, crawls will not be proxied, "
                 "even if the LOCKSS node has been configured with a default crawl proxy.", 40,
                 definitional=False, default_only=True),
        _builtin("nc_interval", _T.TIME_INTERVAL, "Crawl Interval",
                 "The interval at which the AU should crawl the publisher site.", 10,
                 definitional=False, default_only=True),
        _builtin("crawl_test_substance_threshold", _T.STRING, "Crawl Test Substance Threshold",
                 "Minimum number of substance URLs necessary for successful abbreviated crawl test.", 20,
                 definitional=False, default_only=True),
    )
}
"""The LOCKSS built-in parameter descriptors, in their canonical forms from the seed page, keyed by key."""


def _cooldown(key: str, label: str, default: int, what: str) -> ParamDescr:
    return ParamDescr(
        key, _T.TIME_INTERVAL, label, default=default, unit_ms=MINUTE_MS,
        description=f"Minutes after the last fetching attempt of {what} before fetching may be attempted again (which "
        "also resets the retry counter); a suffix gives other units (12h, 1d). 0 means always try again, a negative "
        "value means never refetch for this reason.",
    )


def _min_size(key: str, label: str, default: int, description: str) -> ParamDescr:
    return ParamDescr(key, _T.POS_INT, label, description, default=default, min=0)


def _text(key: str, label: str, default: str, description: str) -> ParamDescr:
    return ParamDescr(key, _T.STRING, label, description, default=default, allow_empty=True)


FETCHER_DESCRIPTORS: dict[str, ParamDescr] = {
    d.key: d
    for d in (
        _cooldown("emptyCooldown", "Empty cooldown", 720, "an empty publication or webpage"),
        _cooldown("nonFinalCooldown", "Non-final cooldown", 10080,
                  "a non-final (but non-empty) publication or webpage"),
        _cooldown("fetchExceptionCooldown", "Fetching exception cooldown", 1440,
                  "a publication or webpage whose fetching had an exception"),
        ParamDescr("retryLimit", _T.INT, "Retry limit", default=3,
                   description="How many times fetching may be retried after the initial attempt while the entry stays "
                   "empty, non-final or has a fetching exception. 0 disables retrying (until a cooldown resets the "
                   "counter), a negative value removes the limit."),
        _min_size("titleMinLength", "Title min. length", 4, "Minimum length of a usable publication title"),
        _min_size("keywordsMinSize", "Keywords min. size", 2,
                  "Minimum size of a usable publication keywords or MeSH list"),
        _min_size("minedTermsMinSize", "Mined terms min. size", 1,
                  "Minimum size of a usable publication EFO or GO terms list"),
        _min_size("abstractMinLength", "Abstract min. length", 200, "Minimum length of a usable publication abstract"),
        _min_size("fulltextMinLength", "Fulltext min. length", 2000, "Minimum length of a usable publication fulltext"),
        _min_size("webpageMinLength", "Webpage min. length", 50,
                  "Minimum length of a usable webpage (title and content together)"),
        _min_size("webpageMinLengthJavascript", "Webpage min. length JS", 200,
                  "If a webpage fetched without JavaScript is shorter than this and no scraping rules match its URL, "
                  "it is fetched again with JavaScript"),
        ParamDescr("timeout", _T.TIME_INTERVAL, "Timeout", default=15000, min=0,
                   description="Connect and read timeout of connections, in milliseconds (or with a suffix: 30s, 1m)"),
        ParamDescr("quick", _T.BOOLEAN, "Quick", default=False,
                   description="Do not retry after a timeout, and cap the time spent following links at 3 x timeout"),
        _text("europepmcEmail", "Europe PMC e-mail", "", "E-mail to send to the Europe PMC API"),
        _text("oadoiEmail", "oaDOI e-mail", "@", "E-mail to send to the Unpaywall (oaDOI) API"),
        _text("userAgent", "User Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0",
              "HTTP User-Agent"),
        _text("journalsYaml", "Journals scrape rules", "",
              "YAML file of extra journal scraping rules, read after the built-in ones"),
        _text("webpagesYaml", "Webpages scrape rules", "",
              "YAML file of extra webpage scraping rules, read after the built-in ones"),
    )
}
"""PubFetcher's fetching parameters, keyed by their PubFetcher (camelCase) id, in PubFetcher's order."""


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


_BY_ATTRIBUTE: dict[str, ParamDescr] = {_snake(d.key): d for d in FETCHER_DESCRIPTORS.values()}
_ATTRIBUTE_BY_KEY: dict[str, str] = {d.key: attr for attr, d in _BY_ATTRIBUTE.items()}


def _attribute_name(name: str) -> str:
    """The FetcherArgs attribute for a camelCase id, a snake_case name or a CLI option (``--emptyCooldown``)."""
    bare = name.lstrip("-")
    if bare in _ATTRIBUTE_BY_KEY:
        return _ATTRIBUTE_BY_KEY[bare]
    snake = bare.replace("-", "_")
    if snake in _BY_ATTRIBUTE:
        return snake
    raise UnknownParameter(f"unknown fetching parameter {name!r}; known: {', '.join(FETCHER_DESCRIPTORS)}")


def fetcher_descriptor(name: str) -> ParamDescr:
    """The descriptor of a fetching parameter given in any accepted spelling; :class:`UnknownParameter` otherwise."""
    return _BY_ATTRIBUTE[_attribute_name(name)]


def parse_fetcher_option(name: str, text: str) -> tuple[str, Any]:
    """Parse one fetching option as given on a command line, e.g. ``("--emptyCooldown", "12h")`` -> ``("empty_cooldown",
    720)``. Returns the :class:`FetcherArgs` attribute name and the validated value, ready for
    ``FetcherArgs(**...)``."""
    attribute = _attribute_name(name)
    return attribute, _BY_ATTRIBUTE[attribute].parse(text)


def _as_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | str):
        return str(value)
    raise TypeError


@dataclass(frozen=True)
class FetcherArgs:
    """PubFetcher's fetching parameters, validated on construction (also by :func:`dataclasses.replace`).

    Units follow PubFetcher: the three cooldowns are whole minutes, ``timeout`` is milliseconds. When parsed from text a
    plain number is in that unit, and a suffixed time interval (``12h``, ``1d``, ``30s``) is converted to it; a cooldown
    that is not a whole number of minutes (``30s``) is refused rather than rounded, since rounding it down to 0 would
    mean "always refetch". Use :meth:`cooldown_ms` and :attr:`timeout_seconds` where other units are needed.
    Cooldowns and ``retry_limit`` may be negative (meaning never / unlimited); lengths, sizes and ``timeout`` may not.
    """

    empty_cooldown: int = 720
    non_final_cooldown: int = 10080
    fetch_exception_cooldown: int = 1440
    retry_limit: int = 3
    title_min_length: int = 4
    keywords_min_size: int = 2
    mined_terms_min_size: int = 1
    abstract_min_length: int = 200
    fulltext_min_length: int = 2000
    webpage_min_length: int = 50
    webpage_min_length_javascript: int = 200
    timeout: int = 15000
    quick: bool = False
    europepmc_email: str = ""
    oadoi_email: str = "@"
    user_agent: str = "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0"
    journals_yaml: str = ""
    webpages_yaml: str = ""

    def __post_init__(self) -> None:
        for attribute, descr in _BY_ATTRIBUTE.items():
            descr.validate(getattr(self, attribute))

    @classmethod
    def descriptors(cls) -> tuple[ParamDescr, ...]:
        """The descriptors of all fields, in PubFetcher's order (for help texts and UIs)."""
        return tuple(FETCHER_DESCRIPTORS.values())

    @classmethod
    def from_mapping(cls, values: Mapping[str, str | int | bool]) -> FetcherArgs:
        """Build from a mapping keyed by PubFetcher ids (``emptyCooldown``) or attribute names (``empty_cooldown``).

        Every value goes through its descriptor as text, so ``"12h"``, ``720`` and ``"720"`` all give 720 minutes and
        errors name the parameter. Unknown or duplicated names raise :class:`UnknownParameter`; missing ones get
        defaults.
        """
        parsed: dict[str, Any] = {}
        for name, value in values.items():
            attribute = _attribute_name(name)
            if attribute in parsed:
                raise UnknownParameter(f"fetching parameter {_BY_ATTRIBUTE[attribute].key} given more than once")
            descr = _BY_ATTRIBUTE[attribute]
            try:
                text = _as_text(value)
            except TypeError:
                raise InvalidParamValue(value, descr.expected, descr.key) from None
            parsed[attribute] = descr.parse(text)
        return cls(**parsed)

    def to_dict(self, camel_case: bool = False) -> dict[str, Any]:
        """All values, keyed by attribute name, or by PubFetcher id when ``camel_case`` (as PubFetcher prints them)."""
        values = dataclasses.asdict(self)
        if camel_case:
            return {_BY_ATTRIBUTE[attribute].key: value for attribute, value in values.items()}
        return values

    def cooldown_ms(self, name: str) -> int:
        """A cooldown in milliseconds; ``name`` is e.g. ``empty_cooldown`` or ``emptyCooldown``."""
        attribute = _attribute_name(name)
        if not attribute.endswith("_cooldown"):
            raise UnknownParameter(f"{name!r} is not a cooldown")
        return getattr(self, attribute) * MINUTE_MS

    @property
    def timeout_seconds(self) -> float:
        """The timeout in seconds, the unit HTTP libraries such as requests expect."""
        return self.timeout / 1000
