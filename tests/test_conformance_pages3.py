"""Conformance over the third batch of recorded publisher pages (../shared/corpus/pages3.jsonl): 46 pages of 21
platforms, old and current layouts, each with an ``expected`` object a person wrote by reading the page.

Every page with a doi.org redirect is fetched as a publication by its DOI through the redirect, from the replay proxy,
exactly as a user's fetch reaches it; the PMC pages (whose DOIs lead to the publisher, so no redirect is recorded) are
read through the same DOI-page code (``resources.site.fetch_site``) at their recorded URL. Each expectation is checked:

* title: the displayed title, compared without whitespace (and with the Unicode dashes as "-": the expectations take
  some titles from meta tags that write a hyphen where the page shows an en dash);
* DOI;
* abstract: opens with ``abstract_starts`` (whitespace collapsed) and holds at least ``abstract_nonspace_min``
  non-space characters;
* full text: at least ``fulltext_nonspace_min`` non-space characters besides title and abstract; a page that holds no
  full text (``kind`` abstract, other) gives none as the article's (at most PubFetcher's cleaned page, of the lowest
  part type ``webpage``, for a page no rule knows);
* blocked pages give nothing.

A table by platform (what held, out of what was expected) is printed with the results.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from pubfetch.fetcher import init_publication
from pubfetch.ids import classify
from pubfetch.model.part_type import PartType
from pubfetch.resources.pubstate import PubState
from pubfetch.resources.site import fetch_site
from support.fetchrun import run_context
from support.replayrun import config_for

MANIFEST = "pages3.jsonl"
_DASHES = re.compile("[\u2010-\u2015\u2212]")
ASPECTS = ("title", "doi", "abstract", "fulltext")


def squash(text: str) -> str:
    return _DASHES.sub("-", "".join((text or "").split()))


def nonspace(text: str) -> int:
    return len("".join((text or "").split()))


def platform(entry: dict) -> str:
    return entry["body"].split("/")[2]


@pytest.fixture(scope="module")
def fetched(replay_server, corpus_page_fetches):
    """Page name -> (its manifest entry, the publication fetched for its DOI)."""
    replay, _ = replay_server
    pages = [e for e in replay.by_resource("publisher_page") if e["_manifest"] == MANIFEST]
    redirects = {e["headers"]["Location"]: e for e in replay.by_resource("doi_redirect") if e["_manifest"] == MANIFEST}
    by_doi = corpus_page_fetches.by_doi()
    out = {e["name"]: (e, by_doi.get(redirects[e["url"]]["ids"]["doi"].upper())) for e in pages if e["url"] in redirects}
    unreached = [e for e in pages if e["url"] not in redirects and e["expected"]["doi"]]
    for entry, pub in zip(unreached, corpus_page_fetches.at_url([(e["url"], e["expected"]["doi"]) for e in unreached]),
                          strict=True):
        out[entry["name"]] = (entry, pub)
    return out


def outcomes(entry: dict, pub) -> dict[str, bool | None]:
    """Per aspect: True (as expected), False (not), None (nothing expected)."""
    x = entry["expected"]
    title, abstract, fulltext = pub.title.content, pub.abstract.content, pub.fulltext.content
    if x["kind"] == "blocked":
        return {"title": title == "", "doi": None, "abstract": abstract == "", "fulltext": fulltext == ""}
    result: dict[str, bool | None] = {"title": squash(title) == squash(x["title"]), "doi": None, "abstract": None}
    if x["doi"]:
        result["doi"] = pub.doi.content == x["doi"].upper()
    if x["abstract_starts"]:
        result["abstract"] = (" ".join(abstract.split()).startswith(x["abstract_starts"])
                              and nonspace(abstract) >= x["abstract_nonspace_min"])
    if x["fulltext_nonspace_min"]:
        body = nonspace(fulltext) - nonspace(title) - nonspace(abstract)
        result["fulltext"] = body >= x["fulltext_nonspace_min"] and pub.fulltext.type is not PartType.na
    else:
        result["fulltext"] = fulltext == "" or pub.fulltext.type is PartType.webpage
    return result


def test_every_page_of_the_batch_is_read(fetched) -> None:
    assert len(fetched) == 45  # the 46 pages but the consent page, which belongs to no DOI (tested below)
    assert all(pub is not None for _, pub in fetched.values())


@pytest.mark.parametrize("aspect", ASPECTS)
def test_expectations_hold(aspect: str, fetched) -> None:
    wrong = {name: (pub.title.content[:80], pub.abstract.content[:60], len(pub.fulltext.content), pub.fulltext.type.name)
             for name, (entry, pub) in fetched.items() if outcomes(entry, pub)[aspect] is False}
    assert wrong == {}


def test_pages_with_full_text_give_it_as_the_article_text(fetched) -> None:
    """The full text starts with the article's title (PubFetcher's title, abstract, body) and holds no reference
    list: the reader leaves back matter out, as the rules do."""
    for name, (entry, pub) in fetched.items():
        if entry["expected"]["kind"] != "fulltext":
            continue
        text = pub.fulltext.content
        assert squash(text).startswith(squash(pub.title.content)[:30]) or squash(entry["expected"]["title"])[:30] in \
            squash(text[:2000]), name
        assert not re.search(r"(?m)^References\s*$", text), name


def test_table_by_platform(fetched) -> None:
    """What held, per platform; printed so that a run shows it (the other tests fail on any miss)."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: {a: [0, 0] for a in (*ASPECTS, "pages")})
    for entry, pub in fetched.values():
        row = counts[platform(entry)]
        result = outcomes(entry, pub)
        for aspect, ok in result.items():
            if ok is not None:
                row[aspect][1] += 1
                row[aspect][0] += bool(ok)
        row["pages"][1] += 1
        row["pages"][0] += all(ok is not False for ok in result.values())
    lines = ["", f"{'platform':24} {'pages':>7} {'title':>7} {'doi':>7} {'abstract':>9} {'fulltext':>9}"]
    total = {a: [0, 0] for a in (*ASPECTS, "pages")}
    for name in sorted(counts):
        row = counts[name]
        for a in total:
            total[a][0] += row[a][0]
            total[a][1] += row[a][1]
        lines.append(f"{name:24} " + " ".join(f"{row[a][0]:>{w - 3}}/{row[a][1]:<2}" for a, w in
                                               (("pages", 7), ("title", 7), ("doi", 7), ("abstract", 9),
                                                ("fulltext", 9))))
    lines.append(f"{'all':24} " + " ".join(f"{total[a][0]:>{w - 3}}/{total[a][1]:<2}" for a, w in
                                          (("pages", 7), ("title", 7), ("doi", 7), ("abstract", 9), ("fulltext", 9))))
    print("\n".join(lines))
    assert total["pages"][0] == total["pages"][1]


def test_consent_page_gives_nothing(replay_server) -> None:
    """The Informit SSO consent page (kind "blocked", no DOI) is recognised as no article: nothing is taken."""
    replay, server = replay_server
    entry = next(e for e in replay.by_resource("publisher_page")
                 if e["_manifest"] == MANIFEST and e["expected"]["kind"] == "blocked")
    cfg = config_for(server)
    with run_context(cfg) as ctx:
        state = PubState(init_publication(classify("10.1234/consent.page"), cfg.fetching))
        fetch_site(ctx, state, entry["url"], PartType.doi, "https://doi.org/10.1234/consent.page", meta=True,
                   keywords=True)
    assert (state.pub.title.content, state.pub.abstract.content, state.pub.fulltext.content) == ("", "", "")
    assert state.pub.visited_sites == []


def test_titles_keep_the_pages_spacing(fetched) -> None:
    """Titles as the page spaces them, not only the same characters: no publisher artefact from a meta tag ("Ni 12 P
    5" for the heading's Ni<sub>12</sub>P<sub>5</sub>, RSC) and no space inside brackets from the source's line breaks
    ("( Aeschynomene", Hindawi); whitespace runs as one space, dashes as "-"."""
    def spaced(text: str) -> str:
        return _DASHES.sub("-", " ".join((text or "").split()))

    wrong = {name: (pub.title.content, entry["expected"]["title"]) for name, (entry, pub) in fetched.items()
             if entry["expected"]["title"] and spaced(pub.title.content) != spaced(entry["expected"]["title"])}
    assert wrong == {}
