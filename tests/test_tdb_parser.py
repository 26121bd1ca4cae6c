"""Tests for pubfetch.metadata.tdb.parser: the LOCKSS title database language read into publishers, titles and AUs,
and its errors naming file, line and column (spec lockss.md section 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.metadata.tdb import TdbError, load_tdb, parse_tdb
from support.tdb import SAMPLE, one_au

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
