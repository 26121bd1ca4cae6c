"""Tests for pubfetch.metadata.archives: zip and tar members of an archival unit addressed as ``<archive>!/<member>``,
listed in archive order, typed by name and first bytes, and refused with a SourceError when unreadable."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from pubfetch.metadata.archives import (
    MAX_MEMBER_BYTES,
    ArchiveMemberSpec,
    OpenArchive,
    archive_kind,
    archive_members,
    member_cu,
)
from pubfetch.metadata.sources import CachedUrl, SourceError

JATS = b"<?xml version='1.0'?><article><front/></article>"
PDF = b"%PDF-1.4 tiny"


def zip_of(members: dict[str, bytes], directories: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in directories:
            archive.writestr(zipfile.ZipInfo(name), b"")  # a name ending in "/" is a directory entry
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def tar_gz_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        folder = tarfile.TarInfo("batch")
        folder.type = tarfile.DIRTYPE
        archive.addfile(folder)
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def cached(url: str, body: bytes, content_type: str | None = None, *, status: int | None = 200,
           fetch_time: int | None = 1_700_000_000_000) -> CachedUrl:
    return CachedUrl(url, content_type, lambda: body, status=status, fetch_time=fetch_time, source_name="crawl.warc")


def test_member_spec_splits_at_the_first_separator_and_joins_back() -> None:
    spec = ArchiveMemberSpec.from_url("https://x/a.zip!/dir/b.xml")
    assert spec == ArchiveMemberSpec("https://x/a.zip", "dir/b.xml") and spec.url == "https://x/a.zip!/dir/b.xml"
    assert ArchiveMemberSpec.from_url("https://x/a.zip!/inner.zip!/c.xml") == ArchiveMemberSpec(
        "https://x/a.zip", "inner.zip!/c.xml")
    for not_a_member in ("https://x/a.zip", "https://x/a.zip!/", "!/b.xml"):
        assert ArchiveMemberSpec.from_url(not_a_member) is None, not_a_member


@pytest.mark.parametrize(("url", "content_type", "kind"), [
    ("https://x/issue.zip", None, "zip"), ("https://x/ISSUE.ZIP?download=1", None, "zip"),
    ("https://x/get?id=7", "application/zip", "zip"), ("https://x/get", "application/x-zip-compressed", "zip"),
    ("https://x/batch.tar.gz", None, "tar"), ("https://x/batch.tgz", "application/octet-stream", "tar"),
    ("https://x/batch.tar.xz", None, "tar"), ("https://x/get", "application/x-tar", "tar"),
    ("https://x/a.xml", "application/xml", None), ("https://x/a.gz", "application/gzip", None),
    ("https://x/zip.html#a.zip", "text/html", None)])
def test_archive_kind_by_name_else_media_type(url: str, content_type: str | None, kind: str | None) -> None:
    assert archive_kind(cached(url, b"", content_type)) == kind


def test_zip_members_are_listed_in_archive_order_without_directories() -> None:
    archive = cached("https://x/2024/issue1.zip", zip_of({"batch/a2.xml": JATS, "batch/a1.pdf": PDF}, ("batch/",)),
                     "application/zip", status=203, fetch_time=42)
    members = archive_members(archive)
    assert [m.url for m in members] == [
        "https://x/2024/issue1.zip!/batch/a2.xml", "https://x/2024/issue1.zip!/batch/a1.pdf"]
    assert [m.mime_type for m in members] == ["application/xml", "application/pdf"]
    assert {(m.status, m.fetch_time, m.source_name) for m in members} == {(203, 42, "crawl.warc")}
    assert members[1].content() == PDF


def test_tar_members_are_read_on_demand() -> None:
    archive = cached("https://x/batch.tar.gz", tar_gz_of({"batch/b1.xml": JATS}))
    (member,) = archive_members(archive)
    assert member.url == "https://x/batch.tar.gz!/batch/b1.xml" and member.content() == JATS


def test_member_cu_types_an_unnamed_member_by_its_first_bytes() -> None:
    archive = cached("https://x/issue.zip", zip_of({"article": PDF, "meta.xml": JATS}))
    found = member_cu(archive, "article")
    assert found is not None and found.mime_type == "application/pdf" and found.content() == PDF
    assert member_cu(archive, "missing.xml") is None
    assert member_cu(cached("https://x/a.xml", JATS, "application/xml"), "meta.xml") is None


def test_a_url_that_is_no_archive_has_no_members() -> None:
    assert archive_members(cached("https://x/a.xml", JATS, "application/xml")) == []
    with pytest.raises(SourceError, match="https://x/a.xml is not a zip or tar archive"):
        OpenArchive(cached("https://x/a.xml", JATS, "application/xml"))


def test_an_archive_that_does_not_open_is_a_source_error() -> None:
    with pytest.raises(SourceError, match="https://x/broken.zip is not a readable zip archive"):
        archive_members(cached("https://x/broken.zip", b"not a zip"))
    with pytest.raises(SourceError, match="https://x/broken.tgz is not a readable tar archive"):
        archive_members(cached("https://x/broken.tgz", b"\x1f\x8b not really gzip"))


def test_an_open_archive_reads_its_bytes_once_for_every_member() -> None:
    reads: list[int] = []
    body = zip_of({"a.xml": JATS, "a.pdf": PDF})

    def load() -> bytes:
        reads.append(1)
        return body

    opened = OpenArchive(CachedUrl("https://x/i.zip", "application/zip", load))
    assert opened.kind == "zip" and opened.sizes == {"a.xml": len(JATS), "a.pdf": len(PDF)}
    assert [m.content() for m in opened.members()] == [JATS, PDF]
    assert opened.member("a.pdf").content() == PDF and opened.read("a.xml") == JATS
    assert len(reads) == 1
    with pytest.raises(SourceError, match="cannot read none.xml from https://x/i.zip"):
        opened.read("none.xml")


def test_a_member_declaring_more_than_the_bound_is_resolved_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    opened = OpenArchive(cached("https://x/i.zip", zip_of({"big.pdf": PDF})))
    opened.sizes["big.pdf"] = MAX_MEMBER_BYTES + 1  # as a hostile archive's directory would declare it
    big = opened.member("big.pdf")
    assert big is not None and big.url == "https://x/i.zip!/big.pdf"
    assert "big.pdf in https://x/i.zip declares" in caplog.text and "it will not be read" in caplog.text
