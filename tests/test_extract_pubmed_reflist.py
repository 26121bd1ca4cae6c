"""A reference list in PubMed's plain form read from its bytes: the same references as its tree gives, or none read
(None: libxml2 reads it as written) when it is outside the form, and the same records and errors for a whole answer
as the answer parsed as written, whatever the pieces it comes in."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from lxml import etree

from pubfetch.extract import pubmed_rich
from pubfetch.extract.errors import load_xml
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_cut import without_unread
from pubfetch.extract.pubmed_reflist import ListsRead, read_reference_list
from pubfetch.extract.xmlsafe import XmlError, parse_xml
from pubfetch.model.rich import Reference
from support.pubmed_indented import RICH_CHOICES, as_written, indented_set

SIZES = [1, 7, 100, 4096, 1 << 30]


def _written(body: str) -> bytes:
    return f"<ReferenceList>{body}</ReferenceList>".encode()


def _as_tree(written: bytes) -> list[Reference]:
    return pubmed_rich._references([parse_xml(written)], None)


def _ref(citation: str, *ids: tuple[str, str], space: str = "") -> str:
    listed = "".join(f'{space}<ArticleId IdType="{kind}">{value}</ArticleId>' for kind, value in ids)
    id_list = f"{space}<ArticleIdList>{listed}{space}</ArticleIdList>" if ids else ""
    return f"{space}<Reference>{space}<Citation>{citation}</Citation>{id_list}{space}</Reference>"


#: Lists in the plain form, each read from its bytes to what its tree gives.
PLAIN = {
    "PubMed's layout": _ref("Nat Neurosci. 1998;1(7):610-5", ("pubmed", "10196569"), space="\n    ")
    + _ref("J Neurosci. 1999;19:9557", ("pubmed", "10531458"), ("doi", "10.1/x"), space="\n    ") + "\n  ",
    "a title, no ID list and an empty citation": "<Title>References</Title>" + _ref("Alone.") + _ref(""),
    "every kind of ID, the first valid of each kept": _ref(
        "  Spaced   out.  ", ("pubmed", "0123"), ("pubmed", " 456 "), ("pmcid", "PMC9"), ("doi", "https://doi.org/10.1/b c"),
        ("doi", "10.1/d"), ("pmc", "77"), ("pmc", "PMC78"), ("pii", "S0001")),
    "a kind written otherwise": _ref("X.", (" PubMed ", "5"), ("DOI", "10.2/e"), ("", "6")),
    "entities and character references": _ref("Cells &amp; tissues &lt;in vivo&gt; &quot;q&quot; &apos;a&apos; "
                                               "&#8211;&#x2009;&#x1F600;", ("&#100;oi", "10.3/&amp;f"),
                                               ("pubmed", "&#55;")),
    "characters of every width, line ends and tabs": _ref("Åström\tA\r\nGröße – «Ü» 𝛼\r.", ("doi", "10.4/ä"),
                                                          space="\r\n\t "),
    "a ']]' without its '>'": _ref("A ]] b > c."),
    "no reference": "",
}


@pytest.mark.parametrize("shape", sorted(PLAIN))
def test_a_list_in_the_plain_form_reads_as_its_tree(shape: str) -> None:
    written = _written(PLAIN[shape])
    read = read_reference_list(written)
    assert read is not None and read == _as_tree(written)
    assert len(read) == written.count(b"<Reference>")


def test_what_each_reference_keeps() -> None:
    assert read_reference_list(_written(PLAIN["every kind of ID, the first valid of each kept"])) == [
        Reference("456", "PMC77", "10.1/D", "", "Spaced out.")]
    assert read_reference_list(_written(PLAIN["entities and character references"])) == [
        Reference("7", "", "10.3/&F", "", "Cells & tissues <in vivo> \"q\" 'a' \u2013 \U0001F600")]


#: Lists outside the form, valid XML: left to libxml2, which reads them to what their tree gives.
NOT_PLAIN = {
    "markup in a citation": _ref("Water<sub>2</sub> <i>in</i> cells."),
    "markup in an ID": _ref("Y.", ("pmc", "PMC<b>12</b>")),
    "an attribute in single quotes": "<Reference><Citation>X.</Citation><ArticleIdList><ArticleId IdType='doi'>"
                                     "10.1/a</ArticleId></ArticleIdList></Reference>",
    "another attribute": '<Reference><Citation>X.</Citation><ArticleIdList><ArticleId IdType="doi" V="1">10.1/a'
                         "</ArticleId></ArticleIdList></Reference>",
    "an ID without a type": "<Reference><Citation>X.</Citation><ArticleIdList><ArticleId>5</ArticleId>"
                            "</ArticleIdList></Reference>",
    "space inside a tag": "<Reference ><Citation>X.</Citation></Reference>",
    "an empty element written short": "<Reference><Citation/></Reference>",
    "a reference without a citation": "<Reference><ArticleIdList><ArticleId IdType=\"pubmed\">5</ArticleId>"
                                      "</ArticleIdList></Reference>",
    "two citations": "<Reference><Citation>A.</Citation><Citation>B.</Citation></Reference>",
    "text between references": _ref("A.") + "stray" + _ref("B."),
    "a comment": _ref("A.") + "<!-- note -->",
    "a title with markup": "<Title><i>Refs</i></Title>" + _ref("A."),
    "an entity the document's DTD may define": _ref("A&nbsp;b."),
}


@pytest.mark.parametrize("shape", sorted(NOT_PLAIN))
def test_a_list_outside_the_form_is_left_to_libxml2_and_reads_as_written(shape: str) -> None:
    written = _written(NOT_PLAIN[shape])
    assert read_reference_list(written) is None
    data = _with_list(written)
    for rich_parts in RICH_CHOICES:
        assert parse_pubmed_xml(data, rich_parts=rich_parts) == as_written(data, rich_parts)
    assert parse_pubmed_xml(io.BytesIO(data)) == as_written(data, True)


#: Lists that are not well-formed XML: none read, so that the answer fails as it does parsed as written.
MALFORMED = {
    "a control character": b"A \x01 b.",
    "']]>' in a text": b"A ]]> b.",
    "a bare ampersand": b"Cells & tissues.",
    "a reference to a character XML forbids": b"A &#0; b.",
    "a reference to a surrogate": b"A &#xD800; b.",
    "a reference beyond Unicode": b"A &#x110000; b.",
    "U+FFFE": "A \ufffe b.".encode(),
    "bytes that are not UTF-8": b"A \xff b.",
    "an encoded surrogate": b"A \xed\xa0\x80 b.",
}


@pytest.mark.parametrize("where", ["citation", "title", "ID"])
@pytest.mark.parametrize("shape", sorted(MALFORMED))
def test_a_list_that_is_not_well_formed_is_not_read_and_the_answer_fails_as_written(shape: str, where: str) -> None:
    bad = MALFORMED[shape]
    written = {"citation": b"<ReferenceList><Reference><Citation>" + bad + b"</Citation></Reference></ReferenceList>",
               "title": b"<ReferenceList><Title>" + bad + b"</Title><Reference><Citation>A.</Citation></Reference>"
                        b"</ReferenceList>",
               "ID": b'<ReferenceList><Reference><Citation>A.</Citation><ArticleIdList><ArticleId IdType="doi">'
                     b"10.1/" + bad + b"</ArticleId></ArticleIdList></Reference></ReferenceList>"}[where]
    assert read_reference_list(written) is None
    data = _with_list(written)
    with pytest.raises(XmlError) as as_is:
        load_xml(data, "PubMed efetch answer")
    for source in (data, io.BytesIO(data)):
        with pytest.raises(XmlError) as read:
            parse_pubmed_xml(source, rich_parts=True)
        assert str(read.value) == str(as_is.value)


def _with_list(written: bytes, records: int = 3) -> bytes:
    """An answer whose second record's reference list is the one given, the others' :data:`PLAIN`'s first."""
    data = indented_set(records=records)
    lists = re.split(rb"<ReferenceList>.*?</ReferenceList>", data, flags=re.S)
    plain = _written(PLAIN["PubMed's layout"])
    return b"".join(part + (written if at == 1 else plain) for at, part in enumerate(lists[:-1])) + lists[-1]


def _cut(data: bytes, size: int, lists_read: ListsRead) -> bytes:
    pieces = (data[at:at + size] for at in range(0, len(data), size))
    return b"".join(without_unread(pieces, True, lists_read))


@pytest.mark.parametrize("size", SIZES)
def test_each_plain_list_is_read_as_it_passes_and_a_placeholder_parsed_in_its_place(size: int) -> None:
    data = _with_list(_written(PLAIN["every kind of ID, the first valid of each kept"]), records=4)
    lists_read = ListsRead()
    out = _cut(data, size, lists_read)
    assert b"<Reference>" not in out and b"<History>" not in out
    assert out.count(b"<ReferenceList pubfetch-read=") == 4
    assert parse_pubmed_xml(data) == as_written(data, True)
    assert [len(r.references) for r in parse_pubmed_xml(io.BytesIO(data))] == [2, 1, 2, 2]


def test_a_list_is_taken_once_and_only_by_its_own_parse() -> None:
    first, second = ListsRead(), ListsRead()
    references = [Reference("1", "", "", "", "A.")]
    element = etree.fromstring(first.placeholder(references))
    assert second.take(element) is None
    assert first.take(element) == references and first.take(element) is None
    assert first.take(etree.fromstring(b"<ReferenceList/>")) is None


@pytest.mark.parametrize("size", SIZES)
def test_a_list_with_attributes_holding_a_plain_one_stops_the_reading_and_reads_as_written(size: int) -> None:
    """PubMed writes no list with attributes; the plain list inside one is not read from its bytes (its references
    would go missing from the outer list's), nor anything after it, and a list a document marks as a placeholder
    is read as written."""
    for outer in ('<ReferenceList Type="x">', '<ReferenceList pubfetch-read="0:0">'):
        written = (outer + _written(PLAIN["PubMed's layout"]).decode() + _ref("Outer.") + "</ReferenceList>").encode()
        data = _with_list(written)
        lists_read = ListsRead()
        out = _cut(data, size, lists_read)
        assert out.count(b"pubfetch-read") == 1 + outer.count("pubfetch-read")
        assert out[out.index(outer.encode()):] == data[data.index(outer.encode()):]
        records = parse_pubmed_xml(io.BytesIO(data))
        assert records == as_written(data, True)
        assert [r.text for r in records[1].references] == [
            "Nat Neurosci. 1998;1(7):610-5", "J Neurosci. 1999;19:9557", "Outer."]


def test_a_list_holding_another_is_parsed_as_written_and_the_lists_after_it_read() -> None:
    nested = _written(_ref("Outer.") + _written(_ref("Inner.", ("pubmed", "9"))).decode())
    data = _with_list(nested)
    out = _cut(data, 100, ListsRead())
    assert nested in out and out.count(b"pubfetch-read") == 2
    records = parse_pubmed_xml(data)
    assert records == as_written(data, True)
    assert records[1].references == [Reference("", "", "", "", "Outer."), Reference("9", "", "", "", "Inner.")]


def test_every_reference_list_of_the_corpus_reads_from_its_bytes_as_from_its_tree(corpus_dir: Path) -> None:
    paths = sorted((corpus_dir / "files" / "pubmed_efetch").glob("*.xml"))
    lists = [written for path in paths
             for written in re.findall(rb"<ReferenceList>(?:(?!<ReferenceList).)*?</ReferenceList>", path.read_bytes(),
                                       re.S)]
    read = [read_reference_list(written) for written in lists]
    assert sum(len(r) for r in read if r) > 0
    assert all(r is None or r == _as_tree(written) for r, written in zip(read, lists, strict=True))
    for path in paths:
        data = path.read_bytes()
        assert parse_pubmed_xml(data) == as_written(data, True)
        assert parse_pubmed_xml(io.BytesIO(data)) == as_written(data, True)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("odd", [b"<!-- </ReferenceList> <History>x</History> -->",
                                 b"<?pi </ReferenceList> <History>x</History> ?>"])
def test_a_list_whose_first_end_tag_is_inside_markup_stops_the_cutting(odd: bytes, size: int) -> None:
    """Not read (markup), and not passed over to that end tag either: what follows it is the markup's text."""
    written = _written(_ref("A.", ("pubmed", "1")) + odd.decode() + _ref("B.", ("pubmed", "2")))
    data = _with_list(written)
    out = _cut(data, size, ListsRead())
    assert out.count(b"pubfetch-read") == 1 and out[out.index(odd):] == data[data.index(odd):]
    records = parse_pubmed_xml(io.BytesIO(data))
    assert records == as_written(data, True)
    assert [r.pmid for r in records[1].references] == ["1", "2"]
