"""The link queue of a publication (pubfetch/resources/links.py): best part type first and first come first among
equals, each page tried once however it is spelt, DOI and PMC links turned into IDs instead of visits, and the queue
written to JSON and read back unchanged for the retry on disk."""

from __future__ import annotations

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.resources.links import Links, QueuedLink

ARGS = FetcherArgs()
FROM = "https://journal.example/article"


def popped(links: Links) -> list[str]:
    out = []
    while (link := links.pop()) is not None:
        out.append(link.url)
    return out


def test_links_come_out_best_type_first_and_in_order_among_equals() -> None:
    links = Links()
    assert links.add("https://a.example/meta", PartType.link_meta, FROM, None, ARGS)
    assert links.add("https://b.example/oa", PartType.link_oadoi, FROM, None, ARGS)  # final
    assert links.add("https://c.example/link", PartType.link, FROM, None, ARGS)  # final, equivalent to link_oadoi
    assert links.add("https://d.example/paper.pdf", PartType.pdf_citation, FROM, None, ARGS)
    assert popped(links) == ["https://b.example/oa", "https://c.example/link", "https://a.example/meta",
                             "https://d.example/paper.pdf"]


def test_a_page_is_queued_once_keeping_the_better_type_and_never_tried_twice() -> None:
    links = Links()
    assert links.add("https://a.example/p?x=1", PartType.link_meta, FROM, None, ARGS)
    assert links.add("http://a.example/p?x=1#section", PartType.link_citation, FROM, None, ARGS)  # same page, better
    assert not links.add("https://a.example/p?x=1", PartType.pdf_meta, FROM, None, ARGS)  # same page, worse
    assert [(link.url, link.type) for link in links] == [("http://a.example/p?x=1#section", PartType.link_citation)]
    assert popped(links) == ["http://a.example/p?x=1#section"]
    assert not links.add("https://a.example/p?x=1", PartType.link, FROM, None, ARGS)  # tried already
    links.add_tried("https://visited.example/page")
    assert not links.add("https://visited.example/page", PartType.link, FROM, None, ARGS)


def test_dois_malformed_urls_and_pmc_pages_are_not_queued_but_pmc_ids_are_taken() -> None:
    links = Links()
    pub = Publication()
    assert not links.add("https://doi.org/10.1093/nar/gkz369", PartType.link, FROM, pub, ARGS)
    assert not links.add("mailto:someone@example.org", PartType.link, FROM, pub, ARGS)
    assert not links.add("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6198355/", PartType.link, FROM, pub, ARGS)
    assert not links.add("https://europepmc.org/abstract/MED/31114920", PartType.link, FROM, pub, ARGS)
    assert len(links) == 0
    assert (pub.pmcid.content, pub.pmid.content) == ("PMC6198355", "31114920")
    assert pub.pmcid.type is PartType.link and pub.pmcid.url == FROM
    # a PMC PDF is queued when PDFs of those sites are wanted
    assert links.add("https://europepmc.org/articles/PMC6198355/pdf", PartType.pdf_link, FROM, pub, ARGS,
                     pmc_pdf=True)


def test_a_failed_link_queued_again_comes_out_again() -> None:
    links = Links()
    links.add("https://a.example/page", PartType.link, FROM, None, ARGS)
    [link] = [links.pop()]
    assert links.pop() is None
    links.again(link)
    assert popped(links) == ["https://a.example/page"]


def test_the_queue_and_the_tried_pages_survive_json() -> None:
    links = Links()
    for url, type_ in (("https://a.example/1", PartType.link_meta), ("https://b.example/2", PartType.link),
                       ("https://c.example/3.pdf", PartType.pdf_meta)):
        links.add(url, type_, FROM, None, ARGS)
    tried = links.pop()
    back = Links.from_json(links.to_json())
    assert list(back) == list(links) and [q.type for q in back] == [q.type for q in links]
    assert tried is not None and not back.add(tried.url, PartType.link, FROM, None, ARGS)


def test_queued_links_are_equal_when_they_name_the_same_page() -> None:
    a = QueuedLink("https://a.example/p?q=1#top", PartType.link, FROM)
    b = QueuedLink("http://a.example/p?q=1", PartType.pdf_meta, "elsewhere")
    assert a == b and len({a, b}) == 1
    assert a != QueuedLink("https://a.example/p?q=2", PartType.link, FROM)
