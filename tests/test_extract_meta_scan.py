"""The ``<meta>`` tags of a page read from its text: name, property and a value cleaned the LOCKSS way (tags as written
stripped, then entities decoded), comments and script-like elements skipped, bytes decoded by what the page declares,
and never an exception for what a page contains."""

from __future__ import annotations

from pathlib import Path

from pubfetch.extract.meta_scan import MetaTag, clean_value, decode_page, meta_tags, plain_text, scan_meta

HIGHWIRE = Path(__file__).parent / "data" / "documents" / "meta" / "highwire_page.html"


def head(*tags: str) -> str:
    return "<html><head>" + "".join(tags) + "</head><body></body></html>"


def test_meta_tags_cleans_values_the_lockss_way() -> None:
    html = head('<meta name="A" content="foo\n&#xA;  \t   bar">', '<meta name="b" content="&#34;Quoted&#34; Title">',
                '<meta content="l&lt;g&gt;a&amp;z" name="C">', "<meta name='d' content='<b>bold</b> text'>",
                '<meta property="og:title" content="prop only">', '<meta name="no-content">')
    assert meta_tags(html) == [("a", "foo bar"), ("b", '"Quoted" Title'), ("c", "l<g>a&z"), ("d", "bold text")]
    assert meta_tags(html, include_property=True)[-1] == ("og:title", "prop only")


def test_scanner_skips_comments_scripts_and_survives_broken_markup() -> None:
    html = ('<!-- <meta name="x" content="in comment"> --><script><meta name="x" content="in script"></script>'
            '<META NAME=x CONTENT=bare/><meta name="y" content="unterminated')
    assert meta_tags(html) == [("x", "bare/")]
    assert meta_tags(HIGHWIRE.read_bytes())[:2] == [("citation_journal_title", "Journal of Invented Results"),
                                                   ("citation_publisher", "Invented Press")]
    assert ("dc.title", "Unquoted") in meta_tags(HIGHWIRE.read_text(encoding="utf-8"))
    assert scan_meta(None) == [] and meta_tags(b"") == []


def test_a_value_loses_markup_decodes_entities_and_collapses_space() -> None:
    assert clean_value("  a &amp;amp; <i>b</i>\n c ") == "a &amp; b c"
    assert clean_value("  padded  ", trim=False) == " padded "


def test_plain_text_removes_markup_that_was_escaped_in_the_page() -> None:
    assert plain_text("x &lt;p&gt;one&lt;/p&gt;") == "x <p>one</p>"  # escaped twice in the page: text, not markup
    assert plain_text("<p>one</p><p>two</p> H<sub>2</sub>O") == "one two H2O"
    assert plain_text("nothing to do") == "nothing to do"


def test_scan_meta_keeps_name_and_property_and_answers_to_both_spellings() -> None:
    [tag] = scan_meta(head('<meta name=" DC.Title " property="og:title" content="T">'))
    assert tag == MetaTag("dc.title", "og:title", "T")
    assert tag.names() == ("dc.title", "og.title")


def test_untrimmed_values_keep_their_edge_blanks() -> None:
    assert meta_tags(head('<meta name="a" content=" x  y ">'), trim=False) == [("a", " x y ")]


def test_bytes_are_decoded_by_the_pages_declared_charset_and_text_is_kept() -> None:
    page = '<meta charset="windows-1252"><meta name="citation_title" content="Caf\u00e9 \u2013 r\u00e9sum\u00e9">'
    assert decode_page(page.encode("cp1252")) == page
    assert decode_page(page) is page
    assert meta_tags(page.encode("cp1252")) == [("citation_title", "Caf\u00e9 \u2013 r\u00e9sum\u00e9")]


def test_tags_inside_every_raw_text_element_are_skipped() -> None:
    page = ''.join(f'<{name}><meta name="x" content="in {name}"></{name}>'
                   for name in ("style", "textarea", "title", "template")) + '<meta name="x" content="real">'
    assert meta_tags(page) == [("x", "real")]
