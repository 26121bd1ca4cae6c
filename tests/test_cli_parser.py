"""Parsing the command line after PubFetcher's rules, made strict: each option takes its arguments from the words
after it, list options collect, anything else given twice, stray words, unknown options (with a suggestion) and
combinations that cannot work are one usage error each."""

from __future__ import annotations

import pytest

from pubfetch.cli.errors import UsageError
from pubfetch.cli.parser import parse_args
from pubfetch.config import FetchConfig
from pubfetch.model.part_type import PartName
from support.cli import Cli
from support.cli import usage_error as usage_error_of


def usage_error(*argv: str) -> str:
    with pytest.raises(UsageError) as info:
        parse_args(argv)
    return str(info.value)


def test_options_take_the_words_after_them() -> None:
    args = parse_args(["-pub", "1", "PMC2", "-db-copy", "a.db", "b.db", "-out", "--format", "json"])
    assert args.get("pub") == ["1", "PMC2"]
    assert args.get("db-copy") == ("a.db", "b.db")
    assert args.flag("out") and not args.flag("plain")
    assert "format" in args and args.get("format").value == "json"
    assert [o.dest for o in args.order] == ["pub", "db-copy", "out", "format"]
    assert args.has_role("pipeline") and args.has_role("oneoff") and not args.has_role("test")


def test_a_list_given_twice_collects_both_lists() -> None:
    assert parse_args(["-pub", "1", "-out", "-pub", "2", "3"]).get("pub") == ["1", "2", "3"]


def test_a_double_dash_option_may_carry_its_value_after_an_equals_sign() -> None:
    args = parse_args(["-pub", "1", "-out", "--format=json", "--timeout=20000"])
    assert args.get("format").value == "json"
    assert FetchConfig().with_changes(**args.fetcher).fetching.timeout == 20000


def test_fetching_parameters_become_fetcher_args() -> None:
    args = parse_args(["-pub", "1", "-fetch", "--retryLimit", "5", "--quick"])
    fetcher = FetchConfig().with_changes(**args.fetcher).fetching
    assert (fetcher.retry_limit, fetcher.quick) == (5, True)
    assert FetchConfig().with_changes(**parse_args(["-pub", "1", "-out", "--quick", "false"]).fetcher).fetching.quick is False


def test_converted_values_are_checked_as_parsed() -> None:
    parts = parse_args(["-pub", "1", "-fetch", "--fetch-part", "title", "abstract"]).get("fetch-part")
    assert parts == [PartName.title, PartName.theAbstract]
    assert usage_error("-pub", "1", "-fetch", "--fetch-part", "titel").startswith("option --fetch-part: ")


@pytest.mark.parametrize(("argv", "message"), [
    (["-pubb", "1"], "unknown option '-pubb' (did you mean -pub?); see pubfetch --help"),
    (["-zzzz"], "unknown option '-zzzz'; see pubfetch --help"),
    (["-escape-html", "a", "-escape-html", "b"], "option -escape-html given more than once"),
    (["-escape-html", "a", "b"], "unexpected argument 'b': it follows no option that takes it; see pubfetch --help"),
    (["-pub"], "option -pub needs at least one argument ("),
    (["-db-copy", "a.db"], "option -db-copy needs 2 arguments ("),
    (["-db-copy", "a.db", "-out"], "option -db-copy needs an argument ("),
    (["-pub", "1", "-out", "--plain=yes"], "option --plain takes no argument (given '--plain=yes')"),
    (["-pub", "1", "-db-fetch", "x.db", "--timeout", "5000", "--timeout", "6000"],
     "option --timeout given more than once"),
    (["-pub", "1", "-out", "-out"], "option -out given more than once"),
    (["-pub", "1", "-out", "--plain", "--format", "json", "--plain"], "option --plain given more than once"),
    (["-pub", "1", "-out", "--quick", "--quick"], "option --quick given more than once"),
    (["-pub", "1", "-out", "--quick", "false", "--quick"], "option --quick given more than once"),
    (["-pub", "1", "-fetch", "--fetch-part", "title", "--not-fetch-part", "abstract"],
     "options --fetch-part and --not-fetch-part can't be used together"),
    (["-post-document", "https://x.example/", "name"],
     "option -post-document needs a URL followed by NAME VALUE pairs; the last NAME has no VALUE"),
])  # fmt: skip
def test_each_mistake_is_one_usage_error(argv: list[str], message: str) -> None:
    assert usage_error(*argv).startswith(message)


def test_a_part_test_and_its_part_list_come_together() -> None:
    assert usage_error("-db", "x.db", "-part-size-more", "5") == \
        "option -part-size-more needs -part-size-more-part (the publication parts to test)"
    assert usage_error("-db", "x.db", "-part-size-more-part", "title") == \
        "option -part-size-more-part needs -part-size-more (the test to apply to the parts)"
    args = parse_args(["-db", "x.db", "-part-size-more", "5", "-part-size-more-part", "title"])
    assert args.get("part-size-more") == 5


def test_an_invalid_fetching_parameter_is_a_usage_error() -> None:
    assert usage_error("-pub", "1", "-fetch", "--timeout", "-1").startswith("option --timeout: invalid value '-1'")


def test_the_argument_count_and_the_following_option_are_named() -> None:
    assert usage_error("-db-copy", "a.db").endswith(", got 1")
    assert usage_error("-db-copy", "a.db", "-out").endswith(" but is followed by option -out")


def test_a_flag_given_twice_stops_the_command_with_one_usage_line(cli: Cli) -> None:
    assert usage_error_of(cli, "-pub", "1", "-out", "-out") == "pubfetch: error: option -out given more than once"
