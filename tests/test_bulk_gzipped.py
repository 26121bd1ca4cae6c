"""Bulk gzip files inflated by ISA-L (the ``fast`` extra) or by the standard library (pubfetch/bulk/gzipped.py): the
same records either way, and a damaged file said to be one (never a traceback) whichever library found the damage."""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

import pytest

from pubfetch.bulk import gzipped, jatsfiles
from pubfetch.bulk.medline import Citation, Damaged, read_medline
from support.pubmed_indented import as_written, indented_set

HAS_ISAL = importlib.util.find_spec("isal") is not None


@pytest.fixture(params=["isal.igzip", "gzip"])
def inflater(request, monkeypatch):
    """Each library in turn as the bulk readers' (ISA-L only where installed)."""
    if request.param == "isal.igzip":
        if not HAS_ISAL:
            pytest.skip("python-isal is not installed (the fast extra): the standard library's gzip is tested alone")
        from isal import igzip

        monkeypatch.setattr(gzipped, "_gzip", igzip)
    else:
        monkeypatch.setattr(gzipped, "_gzip", gzip)
    return request.param


def _damaged_stream(data: bytes) -> bytes:
    """A gzip file whose first deflate block has an invalid block type: the inflater's own error, not a checksum's."""
    packed = bytearray(gzip.compress(data))
    packed[10] = 0xFF  # the byte after the ten-byte header starts the first block: BFINAL 1, BTYPE 11 (reserved)
    return bytes(packed)


def test_the_records_are_those_of_the_file_as_written(inflater, tmp_path: Path) -> None:
    data = indented_set(records=40)
    path = tmp_path / "pubmed26n0001.xml.gz"
    path.write_bytes(gzip.compress(data))
    read = [item.record for item in read_medline(str(path), path.name) if isinstance(item, Citation)]
    assert read == as_written(data, True) and len(read) == 40


@pytest.mark.parametrize("damage", ["broken stream", "cut short", "wrong checksum"])
def test_a_damaged_medline_file_is_said_to_be_one(inflater, tmp_path: Path, damage: str) -> None:
    data = indented_set(records=40)
    packed = gzip.compress(data)
    written = {"broken stream": _damaged_stream(data), "cut short": packed[: len(packed) // 2],
               "wrong checksum": packed[:-8] + bytes(8)}[damage]
    path = tmp_path / "pubmed26n0002.xml.gz"
    path.write_bytes(written)
    with pytest.raises(Damaged, match="damaged gzip data"):
        list(read_medline(str(path), path.name))


def test_a_damaged_gzip_of_articles_is_said_to_be_one(inflater, tmp_path: Path) -> None:
    """Europe PMC's open-access bulk files are gzipped files of ``<article>`` elements."""
    path = tmp_path / "PMC_articles.xml.gz"
    path.write_bytes(_damaged_stream(b"<articles>" + b"<article><front/></article>" * 2000 + b"</articles>"))
    with pytest.raises(Damaged, match="after article 0"):
        list(jatsfiles.read_jats_file(str(path), path.name))
