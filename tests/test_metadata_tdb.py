"""Tests for pubfetch.metadata.tdb: the title database language and accessors (spec lockss.md section 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.metadata.tdb import (
    Tdb,
    TdbAu,
    TdbError,
    coverage_includes,
    load_tdb,
    load_tdb_files,
    parse_tdb,
    range_set_end,
    range_set_start,
)

SAMPLE = Path(__file__).parent / "data" / "tdb" / "sample.tdb"


def one_au(body: str, implicit: str = "implicit < name ; param[base_url] >",
           au: str = "au < An AU ; http://x/ >") -> TdbAu:
    """Parse a publisher/title scope holding ``body`` settings and one au line."""
    tdb = parse_tdb(f"""
{{
  publisher < name = P >
  plugin = org.example.Plugin
  {implicit}
  {{
    title < name = The Title >
    {body}
    {au}
  }}
}}
""")
    assert len(tdb.aus) == 1
    return tdb.aus[0]


# --- structure and inheritance -------------------------------------------------------------------------------------


def test_sample_file_publishers_titles_aus() -> None:
    tdb = load_tdb(SAMPLE)
    assert [p.name for p in tdb.publishers] == ["Example University Press", "Book House"]
    assert [t.name for t in tdb.titles] == ["Journal of Examples", "Annals of ; Semicolons",
                                            "Book House Series in Testing", "Standalone Books"]
    assert [au.name for au in tdb.aus] == [
        "Journal of Examples Volume 2008", "Journal of Examples Volume 2017",
        "Journal of Examples Volume 2019 [extra tables of contents]", "Annals of Semicolons Volume 2",
        "Testing Volume 1", "A Book Alone"]
    assert [au.line for au in tdb.aus] == [24, 25, 26, 40, 60, 65]


def test_positional_fields_follow_implicit() -> None:
    au = load_tdb(SAMPLE).aus[0]
    assert au.status == "released"
    assert au.params == {"year": "2008", "base_url": "https://www.example.org/"}
    assert au.nondef_params == {"journal_id": "joe", "volume_name": "1"}
    assert au.attrs == {"year": "2008", "volume": "1"}


def test_settings_inherit_downwards() -> None:
    au = load_tdb(SAMPLE).aus[0]
    assert au.plugin == "org.lockss.plugin.example.ClockssExamplePlugin"
    assert au.provider_name == "Example Hosting"
    assert au.settings["comment[publisher]"] == "Example Society"
    assert au.title.publisher.name == "Example University Press"


def test_sibling_scope_settings_do_not_leak() -> None:
    aus = load_tdb(SAMPLE).aus
    assert aus[3].param("journal_id") == "aos" and "nondefparam[journal_id]" not in aus[3].settings
    assert aus[0].param("journal_id") is None


def test_inner_scope_overrides_outer() -> None:
    tdb = parse_tdb("""
{
  publisher < name = P >
  plugin = outer.Plugin
  param[base_url] = http://outer/
  implicit < name >
  {
    title < name = T >
    plugin = inner.Plugin
    au < A >
  }
  {
    title < name = U >
    au < B >
  }
}
""")
    assert [(au.plugin, au.param("base_url")) for au in tdb.aus] == [
        ("inner.Plugin", "http://outer/"), ("outer.Plugin", "http://outer/")]


def test_positional_value_overrides_scope_setting() -> None:
    au = one_au("param[base_url] = http://scope/")
    assert au.param("base_url") == "http://x/"


def test_title_container_scopes_like_real_files() -> None:
    # Settings shared by several titles sit in a scope without header, titles in nested scopes.
    tdb = parse_tdb("""
{
  publisher < name = University Library >
  {
    plugin = org.example.ContentDmPlugin
    param[base_url] = http://content.example.edu/lockss/
    implicit < status ; name ; param[collection_path] >
    {
      title < name = Image Collections >
      au < testing ; Image Collections: Encyclopedia        ; u0001/1831001 >
      au < testing ; Image Collections: Slides ; u0001/2007004 >
    }
  }
}
""")
    assert [(au.name, au.params["collection_path"], au.title.name) for au in tdb.aus] == [
        ("Image Collections: Encyclopedia", "u0001/1831001", "Image Collections"),
        ("Image Collections: Slides", "u0001/2007004", "Image Collections")]
    assert tdb.aus[0].params["base_url"] == "http://content.example.edu/lockss/"


def test_au_containers_nested_under_title() -> None:
    tdb = parse_tdb("""
{ publisher < name = P >
  plugin = a.P
  { title < name = T >
    implicit < name ; param[year] >
    { param[base_url] = http://one/
      au < A1 ; 2001 > }
    { param[base_url] = http://two/
      au < A2 ; 2002 > }
  }
}
""")
    assert [(au.name, au.params) for au in tdb.aus] == [
        ("A1", {"base_url": "http://one/", "year": "2001"}), ("A2", {"base_url": "http://two/", "year": "2002"})]


def test_plugin_prefix_and_suffix() -> None:
    tdb = parse_tdb("""
{ publisher < name = P >
  pluginPrefix = org.example.
  implicit < name ; pluginSuffix >
  { title < name = T >
    au < A ; OnePlugin >
  }
}
""")
    assert tdb.aus[0].plugin == "org.example.OnePlugin"


# --- values ----------------------------------------------------------------------------------------------------------


def test_unquoted_values_trimmed_and_escaped() -> None:
    lines = [
        "a = nothing special either",
        "b =    surrounding whitespace      ",
        "c =    \\ one leading space",
        "d = one trailing space\\    ",
        "e = embedded\\;semicolon and embedded\\>angle",
        'f = \\"leading quote mark',
        'g = embedded"quote"marks',
        "h = Issue #3 is not a comment",
        "i =",
        "j = back\\\\slash",
    ]
    au = one_au("\n    ".join(lines))
    assert [au.get(k) for k in "abcdefghij"] == [
        "nothing special either", "surrounding whitespace", " one leading space", "one trailing space ",
        "embedded;semicolon and embedded>angle", '"leading quote mark', 'embedded"quote"marks',
        "Issue #3 is not a comment", "", "back\\slash"]


def test_quoted_values() -> None:
    au = one_au(r"""
    a = "nothing special"
    b = "embedded\"quote"
    c = "embedded\\backslash"
    d = ""
    e = "  kept ; > blanks  "   # a comment after a quoted value
""")
    assert [au.get(k) for k in "abcde"] == ["nothing special", 'embedded"quote', "embedded\\backslash", "",
                                             "  kept ; > blanks  "]


def test_au_fields_quoted_empty_and_multiline() -> None:
    au = one_au("", implicit="implicit < name ; param[a] ; param[b] >",
                au='au < "Quoted; name" ;  ;\n      third >')
    assert au.name == "Quoted; name" and au.params == {"a": "", "b": "third"}


def test_au_trailing_empty_field() -> None:
    au = one_au("", implicit="implicit < name ; param[a] ; param[b] >", au="au < N ; x ; >")
    assert au.params == {"a": "x", "b": ""}


def test_empty_nondef_param_means_unset() -> None:
    au = load_tdb(SAMPLE).aus[2]
    assert au.settings["nondefparam[volume_name]"] == ""
    assert "volume_name" not in au.nondef_params


def test_comments_anywhere_a_token_starts() -> None:
    tdb = parse_tdb("""# leading comment
{ # after brace
  publisher < name = P >  # after header
#  param[base_url] = http://commented-out/
  plugin = a.P
  implicit < name > # after implicit
  { title < name = T >
    au < A >   # after au
  }
}
# trailing comment""")
    assert tdb.aus[0].param("base_url") is None and tdb.aus[0].name == "A"


def test_crlf_line_endings() -> None:
    tdb = parse_tdb("{\r\n publisher < name = P >\r\n plugin = a.P\r\n implicit < name >\r\n"
                    " { title < name = T >\r\n au < A >\r\n }\r\n}\r\n")
    assert tdb.aus[0].name == "A" and tdb.aus[0].plugin == "a.P"


def test_empty_input_is_empty_tdb() -> None:
    for text in ("", "   ", "\n\n", "# only a comment\n"):
        tdb = parse_tdb(text)
        assert (tdb.publishers, tdb.titles, tdb.aus) == ([], [], [])


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


@pytest.mark.parametrize(("text", "start"), [
    ("2003-2004", "2003"), ("2003", "2003"), ("1990, 1992-1995", "1990"), ("1-022", "1"), ("s2-1", "s2-1"),
    ("A-B", "A"), ("1a-1c", "1a"), ("v1; v3", "v1"), ("", None), (None, None), (" - ", "-"),
    ("MCMLXXI-1977", "MCMLXXI"), ("xiv-xx", "xiv"), ("IV-9", "IV")])
def test_range_set_start(text: str | None, start: str | None) -> None:
    assert range_set_start(text) == start


@pytest.mark.parametrize(("text", "end"), [
    ("2003-2004", "2004"), ("2003", "2003"), ("1990, 1992-1995", "1995"), ("s2-1", "s2-1"), ("v1; v3", "v3"),
    ("MCMLXXI-1977", "1977"), ("1977-MCMLXXX", "MCMLXXX"), ("", None), (None, None)])
def test_range_set_end(text: str | None, end: str | None) -> None:
    """LOCKSS' BibliographicUtil.getRangeSetEnd: the end of the last range."""
    assert range_set_end(text) == end


@pytest.mark.parametrize(("coverage", "value", "included"), [
    ("2003-2005", "2004", True), ("2003-2005", "2006", False), ("1990, 1992-1995", "1991", False),
    ("1990, 1992-1995", "1990", True), ("1990; 1992-1995", "1995", True), ("MCMLXXI-1977", "1975", True),
    ("MCMLXXI-1977", "MCMLXXIII", True), ("MCMLXXI-1977", "1970", False), ("1a-1c", "1b", True),
    ("1a-1c", "1d", False), ("v1-v10", "v9", True), ("s2-1", "s2-1", True), ("s2-1", "s2", False),
    ("vol. A", "Vol. a", True), ("5", "V", True), ("5", "", False), (None, "5", False)])
def test_coverage_includes(coverage: str | None, value: str, included: bool) -> None:
    """LOCKSS' BibliographicUtil.coverageIncludes, used by TdbAu.includesYear/Volume/Issue."""
    assert coverage_includes(coverage, value) is included


def test_a_topic_range_includes_the_topics_beginning_with_its_end() -> None:
    """LOCKSS NumberUtil.rangeIncludes: "the value is compared to the range start and stop values as a topic range.
    That is, "Georgia", "Kansas", and "Massachusetts" are topics within the volume "Ge-Ma"" -- ``(value.compareTo(
    endRange) <= 0) || value.startsWith(endRange)``; and TestBibliographicUtil: ``rangeIncludes("aa-cc", "bbb")``."""
    for topic in ("Georgia", "Kansas", "Massachusetts", "Mathematics", "Ma"):
        assert coverage_includes("Ge-Ma", topic), topic
    for outside in ("Gamma", "Mb", "Nevada"):
        assert not coverage_includes("Ge-Ma", outside), outside
    assert coverage_includes("aa-cc", "bbb") and coverage_includes("a-c", "bb")


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


# --- errors: file:line:column ---------------------------------------------------------------------------------------

ERRORS = [
    ("<\n", 1, 1, "expected '{'"),
    ("{\n  \"foo\" \"and\"\n", 2, 3, "unexpected '\"'"),
    ("{\n  publisher [\n", 2, 13, "expected '<' after publisher but got '['"),
    ("{\n  {\n}\n", 4, 1, "end of file inside the '{' opened at line 1"),
    ("}\n", 1, 1, "unmatched '}'"),
    ("{\n  foo = bar\n  publisher < name = P >\n}\n", 3, 3, "must be the first statement"),
    ("{ publisher < name = P >\n  implicit < a ; b ; c >\n  { title < name = T >\n    au < va ; vb >\n  }\n}\n", 4, 5,
     "expected 3 implicit values (a ; b ; c) but got 2"),
    ("{ publisher < name = P >\n  implicit < a ; b >\n  { title < name = T >\n    au < va ; vb ; vc >\n  }\n}\n", 4, 5,
     "expected 2 implicit values (a ; b) but got 3"),
    ("{ publisher < name = P >\n  plugin = a.P\n  implicit < name >\n  au < A >\n}\n", 4, 3,
     "au <...> outside the scope of a title"),
    ("{ title < name = T >\n  plugin = a.P\n  au < A >\n}\n", 3, 3, "without an implicit"),
    ("{ title < name = T >\n  implicit < name >\n  au < A >\n}\n", 3, 3, "au <A> without a plugin"),
    ("{ title < name = T >\n  plugin = a.P\n implicit < status >\n  au < ok >\n}\n", 4, 3, "without a name"),
    ("{ publisher < name = P >\n  { publisher < name = Q > }\n}\n", 2, 5, "inside the scope of publisher <P>"),
    ("{ title < name = T >\n  { title < name = U > }\n}\n", 2, 5, "inside the scope of title <T>"),
    ("{ publisher < issn = 1 >\n}\n", 1, 3, "publisher <...> without a name"),
    ("{ title < name = T >\n  implicit < name >\n  plugin = a.P\n  au < A >\n  x = y\n}\n", 5, 3,
     "settings must come before nested scopes and au lines"),
    ("{\n  a = 1\n  a = 2\n}\n", 3, 3, "a is already set in this scope (line 2)"),
    ("{\n  a = x ; y\n}\n", 2, 9, "unexpected ';' in value"),
    ("{\n  a = bad\\escape\n}\n", 2, 10, "invalid escape '\\e'"),
    ('{\n  a = "run-on\n}\n', 2, 7, "run-on quoted string"),
    ('{\n  a = "bad\\q"\n}\n', 2, 11, "invalid escape '\\q' in quoted value"),
    ('{\n  a = "x" y\n}\n', 2, 11, "unexpected 'y' after the value of a"),
    ("{\n  a b = c\n}\n", 2, 5, "expected '=' after a"),
    ("{\n  implicit < a ; a >\n}\n", 2, 18, "a appears twice in implicit"),
    ("{\n  title < name = T ; name = U >\n}\n", 2, 22, "name given twice in title"),
    ("{\n  publisher < name = P\n", 3, 1, "expected ';' or '>' after the value of name"),
    ("{\n  @ = 1\n}\n", 2, 3, "unexpected '@'"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), ERRORS, ids=[e[3][:40] for e in ERRORS])
def test_errors_name_file_line_and_column(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(TdbError) as info:
        parse_tdb(text, "bad.tdb")
    error = info.value
    assert (error.source, error.line, error.column) == ("bad.tdb", line, column), str(error)
    assert str(error).startswith(f"bad.tdb:{line}:{column}: ")
    assert message in error.detail


def test_load_error_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.tdb"
    bad.write_text("{\n  publisher < name = P >\n  oops\n}\n", encoding="utf-8")
    with pytest.raises(TdbError, match=rf"^{bad}:3:7: expected '=' after oops"):
        load_tdb(bad)


def test_parse_tdb_needs_text() -> None:
    with pytest.raises(TypeError):
        parse_tdb(b"{ }")  # type: ignore[arg-type]


def test_byte_order_mark_ignored() -> None:
    tdb = parse_tdb("\ufeff{ publisher < name = P >\n plugin = a.P\n implicit < name >\n { title < name = T >\n au < A > } }")
    assert tdb.aus[0].name == "A"
