"""The older layout generations the rules of nature.com, Springer Nature and Wiley read (scraping_rules/journals.yaml),
on pages made in each layout where the corpus holds no page of it (tests/data/pages/journals/): a letter's summary
paragraph as its abstract, a standfirst, and the bodies of items without sections (news, correspondence, an erratum,
an editorial), which are short and must still be the item's full text; then each page read as the publication's DOI
page. The recorded pages of these platforms are checked by their rule test entries (tests/test_rule_entries.py)."""

from __future__ import annotations

import pytest

from pubfetch.extract.scrape import scrape_journal
from pubfetch.model.part_type import PartType
from pubfetch.model.record import ArticleRecord
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import site
from support.fetchrun import fetch_run
from support.journal_pages import PAGES, RULES, scrape


def body(record: ArticleRecord) -> str:
    """The full text without the title and abstract the scraper puts in front of it."""
    return str(record.flags["body"])


def test_nature_2009_letter_summary_paragraph_is_the_abstract() -> None:
    """The 2009-2014 article template: a letter has no #abstract; its summary is the bold first paragraph of the first,
    untitled section. It is the abstract and not body; the "At a glance" figure strip, the jump menus, references and
    acknowledgements are no body either."""
    r = scrape("nature_2009_letter.html", "http://www.nature.com/nature/journal/v461/n7261/full/nature99001.html",
               "nature")
    assert r.title == "Cave fish lose their eyes by a single enhancer"
    assert r.abstract == (
        "Animals that colonise caves often lose their eyes1. Here we show that in the Mexican cave fish a single "
        "deleted enhancer of the gene pax6b is enough for the eye to degenerate, and that restoring it rescues the "
        "eye.")
    assert body(r) == (
        "Eye loss has evolved many times in cave animals2. We mapped the trait in crosses of cave and surface fish.\n\n"
        "The deleted enhancer drives expression in the lens placode of surface fish embryos but not of cave fish "
        "embryos.\n\nMethods\n\nFish were raised at 25 °C and crossed as described.")


def test_nature_letter_summary_wrapped_as_first_paragraph_and_as_lead() -> None:
    """The same template's other spellings of the summary: a #first-paragraph block (2013-2014) and p.lead."""
    html = (PAGES / "nature_2009_letter.html").read_text(encoding="utf-8")
    summary = html[html.index("<p><b>Animals"):html.index("</b></p>") + len("</b></p>")]
    text = summary.removeprefix("<p><b>").removesuffix("</b></p>")
    url = "http://www.nature.com/nature/journal/v461/n7261/full/nature99001.html"
    plain = scrape("nature_2009_letter.html", url, "nature")
    for spelling in (f'<div id="first-paragraph" class="first-paragraph"><p>{text}</p></div>',
                     f'<p class="lead">{text}</p>'):
        r = scrape_journal(html.replace(summary, spelling), url, RULES.journal_rule(url))
        assert (r.abstract, body(r)) == (plain.abstract, body(plain)), spelling


def test_nature_letter_without_a_bold_summary_keeps_its_first_paragraph_as_body() -> None:
    """A first paragraph not wholly in bold is the body's (a news item or correspondence of the same template), a bold
    opening word ("Sir") included."""
    html = (PAGES / "nature_2009_letter.html").read_text(encoding="utf-8")
    url = "http://www.nature.com/nature/journal/v461/n7261/full/nature99001.html"
    r = scrape_journal(html.replace("<p><b>Animals that", "<p>Animals <b>that</b>").replace("eye.</b></p>", "eye.</p>"),
                       url, RULES.journal_rule(url))
    assert r.abstract == ""
    assert body(r).startswith("Animals that colonise caves") and "Eye loss has evolved" in body(r)
    summary = html[html.index("<p><b>Animals"):html.index("</b></p>") + len("</b></p>")]
    sir = scrape_journal(html.replace(summary, "<p><b>Sir</b> — Cave fish deserve a closer look.</p>"), url,
                         RULES.journal_rule(url))
    assert sir.abstract == ""
    assert body(sir).startswith("Sir — Cave fish deserve a closer look.\n\nEye loss has evolved")


@pytest.mark.parametrize("markup", [
    '<div id="abstract" class="section"><h2>Abstract</h2><div id="abstract-content" class="content"><p>{}</p></div>'
    "</div>",
    '<div id="abs"><p>{}</p><div class="keyw-abbr"><p>Keywords: cave fish</p></div></div>',
    '<p><a name="abstract"></a><span class="articletext">{}</span></p>',
])  # fmt: skip
def test_nature_abstract_of_the_layouts_before_and_after_the_2009_template(markup: str) -> None:
    """The abstract block of 2015-2018 (#abstract-content), of the journals' pages before 2009 (#abs, its keywords
    apart) and of the 2006 abstract pages (the text after an "abstract" anchor), read once and alone."""
    text = "Cave fish lose their eyes when one enhancer of pax6b is deleted."
    page = f"<html><body><h1 class=\"article-heading\">Cave fish</h1>{markup.format(text)}<p>Other text.</p></body></html>"
    url = "http://www.nature.com/ng/journal/v38/n8/abs/ng9999.html"
    assert scrape_journal(page, url, RULES.journal_rule(url)).abstract == text


def test_nature_2012_news_standfirst_and_body() -> None:
    r = scrape("nature_2012_news.html", "http://www.nature.com/news/glacier-retreat-speeds-up-in-the-andes-1.99001",
               "nature")
    assert r.title == "Glacier retreat speeds up in the Andes"
    assert r.abstract == "Satellite images show ice loss has doubled since the 1990s."
    assert body(r) == (
        "Tropical glaciers in Peru and Bolivia lost ice twice as fast in the past decade as in the 1990s, a study "
        "finds.\n\nThe team compared images from three satellites taken over 25 years.\n\n“The loss is faster than any "
        "model predicted,” says one author.\n\nWater supplies of several cities depend on the meltwater.")


def test_nature_correspondence_without_sections_today() -> None:
    """Today's c-article layout of an old item without sections: the text stands in the body container, no
    .main-content; the back-matter sections beside it are left out."""
    r = scrape("nature_correspondence_2008.html", "https://www.nature.com/articles/452999a", "nature")
    assert r.title == "Share field notebooks as well as data"
    assert r.abstract == ""
    assert body(r) == (
        "SIR — Your Editorial on data sharing rightly asks for raw measurements to be archived.\n\nBut field "
        "notebooks hold the context that makes the numbers usable: weather, dates, who measured what.\n\nFunding "
        "agencies should pay to scan them, as they pay for databases.")


def test_springer_erratum_without_main_content() -> None:
    r = scrape("springer_erratum.html", "https://link.springer.com/article/10.1007/s00999-016-0002-2",
               "springer_nature")
    assert r.title == "Erratum to: Sleep and memory in older adults"
    assert body(r) == (
        "The online version of the original article can be found under doi:10.1007/s00999-016-0001-1.\n\n"
        "In the original publication, the second author's name was misspelled. The correct name is Jan Novak.\n\n"
        "The original article has been corrected.")


def test_springerlink_2016_erratum_paragraphs_without_sections() -> None:
    """SpringerLink's 2016-2019 layout: an erratum's paragraphs stand straight in #body, without Section1 sections."""
    page = ('<html><body><div class="FulltextWrapper"><div class="ArticleHeader main-context"><h1 class="ArticleTitle">'
            'Erratum to: Sleep and memory in older adults</h1></div><div id="body"><p class="Para" id="Par1">The name of '
            'the second author was misspelled.</p><p class="Para" id="Par2">The correct name is Jan Novak.</p></div>'
            '<section id="Bib1" class="Section1 RenderAsSection1"><h2 class="Heading">References</h2><ol><li>Novak, J. '
            '(2015).</li></ol></section></div></body></html>')
    url = "https://link.springer.com/article/10.1007/s00999-016-0002-2"
    r = scrape_journal(page, url, RULES.journal_rule(url))
    assert r.title == "Erratum to: Sleep and memory in older adults"
    assert body(r) == "The name of the second author was misspelled.\n\nThe correct name is Jan Novak."


def test_wiley_2015_item_without_sections() -> None:
    """Wiley Online Library of 2012-2016: an editorial's paragraphs stand straight in #fulltext; its acknowledgements
    section and bibliography are no body."""
    r = scrape("wiley_2015_editorial.html", "http://onlinelibrary.wiley.com/doi/10.1111/jfe.12001/full", "wiley")
    assert r.title == "Open data in ecology: the next five years"
    assert body(r) == (
        "Five years ago this journal asked authors to archive the data behind their papers.\n\nMost now do so, and "
        "the archived data have been reused in 40 studies.\n\nFrom next year we will also ask for the code that "
        "produced each figure.")


#: recorded page (../shared/corpus), its URL, the abstract's first and last words (None: no abstract), words from the
#: middle of the body, and text of the page that must be in neither (summary, figure strips, menus, back matter)
RECORDED = [
    ("springer-nature/nature-nature13322-legacy-2014.html",
     "http://www.nature.com/nature/journal/vaop/ncurrent/full/nature13322.html",
     ("Rheumatoid arthritis is a chronic autoinflammatory", "pathology of rheumatoid arthritis."),
     "Activation of the Nlrp3 inflammasome in wild-type macrophages",
     ("At a glance", "Main • Methods", "Burger, D.", "Consortium, W. T. C. C.")),
    ("springer-nature/nature-nnano.2014.93-legacy-2014.html",
     "http://www.nature.com/nnano/journal/v9/n7/full/nnano.2014.93.html",
     ("Micro-supercapacitors are promising", "a light-emitting diode."),
     "The observed large volumetric capacitances",
     ("At a glance", "Abstract•", "Pech, D. et al.", "Ministry of Education")),
    ("wiley/wiley-advs.201500314-2016.html", "http://onlinelibrary.wiley.com/doi/10.1002/advs.201500314/full", None,
     "Perfect quasi-sd4 hybridization only exists",
     ("This is an open access article", "Prof. Hansong Cheng", "Top of page", "H. W. Kroto")),
    ("bmc-springeropen/bmc-plantmethods-10-1-41-2015.html", "http://www.plantmethods.com/content/10/1/41",
     ("Background", "http://candisnp.tsl.ac.uk webcite."), None,
     ("Adobe Acrobat Reader", "Authors’ contributions")),
]  # fmt: skip


@pytest.mark.parametrize(("path", "url", "abstract", "middle", "absent"), RECORDED, ids=[r[0] for r in RECORDED])
def test_recorded_page_abstract_is_its_own_block_and_body_holds_the_middle(path, url, abstract, middle, absent,
                                                                           corpus_dir) -> None:
    rule = RULES.journal_rule(url)
    r = scrape_journal((corpus_dir / "files" / "publisher_page" / path).read_bytes(), url, rule)
    if abstract is None:
        assert r.abstract == ""
    else:
        assert r.abstract.startswith(abstract[0]) and r.abstract.endswith(abstract[1])
        assert r.abstract[:200] not in body(r)
    if middle is not None:
        assert " ".join(middle.split()) in " ".join(body(r).split())
    for text in absent:
        assert text not in body(r) and text not in r.abstract, text


@pytest.mark.parametrize(("url", "rule_name"), [
    ("http://www.nature.com/news/2003/031208/full/news031208-13.html", "nature"),
    ("http://www.nature.com/news/glacier-retreat-speeds-up-in-the-andes-1.12345", "nature"),
    ("http://www.nature.com/nature/journal/v435/n7038/full/nature03503.html", "nature"),
])  # fmt: skip
def test_old_nature_addresses_lead_to_the_nature_rule(url: str, rule_name: str) -> None:
    assert RULES.site(url) == rule_name


#: page, its URL, DOI, title, the abstract (None: none on the page), the body's opening
THROUGH_THE_FETCHER = [
    ("nature_2009_letter.html", "http://www.nature.com/nature/journal/v461/n7261/full/nature99001.html",
     "10.1038/nature99001", "Cave fish lose their eyes by a single enhancer", "Animals that colonise caves",
     "Eye loss has evolved"),
    ("nature_correspondence_2008.html", "https://www.nature.com/articles/452999a", "10.1038/452999a",
     "Share field notebooks as well as data", None, "SIR — Your Editorial"),
    ("springer_erratum.html", "https://link.springer.com/article/10.1007/s00999-016-0002-2",
     "10.1007/s00999-016-0002-2", "Erratum to: Sleep and memory in older adults", None,
     "The online version of the original article"),
    ("wiley_2015_editorial.html", "http://onlinelibrary.wiley.com/doi/10.1111/jfe.12001/full", "10.1111/jfe.12001",
     "Open data in ecology: the next five years", None, "Five years ago this journal"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "url", "doi", "title", "abstract", "opening"), THROUGH_THE_FETCHER,
                         ids=[case[0] for case in THROUGH_THE_FETCHER])
def test_short_items_are_full_texts_through_the_doi_page_code(name, url, doi, title, abstract, opening) -> None:
    """The generic reader would ask a body for 2,000 characters; a rule's body is the item's full text however short."""
    run = fetch_run(1, answers={url: Canned(200, (PAGES / name).read_bytes(), "text/html; charset=utf-8")})
    state = run.pub_state(doi)
    with run.context() as ctx:
        site.fetch_site(ctx, state, url, PartType.doi, "https://doi.org/" + doi, meta=True, keywords=True)
    pub = state.pub
    assert pub.title.content == title
    if abstract is None:
        assert pub.abstract.content == ""
        assert pub.fulltext.content.startswith(f"{title}\n\n{opening}")
    else:
        assert pub.abstract.content.startswith(abstract)
        assert pub.fulltext.content.startswith(f"{title}\n\n{pub.abstract.content}\n\n{opening}")
    assert "References" not in pub.fulltext.content and "Acknowledgements" not in pub.fulltext.content
