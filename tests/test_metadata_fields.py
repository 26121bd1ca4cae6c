"""Tests for pubfetch.metadata.fields: every fact of spec lockss.md section 1 (MetadataField), one test per fact."""

from __future__ import annotations

import re

import pytest

from pubfetch.metadata import fields as mf
from pubfetch.metadata.fields import (
    BUILTIN_FIELDS,
    Cardinality,
    MetadataField,
    ValidationError,
    find_field,
    group_extractor,
    html_text_extractor,
    split_at,
)

S, M = Cardinality.SINGLE, Cardinality.MULTI


# --- the field table ---------------------------------------------------------------------------------------------

FIELD_TABLE = [
    # (constant, key, cardinality, has validator)
    (mf.FIELD_LANGUAGE, "language", S, False),
    (mf.FIELD_FORMAT, "format", S, False),
    (mf.FIELD_DOI, "doi", S, True),
    (mf.FIELD_ISSN, "issn", S, True),
    (mf.FIELD_EISSN, "eissn", S, True),
    (mf.FIELD_ISBN, "isbn", S, True),
    (mf.FIELD_EISBN, "eisbn", S, True),
    (mf.FIELD_PROVIDER, "provider", S, True),
    (mf.FIELD_PUBLISHER, "publisher", S, True),
    (mf.FIELD_PUBLICATION_TYPE, "pubtype", S, True),
    (mf.FIELD_ARTICLE_TYPE, "articletype", S, True),
    (mf.FIELD_VOLUME, "volume", S, False),
    (mf.FIELD_ISSUE, "issue", S, False),
    (mf.FIELD_START_PAGE, "startpage", S, False),
    (mf.FIELD_END_PAGE, "endpage", S, False),
    (mf.FIELD_DATE, "date", S, False),
    (mf.FIELD_ARTICLE_TITLE, "article.title", S, False),
    (mf.FIELD_PUBLICATION_TITLE, "publication.title", S, True),
    (mf.FIELD_SERIES_TITLE, "series.title", S, True),
    (mf.FIELD_PROPRIETARY_SERIES_IDENTIFIER, "proprietary_series_identifier", S, False),
    (mf.FIELD_AUTHOR, "author", M, True),
    (mf.FIELD_ACCESS_URL, "access.url", S, False),
    (mf.FIELD_FEATURED_URL_MAP, "featured.url.map", S, False),
    (mf.FIELD_KEYWORDS, "keywords", M, False),
    (mf.FIELD_COVERAGE, "coverage", S, False),
    (mf.FIELD_ITEM_NUMBER, "item_number", S, False),
    (mf.FIELD_PROPRIETARY_IDENTIFIER, "proprietary_identifier", S, False),
    (mf.FIELD_FETCH_TIME, "fetch.time", S, False),
    (mf.FIELD_ABSTRACT, "abstract", S, False),
    (mf.FIELD_MD_MAP, "md.map", S, False),
]


@pytest.mark.parametrize(("field", "key", "cardinality", "validated"), FIELD_TABLE, ids=[t[1] for t in FIELD_TABLE])
def test_builtin_field_key_cardinality_validator(field: MetadataField, key: str, cardinality: Cardinality,
                                                 validated: bool) -> None:
    assert field.key == key
    assert field.cardinality is cardinality
    assert (field.validator is not None) is validated
    assert find_field(key) is field
    assert find_field(key.upper()) is field


def test_journal_title_is_an_alias_of_publication_title() -> None:
    assert mf.FIELD_JOURNAL_TITLE is mf.FIELD_PUBLICATION_TITLE
    assert mf.KEY_JOURNAL_TITLE == "publication.title"


DC_TABLE = [
    ("dc.citation.chapter", S), ("dc.citation_epage", S), ("dc.citation.issue", S), ("dc.citation_spage", S),
    ("dc.citation_volume", S), ("dc.contributor", M), ("dc.creator", M), ("dc.identifier", M), ("dc.coverage", S),
    ("dc.date", S), ("dc.description", S), ("dc.format", S), ("dc.identifier.issn", S), ("dc.identifier.eissn", S),
    ("dc.identifier.issnl", S), ("dc.identifier.issnm", M), ("dc.identifier.isbn", S), ("dc.identifier.eisbn", S),
    ("dc.issued", S), ("dc.language", S), ("dc.publisher", S), ("dc.relation", M), ("dc.relation.ispartof", S),
    ("dc.rights", S), ("dc.source", S), ("dc.subject", S), ("dc.title", S), ("dc.type", S),
]


@pytest.mark.parametrize(("key", "cardinality"), DC_TABLE, ids=[k for k, _ in DC_TABLE])
def test_dublin_core_field_without_validator(key: str, cardinality: Cardinality) -> None:
    field = find_field(key)
    assert field is not None
    assert field.key == key and field.cardinality is cardinality and field.validator is None


def test_dublin_core_constants_spelling() -> None:
    assert mf.DC_FIELD_CITATION_EPAGE.key == "dc.citation_epage"
    assert mf.DC_FIELD_CITATION_ISSUE.key == "dc.citation.issue"
    assert mf.DC_FIELD_IDENTIFIER_ISSNM.cardinality is M


def test_builtin_registry_holds_every_field_once() -> None:
    assert len(BUILTIN_FIELDS) == len(FIELD_TABLE) + len(DC_TABLE)
    assert find_field("no.such.key") is None


def test_publication_type_constants() -> None:
    assert (mf.PUBLICATION_TYPE_BOOK, mf.PUBLICATION_TYPE_BOOKSERIES, mf.PUBLICATION_TYPE_JOURNAL,
            mf.PUBLICATION_TYPE_PROCEEDINGS, mf.PUBLICATION_TYPE_FILE, mf.PUBLICATION_TYPE_UNKNOWN_PUBLICATION) == (
        "book", "bookSeries", "journal", "proceedings", "file", "unknown_publication")


def test_article_type_constants() -> None:
    assert (mf.ARTICLE_TYPE_JOURNALARTICLE, mf.ARTICLE_TYPE_BOOKCHAPTER, mf.ARTICLE_TYPE_BOOKVOLUME,
            mf.ARTICLE_TYPE_PROCEEDINGSARTICLE, mf.ARTICLE_TYPE_FILE, mf.ARTICLE_TYPE_UNKNOWNARTICLE) == (
        "journal_article", "book_chapter", "book_volume", "proceedings_article", "file", "unknown_article")


# --- MetadataField construction and defaults ---------------------------------------------------------------------


def test_single_field_with_splitter_is_an_error() -> None:
    with pytest.raises(ValueError, match="splitter is legal only with Cardinality.MULTI"):
        MetadataField("foo", S, splitter=split_at(";"))


def test_field_with_splitter_and_extractor_is_an_error() -> None:
    with pytest.raises(ValueError, match="splitter or an extractor, not both"):
        MetadataField("foo", M, splitter=split_at(";"), extractor=html_text_extractor())


def test_field_needs_a_key() -> None:
    with pytest.raises(ValueError, match="non-empty key"):
        MetadataField("")


def test_validate_without_validator_returns_value() -> None:
    assert MetadataField("foo").validate(" any thing ") == " any thing "


def test_split_without_splitter_returns_singleton() -> None:
    assert MetadataField("foo", M).split("a;b") == ["a;b"]


def test_extract_without_extractor_returns_value() -> None:
    assert MetadataField("foo").extract("a<b>c") == "a<b>c"


def test_variants_keep_the_key_and_validator() -> None:
    split_keywords = mf.FIELD_KEYWORDS.with_splitter(split_at(","))
    assert split_keywords.key == "keywords" and split_keywords.has_splitter
    html_title = mf.FIELD_PUBLICATION_TITLE.with_extractor(html_text_extractor())
    assert html_title.key == "publication.title" and html_title.has_extractor
    assert html_title.validator is mf.FIELD_PUBLICATION_TITLE.validator
    with pytest.raises(ValueError):
        mf.FIELD_VOLUME.with_splitter(split_at(","))  # a Single field cannot split


# --- DOI ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["10.1234/56", "doi:10.1234/56", "DOI.ORG:10.1234/56", "https://dx.doi.org/10.1234/56",
                                   "10.1635a/006-8101", "10.166356/006-8101"])
def test_doi_valid(value: str) -> None:
    assert mf.FIELD_DOI.validate(value) == value[value.index("10."):]


@pytest.mark.parametrize(("value", "bare"), [
    ("doi/10.1234/56", "10.1234/56"), ("doi.org/10.1234/56", "10.1234/56"), ("http://dx.doi.org/10.1234/56", "10.1234/56"),
    ("http://doi.org/10.1234/56", "10.1234/56"), ("HTTPS://DOI.ORG/10.1234/AbC", "10.1234/AbC"),
])
def test_doi_decorations_are_stripped(value: str, bare: str) -> None:
    assert mf.FIELD_DOI.validate(value) == bare


def test_doi_result_is_not_trimmed() -> None:
    assert mf.FIELD_DOI.validate("10.1234/56  ") == "10.1234/56  "


@pytest.mark.parametrize("value", ["not.a.doi.1234", "dio:10.1234/56", "10.2992007/078.0301", "10.1206", "12.1095/x",
                                   " 10.1234/56"])
def test_doi_invalid(value: str) -> None:
    with pytest.raises(ValidationError) as info:
        mf.FIELD_DOI.validate(value)
    assert str(info.value) == f"Not recognized as a (possibly-decorated) DOI: {value}"


def test_doi_leading_space_fails() -> None:
    with pytest.raises(ValidationError):
        mf.validate_doi(" 10.1234/56")


# --- ISSN / ISBN -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "stored"), [
    ("1234-5678", "1234-5678"), ("12345678", "12345678"), ("issn:1234-5678", "1234-5678"),
    ("ISSN:0740-2783", "0740-2783"), ("1234-567X", "1234-567X"), ("1234-567x", "1234-567x"),
])
def test_issn_valid_and_returned_unchanged(value: str, stored: str) -> None:
    assert mf.FIELD_ISSN.validate(value) == stored


def test_issn_check_digit_not_verified() -> None:
    assert mf.FIELD_ISSN.validate("1234-567X") == "1234-567X"  # the real check digit of 1234-567 is 9


def test_issn_surrounding_blanks_tolerated_but_kept() -> None:
    assert mf.FIELD_ISSN.validate(" 1234-5678 ") == " 1234-5678 "


@pytest.mark.parametrize("value", ["not.a.issn.1234", "1938/4246", "1402-", "1234-56789", "123X-5678", "eissn:1234-5678"])
def test_issn_invalid(value: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(f"Illegal ISSN: {value}")):
        mf.FIELD_ISSN.validate(value)


def test_eissn_strips_eissn_prefix() -> None:
    assert mf.FIELD_EISSN.validate("EISSN:2212-7283") == "2212-7283"
    with pytest.raises(ValidationError, match="Illegal EISSN: 1402-"):
        mf.FIELD_EISSN.validate("1402-")


def test_isbn_prefix_stripped_hyphens_kept() -> None:
    assert mf.FIELD_ISBN.validate("isbn:978-1-58562-317-4") == "978-1-58562-317-4"


def test_isbn_checksum_not_verified() -> None:
    assert mf.FIELD_ISBN.validate("978-1-58562-317-3") == "978-1-58562-317-3"


@pytest.mark.parametrize("value", ["0-85883-554-4", "085883554X", "9781585623174"])
def test_isbn_10_and_13_forms(value: str) -> None:
    assert mf.FIELD_ISBN.validate(value) == value


@pytest.mark.parametrize("value", ["978-1-58562-317", "97815856231745", "08588355XX", "abc", "085883554x"])
def test_isbn_invalid(value: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(f"Illegal ISBN: {value}")):
        mf.FIELD_ISBN.validate(value)


def test_eisbn_strips_eisbn_prefix() -> None:
    assert mf.FIELD_EISBN.validate("eISBN:978-1-58562-317-4") == "978-1-58562-317-4"


# --- non-empty and author validators -----------------------------------------------------------------------------


@pytest.mark.parametrize(("field", "message"), [
    (mf.FIELD_PROVIDER, "Illegal provider: empty string"),
    (mf.FIELD_PUBLISHER, "Illegal publisher: empty string"),
    (mf.FIELD_PUBLICATION_TYPE, "Illegal publication type: empty string"),
    (mf.FIELD_ARTICLE_TYPE, "Illegal publication type: empty string"),
    (mf.FIELD_PUBLICATION_TITLE, "Illegal publication title: empty string"),
    (mf.FIELD_SERIES_TITLE, "Illegal series title: empty string"),
])
def test_non_empty_validators(field: MetadataField, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        field.validate("")
    assert field.validate(" ") == " "


@pytest.mark.parametrize("value", [", ", ",", ", , : /"])
def test_author_without_letter_fails(value: str) -> None:
    with pytest.raises(ValidationError, match="Illegal Author"):
        mf.FIELD_AUTHOR.validate(value)


def test_author_list_passes_unchanged_not_split() -> None:
    assert mf.FIELD_AUTHOR.validate("Herron, David;Haglund, Lotta") == "Herron, David;Haglund, Lotta"


def test_author_letter_is_any_unicode_letter() -> None:
    assert mf.FIELD_AUTHOR.validate("Å.") == "Å."
    assert mf.FIELD_AUTHOR.validate("李") == "李"


def test_author_no_dotall_line_break_fails() -> None:
    with pytest.raises(ValidationError):
        mf.FIELD_AUTHOR.validate("Smith,\nJohn")


# --- splitters and extractors ------------------------------------------------------------------------------------


def test_split_at_trims_and_drops_empties() -> None:
    assert split_at(";")("  one;two  ;  four  ") == ["one", "two", "four"]


def test_split_at_removes_quote_delimiter() -> None:
    assert split_at(";", '"')(' "one; two"  ') == ["one", "two"]


def test_split_at_removes_paren_delimiters() -> None:
    assert split_at(";", "(", ")")("  (one ; ; two)  ") == ["one", "two"]


def test_split_at_delimiters_ignore_case() -> None:
    assert split_at(",", "<B>", "</b>")("<b>x, y</B>") == ["x", "y"]


def test_split_at_needs_separator() -> None:
    with pytest.raises(ValueError):
        split_at("")


def test_group_extractor_returns_group() -> None:
    assert group_extractor("([^-]+)(-(.+))?", 3)("23-45") == "45"


def test_group_extractor_unmatched_group_is_none() -> None:
    assert group_extractor("([^-]+)(-(.+))?", 3)("23") is None


def test_group_extractor_uses_find_not_match() -> None:
    assert group_extractor(r"(\d+)", 1)("pages 12-15") == "12"
    assert group_extractor(r"\d+", 0)("no digits") is None


def test_group_extractor_refuses_missing_group() -> None:
    with pytest.raises(ValueError, match="has no group 2"):
        group_extractor(r"(\d+)", 2)


def test_html_text_extractor_strips_tags_and_unescapes() -> None:
    assert html_text_extractor()("Ag<sup>&reg;</sup>)") == "Ag®)"


def test_html_text_extractor_keeps_empty() -> None:
    assert html_text_extractor()("") == ""


def test_fields_are_hashable_and_comparable() -> None:
    assert MetadataField("k", M, splitter=split_at(";")) == MetadataField("k", M, splitter=split_at(";"))
    assert len({mf.FIELD_DOI, mf.FIELD_DOI, mf.FIELD_ISSN}) == 2
