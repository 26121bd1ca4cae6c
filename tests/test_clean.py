"""Tests for pubfetch.extract.clean: PubFetcher's automatic page cleaning and text formatting.

Whole-page outputs are compared exactly (derived by hand from the CleanWebpage rules, spec section 9), small snippets pin
each removal rule, and the real publisher pages of ../shared/corpus must keep their article text and lose their menus
and footers.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pubfetch.extract.clean import (
    clean_document,
    clean_html,
    find_removals,
    is_main,
    meta_description,
    page_title,
    parse_html,
    webpage_text,
)
from pubfetch.extract.html_text import element_text
from pubfetch.net.encoding import decode_body

PAGES = Path(__file__).parent / "data" / "pages" / "clean"


def page(name: str) -> str:
    return (PAGES / name).read_text(encoding="utf-8")


def body(fragment: str, publication: bool = False) -> str:
    """clean_html of a fragment placed in <body>."""
    return clean_html(f"<!DOCTYPE html><html><head></head><body>{fragment}</body></html>", publication=publication)


# ---------------------------------------------------------------------------------------------------------------------
# Whole pages, exact output
# ---------------------------------------------------------------------------------------------------------------------

ARTICLE_TEXT = (
    "Tide pools host diverse microbial communities that change with every tide.\n"  # longest description, og:
    "\n"
    "We use cookies to improve your experience. Accept all cookies\n"  # a cookie banner has no keyword: kept
    "\n"
    "Journal of Coastal Microbiology\n"  # header kept, its nav, search form and login box removed
    "\n"
    "Figures need a newer browser.\n"  # <noscript> without "javascript" kept
    "\n"
    "Tide pools as microbial nurseries\n"
    "\n"
    "Ana Costa, Ben Ode\n"
    "\n"
    "Share on Twitter\n"  # social links are only "maybe": kept inside <main>
    "\n"
    "Abstract\n"
    "\n"
    "Tide pools keep a stable core of bacteria between tides.\n"
    "\n"
    "Introduction\n"
    "\n"
    "Tide pools are dynamic habitats.1 They are flooded twice a day.\n"
    "\n"
    "Figure 1. Sampling sites.\n"
    "Box 1. What is a tide pool?\n"  # a sidebar inside <main> is kept
    "\n"
    "Related articles\n"
    "\n"
    "Sandy beaches revisited\n"
    "\n"
    "References\n"
    "\n"
    "Smith J. Rock pools. Mar Biol. 2001.\n"
    "Previous article Next article"  # pagination inside <main> kept
)

ARTICLE_PUBLICATION_TEXT = (
    "Tide pools host diverse microbial communities that change with every tide.\n"
    "\n"
    "We use cookies to improve your experience. Accept all cookies\n"
    "\n"
    "Journal of Coastal Microbiology\n"
    "\n"
    "Figures need a newer browser.\n"
    "\n"
    "Tide pools as microbial nurseries\n"
    "\n"
    "Ana Costa, Ben Ode\n"
    "\n"
    "Share on Twitter\n"
    "\n"
    "Abstract\n"
    "\n"
    "Tide pools keep a stable core of bacteria between tides.\n"
    "\n"
    "Introduction\n"
    "\n"
    "Tide pools are dynamic habitats. They are flooded twice a day.\n"  # the xref citation link is gone
    "\n"
    "Figure 1. Sampling sites.\n"
    "Box 1. What is a tide pool?\n"
    "Previous article Next article"  # related articles and the reference section are gone
)


def test_journal_article_page() -> None:
    text = clean_html(page("journal_article.html"), "https://coastal.example/a/1")
    assert text == ARTICLE_TEXT
    for removed in (
        "Skip to main content",
        "cookie settings",
        "Issues",
        "About the journal",
        "Search",
        "Sign in",
        "Please enable JavaScript",
        "Open figure viewer",
        "Most read",
        "Kelp forests",
        "Copyright 2024",
        "Harbour Road",
        "Privacy policy",
        "dataLayer",
        "font-family",
        "trackPageView",
    ):
        assert removed not in text


def test_journal_article_page_as_publication() -> None:
    assert clean_html(page("journal_article.html"), publication=True) == ARTICLE_PUBLICATION_TEXT


def test_page_without_main_content() -> None:
    assert clean_html(page("lab_page_no_main.html")) == (
        "Protocols of the Rockpool Lab.\n"  # <META NAME="Description">: names compared case-insensitively
        "\n"
        "Jump to protocols Rockpool Lab\n"  # the "skip" link is kept: its ancestor has id="heading"
        "\n"
        "Lab links\n"  # <h2 class="visually-hidden"> is itself a title: kept
        "\n"
        "Sampling protocols\n"  # kept with its "hidden-print" wrapper, which CONTAINS id="content"
        "\n"
        "Collect water at low tide.\n"
        "Store samples at 4 °C.\n"
        "\n"
        "Page 1 of 2\n"  # pagination inside id="content"
        "\n"
        "Protocols are reviewed every year.\n"  # id="main-content" is not main, so its tabs went
        "\n"
        "Updated 2024-05-01"  # the sideBar cell of the layout table went
    )


def test_formatting_of_blocks_lists_tables_and_whitespace() -> None:
    assert clean_html(page("formatting.html")) == (
        "Heading with spaces\n"
        "\n"
        "First paragraph with bold, italic and a link.\n"
        "\n"
        "Line one\n"
        "Line two\n"  # <br><br> gives one newline, as in jsoup
        "Line four\n"
        "\n"
        "Block one\n"
        "Block two\n"
        "Loose text after a block\n"
        "\n"
        "Item one\n"
        "Item two\n"
        "\n"  # a nested list is a margin block too
        "Nested item\n"
        "\n"
        "First\n"
        "Second\n"
        "\n"
        "Quoted text\n"
        "\n"
        "Term\n"
        "Definition\n"
        "Table 1. Counts\n"
        "Site\n"
        "Count\n"
        "A\n"
        "12\n"
        "\n"
        "code   line 1\n"  # <pre> keeps its whitespace
        "    indented line 2\n"
        "\n"
        "Softhyphen and zerowidth and non-breaking spaces.\n"  # &shy; and U+200B dropped, &nbsp; is a space
        "\n"
        "Unicode: café – β-lactam\n"
        "\n"
        "Section\n"
        "\n"
        "Text directly in a section."
    )


PUBLICATION_PAGE_TEXT = (
    "We map reference genes in kelp.\n"
    "\n"
    "Text size: A A A\n"
    "\n"
    "Reference genes in kelp\n"
    "\n"
    "Written for the kelp atlas.\n"
    "\n"
    "Abstract\n"
    "\n"
    "We map reference genes in kelp [1, 2].\n"
    "\n"
    "Methods\n"
    "\n"
    "Genes were ranked by stability (see Ref. 2).\n"
    "\n"
    "Bibliography\n"
    "\n"
    "Kelp genome consortium. 2019.\n"
    "\n"
    "References\n"
    "\n"
    "1. Ono K. Kelp. 2018.\n"
    "\n"
    "2. Ito M. Genes. 2020.\n"
    "\n"
    "Related content\n"  # "related" is only "maybe" and the page has an <article>
    "\n"
    "Kelp forests"
)


def test_publication_page_in_both_modes() -> None:
    html = page("publication.html")
    assert clean_html(html) == PUBLICATION_PAGE_TEXT
    assert clean_html(html, publication=True) == (
        "We map reference genes in kelp.\n"  # dc.description
        "\n"
        "Reference genes in kelp\n"  # "reading-preferences" ENDS with "references": gone
        "\n"
        "Written for the kelp atlas.\n"  # "preface" merely contains "ref": kept (the Java regex would drop it)
        "\n"
        "Abstract\n"
        "\n"
        "We map reference genes in kelp [1,].\n"  # class="xrefs" went (no space left before "]"), "bibr" has no keyword
        "\n"
        "Methods\n"
        "\n"
        "Genes were ranked by stability.\n"  # class="refLink" is tokenised to ref + link
        "\n"
        "Bibliography\n"  # no keyword, so kept (as in PubFetcher)
        "\n"
        "Kelp genome consortium. 2019."
    )


# ---------------------------------------------------------------------------------------------------------------------
# The "nothing main around" condition
# ---------------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ('<div class="sidebar">Side</div><p>Text</p>', "Text"),
        ('<main><div class="sidebar">Side</div><p>Text</p></main>', "Side\n\nText"),
        ('<article><div class="sidebar">Side</div></article>', "Side"),
        ('<div role="main"><ul class="tabs"><li>Tab</li></ul></div>', "Tab"),
        ('<div aria-label="Article body"><ul class="tabs"><li>Tab</li></ul></div>', "Tab"),
        ('<div id="content"><div class="search">Find</div></div>', "Find"),
        ('<div class="maincontent"><div class="search">Find</div></div>', "Find"),
        ('<div id="ARTICLE"><div class="search">Find</div></div>', "Find"),
        ('<div id="__content__1"><div class="search">Find</div></div>', "Find"),
        ('<div id="main-content"><div class="search">Find</div></div>', ""),  # the whole value must be one word
        ('<div class="content wrapper"><div class="search">Find</div></div>', ""),
        ('<div class="tabs"><div id="content">Inner</div></div>', "Inner"),  # a main descendant saves it
        ('<div class="tabs"><div><p><article>Deep</article></p></div></div>', "Deep"),
        ('<div class="tabs"><h1>Heading</h1></div>', ""),  # ...but a title descendant does not
        ('<div class="tabs"><div class="title">T</div></div>', ""),
        ('<h1 class="hidden">Heading</h1>', "Heading"),  # a title element itself counts
        ('<div id="heading" class="hidden">Heading</div>', "Heading"),
        ('<h2><span class="hidden">Hidden part</span> Title</h2>', "Hidden part Title"),  # and a title ancestor
        ('<div class="title"><span class="skip">Skip</span></div>', "Skip"),
        ('<h3 class="hidden">Small heading</h3>', ""),  # only h1 and h2 are titles
        ('<div class="heading-wrapper"><a class="skip">Skip</a></div>', ""),
    ],
)
def test_maybe_removals_depend_on_main_content_around(fragment: str, expected: str) -> None:
    assert body(fragment) == expected


def test_always_removed_even_inside_main() -> None:
    assert (
        body(
            "<main><nav>Nav</nav><div class='navbar'>Bar</div><div id='footer'>Foot</div><aside>Aside</aside>"
            "<footer>F</footer><menu><li>M</li></menu><div class='nav-bar'>NB</div><div id='topNav'>TN</div>"
            "<div class='NAVBAR'>UP</div><div class='sub_navigation'>SN</div><div class='mainNav2'>MN</div>"
            "<div class='subnavigation'>SUB</div><div class='navlinks'>NL</div><p>Kept</p></main>"
        )
        == "Kept"
    )


def test_aria_roles_and_labels() -> None:
    assert (
        body(
            '<main><div role="navigation">N</div><div role="menubar">M</div><div role="menuitem">I</div>'
            '<div role="complementary">C</div><div role="contentinfo">F</div><div aria-label="Main menu">MM</div>'
            "<p>Kept</p></main>"
        )
        == "Kept"
    )
    assert body('<div role="tab">T</div><div role="search">S</div><p>Kept</p>') == "Kept"
    assert body('<main><div role="tab">T</div><div aria-label="Search">S</div></main>') == "T\nS"
    assert body('<div aria-label="Breadcrumb">Home</div>') == "Home"  # not an ARIA keyword


def test_keyword_affixes_are_maybe_removals() -> None:
    fragment = '<div class="navy">Navy</div><div class="menus">Menus</div><div class="breadcrumbtrail">Trail</div>'
    assert body(fragment + "<p>Kept</p>") == "Kept"
    assert body(f"<main>{fragment}<p>Kept</p></main>") == "Navy\nMenus\nTrail\n\nKept"
    assert body('<div class="searchbox">S</div><div class="topics">T</div><div class="header">H</div>') == "S\nT\nH"


def test_noscript_mentioning_javascript() -> None:
    assert body("<noscript>Turn on JAVASCRIPT</noscript><noscript>No scripts here</noscript>") == "No scripts here"


def test_publication_mode_tokens() -> None:
    fragment = (
        '<p>See<a class="xref">1</a>.</p><ol class="references"><li>R</li></ol><div id="ref-list">L</div>'
        '<div class="relatedArticles">Rel</div><div class="bibliography">B</div>'
    )
    assert body(fragment) == "See1.\n\nR\nL\nB"  # relatedArticles is a maybe-removal without main around
    assert body(fragment, publication=True) == "See.\n\nB"
    assert body("<main><div class='relatedArticles'>Rel</div></main>") == "Rel"
    assert body("<main><div class='relatedArticles'>Rel</div></main>", publication=True) == ""


def test_find_removals_gives_outermost_elements_in_document_order() -> None:
    soup = parse_html('<nav><div class="menu">x</div></nav><p>a</p><div class="footer">f</div><p class="ref">r</p>')
    assert [(t.name, t.get("class")) for t in find_removals(soup.body)] == [("nav", None), ("div", ["footer"])]
    assert len(find_removals(soup.body, publication=True)) == 3
    assert soup.find("nav") is not None  # find_removals does not modify


def test_clean_document_in_place_and_idempotent() -> None:
    soup = parse_html("<nav>n</nav><div class='sidebar'>s</div><p>p</p>")
    assert clean_document(soup) is soup
    assert str(soup.body) == "<body><p>p</p></body>"
    clean_document(soup)
    assert str(soup.body) == "<body><p>p</p></body>"
    element = parse_html("<div id='x'><nav>n</nav><p>p</p></div>").find(id="x")
    assert str(clean_document(element)) == '<div id="x"><p>p</p></div>'  # an element is cleaned below itself


def test_deep_nesting_and_many_siblings() -> None:
    assert body("<div>" * 3000 + "<nav>menu</nav>deep" + "</div>" * 3000) == "deep"
    assert body('<ul class="list">' + '<li class="nav">x</li>' * 5000 + "<li>kept</li></ul>") == "kept"


_PIECES = [
    "<div>",
    "</div>",
    "<p>",
    "</p>",
    "<span>",
    "</span>",
    "<main>",
    "<pre>",
    "</pre>",
    "<br>",
    "<ul><li>",
    "<h1>",
    "</h1>",
    "<div class='sidebar'>",
    "<nav>NAVTEXT</nav>",
    "<footer>FOOTTEXT</footer>",
    "text",
    " ",
    "\n",
    "\t",
    "&nbsp;",
    "\u200b",
    "<!-- c -->",
    "<script>SCRIPTTEXT</script>",
    "<td>",
    "<table>",
    "1 < 2",
    "&lt;",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_any_markup_gives_tidy_text_without_menus(pieces: list[str]) -> None:
    text = body("".join(pieces))
    assert text == text.strip("".join(map(chr, range(33))))  # Java's trim(): a <pre>'s &nbsp; may stay
    assert "\n\n\n" not in text
    assert all(line == line.rstrip(" \t") for line in text.split("\n"))
    for removed in ("NAVTEXT", "FOOTTEXT", "SCRIPTTEXT"):
        assert removed not in text


def test_is_main() -> None:
    soup = parse_html(
        '<main id="a"></main><div id="b" class="article"></div><h2 id="c"></h2><div id="d" class="title"></div>'
        '<div id="e" role="Main"></div><div id="f" class="main-content"></div>'
    )
    tag = {t["id"]: t for t in soup.find_all(id=True)}
    assert [k for k in "abcdef" if is_main(tag[k])] == ["a", "b", "c", "d", "e"]
    assert [k for k in "abcdef" if is_main(tag[k], also_title=False)] == ["a", "b", "e"]


# ---------------------------------------------------------------------------------------------------------------------
# Meta description
# ---------------------------------------------------------------------------------------------------------------------


def test_longest_normalised_description_comes_first() -> None:
    html = (
        '<head><meta name="description" content="Short."><meta property="og:description" content="  A longer\n'
        '   description. "><meta name="twitter:description" content="Mid length."></head><body><p>Body</p></body>'
    )
    assert clean_html(html) == "A longer description.\n\nBody"


def test_description_name_variants() -> None:
    def described(meta: str) -> str:
        return meta_description(parse_html(f"<head>{meta}</head>"))

    assert described('<meta name="DC.Description" content="dc">') == "dc"
    assert described('<meta property="twitter:description" content="tw">') == "tw"
    assert described('<meta name="og.description" content="og">') == "og"
    assert described('<meta name="meta:description" content="m">') == "m"
    assert described('<meta name=" description " content="spaced">') == "spaced"
    for ignored in ('name="citation_abstract"', 'name="abstract"', 'itemprop="description"', 'name="dc.subject"'):
        assert described(f'<meta {ignored} content="not a description">') == ""
    tie = '<meta name="description" content="first"><meta name="og:description" content="other">'
    assert described(tie) == "first"
    assert described('<meta name="description">') == ""


# ---------------------------------------------------------------------------------------------------------------------
# The clean_html / webpage_text API
# ---------------------------------------------------------------------------------------------------------------------


def test_bytes_are_decoded_from_their_declared_charset() -> None:
    html = b'<html><head><meta charset="iso-8859-1"></head><body><p>Caf\xe9 cr\xe8me</p></body></html>'
    assert clean_html(html) == "Café crème"


def test_a_parsed_soup_is_cleaned_in_place() -> None:
    soup = parse_html("<body><nav>menu</nav><p>text</p></body>")
    assert clean_html(soup) == "text"
    assert soup.find("nav") is None


def test_pages_without_body_or_text(caplog: pytest.LogCaptureFixture) -> None:
    assert clean_html("") == ""
    assert clean_html("<html><body><nav>only a menu</nav></body></html>") == ""
    with caplog.at_level(logging.DEBUG, logger="pubfetch.extract.clean"):
        assert clean_html('<head><meta name="description" content="D"></head>', "http://x.test/") == "D"
    assert "http://x.test/" in caplog.text
    assert clean_html('<head><meta name="description" content="D"></head><body> </body>') == "D"


def test_wrong_types_raise() -> None:
    with pytest.raises(TypeError, match="HTML must be str or bytes, not NoneType"):
        clean_html(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not int"):
        parse_html(5)  # type: ignore[arg-type]


def test_webpage_text() -> None:
    html = "<title>  Rock\n pools </title><body><nav>n</nav><h1>Rock pools</h1><p>Wet.</p></body>"
    assert webpage_text(html, "http://x.test/") == ("Rock pools", "Rock pools\n\nWet.")
    assert page_title(parse_html("<p>no title</p>")) == ""
    assert page_title("<title>From text</title>") == "From text"  # callers may pass the page itself
    assert page_title(b"<title>From bytes</title>") == "From bytes"
    assert meta_description('<meta name="description" content="From text">') == "From text"
    with pytest.raises(TypeError):
        page_title(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------------------------
# Conformance: real publisher pages from ../shared/corpus
# ---------------------------------------------------------------------------------------------------------------------

# file -> (article sentence kept in both modes, menu/footer strings removed, strings only publication mode removes)
CORPUS_PAGES: dict[str, tuple[str, list[str], list[str]]] = {
    "plos_one_article.html": (
        (
            "Each week, paired egg and serum samples from each chicken were collected from 72 SPF chickens for "
            "10 weeks from the age of 25 to 34 weeks old."
        ),
        [
            "create account",
            "Submission Guidelines",
            "Reader Comments",
            "Download PDF",
            "PLOS is a nonprofit 501(c)(3) corporation",
            "Privacy Policy",
        ],
        ["Occurrence of reticuloendotheliosis in Chinese partridge"],
    ),
    "peerj_oa_article.html": (
        "The movement to provide open access (OA) to all research literature is now over fifteen years old.",
        [
            "Javascript is disabled in your browser",
            "PeerJ Publishing Overview",
            "Ask a question",
            "PeerJ team",
            "The authors would like to thank Dorothea Salo",
        ],
        ["(Bohannon, 2016; Greshake, 2017)"],
    ),
    "elife_article.html": (
        "These RNs in turn extend axons through the neck to the MG.",
        [
            "Skip to Content",
            "Submit my research",
            "Search by keyword or author",
            "Research categories",
            "Terms and conditions",
        ],
        ["Fold-change detection in biological systems"],
    ),
    "nature_article.html": (
        "But over the past two decades, 176 open-access journals",
        [
            "Skip to main content",
            "View all Nature Research journals",
            "Explore our content",
            "Investigating journals: The dark side of publishing",
            "Nature ISSN 1476-4687 (online)",
            "Press releases",
        ],
        [],
    ),
    "first_monday_ojs3_landingpage.html": (
        (
            "This is particularly the case for people with HIV, who are frequently stigmatized, surveilled, "
            "ostracized, and incarcerated"
        ),
        [
            "Skip to main navigation menu",
            "Editorial Team",
            "Privacy Statement",
            "Open Journal Systems",
            "A Great Cities Initiative of the University of Illinois at Chicago University Library",
        ],
        [],
    ),
    "first_monday_ojs3_fulltext.html": ("AIDS is essentially a crisis of governance", [], []),
    "dlib_05vanhyning.html": (
        (
            "The Zooniverse is the world-leading research crowdsourcing platform, hosting over 50 active projects "
            "and over 100 projects total since its inception in 2007."
        ),
        ["AUTHOR GUIDELINES", "CONTACT D-LIB", "Copyright ® 2017 Victoria Van Hyning"],
        [],
    ),
    "genders_g58_fairlie.html": (
        "Cuween, a small Neolithic cairn, perches on top of a hill on the Orkney Mainland.",
        [],
        [],
    ),
}


@pytest.fixture(scope="module")
def publisher_pages(corpus_dir: Path) -> dict[str, dict]:
    """File name -> manifest entry, for the recorded publisher pages."""
    with open(corpus_dir / "manifest.jsonl", encoding="utf-8") as f:
        entries = [json.loads(line) for line in f if line.strip()]
    return {Path(e["body"]).name: e for e in entries if e.get("resource") == "publisher_page" and e.get("body")}


@pytest.mark.parametrize("name", sorted(CORPUS_PAGES))
def test_corpus_publisher_page(name: str, corpus_dir: Path, publisher_pages: dict[str, dict]) -> None:
    entry = publisher_pages.get(name)
    assert entry is not None, f"{name} is not a publisher_page in the corpus manifest"
    raw = (corpus_dir / entry["body"]).read_bytes()
    sentence, removed, publication_removed = CORPUS_PAGES[name]
    uncleaned = element_text(parse_html(raw).body)

    text = clean_html(raw, entry["url"])
    publication_text = clean_html(raw, entry["url"], publication=True)
    description = meta_description(parse_html(raw))
    for cleaned in (text, publication_text):
        assert sentence in cleaned
        if description:  # the dlib and genders pages have none
            assert cleaned.startswith(f"{description}\n\n")
        assert "\n\n\n" not in cleaned and " \n" not in cleaned
    for needle in removed:
        assert needle in uncleaned, f"{needle!r} is not in the page at all"
        assert needle not in text
        assert needle not in publication_text
    for needle in publication_removed:
        assert needle in text
        assert needle not in publication_text


def test_every_corpus_publisher_page_is_covered(publisher_pages: dict[str, dict]) -> None:
    assert sorted(publisher_pages) == sorted(CORPUS_PAGES), "add the new corpus page's expectations to CORPUS_PAGES"


def test_corpus_pages_as_text_from_the_http_client_and_as_bytes_alike(
    corpus_dir: Path, publisher_pages: dict[str, dict]
) -> None:
    """HttpClient hands callers FetchResult.text decoded by pubfetch.net.encoding; raw bytes (BeautifulSoup's own
    sniffing, e.g. windows-1252 for the undeclared genders page) must clean to the same text."""
    for entry in publisher_pages.values():
        raw = (corpus_dir / entry["body"]).read_bytes()
        text, _, _ = decode_body(entry["headers"].get("Content-Type"), raw)
        assert clean_html(text) == clean_html(raw), entry["body"]
