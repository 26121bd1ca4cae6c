"""Tests for pubfetch.metadata.identifiers: LOCKSS MetadataUtil's ISSN/ISBN checksums, ISBN conversion and formatting,
and closest-locale lookup (cases written after LOCKSS' TestMetadataUtil)."""

from __future__ import annotations

import pytest

from pubfetch.metadata.fields import is_isbn, is_issn
from pubfetch.metadata.identifiers import (
    find_closest_available_locale,
    find_closest_locale,
    format_isbn,
    format_issn,
    is_valid_isbn,
    is_valid_issn,
    isbn10_check_digit,
    isbn13_check_digit,
    issn_check_digit,
    to_isbn10,
    to_isbn13,
)

# --- ISSN ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("issn", ["0740-2783", "1144-875X", "1144-875x", "0006-3363", "1938-4246", "1543-8120",
                                  "07402783", " 0740-2783 "])
def test_valid_issns_pass_the_checksum(issn: str) -> None:
    assert is_valid_issn(issn) and is_issn(issn)


@pytest.mark.parametrize("issn", ["1144-175X", "1144-8753", "1543-8122", "2740-2783"])
def test_wrong_check_digits_fail_only_the_checksum(issn: str) -> None:
    """LOCKSS: isIssn(issn, true) refuses them, isIssn(issn, false) accepts them (the field validator's view)."""
    assert not is_valid_issn(issn) and is_issn(issn)


@pytest.mark.parametrize("issn", ["140-42001", "1402-200", "1938/4246", "1402", "1402-", "-4246", "", None])
def test_malformed_issns(issn: str | None) -> None:
    assert not is_valid_issn(issn)


def test_issn_check_digit_and_format() -> None:
    assert [issn_check_digit(d) for d in ("0740278", "1144875", "0006336")] == ["3", "X", "3"]
    assert [format_issn(v) for v in ("07402783", "1144-875x", " 0006-3363 ")] == ["0740-2783", "1144-875X",
                                                                                  "0006-3363"]


def test_format_issn_passes_a_non_issn_through_as_lockss_does() -> None:
    """LOCKSS TestMetadataUtil.testISSN: ``assertEquals("1234-5678", MetadataUtil.formatIssn("12345678"))`` and
    ``assertEquals("xyzzy", MetadataUtil.formatIssn("xyzzy"))`` -- eight characters are hyphenated whatever they are,
    anything else comes back unchanged."""
    assert format_issn("12345678") == "1234-5678"
    assert format_issn("xyzzy") == "xyzzy"
    assert format_issn("1402-200") == "1402-200" and format_issn("") == "" and format_issn(None) is None


# --- ISBN ----------------------------------------------------------------------------------------------------------

ISBN_PAIRS = [("0-8044-2957-X", "978-0-8044-2957-3"), ("1-84356-028-3", "978-1-84356-028-9"),
              ("0-684-84328-5", "978-0-684-84328-5")]


@pytest.mark.parametrize(("isbn10", "isbn13"), ISBN_PAIRS)
def test_isbn_conversion_both_ways(isbn10: str, isbn13: str) -> None:
    compact10, compact13 = isbn10.replace("-", ""), isbn13.replace("-", "")
    assert is_valid_isbn(isbn10) and is_valid_isbn(isbn13)
    assert to_isbn13(isbn10) == compact13 and to_isbn13(isbn13) == compact13
    assert to_isbn10(isbn13) == compact10 and to_isbn10(isbn10) == compact10


@pytest.mark.parametrize("isbn", ["0-8044-2757-X", "1-84356-028-2", "978-0-8043-2957-3", "978-1-84356-128-9"])
def test_wrong_isbn_checksums_fail_only_the_checksum(isbn: str) -> None:
    assert not is_valid_isbn(isbn) and is_isbn(isbn)


def test_isbn_conversion_ignores_the_input_check_digit_as_lockss_does() -> None:
    """LOCKSS TestMetadataUtil.testISBN, "test ISBN conversions with incorrect check digit":
    ``assertEquals("0201038048", MetadataUtil.toUnpunctuatedIsbn10("978-0-201-03804-7"))``,
    ``assertEquals("020103804X", MetadataUtil.toUnpunctuatedIsbn10("0-201-03804-X"))`` and
    ``assertEquals("9780201038040", MetadataUtil.toUnpunctuatedIsbn13("0-201-03804-X"))``; malformed input is null
    (``assertNull(MetadataUtil.toUnpunctuatedIsbn10("978-X-201-03804-0"))``)."""
    assert to_isbn10("978-0-201-03804-7") == "0201038048" and to_isbn10("9780201038047") == "0201038048"
    assert to_isbn10("0-201-03804-X") == "020103804X" and to_isbn10("020103804X") == "020103804X"
    assert to_isbn13("0-201-03804-X") == "9780201038040" and to_isbn13("020103804X") == "9780201038040"
    assert to_isbn13("978-0-201-03804-0") == "9780201038040"
    for malformed in ("978-X-201-03804-0", "9780X01038040", "xyzzy"):
        assert to_isbn10(malformed) is None
    for malformed in ("0-2X1-03804-8", "02X1038048", "xyzzy"):
        assert to_isbn13(malformed) is None


def test_format_isbn_hyphenates_and_passes_a_non_isbn_through_as_lockss_does() -> None:
    """LOCKSS TestMetadataUtil.testISBN, "test ISBN formatting":
    ``assertEquals("978-0-201-03804-0", MetadataUtil.formatIsbn("9780201038040"))``,
    ``assertEquals("0-201-03804-8", MetadataUtil.formatIsbn("0201038048"))`` and
    ``assertEquals("xyzzy", MetadataUtil.formatIsbn("xyzzy"))``."""
    assert format_isbn("9780201038040") == "978-0-201-03804-0"
    assert format_isbn("0201038048") == "0-201-03804-8"
    assert format_isbn("xyzzy") == "xyzzy"
    assert format_isbn("0-8044-2957-x") == "0-804-42957-X"  # fixed positions, whatever the input's hyphens
    assert format_isbn(None) is None


@pytest.mark.parametrize("isbn", ["X78-99931-58-10-4", "X9921-48-10-7", "0-8044-2957-Z", "1234-5678", "", None])
def test_malformed_isbns(isbn: str | None) -> None:
    assert not is_valid_isbn(isbn) and not is_isbn(isbn)


def test_isbn_check_digits_and_979_prefix() -> None:
    assert isbn10_check_digit("080442957") == "X" and isbn13_check_digit("978080442957") == "3"
    assert to_isbn13("979-10-90636-07-1") == "9791090636071"
    assert to_isbn10("979-10-90636-07-1") is None  # 979 numbers have no ISBN-10
    assert format_isbn("0 8044 2957 x") == "0-804-42957-X"


# --- locales -------------------------------------------------------------------------------------------------------

LOCALES = ["aa", "bb", "bb_XX", "cc", "cc_XX", "cc_YY", "cc_XX_V1", "dd_WW", "ee_WW_V3"]


@pytest.mark.parametrize(("target", "closest"), [
    ("aa", "aa"), ("aa_XX", "aa"), ("aa_XX_V1", "aa"), ("bb_XX", "bb_XX"), ("bb_XX_V1", "bb_XX"), ("bb_YY", "bb"),
    ("cc_XX_V1", "cc_XX_V1"), ("cc_XX_V2", "cc_XX"), ("cc_ZZ", "cc"), ("cc_YY_V2", "cc_YY"), ("xx", None),
    ("xx_XX_V1", None), ("dd_WW", "dd_WW"), ("dd_VV", None), ("ee_WW_V3", "ee_WW_V3"), ("ee_WW_V4", None),
    ("cc-XX", "cc_XX")])
def test_find_closest_locale(target: str, closest: str | None) -> None:
    """Exact, then without the variant, then the language alone (LOCKSS MetadataUtil.findClosestLocale)."""
    assert find_closest_locale(target, LOCALES) == closest


def test_find_closest_available_locale() -> None:
    assert find_closest_available_locale("en") == "en"
    assert find_closest_available_locale("en_ZF") == "en"
    assert find_closest_available_locale("en_US") == "en_US"
    assert find_closest_available_locale("fr_CA") == "fr_CA"
    assert find_closest_available_locale("qqq") is None
