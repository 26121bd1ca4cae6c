"""A bulk import's task message (pubfetch/distributed/bulktask.py): a worker takes a base name under its own
``--import-dir`` or an HTTPS URL, and refuses a message naming anything else whoever sends it."""

from __future__ import annotations

import pytest

from pubfetch.distributed.bulktask import _message


@pytest.mark.parametrize("message", [
    {"kind": "medline", "name": "/etc/passwd", "rank": 1},
    {"kind": "medline", "name": "../pubmed26n0001.xml.gz", "rank": 1},
    {"kind": "medline", "name": "sub/pubmed26n0001.xml.gz", "rank": 1},
    {"kind": "medline", "name": "..", "rank": 1},
    {"kind": "medline", "url": "file:///etc/passwd", "rank": 1},
    {"kind": "medline", "url": "http://example.org/pubmed26n0001.xml.gz", "rank": 1},
    {"kind": "other", "name": "pubmed26n0001.xml.gz", "rank": 1},
    {"kind": "medline", "name": "pubmed26n0001.xml.gz", "rank": "1"},
    {"kind": "medline", "name": "pubmed26n0001.xml.gz", "rank": 1, "path": "/tmp"},
])
def test_a_task_naming_anything_but_a_base_name_or_an_https_url_is_refused(message: dict) -> None:
    with pytest.raises(ValueError):
        _message((message,))


def test_a_task_naming_a_file_or_an_https_url_is_taken() -> None:
    assert _message(({"kind": "medline", "name": "pubmed26n0001.xml.gz", "rank": 7},)) == \
        ("medline", "", "pubmed26n0001.xml.gz", 7)
    url = "https://ftp.ncbi.nlm.nih.gov/pubmed/updatefiles/pubmed26n1300.xml.gz"
    assert _message(({"kind": "medline", "url": url, "rank": 9},)) == ("medline", url, "", 9)
