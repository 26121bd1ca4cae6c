"""Tests for pubfetch.metadata.au: plugin parameters (spec lockss.md section 7, through AuConfig) and AU ids (section 9)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pubfetch.metadata.au import (
    AuConfig,
    AuIdError,
    ConfigParamAssignment,
    au_id,
    au_key,
    config_key_from_au_id,
    decode_prop_key,
    derived_descriptors,
    encode_prop_key,
    is_reserved_param,
    parse_au_id,
    plugin_id_from_key,
    plugin_key,
    resolve_descriptor,
)
from pubfetch.metadata.params import InvalidParamValue, ParamDescr, ParamType, UnknownParameter

T = ParamType


def value_of(param_type: ParamType, text: str) -> object:
    """Parse ``text`` as the value of a parameter of ``param_type`` in an AU configuration."""
    return AuConfig.parse({"p": text}, [ParamDescr("p", param_type)])["p"]


def refused(param_type: ParamType, text: str) -> None:
    with pytest.raises(InvalidParamValue, match="for parameter p"):
        value_of(param_type, text)


# --- section 7: the twelve types, one test per fact ----------------------------------------------------------------


def test_type_codes_1_to_12() -> None:
    assert [(t.lockss_name, int(t)) for t in ParamType] == [
        ("String", 1), ("Int", 2), ("Url", 3), ("Year", 4), ("Boolean", 5), ("PosInt", 6), ("Range", 7),
        ("NumRange", 8), ("Set", 9), ("UserPasswd", 10), ("Long", 11), ("TimeInterval", 12)]


def test_string_non_empty() -> None:
    assert value_of(T.STRING, "foo") == "foo"
    refused(T.STRING, "")


def test_int_minus_00432_is_minus_432() -> None:
    assert value_of(T.INT, "-00432") == -432


def test_int_123456789000_is_invalid_32_bit() -> None:
    refused(T.INT, "123456789000")


def test_url_with_leading_space_valid() -> None:
    assert value_of(T.URL, " http://example.com/path") == "http://example.com/path"


def test_url_abc_invalid() -> None:
    refused(T.URL, "abc")


@pytest.mark.parametrize("text", ["2004", "0"])
def test_year_four_digits_or_zero(text: str) -> None:
    assert value_of(T.YEAR, text) == int(text)


@pytest.mark.parametrize("text", ["999", "10000", "-123", "123X"])
def test_year_invalid(text: str) -> None:
    refused(T.YEAR, text)


@pytest.mark.parametrize(("text", "expected"), [
    ("true", True), ("YES", True), ("On", True), ("1", True), ("false", False), ("No", False), ("OFF", False),
    ("0", False)])
def test_boolean_words_ignoring_case(text: str, expected: bool) -> None:
    assert value_of(T.BOOLEAN, text) is expected


def test_boolean_123_invalid() -> None:
    refused(T.BOOLEAN, "123")


def test_pos_int_minus_444_invalid() -> None:
    assert value_of(T.POS_INT, "0") == 0
    refused(T.POS_INT, "-444")


def test_range_split_trimmed_min_le_max() -> None:
    assert value_of(T.RANGE, " abc - xyz ") == ("abc", "xyz")
    refused(T.RANGE, "xyz-abc")


def test_range_single_bar_is_bar_bar() -> None:
    assert value_of(T.RANGE, "bar") == ("bar", "bar")


@pytest.mark.parametrize("text", ["foo-", "-foo"])
def test_range_empty_end_invalid(text: str) -> None:
    refused(T.RANGE, text)


def test_num_range_1_022_is_1_22() -> None:
    assert value_of(T.NUM_RANGE, "1-022") == (1, 22)


def test_num_range_4_is_4_4() -> None:
    assert value_of(T.NUM_RANGE, "4") == (4, 4)


def test_num_range_non_numeric_falls_back_to_strings() -> None:
    assert value_of(T.NUM_RANGE, "foo-foo") == ("foo", "foo")


@pytest.mark.parametrize("text", ["a-42", "12-", "-12"])
def test_num_range_invalid(text: str) -> None:
    refused(T.NUM_RANGE, text)


def test_set_twelve_elements_with_ranges() -> None:
    assert value_of(T.SET, " 1, 1b, {2-6} , 6A,6B ,{7000-7002}") == [
        "1", "1b", "2", "3", "4", "5", "6", "6A", "6B", "7000", "7001", "7002"]


def test_set_minus_2_macro_kept_literally() -> None:
    assert value_of(T.SET, "{-2}") == ["{-2}"]


def test_set_capped_at_10000_elements() -> None:
    assert len(value_of(T.SET, "{1-20000}")) == 10000  # type: ignore[arg-type]


def test_user_passwd_split_at_first_colon() -> None:
    assert value_of(T.USER_PASSWD, "foo:bar:colon") == ("foo", "bar:colon")


@pytest.mark.parametrize("text", ["foo", "foo:", ":foo"])
def test_user_passwd_invalid(text: str) -> None:
    refused(T.USER_PASSWD, text)


def test_long_64_bit() -> None:
    assert value_of(T.LONG, "123456789000") == 123456789000
    refused(T.LONG, str(2**63))


@pytest.mark.parametrize(("text", "millis"), [
    ("5m", 300000), ("-444", -444), ("10", 10), ("10ms", 10), ("2s", 2000), ("1H", 3600000), ("1d", 86400000),
    ("1w", 604800000), ("1y", 365 * 86400000)])
def test_time_interval(text: str, millis: int) -> None:
    assert value_of(T.TIME_INTERVAL, text) == millis


@pytest.mark.parametrize("text", ["abc", ""])
def test_time_interval_invalid(text: str) -> None:
    refused(T.TIME_INTERVAL, text)


def test_descriptor_attribute_defaults() -> None:
    descr = ParamDescr("k", T.STRING)
    assert (descr.key, descr.type, descr.display_name, descr.description, descr.size) == ("k", T.STRING, "k", "", 0)
    assert descr.definitional is True and descr.default_only is False and descr.derived is False


def test_unknown_builtin_name_refused() -> None:
    with pytest.raises(UnknownParameter, match="not a built-in parameter"):
        resolve_descriptor("no_such_param")


# --- derived parameters --------------------------------------------------------------------------------------------


def test_derived_url_host_and_path() -> None:
    config = AuConfig.parse({"base_url": "https://www.publisher.com/jabc/"}, ["base_url"])
    assert config["base_url_host"] == "www.publisher.com"
    assert config["base_url_path"] == "/jabc/"
    assert config.type_of("base_url_host") is T.STRING and config.descriptor("base_url_path").derived


def test_derived_short_year_is_an_int() -> None:
    assert AuConfig.parse({"year": "1998"}, ["year"])["au_short_year"] == 98
    assert AuConfig.parse({"year": "2002"}, ["year"])["au_short_year"] == 2
    assert AuConfig.parse({"year": "2002"}, ["year"]).type_of("au_short_year") is T.INT


def test_derived_for_any_url_or_year_param() -> None:
    descr = [ParamDescr("oai_url", T.URL), ParamDescr("start", T.YEAR)]
    config = AuConfig.parse({"oai_url": "http://H.example:81/oai?verb=x", "start": "2010"}, descr)
    assert config["oai_url_host"] == "H.example" and config["oai_url_path"] == "/oai"
    assert config["au_short_start"] == 10
    assert [d.key for d in derived_descriptors(descr[0])] == ["oai_url_host", "oai_url_path"]
    assert derived_descriptors(ParamDescr("v", T.POS_INT)) == []


def test_derived_descriptors_are_named_after_their_base() -> None:
    """LOCKSS' ConfigParamDescr.getDerivedDescr: "base_url_host (derived from Base URL)", same type family,
    non-definitional."""
    host, path = derived_descriptors(resolve_descriptor("base_url"))
    assert (host.display_name, path.display_name) == ("base_url_host (derived from Base URL)",
                                                      "base_url_path (derived from Base URL)")
    assert host.derived and not host.definitional
    (short,) = derived_descriptors(resolve_descriptor("year"))
    assert short.display_name == "au_short_year (derived from Year)"
    assert derived_descriptors(ParamDescr("start", T.YEAR))[0].display_name == "au_short_start (derived from start)"


# --- descriptor details (ConfigParamDescr) -------------------------------------------------------------------------


@pytest.mark.parametrize(("param_type", "size"), [(T.BOOLEAN, 4), (T.YEAR, 4), (T.INT, 10), (T.POS_INT, 10),
                                                  (T.LONG, 10), (T.TIME_INTERVAL, 10), (T.STRING, 0), (T.URL, 0),
                                                  (T.SET, 0)])
def test_descriptor_size_defaults_by_type(param_type: ParamType, size: int) -> None:
    """LOCKSS' TestConfigParamDescr.testSizeDefault: a descriptor without a size gets its type's; a given one stays."""
    assert ParamDescr("k1", param_type).size == size
    assert ParamDescr("k1", param_type, size=12).size == 12


def test_descriptors_sort_by_display_name() -> None:
    """LOCKSS' ConfigParamDescr.compareTo compares display names (which default to keys)."""
    cc, dd = ParamDescr("cc", T.STRING), ParamDescr("dd", T.STRING)
    assert cc < dd and not dd < cc
    bb = ParamDescr("dd", T.STRING, "bb")
    assert bb < cc and sorted([cc, dd, bb]) == [bb, cc, dd]
    assert not ParamDescr("bb", T.STRING) < bb and not bb < ParamDescr("bb", T.STRING)
    assert sorted(resolve_descriptor(k) for k in ("year", "base_url", "volume")) == [
        resolve_descriptor("base_url"), resolve_descriptor("volume"), resolve_descriptor("year")]


def test_descriptor_equality_covers_type_size_and_definitional() -> None:
    """LOCKSS' TestConfigParamDescr.testEquals."""
    assert ParamDescr("k1", T.STRING) == ParamDescr("k1", T.STRING)
    assert ParamDescr("k1", T.STRING) != ParamDescr("k2", T.STRING)
    assert ParamDescr("k1", T.STRING) != ParamDescr("k1", T.URL)
    assert ParamDescr("k1", T.STRING) != ParamDescr("k1", T.STRING, size=10)
    assert ParamDescr("k2", T.STRING) != ParamDescr("k2", T.STRING, definitional=False)


@pytest.mark.parametrize(("key", "sample"), [
    ("volume", "42"), ("volume_name", "SampleString"), ("issue_range", "abc-def"), ("num_issue_range", "52-63"),
    ("issue_set", "winter,spring,summer,fall"), ("year", "2038"), ("base_url", "http://example.com/path/file.ext"),
    ("base_url2", "http://example.com/path/file.ext"), ("journal_dir", "SampleString"), ("journal_issn", "SampleString"),
    ("oai_request_url", "http://example.com/path/file.ext"), ("user_pass", "username:passwd"), ("au_closed", "true"),
    ("pub_down", "true"), ("pub_never", "true"), ("crawl_proxy", "SampleString"), ("nc_interval", "10d")])
def test_descriptor_sample_values(key: str, sample: str) -> None:
    """LOCKSS' TestConfigParamDescr.testSampleValue; every sample parses as its type."""
    descr = resolve_descriptor(key)
    assert descr.sample_value == sample
    descr.parse(sample)


def test_every_type_sample_value_parses() -> None:
    for param_type in ParamType:
        ParamDescr("k", param_type).parse(param_type.sample_value)


def test_reserved_param_names() -> None:
    """LOCKSS' TestConfigParamDescr.testIsReserved."""
    assert is_reserved_param("reserved.foo") and is_reserved_param("reserved.")
    assert not is_reserved_param("year") and not is_reserved_param("reservedfoo")


def test_config_param_assignment_editable_unless_valued() -> None:
    """LOCKSS' ConfigParamAssignment: editable by default exactly when no value is given; equality covers all."""
    year = resolve_descriptor("year")
    blank = ConfigParamAssignment(year)
    valued = ConfigParamAssignment(year, "2004")
    assert (blank.value, blank.editable, valued.editable) == (None, True, False)
    assert ConfigParamAssignment(year, "").editable
    assert ConfigParamAssignment(year, "2004", editable=True).editable
    assert valued == ConfigParamAssignment(year, "2004")
    assert valued != ConfigParamAssignment(year, "2005")
    assert valued != ConfigParamAssignment(year, "2004", editable=True)
    assert valued != ConfigParamAssignment(resolve_descriptor("volume"), "2004")
    assert str(valued) == "[CPA: year, val:2004]"
    with pytest.raises(TypeError, match="needs a ParamDescr"):
        ConfigParamAssignment(None)  # type: ignore[arg-type]


def test_derived_descriptors_exist_without_values() -> None:
    config = AuConfig.parse({}, ["base_url", "year"])
    assert config.type_of("base_url_host") is T.STRING and "base_url_host" not in config


def test_plugin_parameter_named_like_derived_wins() -> None:
    config = AuConfig.parse({"year": "2002", "au_short_year": "x2"}, ["year", ParamDescr("au_short_year", T.STRING)])
    assert config["au_short_year"] == "x2"


# --- AuConfig parsing ----------------------------------------------------------------------------------------------


def test_config_values_typed_raw_kept() -> None:
    config = AuConfig.parse({"base_url": " http://foo/", "volume": "7", "issue_set": "1, 2"},
                            ["base_url", "volume", "issue_set"])
    assert config["base_url"] == "http://foo/" and config["volume"] == 7 and config["issue_set"] == ["1", "2"]
    assert config.raw["base_url"] == " http://foo/"


def test_config_undeclared_builtin_is_typed() -> None:
    config = AuConfig.parse({"base_url": "http://foo/", "pub_down": "true"}, ["base_url"])
    assert config["pub_down"] is True
    assert config.definitional_values() == {"base_url": "http://foo/"}


def test_config_unknown_key_kept_as_extra_or_refused() -> None:
    config = AuConfig.parse({"base_url": "http://foo/", "color": "blue"}, ["base_url"])
    assert config.extras == {"color": "blue"} and config.type_of("color") is None and "color" not in config
    with pytest.raises(UnknownParameter, match="color"):
        AuConfig.parse({"color": "blue"}, ["base_url"], unknown="error")


def test_config_bad_value_names_parameter() -> None:
    with pytest.raises(InvalidParamValue, match="for parameter volume"):
        AuConfig.parse({"volume": "-1"}, ["volume"])


def test_config_missing_values_allowed() -> None:
    config = AuConfig.parse({}, ["base_url"])
    assert config.get("base_url") is None


def test_config_duplicate_conflicting_descriptors_refused() -> None:
    with pytest.raises(ValueError, match="described twice"):
        AuConfig.parse({}, [ParamDescr("x", T.STRING), ParamDescr("x", T.INT)])


# --- section 9: AU ids -----------------------------------------------------------------------------------------------


def test_au_key_encoding_and_sorting() -> None:
    values = {"key&1": "val=1", "key2": "val 2", "key.3": "val:3", "key4": "val.4"}
    assert au_key(values) == "key%261~val%3D1&key%2E3~val%3A3&key2~val+2&key4~val%2E4"
    assert au_id("org.lockss.plugin.Blah", values).endswith("&key%261~val%3D1&key%2E3~val%3A3&key2~val+2&key4~val%2E4")


def test_au_id_plugin_dots_become_bars() -> None:
    assert au_id("org.lockss.plugin.Blah", {"a": "b"}) == "org|lockss|plugin|Blah&a~b"
    assert plugin_key("org.lockss.plugin.Blah") == "org|lockss|plugin|Blah"
    assert plugin_id_from_key("org|lockss|plugin|Blah") == "org.lockss.plugin.Blah"


def test_encode_keeps_alnum_dash_underscore_star() -> None:
    assert encode_prop_key("aZ09-_*") == "aZ09-_*"


def test_encode_space_plus_other_percent_upper_utf8() -> None:
    assert encode_prop_key("a b") == "a+b"
    assert encode_prop_key(".") == "%2E"
    assert encode_prop_key("~+/:") == "%7E%2B%2F%3A"
    assert encode_prop_key("é") == "%C3%A9"


def test_au_id_only_definitional_params() -> None:
    descriptors = ["base_url", "year", "pub_down", "user_pass"]
    values = {"base_url": "http://www.example.com/", "year": "2004", "pub_down": "true", "user_pass": "u:p"}
    assert au_id("org.lockss.plugin.FooPlugin", values, descriptors) == (
        "org|lockss|plugin|FooPlugin&base_url~http%3A%2F%2Fwww%2Eexample%2Ecom%2F&year~2004")
    config = AuConfig.parse(values, descriptors)
    assert config.au_id("org.lockss.plugin.FooPlugin") == au_id("org.lockss.plugin.FooPlugin", values, descriptors)


def test_au_id_missing_definitional_param_is_an_error() -> None:
    with pytest.raises(AuIdError, match="missing definitional parameter.*year"):
        au_id("org.lockss.plugin.FooPlugin", {"base_url": "http://x/"}, ["base_url", "year"])
    with pytest.raises(AuIdError, match="year"):
        AuConfig.parse({"base_url": "http://x/"}, ["base_url", "year"]).au_id("p.P")


def test_au_id_uses_configured_text() -> None:
    config = AuConfig.parse({"volume": "007"}, ["volume"])
    assert config["volume"] == 7 and config.au_key() == "volume~007"


def test_au_id_round_trip() -> None:
    values = {"base_url": "http://www.example.com/a b", "volume_name": "23A", "key&1": "é"}
    plugin, decoded = parse_au_id(au_id("org.lockss.plugin.Blah", values))
    assert plugin == "org.lockss.plugin.Blah" and decoded == values
    assert decode_prop_key("val+2%2E") == "val 2."


def test_au_id_without_params() -> None:
    assert au_id("a.B", {}) == "a|B&"
    assert parse_au_id("a|B&") == ("a.B", {})


@pytest.mark.parametrize("bad", ["noampersand", "&a~b", "a|B&a", "a|B&a~%G1", "a|B&a~%C3", "a|B&a~1&a~2",
                                 "P&foo~", "P&foo~bar~", "P&~bar", "P&a~b&foo~"])
def test_parse_au_id_refuses_malformed(bad: str) -> None:
    with pytest.raises(AuIdError):
        parse_au_id(bad)


def test_config_key_from_au_id_replaces_the_first_ampersand() -> None:
    """LOCKSS' PluginManager.configKeyFromAuId: the AU's configuration subtree key."""
    auid = au_id("org.lockss.plugin.Blah", {"base_url": "http://x/", "year": "2004"})
    assert config_key_from_au_id(auid) == "org|lockss|plugin|Blah.base_url~http%3A%2F%2Fx%2F&year~2004"
    assert config_key_from_au_id("a|B&") == "a|B."
    with pytest.raises(AuIdError):
        config_key_from_au_id("noampersand")


def test_au_key_values_must_be_text() -> None:
    with pytest.raises(TypeError):
        au_key({"volume": 7})  # type: ignore[dict-item]


# --- properties ------------------------------------------------------------------------------------------------------


@given(st.text())
def test_prop_key_encoding_round_trips_and_is_safe(text: str) -> None:
    encoded = encode_prop_key(text)
    assert set(encoded) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_*+%")
    assert decode_prop_key(encoded) == text


@given(st.dictionaries(st.text(min_size=1), st.text(min_size=1), max_size=5))
def test_au_id_round_trips(values: dict[str, str]) -> None:
    assert parse_au_id(au_id("org.example.Plugin", values)) == ("org.example.Plugin", values)
