"""A publisher page gives the licence its head states and the sections of its body: the headings of a scraping rule's
full-text body, else of the body the generic reader finds."""

from __future__ import annotations

from pathlib import Path

from pubfetch.model.part_type import PartType
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import site
from support.fetchrun import fetch_run
from support.loopback import Reply
from support.synthetic import Article, SyntheticServices

PARAGRAPH = ("The {0} of the study were examined in detail across several independent cohorts of patients. Each "
             "cohort was followed for a period of years, and the measurements were repeated at every visit by "
             "trained staff. The results were consistent with earlier reports and extend them to new settings. "
             "Missing values were rare, and the analyses were planned before the data were seen by the authors. "
             "Every figure of the paper can be made again from the shared data and the published analysis code.")


def _page(title: str) -> str:
    body = "".join(f"<h2>{h}</h2><p>{PARAGRAPH.format(h.lower())}</p><h3>{h} in detail</h3>"
                   f"<p>{PARAGRAPH.format(h.lower() + ' details')}</p>" for h in ("Background", "Methods", "Results"))
    return (f'<html><head><title>{title}</title><meta name="dc.rights" content="CC BY 4.0">'
            f"</head><body><article><h1>{title}</h1>{body}</article></body></html>")


def test_a_page_without_rule_gives_its_licence_and_sections() -> None:
    closed = Article(1)  # closed access: no JATS, so the page's sections are the only ones
    services = SyntheticServices(2)
    services.extra[f"/doi/{closed.doi.upper()}"] = Reply(302, "", "text/plain",
                                                         {"Location": f"{services.base}/article/1"})
    services.extra["/article/1"] = Reply(200, _page(closed.title), "text/html; charset=utf-8")
    [pub] = fetch_run(services).fetch([closed.pmid])
    assert services.counts["extra:/article/1"] == 1
    assert (pub.license.content, pub.license.type) == ("CC BY 4.0", PartType.dc)
    assert [(s.level, s.title) for s in pub.sections.items] == [
        (1, "Background"), (2, "Background in detail"), (1, "Methods"), (2, "Methods in detail"),
        (1, "Results"), (2, "Results in detail")]
    assert pub.sections.type is PartType.webpage
    assert pub.sections.items[0].text.startswith("The background of the study")


JOURNALS = Path(__file__).resolve().parent / "data" / "pages" / "journals"


def test_a_rule_page_gives_the_sections_of_the_rules_body() -> None:
    """Frontiers' rule reads the body; its headings (ranked: h2 level 1, h3 level 2) are the sections, with the
    page's type and address; the abstract and references the rule leaves out are no section."""
    url = "https://www.frontiersin.org/journals/psychology/articles/10.3389/fpsyg.2024.1300123/full"
    doi = "10.3389/fpsyg.2024.1300123"
    run = fetch_run(1, answers={url: Canned(200, (JOURNALS / "frontiers_2024_article.html").read_bytes(),
                                            "text/html; charset=utf-8")})
    state = run.pub_state(doi)
    with run.context() as ctx:
        site.fetch_site(ctx, state, url, PartType.doi, "https://doi.org/" + doi, meta=True, keywords=True)
    sections = state.pub.sections
    assert [(s.level, s.title) for s in sections.items] == [
        (1, "1 Introduction"), (1, "2 Materials and methods"), (2, "2.1 Participants"), (1, "3 Results"),
        (1, "Data availability statement")]
    assert (sections.type, sections.url) == (PartType.doi, url)
    assert sections.items[0].text.startswith("Sleep supports the consolidation of new memories")
    assert sections.items[1].text == ""  # its text is its subsection's
