"""ISSN and ISBN check digits, ISBN-10/13 conversion and formatting, and closest-locale lookup.

What LOCKSS' ``org.lockss.util.MetadataUtil`` offers beyond the field validators of :mod:`pubfetch.metadata.fields`
(which check the form only, because real journals print wrong check digits):

* ``issn_check_digit(first7)``, ``is_valid_issn(value)`` (form and check digit; LOCKSS ``isIssn(issn, true)``) and
  ``format_issn(value)``: eight characters once hyphens are removed are written ``NNNN-NNNN``; anything else is
  returned unchanged, as LOCKSS' ``formatIssn`` does (``"xyzzy"`` stays ``"xyzzy"``), so that a caller printing what a
  record holds never loses a value. Surrounding blanks are ignored and a lower-case ``x`` check character is written
  ``X``.
* ``isbn10_check_digit(first9)``, ``isbn13_check_digit(first12)``, ``is_valid_isbn(value)`` (form and checksum of an
  ISBN-10 or ISBN-13, hyphens and blanks ignored; LOCKSS ``isIsbn(isbn, true)``).
* ``to_isbn13(value)`` / ``to_isbn10(value)``: either form converted (ISBN-10 -> ``978`` + nine digits + new check
  digit; ISBN-13 -> ISBN-10 only for the ``978`` prefix). As in LOCKSS' ``toUnpunctuatedIsbn13``/``...Isbn10`` the
  input's check digit is not verified (a misprinted check digit still names the book: ``978-0-201-03804-7`` ->
  ``0201038048``); None when the input is not an ISBN in form, and for a ``979`` ISBN-13, which has no ISBN-10
  (LOCKSS converts it into the ISBN-10 of another book).
* ``format_isbn(value)``: LOCKSS' fixed hyphenation once hyphens and blanks are removed (ten characters ->
  ``0-201-03804-8``, thirteen -> ``978-0-201-03804-0``; X upper-case); anything else is returned unchanged
  (``"xyzzy"``). The groups are fixed positions, not the registration groups, as in LOCKSS' ``formatIsbn``.
* ``find_closest_locale(target, available)`` and ``find_closest_available_locale(target)``: the exact locale, else
  the one without the variant, else the language alone; None when none of those is available (LOCKSS
  ``findClosestLocale`` / ``findClosestAvailableLocale``). Locales are written as Java prints them: ``en``,
  ``en_US``, ``cc_XX_V1``; ``-`` is accepted for ``_``.
"""

from __future__ import annotations

import functools
import locale
import re
from collections.abc import Iterable

__all__ = [
    "find_closest_available_locale",
    "find_closest_locale",
    "format_isbn",
    "format_issn",
    "is_valid_isbn",
    "is_valid_issn",
    "isbn10_check_digit",
    "isbn13_check_digit",
    "issn_check_digit",
    "to_isbn10",
    "to_isbn13",
]

_ISSN = re.compile(r"(\d{4})-?(\d{3}[\dXx])")
_ISBN10 = re.compile(r"\d{9}[\dX]")
_ISBN13 = re.compile(r"\d{13}")


# --- ISSN ----------------------------------------------------------------------------------------------------------


def issn_check_digit(first_seven: str) -> str:
    """The ISSN check digit of seven digits: weights 8..2, modulus 11, 10 written X."""
    remainder = sum(int(d) * w for d, w in zip(first_seven, range(8, 1, -1), strict=True)) % 11
    check = (11 - remainder) % 11
    return "X" if check == 10 else str(check)


def _issn_digits(value: str | None) -> str | None:
    match = _ISSN.fullmatch(value.strip()) if isinstance(value, str) else None
    return (match.group(1) + match.group(2)).upper() if match else None


def is_valid_issn(value: str | None) -> bool:
    """An ISSN in form (``1234-567X`` or ``1234567X``) whose check digit is right."""
    digits = _issn_digits(value)
    return digits is not None and issn_check_digit(digits[:7]) == digits[7]


def format_issn(value: str | None) -> str | None:
    """``07402783`` / ``0740-2783`` / `` 1144-875x `` -> ``0740-2783`` / ``1144-875X``; a value without eight characters
    once hyphens are removed is returned unchanged (LOCKSS' formatIssn; the check digit is not verified)."""
    if not isinstance(value, str):
        return value
    compact = value.strip().replace("-", "")
    if len(compact) != 8:
        return value
    return f"{compact[:4]}-{compact[4:7]}{compact[7].upper()}"


# --- ISBN ----------------------------------------------------------------------------------------------------------


def isbn10_check_digit(first_nine: str) -> str:
    """Weights 10..2, modulus 11, 10 written X."""
    remainder = sum(int(d) * w for d, w in zip(first_nine, range(10, 1, -1), strict=True)) % 11
    check = (11 - remainder) % 11
    return "X" if check == 10 else str(check)


def isbn13_check_digit(first_twelve: str) -> str:
    """Weights alternating 1 and 3, modulus 10."""
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first_twelve))
    return str((10 - total % 10) % 10)


def _isbn_compact(value: str | None) -> str | None:
    """The ISBN without hyphens and blanks (X upper-case) when it has the form of an ISBN-10 or ISBN-13."""
    if not isinstance(value, str):
        return None
    compact = re.sub(r"[\s\-]", "", value).upper()
    return compact if _ISBN10.fullmatch(compact) or _ISBN13.fullmatch(compact) else None


def is_valid_isbn(value: str | None) -> bool:
    """An ISBN-10 or ISBN-13 (hyphens and blanks ignored) whose check digit is right."""
    compact = _isbn_compact(value)
    if compact is None:
        return False
    if len(compact) == 10:
        return isbn10_check_digit(compact[:9]) == compact[9]
    return isbn13_check_digit(compact[:12]) == compact[12]


def format_isbn(value: str | None) -> str | None:
    """LOCKSS' formatIsbn: ``0201038048`` -> ``0-201-03804-8``, ``9780201038040`` -> ``978-0-201-03804-0`` (hyphens and
    blanks removed first, X upper-case); a value of another length is returned unchanged. Validity is not checked."""
    if not isinstance(value, str):
        return value
    compact = re.sub(r"[\s\-]", "", value).upper()
    if len(compact) == 10:
        return f"{compact[0]}-{compact[1:4]}-{compact[4:9]}-{compact[9]}"
    if len(compact) == 13:
        return f"{compact[:3]}-{compact[3]}-{compact[4:7]}-{compact[7:12]}-{compact[12]}"
    return value


def to_isbn13(value: str | None) -> str | None:
    """An ISBN in form as ISBN-13 (``0-8044-2957-X`` -> ``9780804429573``); None when not an ISBN in form. The input's
    check digit is not verified (LOCKSS' toUnpunctuatedIsbn13)."""
    compact = _isbn_compact(value)
    if compact is None or len(compact) == 13:
        return compact
    body = "978" + compact[:9]
    return body + isbn13_check_digit(body)


def to_isbn10(value: str | None) -> str | None:
    """An ISBN in form as ISBN-10 (``978-0-8044-2957-3`` -> ``080442957X``); the input's check digit is not verified
    (LOCKSS' toUnpunctuatedIsbn10). None when not an ISBN in form or an ISBN-13 outside the ``978`` prefix
    (``979`` numbers have no ISBN-10)."""
    compact = _isbn_compact(value)
    if compact is None or len(compact) == 10:
        return compact
    if not compact.startswith("978"):
        return None
    return compact[3:12] + isbn10_check_digit(compact[3:12])


# --- locales -------------------------------------------------------------------------------------------------------


def _locale_parts(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.strip().replace("-", "_").split("_"))


def find_closest_locale(target: str, available: Iterable[str]) -> str | None:
    """The exact ``target``, else it without its variant, else its language alone, when ``available`` has it."""
    have = {_locale_parts(a): a for a in available}
    parts = _locale_parts(target)
    for length in range(len(parts), 0, -1):
        if parts[:length] in have:
            return have[parts[:length]]
    return None


@functools.cache
def _available_locales() -> frozenset[str]:
    found: set[str] = set()
    for name in locale.locale_alias.values():
        base = name.split(".")[0].split("@")[0]
        if base and base not in ("C", "POSIX"):
            found.add(base)
            found.add(base.split("_")[0])
    return frozenset(found)


def find_closest_available_locale(target: str) -> str | None:
    """:func:`find_closest_locale` among the locales this Python knows (``locale.locale_alias``): ``en_ZF`` ->
    ``en``, ``en_US`` -> ``en_US``."""
    return find_closest_locale(target, _available_locales())
