"""Range sets and coverage of title-database values, as LOCKSS' BibliographicUtil reads them.

A TDB value such as a volume or year may be one value, a range ("2003-2004", "MCMLXXI-1977", "Ge-Ma") or a list of
them ("1990, 1992-1995"). The rules decide when a hyphen separates two ends rather than belonging to an identifier
("s2-1"), so that start and end values and "includes" checks agree with LOCKSS.
"""

from __future__ import annotations

import re

__all__ = ["coverage_includes", "range_set_end", "range_set_start"]


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
