"""An indented efetch answer (a MEDLINE file's layout) parsed without its indentation, libxml2 given PubMed's
declarations: the same records as the document parsed as written, with every blank of a text kept."""

from __future__ import annotations

import json

import pytest
from lxml import etree

from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_dtd import ELEMENT_CONTENT, MIN_DECLARED, DeclaredStream, declared
from pubfetch.extract.xmlsafe import parse_xml
from pubfetch.model.rich import RichName
from support.pubmed_indented import PROLOG, RICH_CHOICES, as_written, indented_set


@pytest.mark.parametrize("rich_parts", RICH_CHOICES)
def test_an_indented_set_reads_as_written(rich_parts):
    data = indented_set()
    assert len(data) >= MIN_DECLARED and declared(data) is not None
    records = parse_pubmed_xml(data, rich_parts=rich_parts)
    assert len(records) == 60
    assert records == as_written(data, rich_parts)
    first = records[0]
    assert first.title == "Mus musculus and R2 x in record 1000"  # the blanks between inline elements kept
    assert first.abstract.startswith("RESULTS: Fit ( R 2 = 0.5) in vivo.")
    assert first.keywords == ["Mus musculus"]
    assert first.authors[0].affiliations == ["1 Institute, Town. jane@example.org"]
    if rich_parts is True or (rich_parts and RichName.references in rich_parts):  # type: ignore[operator]
        assert [(r.pmid, r.doi, r.text) for r in first.references] == [
            ("111111000", "10.1000/CITED.1000", "Doe J. Cells & tissues. Nature. 2001;1:2."),
            ("", "", "Roe R. Water2 in cells. Science. 2002.")]
    else:
        assert first.references == []


def test_the_declarations_drop_only_the_blanks_of_element_content():
    root = parse_xml(declared(indented_set()), remove_blank_text=True)
    article = root[0]
    assert article.text is None and root.text is None  # indentation of containers gone
    for element in root.iter():
        if element.tag in ELEMENT_CONTENT:
            assert all(not (child.tail or "").strip() for child in element)
            assert not (element.text or "").strip()
    title = root.find(".//ArticleTitle")
    assert title[0].tail == " "  # between <i>Mus</i> and <i>musculus</i>
    math = root.find(".//{http://www.w3.org/1998/Math/MathML}math")
    assert math.text == " "


def test_small_compact_or_foreign_documents_are_parsed_as_written():
    small = indented_set(records=2)
    assert len(small) < MIN_DECLARED and declared(small) is None
    compact = PROLOG + b"<PubmedArticleSet>" + b"".join(
        etree.tostring(a) for a in parse_xml(indented_set(), remove_blank_text=True)) + b"</PubmedArticleSet>"
    assert declared(compact + b" " * MIN_DECLARED) is None  # not indented: no blank to drop, the subset costs
    own_subset = indented_set().replace(b'pubmed_250101.dtd">', b'pubmed_250101.dtd" [<!ENTITY x "y">]>', 1)
    assert declared(own_subset) is None
    utf16 = indented_set().decode().encode("utf-16")
    assert declared(utf16) is None
    commented = indented_set(extra="<!-- a comment -->\n")
    assert parse_pubmed_xml(commented) == as_written(commented, True)


def test_a_document_without_a_type_declaration_gets_one():
    data = indented_set().replace(PROLOG, b'<?xml version="1.0"?>\n')
    assert declared(data).startswith(b'<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet [<!ELEMENT ')
    assert parse_pubmed_xml(data) == as_written(data, True)


def test_the_corpus_answers_read_the_same_indented(corpus_dir):
    """Real records (the corpus's efetch answers, written compact), indented into one set past the threshold."""
    articles = []
    with open(corpus_dir / "manifest.jsonl", encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if entry["resource"] == "pubmed_efetch":
                articles += list(parse_xml((corpus_dir / entry["body"]).read_bytes()))
    assert len(articles) >= 5
    root = etree.Element("PubmedArticleSet")
    while len(etree.tostring(root)) < 2 * MIN_DECLARED:
        root.extend(etree.fromstring(etree.tostring(a)) for a in articles)
    etree.indent(root)
    data = PROLOG + etree.tostring(root, encoding="utf-8")
    assert declared(data) is not None
    for rich_parts in RICH_CHOICES:
        records = parse_pubmed_xml(data, rich_parts=rich_parts)
        assert records == as_written(data, rich_parts)
        assert len(records) == len(root)


@pytest.mark.parametrize("size", [1, 7, 4096, MIN_DECLARED, -1])
def test_a_stream_reads_as_the_declared_document(size):
    """A file read through :class:`DeclaredStream` in reads of any size gives the declared document's bytes; a short
    or unindented one its own bytes."""
    import io

    def read_all(stream):
        out = b""
        while chunk := stream.read(size):
            out += chunk
            if size < 0:
                break
        return out

    data = indented_set()
    stream = DeclaredStream(io.BytesIO(data))
    assert stream.declared and read_all(stream) == declared(data)
    small = indented_set(records=2)
    stream = DeclaredStream(io.BytesIO(small))
    assert not stream.declared and read_all(stream) == small
