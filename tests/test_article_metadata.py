"""Tests for pubfetch.metadata.article_metadata: every fact of spec lockss.md section 2 (ArticleMetadata)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMap, InvalidValue
from pubfetch.metadata.fields import (
    Cardinality,
    CardinalityError,
    MetadataError,
    MetadataField,
    ValidationError,
    split_at,
)


def _lower_unless_ill(value: str) -> str:
    if "ill" in value:
        raise ValidationError(f"Invalid: {value}")
    return value.lower()


SINGLE = MetadataField("one", Cardinality.SINGLE, _lower_unless_ill)
MULTI = MetadataField("many", Cardinality.MULTI, _lower_unless_ill)
SPLIT = mf.FIELD_KEYWORDS.with_splitter(split_at(",", '"'))
SPLIT_REVERSE = MetadataField("anotherkey", Cardinality.MULTI, lambda v: v[::-1], split_at(";"))


@pytest.fixture
def am() -> ArticleMetadata:
    return ArticleMetadata()


# --- raw map -----------------------------------------------------------------------------------------------------


def test_raw_keys_lower_cased_on_store_and_read(am: ArticleMetadata) -> None:
    am.put_raw("Raw_Key1", "val1")
    am.put_raw("raw_key1", "val2")
    am.put_raw("RAW_KEY1", "val3")
    for key in ("Raw_Key1", "raw_key1", "RAW_KEY1"):
        assert am.get_raw(key) == "val1"
        assert am.get_raw_list(key) == ["val1", "val2", "val3"]
    assert am.raw_size() == 1
    assert am.raw_keys() == ["raw_key1"]


def test_put_raw_appends_and_keeps_duplicates(am: ArticleMetadata) -> None:
    assert am.get_raw("key1") is None and am.raw_size() == 0
    am.put_raw("key1", "val1")
    am.put_raw("key1", "val2")
    am.put_raw("key1", "val2")
    assert am.get_raw("key1") == "val1"
    assert am.get_raw_list("key1") == ["val1", "val2", "val2"]
    assert am.raw_items() == [("key1", ["val1", "val2", "val2"])]


def test_raw_values_may_be_string_maps(am: ArticleMetadata) -> None:
    am.put_raw("issn", {"pub-type": "ppub", "value": "0740-2783"})
    assert am.get_raw_map("ISSN") == {"pub-type": "ppub", "value": "0740-2783"}
    assert am.get_raw_map("missing") == {}
    am.put_raw("title", "T")
    assert am.get_raw_map("title") == {}


def test_raw_value_of_other_type_is_refused(am: ArticleMetadata) -> None:
    with pytest.raises(TypeError, match="string or a mapping"):
        am.put_raw("key", 5)  # type: ignore[arg-type]


def test_get_raw_list_missing_is_empty(am: ArticleMetadata) -> None:
    assert am.get_raw_list("nope") == []
    assert not am.contains_raw_key("nope")


# --- Single fields -----------------------------------------------------------------------------------------------


def test_put_single_first_valid_value_wins(am: ArticleMetadata) -> None:
    field = mf.FIELD_PUBLICATION_TITLE
    assert am.get(field) is None and am.get_list(field) == []
    assert not am.has_value(field) and not am.has_valid_value(field) and not am.has_invalid_value(field)
    assert am.put(field, "val1") is True
    assert am.get(field) == "val1" and am.get_list(field) == ["val1"]
    assert am.has_value(field) and am.has_valid_value(field) and not am.has_invalid_value(field)
    assert am.put(field, "val2") is False
    assert am.get(field) == "val1"
    assert am.put(field, "val1") is True  # the same value again is a success without change
    assert am.get_list(field) == ["val1"]


def test_put_valid_second_value_raises_cardinality_error(am: ArticleMetadata) -> None:
    am.put_valid(SINGLE, "valid1")
    with pytest.raises(CardinalityError, match="Attempt to reset single-valued key: one to valid2") as info:
        am.put_valid(SINGLE, "valid2")
    assert info.value.raw_value == "valid2" and info.value.field is SINGLE
    assert am.get(SINGLE) == "valid1"
    am.put_valid(SINGLE, "valid1")


def test_put_normalises_through_validator(am: ArticleMetadata) -> None:
    assert am.put(SINGLE, "VALID1")
    assert am.get(SINGLE) == "valid1"
    assert am.put(SINGLE, "valid1")  # raw equal to stored
    assert am.put(SINGLE, "Valid1")  # normalised equal to stored (LOCKSS compared the raw value only)
    assert not am.put(SINGLE, "valid2")


def test_put_same_decorated_doi_twice_succeeds(am: ArticleMetadata) -> None:
    assert am.put(mf.FIELD_DOI, "doi:10.1234/56")
    assert am.put(mf.FIELD_DOI, "doi:10.1234/56")
    assert am.get(mf.FIELD_DOI) == "10.1234/56"


def test_put_invalid_on_empty_slot_stores_invalid_value(am: ArticleMetadata) -> None:
    assert am.put(SINGLE, "illegal") is False
    assert am.get(SINGLE) is None and am.get_list(SINGLE) == []
    invalid = am.get_invalid(SINGLE)
    assert isinstance(invalid, InvalidValue) and invalid.raw_value == "illegal"
    assert isinstance(invalid.error, ValidationError) and str(invalid.error) == "Invalid: illegal"
    assert am.has_value(SINGLE) and not am.has_valid_value(SINGLE) and am.has_invalid_value(SINGLE)


def test_later_invalid_never_replaces_earlier_invalid(am: ArticleMetadata) -> None:
    am.put(SINGLE, "illegal")
    assert am.put(SINGLE, "illegaltoo") is False
    assert am.get_invalid(SINGLE).raw_value == "illegal"


def test_later_valid_replaces_invalid(am: ArticleMetadata) -> None:
    am.put(SINGLE, "illegal")
    am.put(SINGLE, "illegaltoo")
    assert am.put(SINGLE, "valid1") is True
    assert am.get(SINGLE) == "valid1" and am.get_invalid(SINGLE) is None
    assert am.put(SINGLE, "valid2") is False and am.get(SINGLE) == "valid1"


def test_invalid_after_valid_keeps_valid_and_stores_nothing(am: ArticleMetadata) -> None:
    am.put(SINGLE, "valid1")
    assert am.put(SINGLE, "illegal") is False
    assert am.get(SINGLE) == "valid1" and not am.has_invalid_value(SINGLE)


def test_put_valid_raises_validation_error_and_stores_invalid(am: ArticleMetadata) -> None:
    with pytest.raises(ValidationError) as info:
        am.put_valid(SINGLE, "illegal")
    assert info.value.raw_value == "illegal" and info.value.field is SINGLE
    assert am.get_invalid(SINGLE).raw_value == "illegal"
    with pytest.raises(ValidationError) as info:
        am.put_valid(SINGLE, "illegaltoo")
    assert info.value.raw_value == "illegaltoo"
    assert am.get_invalid(SINGLE).raw_value == "illegal"


def test_extractor_applied_before_validation(am: ArticleMetadata) -> None:
    end_page = mf.FIELD_END_PAGE.with_extractor(mf.group_extractor("([^-]+)(-(.+))?", 3))
    assert am.put(end_page, "23-45")
    assert am.get(mf.FIELD_END_PAGE) == "45"  # a variant writes into the same cooked slot


def test_extractor_finding_nothing_is_invalid(am: ArticleMetadata) -> None:
    end_page = mf.FIELD_END_PAGE.with_extractor(mf.group_extractor("([^-]+)(-(.+))?", 3))
    assert am.put(end_page, "23") is False
    assert am.get_invalid(mf.FIELD_END_PAGE).raw_value == "23"


def test_html_extractor_then_validator(am: ArticleMetadata) -> None:
    title = mf.FIELD_PUBLICATION_TITLE.with_extractor(mf.html_text_extractor())
    assert am.put(title, "Ag<sup>&reg;</sup>)")
    assert am.get(mf.FIELD_PUBLICATION_TITLE) == "Ag®)"
    assert not ArticleMetadata().put(title, "<i></i>")  # empty after extraction: the validator refuses it


def test_put_none_is_invalid(am: ArticleMetadata) -> None:
    assert am.put(mf.FIELD_VOLUME, None) is False
    assert am.has_invalid_value(mf.FIELD_VOLUME)


# --- Multi fields ------------------------------------------------------------------------------------------------


def test_put_multi_appends_and_keeps_duplicates(am: ArticleMetadata) -> None:
    assert am.put(MULTI, "valid1")
    assert am.put(MULTI, "valid2")
    assert am.put(MULTI, "valid1")
    assert am.get(MULTI) == "valid1"
    assert am.get_list(MULTI) == ["valid1", "valid2", "valid1"]


def test_put_multi_normalises(am: ArticleMetadata) -> None:
    am.put(MULTI, "VALID1")
    am.put(MULTI, "Valid2")
    assert am.get_list(MULTI) == ["valid1", "valid2"]


def test_multi_never_stores_invalid_value(am: ArticleMetadata) -> None:
    assert am.put(MULTI, "illegal") is False
    assert not am.has_value(MULTI) and am.get_invalid(MULTI) is None and am.get_list(MULTI) == []
    with pytest.raises(ValidationError) as info:
        am.put_valid(MULTI, "illegal")
    assert info.value.raw_value == "illegal"
    assert am.put(MULTI, "valid1") and am.get_list(MULTI) == ["valid1"]


def test_multi_splitter_appends_each_element(am: ArticleMetadata) -> None:
    assert am.put(SPLIT, "val1,val2")
    assert am.get(SPLIT) == "val1" and am.get_list(SPLIT) == ["val1", "val2"]
    assert am.put(SPLIT, "val3")
    assert am.put(SPLIT, '"delimv1,delimv3,delimv2"')
    assert am.get_list(mf.FIELD_KEYWORDS) == ["val1", "val2", "val3", "delimv1", "delimv3", "delimv2"]


def test_multi_splitter_skips_invalid_elements_and_returns_first_error(am: ArticleMetadata) -> None:
    authors = mf.FIELD_AUTHOR.with_splitter(split_at(";"))
    with pytest.raises(ValidationError, match="Illegal Author: ,") as info:
        am.put_valid(authors, "Smith, J; ,; Doe, A; :")
    assert info.value.field is authors
    assert am.get_list(mf.FIELD_AUTHOR) == ["Smith, J", "Doe, A"]


def test_author_field_does_not_split(am: ArticleMetadata) -> None:
    am.put(mf.FIELD_AUTHOR, "Herron, David;Haglund, Lotta")
    assert am.get_list(mf.FIELD_AUTHOR) == ["Herron, David;Haglund, Lotta"]


# --- put_if_better and replace -----------------------------------------------------------------------------------


def test_put_if_better_none_is_not_stored(am: ArticleMetadata) -> None:
    assert am.put_if_better(mf.FIELD_VOLUME, None) is False
    assert am.get(mf.FIELD_VOLUME) is None


def test_put_if_better_stores_only_without_valid_value(am: ArticleMetadata) -> None:
    assert am.put_if_better(mf.FIELD_VOLUME, "17") is True
    assert am.put_if_better(mf.FIELD_VOLUME, "42") is False
    assert am.put_if_better(mf.FIELD_VOLUME, None) is False
    assert am.get(mf.FIELD_VOLUME) == "17"


def test_put_if_better_replaces_invalid(am: ArticleMetadata) -> None:
    am.put(mf.FIELD_ISSN, "not_an_issn")
    assert am.put_if_better(mf.FIELD_ISSN, None) is False
    assert am.get_invalid(mf.FIELD_ISSN).raw_value == "not_an_issn"
    assert am.put_if_better(mf.FIELD_ISSN, "0740-2783") is True
    assert am.get(mf.FIELD_ISSN) == "0740-2783"


def test_put_if_better_true_even_if_put_failed(am: ArticleMetadata) -> None:
    assert am.put_if_better(mf.FIELD_ISSN, "not_an_issn") is True
    assert not am.has_valid_value(mf.FIELD_ISSN)


def test_replace_is_forced_put(am: ArticleMetadata) -> None:
    assert am.put(SINGLE, "valid1")
    assert not am.put(SINGLE, "valid2")
    assert am.replace(SINGLE, "valid3") is True
    assert am.get(SINGLE) == "valid3"


def test_replace_with_invalid_keeps_old_and_returns_true(am: ArticleMetadata) -> None:
    am.put(SINGLE, "valid1")
    assert am.replace(SINGLE, "illegal") is True
    assert am.get(SINGLE) == "valid1" and not am.has_invalid_value(SINGLE)


def test_replace_on_empty_slot_with_invalid_stores_invalid(am: ArticleMetadata) -> None:
    assert am.replace(mf.FIELD_ISSN, "bad") is True
    assert am.get_invalid(mf.FIELD_ISSN).raw_value == "bad"


def test_replace_multi_replaces_all_values(am: ArticleMetadata) -> None:
    am.put(MULTI, "a")
    am.put(MULTI, "b")
    assert am.replace(MULTI, "C")
    assert am.get_list(MULTI) == ["c"]
    assert am.replace(MULTI, "illegal") and am.get_list(MULTI) == ["c"]


# --- cooking -----------------------------------------------------------------------------------------------------


def _raw_r1_to_r5(am: ArticleMetadata) -> None:
    am.put_raw("r1", "V1")
    am.put_raw("r2", "V2")
    am.put_raw("r3", "V3")
    am.put_raw("r3", "V4")
    am.put_raw("r4", "s1,s2,s4")
    am.put_raw("r4", "s3")
    am.put_raw("r5", "abc;def")


def test_cook_applies_fields_splitters_and_validators(am: ArticleMetadata) -> None:
    _raw_r1_to_r5(am)
    cook_map = {"r2": mf.FIELD_ARTICLE_TITLE, "r1": mf.FIELD_VOLUME, "r3": mf.FIELD_AUTHOR, "r4": SPLIT,
                "r5": SPLIT_REVERSE}
    assert am.cook(cook_map) == []
    assert am.get(mf.FIELD_VOLUME) == "V1"
    assert am.get(mf.FIELD_ARTICLE_TITLE) == "V2"
    assert am.get(mf.FIELD_AUTHOR) == "V3" and am.get_list(mf.FIELD_AUTHOR) == ["V3", "V4"]
    assert am.get_list(SPLIT) == ["s1", "s2", "s4", "s3"]
    assert am.get_list(SPLIT_REVERSE) == ["cba", "fed"]


def test_cook_r1_volume_issue_r3_author_keywords_size_5_from_raw_size_3(am: ArticleMetadata) -> None:
    am.put_raw("r1", "V1")
    am.put_raw("r2", "V2")
    am.put_raw("r3", "V3")
    am.put_raw("r3", "V4")
    cook_map = CookMap().put("r2", mf.FIELD_ARTICLE_TITLE).put("r1", mf.FIELD_VOLUME, mf.FIELD_ISSUE)
    cook_map.put("r3", mf.FIELD_AUTHOR).put("r3", mf.FIELD_KEYWORDS)
    am.cook(cook_map)
    assert am.get(mf.FIELD_VOLUME) == "V1" and am.get(mf.FIELD_ISSUE) == "V1"
    assert am.get(mf.FIELD_ARTICLE_TITLE) == "V2"
    assert am.get_list(mf.FIELD_AUTHOR) == ["V3", "V4"] and am.get_list(mf.FIELD_KEYWORDS) == ["V3", "V4"]
    assert am.raw_size() == 3
    assert am.size() == 5


def test_cook_collects_errors_and_never_aborts(am: ArticleMetadata) -> None:
    am.put_raw("r1", "V1")
    am.put_raw("r2", "V2")
    am.put_raw("r3", "V3")
    am.put_raw("r3", "V4")
    errors = am.cook({"r2": mf.FIELD_DOI, "r1": mf.FIELD_VOLUME, "r3": mf.FIELD_AUTHOR})
    assert len(errors) == 1
    error = errors[0]
    assert isinstance(error, ValidationError)
    assert error.field is mf.FIELD_DOI and error.raw_value == "V2" and error.raw_key == "r2"
    assert am.get(mf.FIELD_VOLUME) == "V1"
    assert am.get(mf.FIELD_DOI) is None and am.has_invalid_value(mf.FIELD_DOI)
    invalid = am.get_invalid(mf.FIELD_DOI)
    assert invalid.raw_value == "V2" and invalid.error is error
    assert am.get_list(mf.FIELD_AUTHOR) == ["V3", "V4"]


def test_cook_list_errors_each_invalid_multi_value(am: ArticleMetadata) -> None:
    am.put_raw("r1", "V1")
    am.put_raw("r2", "V2")
    for name in ("bill", "frank", "william"):
        am.put_raw("r3", name)
    errors = am.cook([("r2", mf.FIELD_ARTICLE_TITLE), ("r1", [mf.FIELD_VOLUME, mf.FIELD_ISSUE]),
                      ("r3", [mf.FIELD_AUTHOR, MULTI])])
    assert [(type(e), e.field, e.raw_value) for e in errors] == [
        (ValidationError, MULTI, "bill"), (ValidationError, MULTI, "william")]
    assert am.get_list(mf.FIELD_AUTHOR) == ["bill", "frank", "william"]
    assert am.get_list(MULTI) == ["frank"]
    assert am.raw_size() == 3 and am.size() == 5


def test_cook_reports_cardinality_errors(am: ArticleMetadata) -> None:
    am.put_raw("citation_volume", "12")
    am.put_raw("citation_volume", "13")
    errors = am.cook({"citation_volume": mf.FIELD_VOLUME})
    assert [type(e) for e in errors] == [CardinalityError]
    assert am.get(mf.FIELD_VOLUME) == "12"


def test_cook_order_is_declared_order_deterministic() -> None:
    def cooked(order: list[str]) -> str | None:
        am = ArticleMetadata()
        am.put_raw("citation_date", "2020-01-02")
        am.put_raw("dc.date", "2020")
        am.cook([(key, mf.FIELD_DATE) for key in order])
        return am.get(mf.FIELD_DATE)

    assert cooked(["citation_date", "dc.date"]) == "2020-01-02"
    assert cooked(["dc.date", "citation_date"]) == "2020"


def test_cook_map_raw_keys_ignore_case(am: ArticleMetadata) -> None:
    am.put_raw("DC.Title", "A title")
    assert am.cook({"dc.TITLE": mf.DC_FIELD_TITLE}) == []
    assert am.get(mf.DC_FIELD_TITLE) == "A title"


def test_cook_map_value_raw_map_is_an_error_not_a_crash(am: ArticleMetadata) -> None:
    am.put_raw("issn", {"value": "0740-2783"})
    errors = am.cook({"issn": mf.FIELD_ISSN})
    assert len(errors) == 1 and errors[0].raw_key == "issn"
    assert not am.has_value(mf.FIELD_ISSN)


def test_cook_map_builder_validates_entries() -> None:
    with pytest.raises(TypeError, match="not a MetadataField"):
        CookMap().put("x", "volume")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one field"):
        CookMap().put("x")
    cook_map = CookMap({"A": mf.FIELD_VOLUME}).put("a", mf.DC_FIELD_CITATION_VOLUME)
    assert cook_map.items() == [("a", (mf.FIELD_VOLUME, mf.DC_FIELD_CITATION_VOLUME))]
    assert "A" in cook_map and len(cook_map) == 1


# --- locale, accessors, printing ---------------------------------------------------------------------------------


def test_set_locale_only_while_cooked_map_empty(am: ArticleMetadata) -> None:
    assert am.locale is None
    am.put_raw("x", "y")
    am.set_locale("it_IT")
    assert am.locale == "it_IT"
    am.put(mf.FIELD_PUBLICATION_TITLE, "val1")
    with pytest.raises(RuntimeError, match="cannot set the locale"):
        am.locale = "fr_FR"
    assert am.locale == "it_IT"


def test_keys_size_and_is_empty(am: ArticleMetadata) -> None:
    assert am.is_empty() and am.size() == 0 and am.keys() == []
    am.put(mf.FIELD_KEYWORDS, "val11")
    am.put(mf.FIELD_KEYWORDS, "val12")
    assert not am.is_empty() and am.size() == 1 and am.keys() == ["keywords"]
    am.put(mf.FIELD_ISSN, "bad")
    assert am.keys() == ["keywords", "issn"]  # invalid slots are keys too


def test_getters_accept_keys_ignoring_case(am: ArticleMetadata) -> None:
    am.put(mf.FIELD_ARTICLE_TITLE, "T")
    assert am.get("ARTICLE.TITLE") == "T" and am.get_list("article.title") == ["T"]
    assert am.has_valid_value("Article.Title")


def test_pretty_print_metadata_then_raw_sorted_ignoring_case(am: ArticleMetadata) -> None:
    am.put_raw("citation_title", "A Title")
    am.put_raw("Citation_Author", "B")
    am.put_raw("citation_author", "A")
    am.put(mf.FIELD_VOLUME, "7")
    am.put(mf.FIELD_AUTHOR, "B")
    am.put(mf.FIELD_AUTHOR, "A")
    am.put(mf.FIELD_ISSN, "bad")
    assert am.pp_string(2) == (
        "  Metadata\n"
        "    author: [B; A]\n"
        "    issn: [inv: bad, ValidationError: Illegal ISSN: bad]\n"
        "    volume: 7\n"
        "  Raw Metadata\n"
        "    citation_author: [B; A]\n"
        "    citation_title: A Title\n"
    )


def test_pretty_print_empty(am: ArticleMetadata) -> None:
    assert am.pp_string() == "Metadata (empty)\nRaw Metadata (empty)\n"


# --- JSON form ---------------------------------------------------------------------------------------------------


def test_json_form_cooked_raw_invalid(am: ArticleMetadata) -> None:
    am.put_raw("citation_doi", "doi:10.1234/56")
    am.put_raw("citation_issn", "not_an_issn")
    am.put_raw("citation_author", "Doe, A")
    am.put_raw("citation_author", "Roe, B")
    am.put_raw("jats_issn", {"pub-type": "ppub", "value": "1234-5678"})
    errors = am.cook({"citation_doi": mf.FIELD_DOI, "citation_issn": mf.FIELD_ISSN,
                      "citation_author": mf.FIELD_AUTHOR})
    assert len(errors) == 1
    data = am.to_json()
    assert data == {
        "cooked": {"author": ["Doe, A", "Roe, B"], "doi": "10.1234/56"},
        "raw": {"citation_author": ["Doe, A", "Roe, B"], "citation_doi": ["doi:10.1234/56"],
                "citation_issn": ["not_an_issn"], "jats_issn": [{"pub-type": "ppub", "value": "1234-5678"}]},
        "invalid": {"issn": {"raw": "not_an_issn", "error": "Illegal ISSN: not_an_issn"}},
    }
    assert json.loads(json.dumps(data)) == data


def test_json_round_trip(am: ArticleMetadata) -> None:
    am.put_raw("a", "1")
    am.put(mf.FIELD_KEYWORDS, "x")
    am.put(mf.FIELD_DATE, "2020")
    am.put(mf.FIELD_DOI, "nope")
    back = ArticleMetadata.from_json(json.loads(json.dumps(am.to_json())))
    assert back == am
    assert back.get_list(mf.FIELD_KEYWORDS) == ["x"] and back.get_invalid(mf.FIELD_DOI).raw_value == "nope"
    assert back.to_json() == am.to_json()


def test_single_key_with_one_value_and_multi_key_with_one_value_differ_in_json(am: ArticleMetadata) -> None:
    am.put(mf.FIELD_KEYWORDS, "only")
    am.put(mf.FIELD_VOLUME, "only")
    assert am.to_json()["cooked"] == {"keywords": ["only"], "volume": "only"}


@pytest.mark.parametrize("data", [
    [], {"cooked": {"volume": 5}}, {"raw": {"a": "not a list"}}, {"other": {}},
    {"invalid": {"doi": "x"}}, {"cooked": {"doi": "1"}, "invalid": {"doi": {"raw": "x", "error": "e"}}},
])
def test_from_json_refuses_malformed_input(data: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        ArticleMetadata.from_json(data)  # type: ignore[arg-type]


def test_metadata_error_hierarchy() -> None:
    assert issubclass(ValidationError, MetadataError) and issubclass(CardinalityError, MetadataError)
    assert str(InvalidValue("x", ValidationError("bad"))) == "[inv: x, ValidationError: bad]"


# --- properties ------------------------------------------------------------------------------------------------------

_FIELDS = [mf.FIELD_DOI, mf.FIELD_ISSN, mf.FIELD_AUTHOR, mf.FIELD_KEYWORDS, mf.FIELD_VOLUME, SPLIT]


@given(st.lists(st.tuples(st.sampled_from(range(len(_FIELDS))), st.text(max_size=12)), max_size=12),
       st.lists(st.tuples(st.text(min_size=1, max_size=5), st.text(max_size=8)), max_size=6))
def test_json_round_trip_property(puts: list[tuple[int, str]], raws: list[tuple[str, str]]) -> None:
    am = ArticleMetadata()
    for key, value in raws:
        am.put_raw(key, value)
    for index, value in puts:
        am.put(_FIELDS[index], value)
    assert all(am.get_invalid(f) is None for f in _FIELDS if f.is_multi)
    back = ArticleMetadata.from_json(json.loads(json.dumps(am.to_json())))
    assert back.to_json() == am.to_json()


def test_records_pickle_with_fields_and_errors() -> None:
    import pickle

    am = ArticleMetadata()
    am.put_raw("k", "v")
    am.put(mf.FIELD_ISSN, "bad")
    am.put(mf.FIELD_PUBLISHER, "")
    am.put(mf.FIELD_KEYWORDS.with_splitter(split_at(",")), "a,b")
    am.put(mf.FIELD_END_PAGE.with_extractor(mf.group_extractor(r"(\d+)", 1)), "p12")
    back = pickle.loads(pickle.dumps(am))
    assert back == am and back.get(mf.FIELD_END_PAGE) == "12"
    assert back.get_invalid(mf.FIELD_ISSN).error.field == mf.FIELD_ISSN
