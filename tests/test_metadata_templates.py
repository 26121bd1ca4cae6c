"""Tests for pubfetch.metadata.templates: every fact of spec lockss.md section 8 (printf templates and functors)."""

from __future__ import annotations

import logging
import re

import pytest

from pubfetch.metadata.au import AuConfig
from pubfetch.metadata.params import ParamDescr, ParamType
from pubfetch.metadata.templates import (
    DEFAULT_FUNCTOR,
    MAX_NUM_RANGE_SIZE,
    MatchPattern,
    PrintfElement,
    PrintfTemplate,
    TemplateArg,
    TemplateError,
    display_name,
    match_pattern,
    parse_template,
    printf_to_elements,
    quote_regexp,
    sprintf,
    url_list,
)

T = ParamType
DESCRIPTORS = ["base_url", "base_url2", "year", "volume", "volume_name", "issue_range", "num_issue_range", "issue_set",
               "journal_id"]


def config(**values: str) -> AuConfig:
    return AuConfig.parse(values, DESCRIPTORS)


BASE = config(base_url="http://foo.bar:8080/", volume="123", year="2018")


# --- parsing -------------------------------------------------------------------------------------------------------


def test_format_between_first_and_last_quote() -> None:
    template = parse_template('"%sblah/v_%d/y%d", base_url, volume, year')
    assert template.format == "%sblah/v_%d/y%d"
    assert [a.param for a in template.args] == ["base_url", "volume", "year"]


def test_format_may_contain_quotes() -> None:
    assert parse_template('"a"b"c%s", base_url').format == 'a"b"c%s'


def test_args_comma_split_and_trimmed() -> None:
    template = parse_template('"%s%s%d"  ,base_url ,  journal_id,volume  ')
    assert [a.raw for a in template.args] == ["base_url", "journal_id", "volume"]


def test_arg_is_param_or_fn_of_param() -> None:
    template = parse_template('"%s%s", url_host(base_url), base_url')
    assert template.args == (TemplateArg("url_host(base_url)", "base_url", "url_host"), TemplateArg("base_url", "base_url"))
    assert str(template) == '"%s%s", url_host(base_url), base_url'


@pytest.mark.parametrize("text", ['x "%s", base_url', '"%s" base_url',
                                  '"%s", base url', '"%s", f(g(x))', '"%s%s", base_url', '"%s", base_url, year'])
def test_malformed_templates_are_definition_errors(text: str) -> None:
    with pytest.raises(TemplateError):
        parse_template(text)


@pytest.mark.parametrize("text", ["foo bar", '"unclosed', "", "http://no.args/blah", "blah/.*"])
def test_template_without_quoted_format_is_the_whole_string_without_arguments(text: str) -> None:
    """LOCKSS TestPrintfConverter: ``assertEquals(ListUtil.list("http://no.args/blah"),
    convertUrlList("http://no.args/blah"))``, ``assertEquals("no args", convertNameString("no args"))`` and
    ``mp = convertVariableRegexpString("blah/.*"); assertEquals("blah/.*", mp.getRegexp())`` -- the unquoted string is
    the format, used as it is, in every context."""
    assert parse_template(text) == PrintfTemplate(text, ())
    assert url_list(text, BASE) == [text]
    assert display_name(text, BASE) == text
    assert match_pattern(text, BASE) == MatchPattern(text)


def test_printf_to_elements_splits_literals_and_conversions() -> None:
    """LOCKSS' TestPrintfUtil.testPrintfToElements case, plus widths and a trailing literal."""
    assert printf_to_elements('"foo%dbar%sbaz%%", my_int, my_str') == [
        PrintfElement(None, "foo"), PrintfElement("%d", "my_int"), PrintfElement(None, "bar"),
        PrintfElement("%s", "my_str"), PrintfElement(None, "baz"), PrintfElement(None, "%%")]
    assert printf_to_elements('"%sv%02d/", base_url, url_host(volume)') == [
        PrintfElement("%s", "base_url"), PrintfElement(None, "v"), PrintfElement("%02d", "url_host(volume)"),
        PrintfElement(None, "/")]
    assert printf_to_elements('"plain"') == [PrintfElement(None, "plain")]
    with pytest.raises(TemplateError, match="more conversions than arguments"):
        printf_to_elements('"%d"')


def test_unknown_param_is_definition_error() -> None:
    with pytest.raises(TemplateError, match="Unknown param in printf conversion: nope"):
        url_list('"%s", nope', BASE)
    with pytest.raises(TemplateError, match="Unknown param in printf conversion: nope"):
        match_pattern('"%s", url_host(nope)', BASE)


def test_template_without_args_is_returned_as_is() -> None:
    assert url_list('"http://x/%s"', BASE) == ["http://x/%s"]
    assert match_pattern('"^http://x/"', BASE) == MatchPattern("^http://x/")
    assert display_name('"Plain name"', BASE) == "Plain name"


# --- URL lists -----------------------------------------------------------------------------------------------------


def test_url_list_plain_args() -> None:
    assert url_list('"%sblah/v_%d/y%d", base_url, volume, year', BASE) == ["http://foo.bar:8080/blah/v_123/y2018"]


def test_url_list_num_range_twice_16_urls_first_varies_fastest() -> None:
    urls = url_list('"%sblah/i_%d/foo%d", base_url, num_issue_range, num_issue_range',
                    config(base_url="http://foo.bar:8080/", num_issue_range="9-12"))
    assert len(urls) == 16
    assert urls[:5] == ["http://foo.bar:8080/blah/i_9/foo9", "http://foo.bar:8080/blah/i_10/foo9",
                        "http://foo.bar:8080/blah/i_11/foo9", "http://foo.bar:8080/blah/i_12/foo9",
                        "http://foo.bar:8080/blah/i_9/foo10"]
    assert urls[-1] == "http://foo.bar:8080/blah/i_12/foo12"


def test_url_list_set_and_num_range_cartesian_product() -> None:
    urls = url_list('"%s%s/%d", base_url, issue_set, num_issue_range',
                    config(base_url="http://x/", issue_set="a, b", num_issue_range="1-2"))
    assert urls == ["http://x/a/1", "http://x/b/1", "http://x/a/2", "http://x/b/2"]


def test_url_list_set_expands_integer_macro() -> None:
    assert url_list('"%sissue/%s", base_url, issue_set', config(base_url="http://x/", issue_set="{2-4}")) == [
        "http://x/issue/2", "http://x/issue/3", "http://x/issue/4"]


def test_url_list_num_range_capped_at_100(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        urls = url_list('"%s%d", base_url, num_issue_range', config(base_url="http://x/", num_issue_range="1-500"))
    assert len(urls) == MAX_NUM_RANGE_SIZE == 100
    assert urls[-1] == "http://x/100"
    assert "Excessively large numeric range" in caplog.text


def test_url_list_string_range_is_illegal() -> None:
    with pytest.raises(TemplateError, match="String range params are not allowed in URL patterns: issue_range"):
        url_list('"%s%s", base_url, issue_range', config(base_url="http://x/", issue_range="a-c"))


def test_url_list_non_numeric_num_range_is_illegal() -> None:
    with pytest.raises(TemplateError, match="not numeric"):
        url_list('"%s%s", base_url, num_issue_range', config(base_url="http://x/", num_issue_range="a-c"))


def test_url_list_missing_value_yields_nothing() -> None:
    assert url_list('"%s%d", base_url, volume', config(base_url="http://x/")) == []


def test_url_list_empty_set_yields_nothing() -> None:
    assert url_list('"%s%s", base_url, issue_set', config(base_url="http://x/", issue_set=" , ")) == []


def test_url_list_zero_padded_short_year() -> None:
    urls = url_list('"%sv%02d/%d", base_url, au_short_year, volume', config(base_url="http://x/", year="2002",
                                                                        volume="5"))
    assert urls == ["http://x/v02/5"]


# --- regexps -------------------------------------------------------------------------------------------------------


def test_regexp_string_values_are_quoted() -> None:
    pattern = match_pattern('"^%s%d/", base_url, volume', BASE)
    assert pattern.regexp == r"^http\:\/\/foo\.bar\:8080\/123/"
    assert pattern.compile().match("http://foo.bar:8080/123/x")
    assert not pattern.compile().match("http://fooxbar:8080/123/x")


def test_regexp_set_becomes_alternation_of_quoted_elements() -> None:
    pattern = match_pattern('"%sissue/%s/", base_url, issue_set', config(base_url="http://x/", issue_set="1.a, 2"))
    assert pattern.regexp == r"http\:\/\/x\/issue/(?:1\.a|2)/"


def test_regexp_range_is_any_with_bounds_kept() -> None:
    pattern = match_pattern('"%s%s/", base_url, issue_range', config(base_url="http://x/", issue_range="a-m"))
    assert pattern.regexp == r"http\:\/\/x\/(.*)/"
    assert pattern.match_args == (("a", "m"),) and pattern.match_arg_types == (T.RANGE,)


def test_regexp_num_range_is_digits_with_bounds_kept() -> None:
    pattern = match_pattern('"%sv%d/i%s", base_url, volume, num_issue_range',
                            config(base_url="http://x/", volume="3", num_issue_range="1-022"))
    assert pattern.regexp == r"http\:\/\/x\/v3/i(\d+)"
    assert pattern.match_args == ((1, 22),) and pattern.match_arg_types == (T.NUM_RANGE,)
    assert pattern.compile().fullmatch("http://x/v3/i17").group(1) == "17"


def test_regexp_num_range_in_d_conversion() -> None:
    pattern = match_pattern('"%s%d", base_url, num_issue_range', config(base_url="http://x/", num_issue_range="1-2"))
    assert pattern.regexp.endswith(r"(\d+)")


def test_regexp_url_context_space_matches_encodings() -> None:
    values = config(base_url="http://x/", journal_id="my journal")
    pattern = match_pattern('"%s%s/", base_url, journal_id', values, url_context=True)
    assert pattern.regexp == r"http\:\/\/x\/my( |\+|%20)journal/"
    compiled = pattern.compile()
    assert all(compiled.match(f"http://x/my{sep}journal/") for sep in (" ", "+", "%20"))
    assert match_pattern('"%s", journal_id', values).regexp == r"my\ journal"


def test_regexp_url_context_space_in_set() -> None:
    pattern = match_pattern('"%s", issue_set', config(issue_set="a b, c"), url_context=True)
    assert pattern.regexp == r"(?:a( |\+|%20)b|c)"


def test_regexp_missing_value_yields_no_pattern() -> None:
    assert match_pattern('"%s%d", base_url, volume', config(base_url="http://x/")) is None


def test_quote_regexp_escapes_non_word_ascii_keeps_letters() -> None:
    assert quote_regexp("a_1.b-c(d)é") == r"a_1\.b\-c\(d\)é"
    text = "[x]{1}^$|?*+\\ #&~"
    assert re.fullmatch(quote_regexp(text), text)


# --- display names -------------------------------------------------------------------------------------------------


def test_display_name_sets_ranges_and_missing() -> None:
    values = config(base_url="http://x/", issue_set="1, 2", num_issue_range="3-4", issue_range="a-b")
    assert display_name('"%s, issues %s, %s, %s, vol %s", base_url, issue_set, num_issue_range, issue_range, volume',
                        values) == "http://x/, issues 1, 2, 3-4, a-b, vol (null)"


def test_display_name_refuses_text_under_percent_d() -> None:
    """LOCKSS' NameConverter joins ranges and sets into text, which its printf refuses under %d."""
    values = config(base_url="http://x/", issue_range="a-d", num_issue_range="3-4", issue_set="1, 2")
    for arg in ("issue_range", "num_issue_range", "issue_set", "volume"):
        with pytest.raises(TemplateError, match="needs an integer"):
            display_name(f'"i_%d", {arg}', values)
    assert display_name('"i_%s", issue_range', values) == "i_a-d"
    assert display_name('"v%d", volume', BASE) == "v123"
    assert url_list('"%si_%d", base_url, num_issue_range', values) == ["http://x/i_3", "http://x/i_4"]
    assert match_pattern('"i_%d", issue_range', values) == MatchPattern("i_(.*)", (("a", "d"),), (T.RANGE,))


# --- functors ------------------------------------------------------------------------------------------------------


def one_url(template: str, **values: str) -> str:
    urls = url_list(template, config(**values))
    assert len(urls) == 1
    return urls[0]


def test_url_host_no_port_case_kept() -> None:
    assert one_url('"%s", url_host(base_url)', base_url="http://WWW.foo.bar:8080/x/") == "WWW.foo.bar"


def test_url_path() -> None:
    assert one_url('"%s", url_path(base_url)', base_url="http://foo.bar/a/b?c=d") == "/a/b"


@pytest.mark.parametrize(("url", "expected"), [
    ("http://foo.bar/x", "http://www.foo.bar/x"), ("https://www.foo.bar/", "https://www.foo.bar/"),
    ("http://WWW.foo.bar/", "http://WWW.foo.bar/"), ("http://www2.foo.bar/", "http://www.www2.foo.bar/")])
def test_add_www_after_scheme_unless_present(url: str, expected: str) -> None:
    assert one_url('"%s", add_www(base_url)', base_url=url) == expected


@pytest.mark.parametrize(("url", "expected"), [
    ("http://www.foo.bar/x", "http://foo.bar/x"), ("http://foo.bar/", "http://foo.bar/"),
    ("https://WWW.foo.bar/", "https://foo.bar/")])
def test_del_www(url: str, expected: str) -> None:
    assert one_url('"%s", del_www(base_url)', base_url=url) == expected


def test_to_https_and_to_http() -> None:
    assert one_url('"%s", to_https(base_url)', base_url="http://foo.bar/") == "https://foo.bar/"
    assert one_url('"%s", to_https(base_url)', base_url="https://foo.bar/") == "https://foo.bar/"
    assert one_url('"%s", to_http(base_url)', base_url="https://foo.bar/") == "http://foo.bar/"
    assert one_url('"%s", to_http(base_url)', base_url="ftp://foo.bar/") == "ftp://foo.bar/"


def test_url_encode_and_decode_utf8() -> None:
    assert one_url('"%s", url_encode(journal_id)', journal_id="a b/é~*.-_") == "a+b%2F%C3%A9%7E*.-_"
    assert one_url('"%s", url_decode(journal_id)', journal_id="a+b%2F%C3%A9") == "a b/é"


def test_range_min_max() -> None:
    values = config(issue_range="a-m", num_issue_range="3-7")
    assert display_name('"%s %s", range_min(issue_range), range_max(issue_range)', values) == "a m"
    assert display_name('"%d %d", num_range_min(num_issue_range), num_range_max(num_issue_range)', values) == "3 7"


def test_num_range_min_is_long_typed() -> None:
    assert DEFAULT_FUNCTOR.type_of("num_range_min") is T.LONG
    assert DEFAULT_FUNCTOR.apply("num_range_max", "2-10") == 10
    pattern = match_pattern('"i%d", num_range_min(num_issue_range)', config(num_issue_range="3-7"))
    assert pattern.regexp == "i3"


def test_short_year() -> None:
    assert one_url('"%02d", short_year(year)', year="2005") == "05"
    assert DEFAULT_FUNCTOR.type_of("short_year") is T.INT


def test_unknown_function() -> None:
    with pytest.raises(TemplateError, match="Undefined function: nope"):
        url_list('"%s", nope(base_url)', BASE)
    with pytest.raises(TemplateError, match="Undefined function: nope"):
        DEFAULT_FUNCTOR.apply("nope", "x")


def test_functor_result_quoted_in_regexp() -> None:
    assert match_pattern('"%s", url_host(base_url)', BASE).regexp == r"foo\.bar"


def test_functor_on_missing_value_yields_nothing() -> None:
    assert url_list('"%s", url_host(base_url)', config()) == []


def test_functor_can_be_extended() -> None:
    functor = DEFAULT_FUNCTOR.with_function("upper", T.STRING, str.upper)
    assert url_list('"%s", upper(journal_id)', config(journal_id="abc"), functor=functor) == ["ABC"]


def test_functor_bad_argument_is_clear_error() -> None:
    with pytest.raises(TemplateError, match="Illegal arg type for url_host"):
        url_list('"%s", url_host(volume)', config(volume="3"))


# --- the printf engine -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "args", "expected"), [
    ("%s/%d", ["a", 5], "a/5"), ("%02d", [2], "02"), ("%5s|%-5s|", ["ab", "cd"], "   ab|cd   |"), ("%x", [255], "ff"),
    ("100%%", [], "100%"), ("%d", ["(\\d+)"], "(\\d+)"), ("%s", [True], "true"), ("%.2f", [1.5], "1.50")])
def test_sprintf(fmt: str, args: list[object], expected: str) -> None:
    assert sprintf(fmt, args) == expected


@pytest.mark.parametrize(("fmt", "args"), [("%d", [1.5]), ("%s %s", ["a"]), ("%s", ["a", "b"]), ("%q", ["a"]),
                                           ("%x", ["a"])])
def test_sprintf_errors(fmt: str, args: list[object]) -> None:
    with pytest.raises(TemplateError):
        sprintf(fmt, args)


def test_untyped_args_allowed_on_request() -> None:
    values = AuConfig.parse({"base_url": "http://x/", "color": "blue sky"}, ["base_url"])
    with pytest.raises(TemplateError, match="Unknown param"):
        url_list('"%s%s", base_url, color', values)
    assert url_list('"%s%s", base_url, color', values, allow_untyped=True) == ["http://x/blue sky"]


def test_parsed_template_objects_accepted() -> None:
    template = parse_template('"%s", base_url')
    assert isinstance(template, PrintfTemplate)
    assert url_list(template, BASE) == ["http://foo.bar:8080/"]
    assert AuConfig.parse({"v": "1"}, [ParamDescr("v", T.INT)])["v"] == 1
