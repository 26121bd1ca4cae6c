"""Tests for pubfetch.metadata.extractors.article: BaseArticleMetadataExtractor runs a file extractor on one role of
an article and completes its records with title-database defaults and a checked access URL (spec lockss.md section
4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.metadata import fields as mf
from pubfetch.metadata.archival_unit import ArchivalUnit
from pubfetch.metadata.article_files import ROLE_ARTICLE_METADATA, ROLE_FULL_TEXT_PDF, ArticleFiles
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMap
from pubfetch.metadata.au import AuConfig
from pubfetch.metadata.extractors import (
    BaseArticleMetadataExtractor,
    ExtractorFactory,
    FileMetadataExtractor,
    MetadataTarget,
)
from pubfetch.metadata.sources import CachedUrl, MemorySource, SourceError
from pubfetch.metadata.tdb import TdbAu, parse_tdb

FIXTURES = Path(__file__).parent / "data" / "archival_units"
TINY_PDF = (FIXTURES / "tiny_article.pdf").read_bytes()
ANY = MetadataTarget()


# --- BaseArticleMetadataExtractor (section 4) ----------------------------------------------------------------------


TDB = parse_tdb("""
{
  publisher < name = Tdb Publisher >
  provider = Tdb Provider
  plugin = org.example.Plugin
  implicit < status ; year ; volume ; attr[issue] ; name ; param[base_url] ; param[journal_id] >
  {
    title < name = Tdb Journal ; issn = 0740-2783 ; eissn = 1558-8432 >
    au < released ; 2017-2018 ; 16 ; 3-4 ; Tdb Journal Volume 16 ; http://x/ ; tj >
  }
  {
    title < name = Tdb Book Series ; issn = 1111-2222 >
    implicit < status ; name ; attr[isbn] ; attr[eisbn] ; param[base_url] ; param[book_id] >
    au < released ; Tdb Book 1 ; 978-1-58562-317-4 ; 978-1-58562-317-3 ; http://x/ ; b1 >
  }
}
{
  title < name = Orphan Journal >
  plugin = org.example.Plugin
  implicit < name ; param[base_url] >
  au < Orphan AU ; http://x/ >
}
""")


JOURNAL_AU, BOOK_AU, ORPHAN_AU = TDB.aus


class FixedExtractor(FileMetadataExtractor):
    """Emits copies of given records (or raises a given exception)."""

    kind = "fixed"

    def __init__(self, *records: dict[str, str], error: Exception | None = None) -> None:
        super().__init__(CookMap())
        self.records = records
        self.error = error

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        if self.error is not None:
            raise self.error
        out = []
        for values in self.records:
            am = ArticleMetadata()
            for key, value in values.items():
                am.put(mf.find_field(key), value)
            out.append(am)
        return out


def article(*records: dict[str, str], tdb_au: TdbAu | None = None, bulk: bool = False, error: Exception | None = None,
            in_au: tuple[str, ...] = (), role_cu: bool = True, content_type: str = "text/html",
            **options: bool) -> list[ArticleMetadata]:
    """Run the base extractor on an article whose full text (and ArticleMetadata role) is the CU "fullurl"."""
    source = MemorySource({"fullurl": (b"<html></html>", content_type)})
    for url in in_au:
        source.add(url, b"x", "text/html")
    full = source.get("fullurl")
    af = ArticleFiles(full)
    if role_cu:
        af.set_role_cu(ROLE_ARTICLE_METADATA, full)
    au = ArchivalUnit(source, AuConfig.parse({}), tdb_au=tdb_au, bulk_content=bulk)
    factory = ExtractorFactory({"text/html": FixedExtractor(*records, error=error)})
    extractor = BaseArticleMetadataExtractor(ROLE_ARTICLE_METADATA, factory=factory, **options)
    return extractor.extract(ANY, af, au)


def test_no_tdb_provider_from_publisher_and_access_url_from_the_full_text() -> None:
    (am,) = article({"publisher": "extracted pub"})
    assert am.get(mf.FIELD_PROVIDER) == "extracted pub"
    assert am.get(mf.FIELD_ACCESS_URL) == "fullurl"


def test_invalid_extracted_issn_is_replaced_by_the_tdb_one_but_valid_values_win() -> None:
    (am,) = article({"issn": "not_an_issn", "volume": "vol16", "eissn": "9999-9999"}, tdb_au=JOURNAL_AU)
    assert am.get(mf.FIELD_ISSN) == "0740-2783"
    assert am.get(mf.FIELD_VOLUME) == "vol16"
    assert am.get(mf.FIELD_EISSN) == "9999-9999"


def test_access_url_not_in_the_au_is_replaced_by_the_full_text_url() -> None:
    (am,) = article({"access.url": "wow"})
    assert am.get(mf.FIELD_ACCESS_URL) == "fullurl"
    (kept,) = article({"access.url": "https://x/landing"}, in_au=("https://x/landing",))
    assert kept.get(mf.FIELD_ACCESS_URL) == "https://x/landing"


def test_tdb_defaults_fill_every_bibliographic_field() -> None:
    (am,) = article({}, tdb_au=JOURNAL_AU)
    assert am.to_json()["cooked"] == {
        "access.url": "fullurl", "date": "2017", "eissn": "1558-8432", "issn": "0740-2783", "issue": "3",
        "proprietary_identifier": "tj", "provider": "Tdb Provider", "publication.title": "Tdb Journal",
        "publisher": "Tdb Publisher", "pubtype": "journal", "volume": "16",
    }
    (book,) = article({}, tdb_au=BOOK_AU)
    assert book.to_json()["cooked"] == {
        "access.url": "fullurl", "eisbn": "978-1-58562-317-3", "isbn": "978-1-58562-317-4", "issn": "1111-2222",
        "proprietary_identifier": "b1", "provider": "Tdb Provider", "publication.title": "Tdb Book 1",
        "publisher": "Tdb Publisher", "pubtype": "bookSeries", "series.title": "Tdb Book Series",
    }


def test_prefer_tdb_publisher_replaces_extracted_publisher_and_provider() -> None:
    values = {"publisher": "extracted pub", "provider": "extracted provider"}
    (plain,) = article(values, tdb_au=JOURNAL_AU)
    assert (plain.get(mf.FIELD_PUBLISHER), plain.get(mf.FIELD_PROVIDER)) == ("extracted pub", "extracted provider")
    (preferred,) = article(values, tdb_au=JOURNAL_AU, prefer_tdb_publisher=True)
    assert (preferred.get(mf.FIELD_PUBLISHER), preferred.get(mf.FIELD_PROVIDER)) == ("Tdb Publisher", "Tdb Provider")
    (unknown,) = article(values, tdb_au=ORPHAN_AU, prefer_tdb_publisher=True)
    assert unknown.get(mf.FIELD_PUBLISHER) == "extracted pub"
    (unknown_empty,) = article({}, tdb_au=ORPHAN_AU)
    assert unknown_empty.get(mf.FIELD_PUBLISHER) == "Publisher of [Orphan Journal]"


def test_bulk_content_takes_only_publisher_and_provider_from_the_tdb() -> None:
    (am,) = article({}, tdb_au=JOURNAL_AU, bulk=True)
    assert am.to_json()["cooked"] == {"access.url": "fullurl", "provider": "Tdb Provider",
                                      "publisher": "Tdb Publisher"}


def test_tdb_defaults_and_access_url_check_can_be_turned_off() -> None:
    (am,) = article({"access.url": "wow"}, tdb_au=JOURNAL_AU, add_tdb_defaults=False, check_access_url=False)
    assert am.to_json()["cooked"] == {"access.url": "wow"}


def test_missing_role_no_extractor_or_io_error_give_one_record_with_tdb_data_only(
        caplog: pytest.LogCaptureFixture) -> None:
    expected = {"access.url": "fullurl", "provider": "Tdb Provider", "publisher": "Tdb Publisher",
                "publication.title": "Tdb Journal"}
    for records in (article({"doi": "10.1234/56"}, tdb_au=JOURNAL_AU, role_cu=False),
                    article({"doi": "10.1234/56"}, tdb_au=JOURNAL_AU, content_type="image/png"),
                    article(tdb_au=JOURNAL_AU, error=SourceError("disk on fire"))):
        (am,) = records
        assert {k: am.get(k) for k in expected} == expected
        assert am.get(mf.FIELD_DOI) is None and am.raw_size() == 0
    assert "cannot extract metadata (disk on fire)" in caplog.text


def test_extractor_emitting_nothing_or_several_records() -> None:
    assert article() == []
    first, second = article({"doi": "10.1234/1"}, {"doi": "10.1234/2"})
    assert (first.get(mf.FIELD_DOI), second.get(mf.FIELD_DOI)) == ("10.1234/1", "10.1234/2")
    assert first.get(mf.FIELD_ACCESS_URL) == second.get(mf.FIELD_ACCESS_URL) == "fullurl"


def test_other_extractor_errors_propagate() -> None:
    with pytest.raises(RuntimeError, match="bug"):
        article(error=RuntimeError("bug"))


def test_default_role_is_the_full_text() -> None:
    source = MemorySource({"https://x/a.pdf": (TINY_PDF, "application/pdf")})
    af = ArticleFiles(source.get("https://x/a.pdf"))
    af.set_role_cu(ROLE_FULL_TEXT_PDF, source.get("https://x/a.pdf"))
    (am,) = BaseArticleMetadataExtractor().extract(None, af, ArchivalUnit(source))
    assert (am.get(mf.FIELD_DOI), am.get(mf.FIELD_ACCESS_URL)) == ("10.5555/joe.2020.17", "https://x/a.pdf")
    assert BaseArticleMetadataExtractor().extract(None, ArticleFiles(), ArchivalUnit(source)) == []
