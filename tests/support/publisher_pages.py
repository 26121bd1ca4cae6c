"""Synthetic publisher pages built from independent parts, for the tests that the generic article reader copes with
layouts it has never seen: where the title is given (meta tags, JSON-LD, ``<h1>``, ``<title>``), how the abstract is
marked (heading, class, id, role, itemprop, JATS-like sections, structured labels), which meta descriptions the page
carries, what wraps the main content, and the page chrome around it (menus, side columns of other papers' abstracts,
a cookie banner, figures, acknowledgements and references).

Each part is a small function of the texts below; :func:`publisher_page` puts one choice of each together, so a test
parametrised over one dimension can hold the others at any value.
"""

from __future__ import annotations

import html as htmlmod
import json
from dataclasses import dataclass

TITLE = "Tidal sediment supply controls the resilience of salt marshes"
JOURNAL = "Journal of Estuarine Studies"
SITE = "Tidewater Press"
HOST = "tidewaterpress.example"

#: The abstract as the page shows it: paragraphs (an unstructured abstract of two paragraphs) ...
ABSTRACT_PARAGRAPHS = (
    "Salt marshes keep pace with rising seas by trapping mineral sediment and building organic soil, but how much "
    "each process contributes differs between estuaries. We measured surface elevation change at forty marsh sites "
    "along three estuaries between 2015 and 2021 and related it to suspended sediment, tidal range and vegetation.",
    "Marshes with a high sediment supply gained elevation faster than local sea level rose, whereas sediment-starved "
    "marshes lost ground within six years. Vegetation height mattered less than sediment supply at every site, and "
    "tidal range only modulated the effect. Managing sediment at the catchment scale is therefore the lever that "
    "decides whether these marshes survive the coming century.",
)
#: ... and a structured abstract: (label, text).
STRUCTURED = (
    ("Background", "Salt marshes keep pace with rising seas by trapping mineral sediment and building organic soil, "
                   "but the share of each process is unknown for most estuaries."),
    ("Methods", "We measured surface elevation change at forty marsh sites along three estuaries between 2015 and "
                "2021 and related it to suspended sediment, tidal range and vegetation."),
    ("Results", "Marshes with a high sediment supply gained elevation faster than local sea level rose, whereas "
                "sediment-starved marshes lost ground within six years."),
    ("Conclusions", "Managing sediment at the catchment scale decides whether these marshes survive the coming "
                    "century."),
)
BLURB = (f"{JOURNAL} publishes original research on estuaries, coasts and their ecology. Read the latest articles "
         f"from {SITE}.")
SECTIONS = ("Introduction", "Study sites", "Methods", "Results", "Discussion")
ACKNOWLEDGEMENT = "We thank the harbour master of Saltby for access to the marshes over six field seasons."
REFERENCE = "Morris, J. T. et al. (2002). Responses of coastal wetlands to rising sea level. Ecology 83, 2869-2877."
CAPTION = "Figure 1. Map of the forty marsh sites along the three estuaries and their tide gauges."
COOKIE = "We use cookies to improve your experience on our site. By continuing you agree to our use of cookies."
KEYWORDS = "Keywords: salt marsh; sediment supply; sea-level rise; accretion"
MENU = ("Home", "Browse journals", "Submit a manuscript", "Subscribe", "Contact us")

_WORDS = ("accretion", "sediment", "tide", "marsh", "estuary", "elevation", "vegetation", "channel", "creek", "mudflat",
          "storm", "plot", "core", "gauge", "season", "flood", "root", "biomass", "salinity", "turbidity")


def body_paragraph(section: int, paragraph: int) -> str:
    """A paragraph of running text, different in every section and paragraph (main-content finders drop repeats)."""
    words = [_WORDS[(section * 7 + paragraph * 3 + k) % len(_WORDS)] for k in range(9)]
    return (f"In the {SECTIONS[section].lower()} part {paragraph}, the {words[0]} and the {words[1]} of each site were "
            f"recorded against the {words[2]} over the six years of the study. Sites where the {words[3]} met the "
            f"{words[4]} showed the clearest change in {words[5]}, while the {words[6]} near the {words[7]} changed "
            f"little. These observations of {words[8]} agree with the model described in the previous section.")


def abstract_text(structured: bool = False) -> str:
    """The abstract as the reader returns it: paragraphs separated by blank lines, a structured abstract's labels
    on lines of their own."""
    if structured:
        return "\n\n".join(f"{label}\n\n{text}" for label, text in STRUCTURED)
    return "\n\n".join(ABSTRACT_PARAGRAPHS)


def squash(text: str) -> str:
    """Text without whitespace: what stays the same however a page lays it out."""
    return "".join(text.split())


# ----------------------------------------------------------------------------------------------- abstract markup


def _paragraphs(structured: bool, labels: str = "h3") -> str:
    """The abstract's own paragraphs; a structured abstract's labels as ``labels`` elements (h2-h6), bold run-in
    labels (``strong``), or JATS-like ``div.sec`` sections with an ``h3`` title (``sec``)."""
    if not structured:
        return "".join(f"<p>{p}</p>" for p in ABSTRACT_PARAGRAPHS)
    if labels == "sec":
        return "".join(f'<div class="sec"><h3 class="title">{label}</h3><p>{text}</p></div>'
                       for label, text in STRUCTURED)
    if labels == "strong":
        return "".join(f"<p><strong>{label}</strong></p><p>{text}</p>" for label, text in STRUCTURED)
    return "".join(f"<{labels}>{label}</{labels}><p>{text}</p>" for label, text in STRUCTURED)


#: How pages mark their abstract, each a function of ``structured`` giving the markup; the heading-only ones are
#: followed by the first body section's heading in the page, which ends them.
ABSTRACT_MARKUP = {
    "h2-Abstract": lambda s: f"<h2>Abstract</h2>{_paragraphs(s)}",
    "h3-ABSTRACT": lambda s: f"<h3>ABSTRACT</h3>{_paragraphs(s, 'h4')}",
    "h4-Summary": lambda s: f"<h4>Summary</h4>{_paragraphs(s, 'h5')}",
    "h2-spaced-A-B-S": lambda s: f"<h2>A B S T R A C T</h2>{_paragraphs(s)}",
    "strong-Abstract": lambda s: f"<p><strong>Abstract</strong></p>{_paragraphs(s, 'strong')}",
    "div.title-Abstract": lambda s: f'<div class="title">Abstract</div>{_paragraphs(s, "strong")}',
    "class-abstract": lambda s: f'<div class="abstract">{_paragraphs(s)}</div>',
    "class-article-abstract": lambda s: f'<section class="article-abstract">{_paragraphs(s)}</section>',
    "class-abstractSection": lambda s: f'<div class="abstractSection abstractInFull">{_paragraphs(s)}</div>',
    "class-hlFld-Abstract": lambda s: f'<div class="hlFld-Abstract"><h2 class="sectionHeading">Abstract</h2>'
                                      f'{_paragraphs(s)}</div>',
    "id-abstract": lambda s: f'<div id="abstract">{_paragraphs(s)}</div>',
    "id-Abs1-heading": lambda s: f'<section aria-labelledby="Abs1"><h2 id="Abs1">Abstract</h2><div id="Abs1-content">'
                                 f'{_paragraphs(s)}</div></section>',
    "class-abs-heading": lambda s: f'<div class="abs"><h2>Abstract</h2>{_paragraphs(s)}</div>',
    "role-doc-abstract": lambda s: f'<section role="doc-abstract"><h2>Abstract</h2>{_paragraphs(s)}</section>',
    "itemprop-abstract": lambda s: f'<div itemprop="abstract">{_paragraphs(s)}</div>',
    "itemprop-description-heading": lambda s: f'<div itemprop="description"><h2>Abstract</h2>{_paragraphs(s)}</div>',
    "jats-div.abstract-div.sec": lambda s: f'<div class="abstract" lang="en"><h2 class="title">Abstract</h2>'
                                           f'{_paragraphs(s, "sec")}</div>',
    "label-with-colon": lambda s: f"<h2>Abstract:</h2>{_paragraphs(s)}",
}


# ---------------------------------------------------------------------------------------------- title and heads


def meta(name: str, content: str, attribute: str = "name") -> str:
    return f'<meta {attribute}="{name}" content="{htmlmod.escape(content)}">'


#: Where a page gives its title in the head, each a function of the title text.
TITLE_META = {
    "citation_title": lambda t: meta("citation_title", t),
    "dc.title": lambda t: meta("dc.title", t),
    "DC.Title": lambda t: meta("DC.Title", t),
    "jsonld-headline": lambda t: '<script type="application/ld+json">' + json.dumps(
        {"@context": "https://schema.org", "@type": "ScholarlyArticle", "headline": t}) + "</script>",
    "jsonld-name": lambda t: '<script type="application/ld+json">' + json.dumps(
        {"@context": "https://schema.org", "@type": "ScholarlyArticle", "name": t}) + "</script>",
    "og:title": lambda t: meta("og:title", t, "property"),
}

#: Footnote marks as they end a title in a meta tag (text) ...
TEXT_MARKS = {"dagger": "\u2020", "double-dagger": "\u2021", "asterisk": "*", "section": "\u00a7",
              "asterisk-comma-digit": "*,1", "spaced-dagger": " \u2020", "two-marks": "\u2020\u2021"}
#: ... and in an <h1> (markup).
MARKUP_MARKS = {**{name: htmlmod.escape(mark) for name, mark in TEXT_MARKS.items()},
                "sup-digit": "<sup>1</sup>", "sup-letter": "<sup>a</sup>", "sup-dagger": "<sup>\u2020</sup>",
                "sup-link": '<sup><a href="#fn1">1</a></sup>', "link-mark": '<a href="#fn1" class="fn">*</a>',
                "sup-link-letter": '<sup><a href="#afn1">a</a></sup>', "sup-digits-comma": "<sup>1,2</sup>"}

#: How an <h1> holds the title: (markup, the title a person reads).
H1_MARKUP = {
    "plain": (TITLE, TITLE),
    "spans": ('<span class="title-main">Tidal sediment supply</span> <span>controls the resilience of salt marshes'
              "</span>", TITLE),
    "subtitle-span": (f'{TITLE}<span class="subtitle">: evidence from forty sites</span>',
                      f"{TITLE}: evidence from forty sites"),
    "em-and-sub": ("Tidal <em>sediment</em> supply controls CO<sub>2</sub> uptake of salt marshes",
                   "Tidal sediment supply controls CO2 uptake of salt marshes"),
    "sup-isotope": ("The <sup>13</sup>C signature of tidal sediment in salt marshes",
                    "The 13C signature of tidal sediment in salt marshes"),
    "line-break": ("Tidal sediment supply controls<br>the resilience of salt marshes", TITLE),
    "nested-div": (f'<div class="hlFld-Title"><span class="NLM_article-title">{TITLE}</span></div>', TITLE),
}

#: <title> elements with the site's boilerplate around the article title.
TITLE_TAGS = {
    "pipe-journal": f"{TITLE} | {JOURNAL}",
    "dash-site": f"{TITLE} - {SITE}",
    "site-dash": f"{SITE} - {TITLE}",
    "site-pipe": f"{SITE} | {TITLE}",
    "welcome": f"Welcome to {SITE}: {TITLE}",
    "fulltexthtml": f"{SITE} FullTextHTML page - {TITLE}",
    "full-text-html": f"{SITE} Full-Text HTML : {TITLE}",
    "two-parts": f"{TITLE} | {JOURNAL} | {SITE}",
    "colon-site": f"{TITLE} : {JOURNAL}",
    "emdash-site": f"{TITLE} \u2014 {SITE}",
}


# ------------------------------------------------------------------------------------------------- page layout


def cookie_banner() -> str:
    return f'<div id="cookie-banner" class="cookie-consent"><p>{COOKIE}</p><button>Accept all cookies</button></div>'


def site_header() -> str:
    links = "".join(f'<li><a href="/{i}">{m}</a></li>' for i, m in enumerate(MENU))
    return f'<header class="site-header"><div class="logo">{SITE}</div><nav><ul>{links}</ul></nav></header>'


def related_column() -> str:
    """A side column of other papers with their abstracts, which are never the article's."""
    other = ("Mangrove forests trap sediment at rates that depend on root density and tidal flooding; we surveyed "
             "twelve forests over a decade and found that rates doubled where roots were densest, with no effect of "
             "the tidal range on the outcome. ")
    return (f'<aside class="sidebar"><h2>Related articles</h2><div class="related-articles"><div class="abstract">'
            f"<h3>Abstract</h3><p>{other}</p></div></div></aside>")


def back_matter(headings: str = "h2") -> str:
    """Acknowledgements and references, headed as the body's sections are (a key of :data:`BODY_HEADINGS`)."""
    ack, refs = (BODY_HEADINGS[headings](len(SECTIONS) + i, h) for i, h in enumerate(("Acknowledgements",
                                                                                       "References")))
    return (f'<section class="ack">{ack}<p>{ACKNOWLEDGEMENT}</p></section>'
            f'<section class="ref-list">{refs}<ol><li>{REFERENCE}</li>'
            "<li>Kirwan, M. L. &amp; Megonigal, J. P. (2013). Tidal wetland stability. Nature 504, 53-60.</li></ol>"
            "</section>")


#: How the body's section headings are marked up: a function of the section's number and heading. Older layouts
#: write them as bold lines, numbered or not.
BODY_HEADINGS = {
    "h2": lambda i, h: f"<h2>{h}</h2>",
    "bold-line": lambda i, h: f"<p><b>{h}</b></p>",
    "bold-numbered-upper": lambda i, h: f"<p><strong>{i + 1}. {h.upper()}</strong></p>",
}


def body_sections(figure: bool = True, headings: str = "h2") -> str:
    parts = []
    for i, heading in enumerate(SECTIONS):
        fig = (f'<figure><img src="/fig1.png" alt=""><figcaption>{CAPTION}</figcaption></figure>'
               if figure and i == 1 else "")
        parts.append(f"<section>{BODY_HEADINGS[headings](i, heading)}<p>{body_paragraph(i, 0)}</p>{fig}"
                     f"<p>{body_paragraph(i, 1)}</p></section>")
    return "".join(parts)


#: Where the article's <h1> sits inside the article: a function of the heading's markup.
H1_PLACES = {
    "article": lambda h: h,
    "article-header": lambda h: f'<header class="article-header">{h}<div class="dates">Published 3 May 2021</div>'
                                "</header>",
    "title-block": lambda h: f'<div class="article-title-block"><div class="inner">{h}</div></div>',
}

#: What wraps the article: a function of the article's markup.
CONTAINERS = {
    "article": lambda a: f"<main><article>{a}</article></main>",
    "main": lambda a: f'<main id="main-content">{a}</main>',
    "div#content": lambda a: f'<div id="content"><div class="article-body">{a}</div></div>',
    "role-main": lambda a: f'<div role="main"><div class="inner">{a}</div></div>',
    "table-layout": lambda a: f'<table width="100%"><tr><td class="left-menu"><a href="/">Home</a><br>'
                              f'<a href="/browse">Browse</a></td><td class="main-cell">{a}</td></tr></table>',
}


@dataclass(frozen=True)
class Page:
    """One choice per dimension; :func:`publisher_page` renders it."""

    head: str = ""  # extra markup in <head>: meta tags, JSON-LD
    title_tag: str = f"{TITLE} | {JOURNAL}"
    h1: str = TITLE  # markup inside the <h1>; "" for a page without one
    abstract: str = ABSTRACT_MARKUP["class-abstract"](False)  # markup of the abstract; "" for none
    container: str = "article"
    body: bool = True  # the article's sections
    chrome: bool = True  # header menu, cookie banner, side column, footer
    back: bool = True  # acknowledgements and references
    related_first: bool = False  # the side column of other papers before the article rather than after it
    h1_place: str = "article"  # a key of H1_PLACES
    body_headings: str = "h2"  # a key of BODY_HEADINGS
    keywords: bool = False  # a keywords line after the abstract


def publisher_page(page: Page = Page()) -> str:
    """The page as HTML: the site's header, the article (its <h1>, abstract, body and back matter) in its container,
    a side column of other papers, the footer."""
    heading = H1_PLACES[page.h1_place](f'<h1 class="article-title">{page.h1}</h1>') if page.h1 else ""
    keywords = f'<p class="kwd-group">{KEYWORDS}</p>' if page.keywords else ""
    article = (heading + '<div class="authors">Ana Ramos, Li Wei and Sam Okafor</div>' + page.abstract + keywords
               + (body_sections(headings=page.body_headings) if page.body else "")
               + (back_matter(page.body_headings) if page.back else ""))
    related = related_column() if page.chrome else ""
    chrome_top = cookie_banner() + site_header() + (related if page.related_first else "") if page.chrome else ""
    chrome_bottom = ("" if page.related_first else related) + (
        f"<footer><p>\u00a9 2021 {SITE}. All rights reserved.</p></footer>" if page.chrome else "")
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{htmlmod.escape(page.title_tag)}'
            f"</title>{page.head}</head><body>{chrome_top}{CONTAINERS[page.container](article)}{chrome_bottom}"
            "</body></html>")
