"""Tests for pubfetch.metadata.params: LOCKSS parameter types (spec lockss.md section 7) and parameter descriptors; PubFetcher's
fetching parameters, described with them, are tested in tests/test_fetcher_args.py."""

from __future__ import annotations

import dataclasses
import logging
import pickle

import pytest

from pubfetch.metadata.descriptors import BUILTIN_DESCRIPTORS
from pubfetch.metadata.params import (
    MAX_SET_SIZE,
    InvalidParamValue,
    ParamDescr,
    ParamType,
    derived_values,
    parse_value,
)

T = ParamType


def invalid(type_: ParamType, text: str) -> None:
    with pytest.raises(InvalidParamValue):
        parse_value(type_, text)


# --- ParamType -----------------------------------------------------------------------------------------------------


def test_type_codes() -> None:
    codes = {t.lockss_name: int(t) for t in ParamType}
    assert codes == {
        "String": 1, "Int": 2, "Url": 3, "Year": 4, "Boolean": 5, "PosInt": 6, "Range": 7, "NumRange": 8, "Set": 9,
        "UserPasswd": 10, "Long": 11, "TimeInterval": 12,
    }
    assert ParamType(6) is T.POS_INT and T.POS_INT.label == "Non-Negative Integer"


def test_parse_value_accepts_code_and_method() -> None:
    assert parse_value(2, "7") == 7
    assert T.INT.parse("7") == 7


def test_string() -> None:
    assert parse_value(T.STRING, "foo") == "foo"
    assert parse_value(T.STRING, " ") == " "  # non-empty is all LOCKSS asks
    invalid(T.STRING, "")


def test_int() -> None:
    assert parse_value(T.INT, "-00432") == -432
    assert parse_value(T.INT, "+5") == 5
    assert parse_value(T.INT, "2147483647") == 2**31 - 1
    assert parse_value(T.INT, "-2147483648") == -(2**31)
    for text in ("123456789000", "2147483648", "abc", "", " 1", "1_000", "1.0", "٣"):
        invalid(T.INT, text)


def test_url() -> None:
    assert parse_value(T.URL, " http://example.com/path") == "http://example.com/path"  # java.net.URL trims
    assert parse_value(T.URL, "http://example.com/path\n") == "http://example.com/path"
    assert parse_value(T.URL, "HTTPS://example.com:8080/") == "https://example.com:8080/"
    assert parse_value(T.URL, "ftp://example.com") == "ftp://example.com"
    for text in ("abc", "", "/path/only", "foo://example.com/", "http://example.com:port/", "jar:file:/x.jar"):
        invalid(T.URL, text)


def test_year() -> None:
    assert parse_value(T.YEAR, "2004") == 2004
    assert parse_value(T.YEAR, "0") == 0
    assert parse_value(T.YEAR, "0123") == 123
    for text in ("999", "10000", "-123", "123X", "+123", "", "00"):
        invalid(T.YEAR, text)


def test_boolean() -> None:
    for text in ("true", "TRUE", "Yes", "on", "1"):
        assert parse_value(T.BOOLEAN, text) is True
    for text in ("false", "No", "OFF", "0"):
        assert parse_value(T.BOOLEAN, text) is False
    for text in ("123", "", "y", " true"):
        invalid(T.BOOLEAN, text)


def test_pos_int() -> None:
    assert parse_value(T.POS_INT, "0") == 0
    assert parse_value(T.POS_INT, "7") == 7
    for text in ("-444", "abc", "123456789000"):
        invalid(T.POS_INT, text)


def test_range() -> None:
    assert parse_value(T.RANGE, "bar") == ("bar", "bar")
    assert parse_value(T.RANGE, "bar-foo") == ("bar", "foo")
    assert parse_value(T.RANGE, " bar - foo ") == ("bar", "foo")
    assert parse_value(T.RANGE, "a-b-c") == ("a", "b-c")  # split at the first '-'
    for text in ("foo-", "-foo", "foo-bar", "", "  ", "-"):
        invalid(T.RANGE, text)


def test_num_range() -> None:
    assert parse_value(T.NUM_RANGE, "1-022") == (1, 22)
    assert parse_value(T.NUM_RANGE, "4") == (4, 4)
    assert parse_value(T.NUM_RANGE, "9-10") == (9, 10)  # numeric, not string, order
    assert parse_value(T.NUM_RANGE, "foo-foo") == ("foo", "foo")
    assert parse_value(T.NUM_RANGE, "1-b") == ("1", "b")
    for text in ("a-42", "12-", "-12", "10-9", ""):
        invalid(T.NUM_RANGE, text)


def test_set() -> None:
    value = parse_value(T.SET, " 1, 1b, {2-6} , 6A,6B ,{7000-7002}")
    assert value == ["1", "1b", "2", "3", "4", "5", "6", "6A", "6B", "7000", "7001", "7002"]
    assert len(value) == 12
    assert parse_value(T.SET, "{-2}") == ["{-2}"]
    assert parse_value(T.SET, "{ 2 - 3 }") == ["2", "3"]
    assert parse_value(T.SET, "{6-2}") == []
    assert parse_value(T.SET, "{1-99999999999}") == ["{1-99999999999}"]  # not a 32-bit range: kept literally
    assert parse_value(T.SET, "a,,b, ,") == ["a", "b"]
    assert parse_value(T.SET, "") == []
    assert parse_value(T.SET, "{2002-2005}, 2003Supp, 2004Supp") == [
        "2002", "2003", "2004", "2005", "2003Supp", "2004Supp"]


def test_set_capped(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pubfetch.metadata.params"):
        value = parse_value(T.SET, "a, {1-20000}, b")
    assert len(value) == MAX_SET_SIZE == 10000
    assert value[:3] == ["a", "1", "2"] and value[-1] == "9999"
    assert "more than 10000" in caplog.text
    assert len(parse_value(T.SET, ",".join(str(i) for i in range(10005)))) == MAX_SET_SIZE
    assert len(parse_value(T.SET, "{1-10000}")) == MAX_SET_SIZE


def test_user_passwd() -> None:
    assert parse_value(T.USER_PASSWD, "myuser:mypass") == ("myuser", "mypass")
    assert parse_value(T.USER_PASSWD, "foo:bar:colon") == ("foo", "bar:colon")
    for text in ("foo", "foo:", ":foo", "", ":"):
        invalid(T.USER_PASSWD, text)


def test_long() -> None:
    assert parse_value(T.LONG, "123456789000") == 123456789000
    assert parse_value(T.LONG, "-9223372036854775808") == -(2**63)
    for text in ("9223372036854775808", "abc", "1L"):
        invalid(T.LONG, text)


@pytest.mark.parametrize(
    ("text", "millis"),
    [
        ("5m", 300000), ("-444", -444), ("444", 444), ("10ms", 10), ("10MS", 10), ("30s", 30000), ("5M", 300000),
        ("12h", 43200000), ("1d", 86400000), ("2w", 14 * 86400000), ("1y", 365 * 86400000), ("1Y", 365 * 86400000),
        ("0", 0),
    ],
)
def test_time_interval(text: str, millis: int) -> None:
    assert parse_value(T.TIME_INTERVAL, text) == millis


@pytest.mark.parametrize("text", ["abc", "", "5x", "m", "1.5h", " 5m", "5 m", "9223372036854775807y"])
def test_time_interval_invalid(text: str) -> None:
    invalid(T.TIME_INTERVAL, text)


def test_error_message_names_key_value_and_form() -> None:
    with pytest.raises(InvalidParamValue) as info:
        parse_value(T.TIME_INTERVAL, "abc", key="timeout")
    assert str(info.value) == (
        "invalid value 'abc' for parameter timeout: expected a time interval such as 30s, 5m, 12h, 1d "
        "(a plain number is milliseconds)")
    assert info.value.key == "timeout" and info.value.value == "abc"
    assert isinstance(info.value, ValueError)
    with pytest.raises(InvalidParamValue, match=r"^invalid value 'x': expected a 32-bit integer"):
        parse_value(T.INT, "x")
    copy = pickle.loads(pickle.dumps(info.value))
    assert str(copy) == str(info.value) and copy.key == "timeout"


def test_non_text_rejected() -> None:
    with pytest.raises(InvalidParamValue):
        parse_value(T.INT, 5)  # type: ignore[arg-type]


def test_derived_values() -> None:
    assert derived_values("base_url", T.URL, "https://www.publisher.com/jabc/") == {
        "base_url_host": "www.publisher.com", "base_url_path": "/jabc/"}
    assert derived_values("base_url", T.URL, "http://user@host.org:8080/a?b") == {
        "base_url_host": "host.org", "base_url_path": "/a"}
    assert derived_values("year", T.YEAR, 1998) == {"au_short_year": 98}
    assert derived_values("year", T.YEAR, 2002) == {"au_short_year": 2}
    assert derived_values("volume", T.POS_INT, 7) == {}


# --- ParamDescr ----------------------------------------------------------------------------------------------------


def test_descr_defaults() -> None:
    descr = ParamDescr("foo", 2)
    assert descr.type is T.INT
    assert descr.display_name == "foo"
    assert descr.definitional is True and descr.default_only is False and descr.derived is False
    assert descr.min is None and descr.max is None and descr.default is None


def test_descr_min_max() -> None:
    descr = ParamDescr("level", T.INT, "Level", min=-2, max=10)
    assert descr.parse("-2") == -2 and descr.parse("10") == 10
    with pytest.raises(InvalidParamValue, match=r"'11' for parameter level: expected a value between -2 and 10"):
        descr.parse("11")
    with pytest.raises(InvalidParamValue, match="parameter level"):
        descr.parse("-3")
    with pytest.raises(InvalidParamValue, match="parameter level: expected a 32-bit integer"):
        descr.parse("ten")
    assert descr.validate(5) == 5
    for bad in (11, True, "5"):
        with pytest.raises(InvalidParamValue):
            descr.validate(bad)
    only_max = ParamDescr("n", T.LONG, max=5)
    with pytest.raises(InvalidParamValue, match="expected a value of at most 5$"):
        only_max.parse("6")


def test_descr_min_max_time_interval() -> None:
    descr = ParamDescr("interval", T.TIME_INTERVAL, min=1000)
    assert descr.parse("1s") == 1000
    with pytest.raises(InvalidParamValue, match="expected a value of at least 1000 milliseconds"):
        descr.parse("999")


def test_descr_unit_only_for_time_interval() -> None:
    with pytest.raises(ValueError, match="unit_ms"):
        ParamDescr("x", T.INT, unit_ms=60000)


def test_descr_parse_non_numeric_types() -> None:
    assert BUILTIN_DESCRIPTORS["issue_set"].parse("1,{2-3}") == ["1", "2", "3"]
    assert BUILTIN_DESCRIPTORS["user_pass"].parse("a:b") == ("a", "b")
    with pytest.raises(InvalidParamValue, match="parameter journal_id"):
        BUILTIN_DESCRIPTORS["journal_id"].parse("")


DEFINITIONAL = {
    "base_url": (T.URL, "Base URL", 40),
    "base_url2": (T.URL, "Second Base URL", 40),
    "year": (T.YEAR, "Year", 4),
    "volume": (T.POS_INT, "Volume No.", 8),
    "volume_name": (T.STRING, "Volume Name", 20),
    "issue_range": (T.RANGE, "Issue Range", 20),
    "num_issue_range": (T.NUM_RANGE, "Numeric Issue Range", 20),
    "issue_set": (T.SET, "Issue Set", 20),
    "journal_dir": (T.STRING, "Journal Directory", 40),
    "journal_abbr": (T.STRING, "Journal Abbreviation", 10),
    "journal_id": (T.STRING, "Journal Identifier", 40),
    "journal_issn": (T.STRING, "Journal ISSN", 20),
    "publisher_name": (T.STRING, "Publisher Name", 40),
    "oai_request_url": (T.URL, "OAI Request URL", 40),
    "oai_spec": (T.STRING, "OAI Spec", 40),
}
NON_DEFINITIONAL = {
    "user_pass": (T.USER_PASSWD, "Username:Password", 30, False),
    "pub_down": (T.BOOLEAN, "Pub Down", 4, True),
    "pub_never": (T.BOOLEAN, "Pub Never", 4, True),
    "au_closed": (T.BOOLEAN, "AU Closed", 4, True),
    "crawl_proxy": (T.STRING, "Crawl Proxy", 40, True),
    "nc_interval": (T.TIME_INTERVAL, "Crawl Interval", 10, True),
    "crawl_test_substance_threshold": (T.STRING, "Crawl Test Substance Threshold", 20, True),
}


def test_builtin_descriptors() -> None:
    assert set(BUILTIN_DESCRIPTORS) == set(DEFINITIONAL) | set(NON_DEFINITIONAL)
    for key, (type_, name, size) in DEFINITIONAL.items():
        descr = BUILTIN_DESCRIPTORS[key]
        assert (descr.key, descr.type, descr.display_name, descr.size) == (key, type_, name, size)
        assert descr.definitional and not descr.default_only and descr.description
    for key, (type_, name, size, default_only) in NON_DEFINITIONAL.items():
        descr = BUILTIN_DESCRIPTORS[key]
        assert (descr.key, descr.type, descr.display_name, descr.size) == (key, type_, name, size)
        assert not descr.definitional and descr.default_only is default_only and descr.description
    assert BUILTIN_DESCRIPTORS["base_url"].description == "Usually of the form http://<journal-name>.com/"
    assert BUILTIN_DESCRIPTORS["nc_interval"].parse("1d") == 86400000


def test_descriptors_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        BUILTIN_DESCRIPTORS["year"].size = 5  # type: ignore[misc]
