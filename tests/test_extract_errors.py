"""The two doors every parsed document comes through: JSON and XML are decoded or refused with a ValueError that
says what the document was, and a service's error answer is a ParseError of its own kind."""

from __future__ import annotations

import pytest

from pubfetch.extract.errors import ParseError, ServiceError, load_json, load_xml
from pubfetch.extract.xmlsafe import XmlError


def test_json_is_decoded_from_text_and_from_bytes_with_a_byte_order_mark() -> None:
    assert load_json('{"a": [1, 2]}') == {"a": [1, 2]}
    assert load_json(b'\xef\xbb\xbf{"title": "caf\xc3\xa9"}') == {"title": "café"}
    assert load_json(bytearray(b"[]")) == []


@pytest.mark.parametrize("data", [None, "", "   \n", b"", b"\t"])
def test_an_empty_answer_is_a_parse_error_naming_what_was_expected(data: str | bytes | None) -> None:
    with pytest.raises(ParseError, match="empty Unpaywall answer"):
        load_json(data, "Unpaywall answer")


def test_bytes_that_are_not_utf8_are_a_parse_error() -> None:
    with pytest.raises(ParseError, match="search answer is not UTF-8"):
        load_json(b'{"a": "\xff"}', "search answer")


def test_text_that_is_not_json_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="document is not JSON"):
        load_json("<html>not json</html>")


def test_nesting_deeper_than_the_interpreter_allows_is_a_parse_error_not_a_crash() -> None:
    with pytest.raises(ParseError, match="nested too deeply"):
        load_json("[" * 200_000 + "]" * 200_000)


def test_every_refusal_is_a_value_error_which_is_what_callers_catch() -> None:
    assert issubclass(ParseError, ValueError)
    assert issubclass(ServiceError, ParseError)
    assert issubclass(XmlError, ValueError)


def test_xml_is_parsed_from_text_bytes_and_bytearray() -> None:
    for data in ("<a><b>x</b></a>", b"<a><b>x</b></a>", bytearray(b"<a><b>x</b></a>")):
        root = load_xml(data)
        assert root.tag == "a" and root.findtext("b") == "x"


@pytest.mark.parametrize("data", [None, "", b"<a><b></a>", "no markup at all"])
def test_what_is_not_xml_is_an_xml_error(data: str | bytes | None) -> None:
    with pytest.raises(XmlError):
        load_xml(data, "efetch answer")


def test_an_absent_document_names_what_was_expected() -> None:
    with pytest.raises(XmlError, match="empty efetch answer"):
        load_xml(None, "efetch answer")
