"""An efetch answer parsed without what a run that asks for no references does not read (its reference lists and
its History): the same records as the document parsed as written; nothing cut where a cut would not be sound."""

from __future__ import annotations

import pytest

from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_cut import cut_unread
from pubfetch.extract.xmlsafe import XmlError
from support.pubmed_indented import RICH_CHOICES, as_written, indented_set


def test_the_unread_parts_are_cut_only_when_references_are_not_asked_for():
    data = indented_set(records=3)
    cut = cut_unread(data)
    assert b"<History>" not in cut and b"<ReferenceList>" not in cut and b"<Title>References" not in cut
    assert cut.count(b"<PubmedArticle>") == 3 and b"<ArticleIdList>" in cut
    assert parse_pubmed_xml(data, rich_parts=False) == as_written(data, False)


@pytest.mark.parametrize("change", [
    ("<!-- <History> -->", "a comment"),
    ("<![CDATA[ <ReferenceList> ]]>", "a CDATA section"),
])
def test_nothing_is_cut_from_a_document_with_a_comment_or_cdata(change):
    text, _ = change
    data = indented_set(records=3).replace(b"<Language>", text.encode() + b"<Language>", 1)
    assert cut_unread(data) is data
    assert parse_pubmed_xml(data, rich_parts=False) == as_written(data, False)


def test_a_nested_reference_list_is_cut_whole():
    nested = (b"<ReferenceList><Title>Inner</Title><Reference><Citation>Inner</Citation></Reference>"
              b"</ReferenceList>\n      </ReferenceList>")
    data = indented_set(records=3).replace(b"</ReferenceList>", nested, 1)
    cut = cut_unread(data)
    assert cut.count(b"ReferenceList") == 0 and cut.count(b"<PubmedArticle>") == 3
    for rich_parts in RICH_CHOICES:
        assert parse_pubmed_xml(data, rich_parts=rich_parts) == as_written(data, rich_parts)
    records = parse_pubmed_xml(data)
    assert [r.text for r in records[0].references][-1] == "Inner"


@pytest.mark.parametrize("odd", [b"<ReferenceList/>", b'<ReferenceList Type="x"></ReferenceList>'])
def test_a_list_holding_an_odd_list_is_left_to_the_tree(odd):
    data = indented_set(records=3).replace(b"</ReferenceList>", odd + b"</ReferenceList>", 1)
    assert cut_unread(data) is data
    assert parse_pubmed_xml(data, rich_parts=False) == as_written(data, False)


def test_another_encoding_is_not_cut():
    data = indented_set(records=3).replace(b'encoding="UTF-8"', b'encoding="ISO-8859-1"')
    assert cut_unread(data) is data


def test_a_document_cut_short_fails_as_written():
    data = indented_set()
    for end in (len(data) // 2, data.rindex(b"</History>") + 3, data.rindex(b"</ReferenceList>") + 5):
        short = data[:end]
        with pytest.raises(XmlError) as cut_short:
            parse_pubmed_xml(short, rich_parts=False)
        with pytest.raises(XmlError) as written:
            parse_pubmed_xml(short.decode("utf-8", "ignore"), rich_parts=False)
        assert str(cut_short.value) == str(written.value)
