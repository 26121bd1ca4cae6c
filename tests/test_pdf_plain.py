"""Where a PDF's metadata is read from: the info dictionary by PDFium unless only pdfminer.six reads it as meant; the
XMP packet without a parser in a plainly written file (:mod:`pubfetch.extract.pdf_plain`), else by pdfminer.six from a
document whose cross-reference tables are read on demand (:mod:`pubfetch.extract.pdf_xref`). Every path must give
what pdfminer.six's own reading gives."""

from __future__ import annotations

import zlib
from io import BytesIO
from pathlib import Path

import pytest
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdfparser import PDFParser

from pubfetch.extract import pdf
from pubfetch.extract.pdf import PdfContent, extract_with_pdfium
from pubfetch.extract.pdf_plain import plain_metadata
from pubfetch.extract.pdf_xref import PdfDocument
from support.pdfs import INFO, PAGE_TREE, XMP, assert_same_document, incremental_update, make_pdf, pdf_of, stream

Metadata = tuple[str, list[str], str, str, list[str], str, list[str]]


def _fields(result: PdfContent) -> Metadata:
    return (result.title, result.keywords, result.subject, result.xmp_title, result.xmp_subjects,
            result.xmp_description, result.dois)


def pdfminer_metadata(data: bytes) -> Metadata:
    """The metadata as pdfminer.six reads it, its own document class and all (the reference)."""
    doc = PDFDocument(PDFParser(BytesIO(data)), password="")
    result = PdfContent()
    pdf._read_info(result, doc.info)
    pdf._read_xmp(result, doc)  # type: ignore[arg-type]  # pdfminer.six's class, duck-typed
    return _fields(result)


def info_by_pdfium(data: bytes) -> bool:
    doc = pdf._open_pdfminer(data)
    assert isinstance(doc, PdfDocument)
    return not pdf._info_for_pdfminer(data, doc)


def without_pdfminer_info(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make pdfminer.six's reading of the info dictionary fail, so that what is still read came from PDFium."""
    def refuse(result: PdfContent, infos: list[object]) -> None:
        raise AssertionError("the info dictionary was to be read by PDFium")
    monkeypatch.setattr(pdf, "_read_info", refuse)


# ---------------------------------------------------------------------------------------------------------------------
# The info dictionary
# ---------------------------------------------------------------------------------------------------------------------


def test_info_without_xmp_is_read_by_pdfium(monkeypatch: pytest.MonkeyPatch) -> None:
    data = make_pdf(["A page"], info={**INFO, "Subject": b"Nature Communications, doi:10.1038/s41467-023-44678-x"})
    expected = pdfminer_metadata(data)
    assert expected[0] == "Ünïcode title – UTF-16" and expected[6] == ["10.1038/S41467-023-44678-X"]
    assert info_by_pdfium(data)
    without_pdfminer_info(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None and result.error_kind is None
    assert _fields(result) == expected


def test_info_pdfdocencoding_and_markup_as_pdfminer_decodes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    data = make_pdf(["A page"], info=INFO)
    expected = pdfminer_metadata(data)
    assert expected[2] == "An abstract & more — PDFDocEncoding"
    without_pdfminer_info(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None and _fields(result) == expected


def test_info_with_xmp_both_read(monkeypatch: pytest.MonkeyPatch) -> None:
    data = make_pdf(["A page"], info=INFO, xmp=XMP)
    expected = pdfminer_metadata(data)
    assert expected[3] == "An XMP title with markup" and expected[0] == "Ünïcode title – UTF-16"
    without_pdfminer_info(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None and _fields(result) == expected


def test_xmp_without_info() -> None:
    data = make_pdf(["A page"], xmp=XMP)
    result = extract_with_pdfium(data)
    assert result is not None
    assert _fields(result) == pdfminer_metadata(data)
    assert result.xmp_subjects == ["Genomics", "Proteomics"] and result.title == ""


def test_info_naming_a_doi_is_read_by_pdfminer() -> None:
    """PDFium reads entries by name; an entry whose name says DOI is found only by pdfminer.six's reading."""
    data = make_pdf(["A page"], info={"Title": b"A title", "WPS-ARTICLEDOI": b"10.7717/peerj.1120"})
    assert not info_by_pdfium(data)
    result = extract_with_pdfium(data)
    assert result is not None
    assert _fields(result) == pdfminer_metadata(data)
    assert result.dois == ["10.7717/PEERJ.1120"] and result.title == "A title"


def test_incremental_update_gives_the_newest_info(monkeypatch: pytest.MonkeyPatch) -> None:
    data = incremental_update(make_pdf(["A page"], info=INFO), b"<< /Title (The updated title) /Keywords (x; y) >>")
    expected = pdfminer_metadata(data)
    assert expected[:3] == ("The updated title", ["x", "y"], "")
    assert info_by_pdfium(data)
    without_pdfminer_info(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None and _fields(result) == expected


def test_encrypted_file_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    data = make_pdf(["Secret"], info=INFO, xmp=XMP, user_password=b"")
    expected = pdfminer_metadata(data)
    without_pdfminer_info(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None and _fields(result) == expected
    assert result.title == "Ünïcode title – UTF-16" and result.xmp_title == "An XMP title with markup"


# ---------------------------------------------------------------------------------------------------------------------
# The corpus's PDFs: one without XMP (PeerJ), two with (PLOS ONE, Nature Communications)
# ---------------------------------------------------------------------------------------------------------------------

CORPUS_PDFS = ("journal.pone.0107412.pdf", "peerj.1120.pdf", "s41467-023-44678-x.pdf")


@pytest.fixture(scope="module")
def corpus_pdfs(corpus_dir: Path) -> dict[str, bytes]:
    folder = corpus_dir / "files" / "pdf"
    if not folder.is_dir():
        pytest.skip(f"corpus PDFs not found at {folder}")
    return {name: (folder / name).read_bytes() for name in CORPUS_PDFS}


@pytest.mark.parametrize("name", CORPUS_PDFS)
def test_corpus_metadata_as_pdfminer_reads_it(corpus_pdfs: dict[str, bytes], name: str) -> None:
    data = corpus_pdfs[name]
    assert_same_document(data)
    result = extract_with_pdfium(data)
    assert result is not None and result.error_kind is None
    assert _fields(result) == pdfminer_metadata(data)


def test_corpus_peerj_has_no_xmp_and_its_info_is_pdfiums(corpus_pdfs: dict[str, bytes],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    data = corpus_pdfs["peerj.1120.pdf"]
    doc = pdf._open_pdfminer(data)
    assert isinstance(doc, PdfDocument) and "Metadata" not in doc.catalog
    assert info_by_pdfium(data)
    without_pdfminer_info(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None
    assert (result.title, result.subject, result.dois) == (
        "Suffering and mental health among older people living in nursing homes---a mixed-methods study",
        "doi:10.7717/peerj.1120", ["10.7717/PEERJ.1120"])


def test_corpus_xmp_is_read_beside_pdfiums_info(corpus_pdfs: dict[str, bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    data = corpus_pdfs["s41467-023-44678-x.pdf"]
    assert info_by_pdfium(data)
    without_pdfminer_info(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None
    assert result.xmp_description == result.subject == "Nature Communications, doi:10.1038/s41467-023-44678-x"
    assert result.dois == ["10.1038/S41467-023-44678-X"]


# ---------------------------------------------------------------------------------------------------------------------
# Plainly written files: the XMP packet found without pdfminer.six
# ---------------------------------------------------------------------------------------------------------------------


def without_pdfminer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make opening a document with pdfminer.six fail, so that what is still read came without it."""
    def refuse(data: bytes) -> PdfContent:
        raise AssertionError("the file was to be read without pdfminer.six")
    monkeypatch.setattr(pdf, "_open_pdfminer", refuse)


def xmp_file(stream_object: bytes, extra: list[bytes] | None = None) -> bytes:
    """A one-page file whose catalog names object 5 as its Metadata stream (``stream_object``)."""
    return pdf_of([b"<< /Type /Catalog /Pages 2 0 R /Metadata 5 0 R >>", PAGE_TREE[1],
                   b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                   b"/Resources << /Font << /F1 6 0 R >> >> >>",
                   stream(b"BT /F1 12 Tf 72 720 Td (Page text) Tj ET"), stream_object,
                   b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", *(extra or [])])


@pytest.mark.parametrize("info", [None, INFO])
def test_plain_file_read_without_pdfminer(monkeypatch: pytest.MonkeyPatch, info: dict[str, bytes] | None) -> None:
    data = incremental_update(make_pdf(["A page"], info=info, xmp=XMP), b"<< /Title (Updated) >>")
    expected = pdfminer_metadata(data)
    plain = plain_metadata(data)
    assert plain is not None and plain.xmp.startswith(b"<?xpacket begin=") and plain.info is not None
    without_pdfminer(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None and _fields(result) == expected
    assert (result.title, result.xmp_title) == ("Updated", "An XMP title with markup")


def test_plain_stream_of_indirect_length(monkeypatch: pytest.MonkeyPatch) -> None:
    data = xmp_file(b"<< /Type /Metadata /Subtype /XML /Length 7 0 R >>\nstream\n" + XMP + b"\nendstream",
                    [b"%d" % len(XMP)])
    expected = pdfminer_metadata(data)
    assert expected[3] == "An XMP title with markup"
    without_pdfminer(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None and result.text == "Page text" and _fields(result) == expected


@pytest.mark.parametrize("case", ["compressed", "encrypted", "cross-reference stream", "two Metadata names"])
def test_files_that_are_not_plain_are_read_by_pdfminer(case: str) -> None:
    if case == "compressed":
        data = xmp_file(stream(zlib.compress(XMP), b"/Type /Metadata /Subtype /XML /Filter /FlateDecode "))
    elif case == "encrypted":
        data = make_pdf(["A page"], info=INFO, xmp=XMP, user_password=b"")
    elif case == "cross-reference stream":
        data = make_pdf(["A page"], xmp=XMP).replace(b"\nxref\n", b"\nxre_\n")  # no classic table where it points
    else:
        data = xmp_file(stream(XMP, b"/Type /Metadata /Subtype /XML ")).replace(
            b"/Metadata 5 0 R", b"/Metadata 5 0 R /Extra << /Metadata 5 0 R >>")
    assert plain_metadata(data) is None
    result = extract_with_pdfium(data)
    assert result is not None
    if case != "cross-reference stream":  # pdfminer.six rebuilds that file's objects by scanning it
        assert _fields(result) == pdfminer_metadata(data)
        assert result.xmp_title == "An XMP title with markup"


@pytest.mark.parametrize("name", CORPUS_PDFS)
def test_corpus_pdfs_are_plain(corpus_pdfs: dict[str, bytes], name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = corpus_pdfs[name]
    expected = pdfminer_metadata(data)
    plain = plain_metadata(data)
    assert plain is not None and bool(plain.xmp) == (name != "peerj.1120.pdf")
    without_pdfminer(monkeypatch)
    result = extract_with_pdfium(data)
    assert result is not None and _fields(result) == expected
