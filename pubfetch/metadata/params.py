"""Typed parameters: the 12 LOCKSS plugin parameter types and parameter descriptors, the machinery shared by the
LOCKSS built-in parameters (:mod:`pubfetch.metadata.descriptors`) and PubFetcher's fetching parameters
(:mod:`pubfetch.fetcher_args`).

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

import enum
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "MAX_SET_SIZE",
    "InvalidParamValue",
    "ParamDescr",
    "ParamType",
    "UnknownParameter",
    "derived_values",
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
