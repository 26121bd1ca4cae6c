"""pdfminer.six's document with its cross-reference tables read on demand (:mod:`pubfetch.extract.pdf_xref`): the
same positions, trailers, catalog and info as pdfminer.six's own reading, and pdfminer.six's reading where a table is
not of fixed width."""

from __future__ import annotations

import re

from pubfetch.extract.pdf import extract_with_pdfium
from support.pdfs import INFO, XMP, assert_same_document, incremental_update, make_pdf


def test_tables_read_on_demand_as_pdfminer_reads_them() -> None:
    data = incremental_update(make_pdf(["One", "Two"], info=INFO, xmp=XMP), b"<< /Title (New) >>")
    ours = assert_same_document(data)
    assert len(ours.xrefs) == 2
    assert all(xref._subsections for xref in ours.xrefs)  # type: ignore[attr-defined]  # read on demand


def test_table_with_short_entries_is_read_by_pdfminer() -> None:
    """Entries of 19 bytes (a bare newline) break the fixed width: pdfminer.six's own reading of the table."""
    data = make_pdf(["One"], info=INFO)
    start = data.rindex(b"\nxref\n") + 1
    short = data[:start] + data[start:].replace(b" \n", b"\n")
    fixed = int(re.findall(rb"startxref\n(\d+)", short)[-1])
    assert fixed == start
    ours = assert_same_document(short)
    assert ours.xrefs[0]._subsections is None  # type: ignore[attr-defined]
    result = extract_with_pdfium(short)
    assert result is not None and result.title == "Ünïcode title – UTF-16"
