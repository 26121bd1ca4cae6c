"""An HTML element as plain text the way PubFetcher writes it: lines and paragraphs kept for cleaned pages, one line
for an element's text, headings set off in a scraping rule's selection, and whitespace normalised as jsoup does."""

from __future__ import annotations

from bs4 import BeautifulSoup

from pubfetch.extract.clean import parse_html
from pubfetch.extract.html_text import element_text, format_text, normalised_text, selector_text


def test_format_text_of_an_element() -> None:
    soup = parse_html("<div id='x'><h2>Head</h2><p>One<br>two</p></div><p>outside</p>")
    assert format_text(soup.find(id="x")) == "Head\n\nOne\ntwo"
    assert format_text(None) == ""


def test_element_text_is_one_line() -> None:
    soup = parse_html("<div id='x'><div>One</div>Two<p>Three <b>four</b></p><pre>a  b</pre></div>")
    assert element_text(soup.find(id="x")) == "One Two Three four a  b"
    assert element_text(None) == ""


def test_selector_text_sets_headings_off_and_skips_empty_elements() -> None:
    soup = parse_html("<div class='s'><h2>Abstract</h2><p>Text.</p></div><div class='s'> </div><div class='s'>B</div>")
    assert selector_text(soup.select("div.s")) == "Abstract. Text.\n\nB"
    assert selector_text(soup.select_one("div.s")) == "Abstract. Text."
    assert selector_text(None) == ""


def test_format_text_keeps_pre_whitespace_and_leaves_no_more_than_one_blank_line() -> None:
    soup = parse_html("<div id='x'><p>One</p><p></p><p></p><pre>a  b\n\n\n\nc</pre><ul><li>x</li><li>y</li></ul>"
                      "</div>")
    assert format_text(soup.find(id="x")) == "One\n\na  b\n\nc\n\nx\ny"


def test_script_and_style_are_data_not_text() -> None:
    soup = parse_html("<div id='x'>Shown<script>var hidden = 1;</script><style>p {}</style></div>")
    assert element_text(soup.find(id="x")) == "Shown"
    assert format_text(soup.find(id="x")) == "Shown"


def test_deep_nesting_is_walked_without_recursion() -> None:
    soup = BeautifulSoup("<div>deep</div>", "html.parser")
    node = soup.div
    for _ in range(5000):  # built in memory: the HTML parsers limit how deep they nest
        child = soup.new_tag("div")
        node.append(child)
        node = child
    node.append("end")
    assert element_text(soup.div) == "deep end"


def test_normalised_text_collapses_whitespace_and_drops_invisible_characters() -> None:
    assert normalised_text("  a\u00a0\u00a0b\n\tc\u200bd soft\u00adhyphen  ") == "a b cd softhyphen"
    assert normalised_text("") == ""


def test_no_space_inside_brackets_from_the_sources_line_breaks() -> None:
    """Line breaks around inline markup inside brackets ("(\\n <i>Name</i>") are not spaces a reader sees."""
    element = parse_html("<p id='x'>jointvetch (\r\n   <i>Aeschynomene americana</i> L.) [\n<a>35</a>\n]</p>").find(id="x")
    assert format_text(element) == element_text(element) == "jointvetch (Aeschynomene americana L.) [35]"


def test_whitespace_is_kept_within_six_levels_of_a_pre_above_or_inside_the_element() -> None:
    """jsoup looks at a text's parent and five more ancestors for <pre>, <plaintext> or <textarea>, above the element
    read as well as inside it."""
    six = "<span>" * 5 + "a  b" + "</span>" * 5
    seven = "<span>" * 6 + "c  d" + "</span>" * 6
    soup = parse_html(f"<div id='x'><pre>{six}{seven}</pre></div>")
    assert element_text(soup.find(id="x")) == "a  bc d"
    assert format_text(soup.find(id="x")) == "a  bc d"
    first, second = soup.find("pre").find_all("span", recursive=False)
    assert element_text(first.find_all("span")[-1]) == "a  b"  # the <pre> five levels above the innermost <span>
    assert element_text(second.find_all("span")[-1]) == "c d"  # six levels above


def test_text_of_scripts_styles_and_comments_is_left_out_wherever_it_sits() -> None:
    soup = parse_html("<div id='x'><p>One<!-- note --> two</p><style>p {}</style><p>three<script>x()</script></p>"
                      "</div>")
    assert element_text(soup.find(id="x")) == "One two three"
    assert format_text(soup.find(id="x")) == "One two\n\nthree"
