"""Tests for pubfetch.metadata.tdb.model: the accessors of a title database's AUs (LOCKSS TdbAu), their equality,
duplicates within and across databases, and AU configurations and ids (spec lockss.md section 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.metadata.tdb import Tdb, TdbAu, TdbError, load_tdb, load_tdb_files, parse_tdb
from support.tdb import SAMPLE, one_au

# --- accessors -------------------------------------------------------------------------------------------------------


def test_publication_type_explicit() -> None:
    au = one_au("attr[isbn] = 978-1-58562-317-4\n type = proceedings")
    assert au.publication_type == "proceedings"


def test_publication_type_from_title_type() -> None:
    tdb = parse_tdb("""{ publisher < name = P > plugin = a.P
implicit < name >
{ title < name = T ; type = book >
au < A > } }""")
    assert tdb.aus[0].publication_type == "book"


def test_publication_type_isbn_and_issn_is_book_series() -> None:
    au = load_tdb(SAMPLE).aus[4]
    assert au.publication_type == "bookSeries"
    assert au.series_title == "Book House Series in Testing"
    assert au.publication_title == "Testing Volume 1"  # books and series: the AU name
    assert au.proprietary_id == "bt-1"


def test_publication_type_isbn_only_is_book() -> None:
    au = load_tdb(SAMPLE).aus[5]
    assert au.publication_type == "book" and au.series_title is None
    assert au.publication_title == "A Book Alone"
    assert au.print_isbn == "0-85883-554-4" and au.isbn == "0-85883-554-4" and au.eisbn == ""


def test_publication_type_default_journal() -> None:
    au = load_tdb(SAMPLE).aus[0]
    assert au.publication_type == "journal"
    assert au.publication_title == "Journal of Examples" and au.series_title is None


def test_issn_accessors() -> None:
    au = load_tdb(SAMPLE).aus[0]
    assert (au.print_issn, au.eissn, au.issnl, au.issn) == ("1234-5678", "2345-678X", None, "1234-5678")
    assert load_tdb(SAMPLE).aus[3].issn == "2515-8872"  # e-ISSN only


def test_year_attr_else_param() -> None:
    assert one_au("year = 1999\n param[year] = 2000").year == "1999"
    assert one_au("param[year] = 2000").year == "2000"
    assert one_au("attr[year] = 1998\n year = 1999").year == "1998"
    assert one_au("").year is None


def test_start_year_first_of_range() -> None:
    assert one_au("year = 2003-2004").start_year == "2003"
    assert load_tdb(SAMPLE).aus[1].start_year == "2017"


def test_volume_attr_else_volume_name_str_volume() -> None:
    assert one_au("volume = 7\n param[volume_name] = 8").volume == "7"
    assert one_au("param[volume_name] = 8\n param[volume_str] = 9\n param[volume] = 10").volume == "8"
    assert one_au("param[volume_str] = 9\n param[volume] = 10").volume == "9"
    assert one_au("param[volume] = 10").volume == "10"
    assert one_au("param[volume] = 85-87").start_volume == "85"


def test_issue_attr_else_issue_params_in_order() -> None:
    assert one_au("attr[issue] = 3\n param[issue] = 4").issue == "3"
    assert one_au("param[issue] = 4\n param[num_issue_range] = 5-6").issue == "4"
    assert one_au("param[num_issue_range] = 5-6\n param[issue_set] = 7").issue == "5-6"
    assert one_au("param[issue_set] = 7, 8\n param[issue_no] = 9").issue == "7, 8"
    assert one_au("param[issue_no] = 9\n param[issues] = 10").issue == "9"
    assert one_au("param[issues] = 10\n param[issue_no.] = 11").issue == "10"
    assert one_au("param[issue_no.] = 11\n param[issue_dir] = 12").issue == "11"
    assert one_au("param[issue_dir] = 12").issue == "12"
    assert one_au("param[num_issue_range] = 5-6").start_issue == "5"
    assert one_au("param[issue_set] = 7, 8").start_issue == "7"


def test_proprietary_ids_journal_id_code_abbr() -> None:
    assert one_au("param[journal_id] = jid\n param[journal_code] = jc").proprietary_id == "jid"
    assert one_au("param[journal_code] = jc\n param[journal_abbr] = ja").proprietary_id == "jc"
    assert one_au("param[journal_abbr] = ja").proprietary_id == "ja"
    assert one_au("attr[journal_abbr] = attr-first\n param[journal_id] = jid").proprietary_id == "attr-first"
    assert one_au("").proprietary_id is None
    assert one_au("param[journal_id] = jid").proprietary_series_id is None


def test_unknown_publisher_is_publisher_of_title() -> None:
    tdb = parse_tdb("""
{
  plugin = a.P
  implicit < name >
  { title < name = Orphan Journal >
    au < A > }
}""")
    au = tdb.aus[0]
    assert au.publisher_name == "Publisher of [Orphan Journal]" and au.is_unknown_publisher
    assert au.provider_name == "Publisher of [Orphan Journal]"
    assert tdb.publishers == []


def test_provider_defaults_to_publisher() -> None:
    au = one_au("")
    assert au.provider_name == "P" and not au.is_unknown_publisher


def test_down_statuses() -> None:
    aus = load_tdb(SAMPLE).aus
    assert [au.is_down for au in aus[:3]] == [False, True, False]
    assert one_au("param[pub_down] = true").is_down



def test_au_start_and_end_values_and_includes() -> None:
    au = one_au("year = MCMLXXI-1977\n    param[volume] = 85-87\n    param[num_issue_range] = 1-12")
    assert (au.start_year, au.end_year) == ("MCMLXXI", "1977")
    assert (au.start_volume, au.end_volume) == ("85", "87")
    assert (au.start_issue, au.end_issue) == ("1", "12")
    assert au.includes_year("1972") and not au.includes_year("1978")
    assert au.includes_volume("86") and not au.includes_volume("88")
    assert au.includes_issue("12") and not au.includes_issue("13")
    plain = one_au("")
    assert (plain.end_year, plain.end_volume, plain.end_issue) == (None, None, None)
    assert not plain.includes_year("2000")


def test_coverage_depth_and_is_serial() -> None:
    """LOCKSS' TdbAu.getCoverageDepth (attribute au_coverage_depth, default fulltext) and isSerial."""
    assert one_au("").coverage_depth == "fulltext"
    assert one_au("attr[au_coverage_depth] = abstracts").coverage_depth == "abstracts"
    assert one_au("").is_serial
    assert one_au("type = bookSeries").is_serial
    assert not one_au("type = book").is_serial
    assert not one_au("type = proceedings").is_serial


DUPLICATES = """
{
  publisher < name = P >
  plugin = org.example.Plugin
  implicit < name ; param[base_url] ; param[year] >
  {
    title < name = T >
    au < First ; http://x/ ; 2001 >
  }
  {
    title < name = T >
    %s
    au < %s ; http://x/ ; %s >
  }
}
"""


def pair(settings: str, name: str, year: str) -> list[TdbAu]:
    return parse_tdb(DUPLICATES % (settings, name, year)).aus


def test_au_value_equality_includes_the_name() -> None:
    """LOCKSS TdbAu.equals: "Equality is based on equality of their Ids, plus name, attributes and properties" --
    ``tdbAuId.equals(other.getId()) && getName().equals(other.getName()) && getAttrs().equals(...) &&
    getProperties().equals(...)``."""
    assert one_au("") == one_au("", au="au < An AU ; http://x/ >")
    assert one_au("") != one_au("", au="au < Other name ; http://x/ >")
    assert hash(one_au("")) == hash(one_au("", au="au < Other name ; http://x/ >"))
    assert one_au("") != one_au("", au="au < An AU ; http://y/ >")
    assert one_au("") != one_au("attr[volume] = 3")
    assert one_au("") != one_au("status = down")
    first, second = pair("", "Second", "2002")
    assert first != second and len({first, second}) == 2


def test_a_second_au_with_the_same_id_is_refused_even_when_identical() -> None:
    """LOCKSS Tdb.addTdbAuForPlugin: ``if (au == otherAu) return false;`` otherwise ``throw new TdbException("New au
    with duplicate id: " + au.getName())`` -- an exact repeat is refused too, only the very same AU is not added
    twice."""
    with pytest.raises(TdbError, match=r"<string>:13:1: duplicate AU: 'First' repeats 'First' \(<string>:8\)"):
        pair("", "First", "2001")
    with pytest.raises(TdbError, match=r"<string>:13:1: duplicate AU: 'Again' has the plugin and parameters of "
                                       r"'First' \(<string>:8\)"):
        pair("status = down", "Again", "2001")
    tdb = parse_tdb(DUPLICATES % ("", "Second", "2002"))
    assert tdb.add_au(tdb.aus[0]) is False and len(tdb.aus) == 2


def test_files_merge_as_lockss_copy_from(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """LOCKSS Tdb.copyFrom merges another file's database: an AU already there is skipped, and "ignore and log error
    if existing AU is not identical" (name, title, publisher)."""
    one, two, three = tmp_path / "one.tdb", tmp_path / "two.tdb", tmp_path / "three.tdb"
    one.write_text(DUPLICATES % ("", "Second", "2002"), encoding="utf-8")
    two.write_text(DUPLICATES % ("", "Second", "2002"), encoding="utf-8")
    assert [au.name for au in load_tdb_files([one, two]).aus] == ["First", "Second"]
    assert not caplog.records
    three.write_text((DUPLICATES % ("", "Second", "2002")).replace("au < First", "au < Premier"), encoding="utf-8")
    merged = load_tdb_files([one, three])
    assert [au.name for au in merged.aus] == ["First", "Second"]
    [record] = caplog.records
    assert record.levelname == "ERROR" and "three.tdb:8: ignoring duplicate AU 'Premier'" in record.getMessage()
    assert "one.tdb:8 has the same plugin and parameters as 'First'" in record.getMessage()
    by_hand = Tdb(aus=[*load_tdb(one).aus, *load_tdb(three).aus])
    assert [[au.name for au in group] for group in by_hand.duplicate_ids().values()] == [
        ["First", "Premier"], ["Second", "Second"]]


# --- AU configuration and id -----------------------------------------------------------------------------------------


def test_au_id_with_and_without_plugin_descriptors() -> None:
    au = load_tdb(SAMPLE).aus[3]
    assert au.au_id() == ("org|lockss|plugin|example|ClockssExamplePlugin&base_url~https%3A%2F%2Fannals%2Eexample%2Eorg"
                          "%2F&journal_id~aos&year~2021")
    assert au.au_id(["base_url", "year"]) == (
        "org|lockss|plugin|example|ClockssExamplePlugin&base_url~https%3A%2F%2Fannals%2Eexample%2Eorg%2F&year~2021")


def test_au_config_typed_with_nondef_and_pub_down() -> None:
    au = load_tdb(SAMPLE).aus[1]
    config = au.au_config(["base_url", "year", "volume_name", "journal_id"])
    assert config["year"] == 2017 and config["base_url_host"] == "www.example.org"
    assert config["volume_name"] == "10" and config["journal_id"] == "joe"
    assert config["pub_down"] is True
    assert config.au_id(au.plugin) == au.au_id(["base_url", "year", "volume_name", "journal_id"])


def test_au_config_crawl_proxy_from_hidden_proxy() -> None:
    au = one_au("hidden[proxy] = proxy.example.edu:8080")
    assert au.au_config(["base_url"])["crawl_proxy"] == "proxy.example.edu:8080"


def test_find_au_and_load_files(tmp_path: Path) -> None:
    other = tmp_path / "other.tdb"
    other.write_text("{ publisher < name = Q >\n plugin = q.P\n implicit < name ; param[k] >\n"
                     " { title < name = T2 >\n au < Q1 ; v > } }\n", encoding="utf-8")
    tdb = load_tdb_files([SAMPLE, other])
    assert isinstance(tdb, Tdb) and len(tdb.aus) == 7 and tdb.aus[-1].source == str(other)
    assert tdb.find_au("q.P", {"k": "v"}) is tdb.aus[-1]
    assert tdb.find_au("q.P", {"k": "w"}) is None

