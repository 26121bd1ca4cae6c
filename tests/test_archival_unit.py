"""Tests for pubfetch.metadata.archival_unit: an archival unit's content, id and archive members as the article
iterators and extractors see them."""

from __future__ import annotations

import io
import zipfile

import pytest

from pubfetch.metadata.archival_unit import ArchivalUnit
from pubfetch.metadata.au import AuConfig
from pubfetch.metadata.sources import (
    MemorySource,
)


def test_archival_unit_wraps_the_source() -> None:
    source = MemorySource({"https://x/a": ("<html></html>", "text/html")})
    au = ArchivalUnit(source, AuConfig.parse({"base_url": "https://x/"}, ["base_url"]), plugin_id="org.x.P")
    assert au.urls() == ["https://x/a"]
    assert au.has_content("https://x/a") and not au.has_content("https://x/b") and not au.has_content(None)
    assert au.make_cached_url("https://x/a").url == "https://x/a"
    assert au.au_id == "org|x|P&base_url~https%3A%2F%2Fx%2F"
    assert ArchivalUnit(source).au_id is None


def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def test_archive_members_resolve_as_urls_of_the_unit() -> None:
    source = MemorySource({"https://x/issue.zip": (zip_of({"a1.xml": b"<article/>", "a1.pdf": b"%PDF-1.4"}),
                                                   "application/zip"),
                           "https://x/page.html": ("<html></html>", "text/html")})
    au = ArchivalUnit(source)
    member = au.make_cached_url("https://x/issue.zip!/a1.pdf")
    assert member is not None and member.content() == b"%PDF-1.4" and member.mime_type == "application/pdf"
    assert au.has_content("https://x/issue.zip!/a1.xml")
    assert au.make_cached_url("https://x/issue.zip!/a2.xml") is None
    assert au.make_cached_url("https://x/page.html!/a1.xml") is None  # not an archive
    assert au.make_cached_url("https://x/other.zip!/a1.xml") is None  # no such archive
    assert au.urls() == ["https://x/issue.zip", "https://x/page.html"]  # members are not URLs of the source


def test_a_broken_archive_gives_no_member_and_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    au = ArchivalUnit(MemorySource({"https://x/broken.zip": (b"not a zip", "application/zip")}))
    assert au.make_cached_url("https://x/broken.zip!/a.xml") is None
    assert not au.has_content("https://x/broken.zip!/a.xml")
    assert "https://x/broken.zip!/a.xml: " in caplog.text and "not a readable zip archive" in caplog.text


def test_an_archive_is_opened_once_while_the_unit_resolves_its_members() -> None:
    reads: list[int] = []
    body = zip_of({"a.xml": b"<article/>", "b.xml": b"<article/>"})

    def load() -> bytes:
        reads.append(1)
        return body

    source = MemorySource()
    source.add("https://x/issue.zip", load, "application/zip")
    au = ArchivalUnit(source)
    assert all(au.has_content(f"https://x/issue.zip!/{name}.xml") for name in "ab")
    assert au.make_cached_url("https://x/issue.zip!/b.xml") is not None
    assert len(reads) == 1


def test_unit_facts_and_description() -> None:
    source = MemorySource(name="mirror")
    au = ArchivalUnit(source, plugin_id="org.x.P", default_mime_type="text/html", bulk_content=True, name="Vol 1")
    assert (au.default_mime_type, au.bulk_content, au.tdb_au, dict(au.extras)) == ("text/html", True, None, {})
    assert repr(au) == "ArchivalUnit('Vol 1', source='mirror')"
    assert au.au_id == "org|x|P&"  # LOCKSS: plugin key, "&", then the (here empty) definitional parameters
