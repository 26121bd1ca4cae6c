"""An efetch answer parsed without what a run does not read (the History always, the reference lists when it asks for
no references), cut from its bytes as they pass in pieces to the parser: the same records as the document parsed as
written, whatever the pieces' sizes; nothing cut where a cut would not be sound."""

from __future__ import annotations

import gzip
import io

import pytest

from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_cut import answer_pieces, without_unread
from pubfetch.extract.xmlsafe import XmlError
from support.pubmed_indented import RICH_CHOICES, as_written, indented_set

#: piece sizes that put a mark, an element's end or the prolog across pieces, and the whole document in one
SIZES = [1, 7, 100, 4096, 1 << 30]


def cut(data: bytes, references: bool, size: int) -> bytes:
    pieces = (data[at:at + size] for at in range(0, len(data), size))
    return b"".join(without_unread(pieces, references))


@pytest.mark.parametrize("size", SIZES)
def test_the_history_is_cut_always_and_the_lists_when_references_are_not_read(size):
    data = indented_set(records=3)
    with_lists = cut(data, True, size)
    assert b"<History>" not in with_lists and with_lists.count(b"<ReferenceList>") == 3
    assert with_lists == data.replace(data[data.index(b"<History>"):data.index(b"</History>") + 10], b"")
    without = cut(data, False, size)
    assert b"<History>" not in without and b"<ReferenceList>" not in without and b"<Title>References" not in without
    assert without.count(b"<PubmedArticle>") == 3 and b"<ArticleIdList>" in without


@pytest.mark.parametrize("rich_parts", RICH_CHOICES)
def test_the_records_are_those_of_the_document_as_written(rich_parts):
    data = indented_set()
    assert parse_pubmed_xml(data, rich_parts=rich_parts) == as_written(data, rich_parts)
    assert parse_pubmed_xml(io.BytesIO(data), rich_parts=rich_parts) == as_written(data, rich_parts)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("passed", [
    b"<!-- <History> a comment </History> -->",
    b"<![CDATA[ <ReferenceList> </ReferenceList> ]]>",
    b"<?pmcsd <History> ?>",
])
def test_a_comment_cdata_or_instruction_is_passed_over_as_written(passed, size):
    """What looks like an element inside them is text, kept; the elements after them are cut all the same."""
    data = indented_set(records=3).replace(b"<Language>", passed + b"<Language>", 1)
    without = cut(data, False, size)
    assert passed in without
    assert without.count(b"<History>") == passed.count(b"<History>")
    assert without.count(b"<ReferenceList>") == passed.count(b"<ReferenceList>")
    assert parse_pubmed_xml(data, rich_parts=False) == as_written(data, False)


@pytest.mark.parametrize("size", SIZES)
def test_a_declaration_in_the_document_stops_the_cutting_there(size):
    """A ``<!`` that is neither a comment, a CDATA section nor the prolog's type declaration (no PubMed answer has
    one): what comes after it passes as written, what was cut before stays cut."""
    data = indented_set(records=3)
    second = data.index(b"<PubmedArticle>", data.index(b"</PubmedArticle>"))
    odd = data[:second] + b"<!odd>" + data[second:]
    out = cut(odd, False, size)
    assert out.count(b"<History>") == 2 and out.count(b"<ReferenceList>") == 2
    assert out[out.index(b"<!odd>"):] == odd[odd.index(b"<!odd>"):]


def test_a_nested_reference_list_is_cut_whole():
    nested = (b"<ReferenceList><Title>Inner</Title><Reference><Citation>Inner</Citation></Reference>"
              b"</ReferenceList>\n      </ReferenceList>")
    data = indented_set(records=3).replace(b"</ReferenceList>", nested, 1)
    for size in SIZES:
        without = cut(data, False, size)
        assert without.count(b"ReferenceList") == 0 and without.count(b"<PubmedArticle>") == 3
    for rich_parts in RICH_CHOICES:
        assert parse_pubmed_xml(data, rich_parts=rich_parts) == as_written(data, rich_parts)
    records = parse_pubmed_xml(data)
    assert [r.text for r in records[0].references][-1] == "Inner"


@pytest.mark.parametrize("odd", [b"<ReferenceList/>", b'<ReferenceList Type="x"></ReferenceList>',
                                 b"<?pi </ReferenceList> ?>"])
def test_a_list_holding_an_odd_list_or_an_instruction_stops_the_cutting(odd):
    data = indented_set(records=3).replace(b"</ReferenceList>", odd + b"</ReferenceList>", 1)
    for size in SIZES:
        without = cut(data, False, size)
        assert without.count(b"<ReferenceList>") == 3 and b"<History>" not in without[:without.index(odd)]
    assert parse_pubmed_xml(data, rich_parts=False) == as_written(data, False)


@pytest.mark.parametrize("odd", [b"<!-- </History> -->", b"<?pi </History> ?>", b"<![CDATA[ </History> ]]>"])
def test_a_history_holding_a_comment_instruction_or_cdata_stops_the_cutting(odd):
    """Its first ``</History>`` may be text inside them: the History is kept whole, from there on nothing is cut."""
    data = indented_set(records=3)
    second = data.index(b"<History>", data.index(b"</PubmedArticle>"))
    odd_data = data.replace(b"</History>", odd + b"</History>", 2).replace(odd + b"</History>", b"</History>", 1)
    assert odd_data.count(odd) == 1 and odd_data.index(odd) > second
    for size in SIZES:
        out = cut(odd_data, True, size)
        assert out.count(b"<History>") == 2 and odd in out
        assert out[out.index(b"<History>"):] == odd_data[odd_data.index(b"<History>", second):]
    for rich_parts in RICH_CHOICES:
        assert parse_pubmed_xml(odd_data, rich_parts=rich_parts) == as_written(odd_data, rich_parts)


@pytest.mark.parametrize("size", SIZES)
def test_another_encoding_is_not_cut(size):
    data = indented_set(records=3).replace(b'encoding="UTF-8"', b'encoding="ISO-8859-1"')
    assert cut(data, False, size) == data


def test_a_document_cut_short_fails_as_written():
    data = indented_set()
    for end in (len(data) // 2, data.rindex(b"</History>") + 3, data.rindex(b"</ReferenceList>") + 5):
        short = data[:end]
        with pytest.raises(XmlError) as cut_short:
            parse_pubmed_xml(short, rich_parts=False)
        with pytest.raises(XmlError) as written:
            parse_pubmed_xml(short.decode("utf-8", "ignore"), rich_parts=False)
        assert str(cut_short.value) == str(written.value)
        with pytest.raises(XmlError) as from_file:
            parse_pubmed_xml(io.BytesIO(short), rich_parts=False)
        assert str(from_file.value) == str(written.value)


class _Unseekable(io.RawIOBase):
    """A stream that can be read once only (a pipe, a socket)."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        return self._data.readinto(buffer)


def test_a_stream_is_read_in_pieces_and_a_broken_one_that_cannot_be_read_again_says_so(tmp_path):
    data = indented_set()
    path = tmp_path / "answer.xml.gz"
    path.write_bytes(gzip.compress(data))
    with gzip.open(path, "rb") as stream:
        assert parse_pubmed_xml(stream) == parse_pubmed_xml(data)
    assert parse_pubmed_xml(_Unseekable(data)) == parse_pubmed_xml(data)
    with pytest.raises(XmlError, match="^PubMed efetch answer is not usable XML: "):
        parse_pubmed_xml(_Unseekable(data[:len(data) // 2]))
    assert list(answer_pieces(b"")) == [] and parse_pubmed_xml(io.BytesIO(b"<PubmedArticleSet/>")) == []
    with pytest.raises(TypeError, match="binary mode"):
        parse_pubmed_xml(io.StringIO(data.decode()))  # type: ignore[arg-type]
