"""Option records and the converters that turn an option's words into values, each error naming the option."""

from __future__ import annotations

import pytest

from pubfetch.cli.errors import UsageError
from pubfetch.cli.spec import (
    SCRAPE_SELECTOR_KEYS,
    Option,
    count,
    instant,
    integer,
    optional_bool,
    output_format,
    part_name,
    part_type,
    positive,
    regex,
    scrape_selector_key,
)
from pubfetch.model.part_type import PartName, PartType
from pubfetch.output.common import Format


def refused(convert, value: str) -> str:  # noqa: ANN001 - any converter
    with pytest.raises(UsageError) as info:
        convert(value, "--opt")
    return str(info.value)


def test_an_option_is_stored_and_named_by_its_last_name() -> None:
    opt = Option(("-l", "--log"), "the log file", 1, "FILE")
    assert (opt.dest, opt.name, opt.is_list) == ("log", "--log", False)
    assert Option(("-pub",), "IDs", "+", "ID").is_list
    assert Option(("-x",), "x", dest="other").dest == "other"


def test_whole_numbers() -> None:
    assert (count(" 0 ", "--opt"), count("+7", "--opt"), positive("3", "--opt"), integer("-4", "--opt")) == (0, 7, 3, -4)
    assert refused(count, "-1") == "option --opt: invalid value '-1': expected a whole number >= 0"
    assert refused(count, "1.5") == "option --opt: invalid value '1.5': expected a whole number >= 0"
    assert refused(positive, "0") == "option --opt: invalid value '0': expected a whole number >= 1"
    assert refused(integer, "x") == "option --opt: invalid value 'x': expected a whole number"


def test_a_filter_regex_matches_anywhere_and_a_bad_one_is_refused() -> None:
    pattern = regex("gen(e|ome)s?", "-grep")
    assert pattern.pattern == "gen(e|ome)s?"
    assert pattern.search("the genome") and not pattern.search("GENE")
    assert refused(regex, "a(").startswith("option --opt: invalid regular expression 'a(': ")


def test_a_runaway_regex_search_is_stopped_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    import pubfetch.cli.spec as spec

    monkeypatch.setattr(spec, "REGEX_TIME_LIMIT_S", 0.01)
    pattern = regex("(a|aa)+$", "-grep")
    with pytest.raises(UsageError, match=r"option -grep: regular expression '\(a\|aa\)\+\$' took over 0.01 s"):
        pattern.search("a" * 60 + "b")


def test_instants_are_epoch_milliseconds() -> None:
    assert instant("1970-01-02", "--opt") == 86_400_000
    assert instant("1970-01-01T00:00:01Z", "--opt") == 1000
    assert refused(instant, "yesterday").startswith("option --opt: ")


def test_part_names_types_and_formats() -> None:
    assert part_name("abstract", "--opt") is PartName.theAbstract
    assert part_type("pubmed_xml", "--opt") is PartType.pubmed_xml
    assert output_format("json", "--opt") is Format.json
    assert refused(part_name, "abstrakt").startswith("option --opt: ")
    assert refused(part_type, "paper").startswith("option --opt: unknown publication part type 'paper': expected one "
                                                  "of ")
    assert refused(output_format, "docx").startswith("option --opt: unknown format 'docx': expected one of text, ")


def test_optional_bool_is_true_false_or_automatic() -> None:
    assert [optional_bool(v, "--opt") for v in ("true", " FALSE ", "")] == [True, False, None]
    assert refused(optional_bool, "yes") == "option --opt: invalid value 'yes': expected true, false or an empty " \
                                            "string"


def test_scrape_selector_keys_are_pubfetchers_and_read_the_rule_keys() -> None:
    assert scrape_selector_key("theAbstract", "-scrape-selector") == "abstract"
    assert scrape_selector_key("abstract", "-scrape-selector") == "abstract"
    assert scrape_selector_key("pdf_dst", "-scrape-selector") == "pdf_dst"
    message = refused(scrape_selector_key, "summary")
    assert message.startswith("option --opt: unknown KEY 'summary': expected one of pmid, pmcid, doi, ")
    assert ", abstract" not in message and "theAbstract" in message
    assert len(SCRAPE_SELECTOR_KEYS) == 19
