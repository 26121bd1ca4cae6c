"""Content checks on every publisher page of ../shared/corpus that shows an article's full text or its abstract (the
``fulltext`` and ``abstract`` pages of manifest.jsonl, pages.jsonl and pages3.jsonl): not only that an abstract and a
full text came, but that they are the page's own.

The expectations are the test's own table, tests/data/page_content.json, written by reading each page's HTML (never
pubfetch's output): the abstract's first words (``abstract_starts``, whitespace collapsed), its exact count of
non-space characters (``abstract_nonspace``: the abstract's own block as the page shows it, structured-abstract labels
in, a leading "Abstract" heading, highlights and keywords out), and a plain sentence from the middle of the body
(``body_sentence``); ``note`` says where a choice needed judgment.

Each page is reached as the other conformance tests reach it: by its DOI through the recorded doi.org redirect, from
the replay proxy; a page no redirect leads to is read at its URL by the DOI-page code (``resources.site.fetch_site``)
for a publication of its DOI. A page passes when

* its abstract starts with ``abstract_starts`` and holds 0.8 to 1.2 x ``abstract_nonspace`` non-space characters (an
  abstract that swallows the page around it, or is cut, fails), or, where the page shows no abstract, no abstract is
  taken from the page;
* its full text, whitespace collapsed, holds ``body_sentence`` (fulltext pages).

Pages the reader does not get right yet are listed in KNOWN_FAILURES with the reason; they are expected to fail
(``xfail``), and one that passes fails the run, so the list only shrinks. A table by platform is printed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

TABLE = json.loads((Path(__file__).parent / "data" / "page_content.json").read_text(encoding="utf-8"))

#: page name -> why its content is not right yet (the work list of issue 32); a page listed here that passes fails
#: the run: take it off the list.
KNOWN_FAILURES: dict[str, str] = {}


def collapse(text: str | None) -> str:
    return " ".join((text or "").split())


def nonspace(text: str | None) -> int:
    return len("".join((text or "").split()))


@pytest.fixture(scope="module")
def fetched(replay_server, corpus_page_fetches) -> dict[str, tuple[dict, object]]:
    """Page name -> (its manifest entry, the publication fetched for its DOI), for every page of the table."""
    replay, _ = replay_server
    pages = {e["name"]: e for e in replay.by_resource("publisher_page") if e["name"] in TABLE}
    redirects = {e["headers"]["Location"]: e["ids"]["doi"] for e in replay.by_resource("doi_redirect")}
    reached = {name: redirects[e["url"]] for name, e in pages.items() if e["url"] in redirects}
    by_doi = corpus_page_fetches.by_doi()
    out = {name: (pages[name], by_doi.get(doi.upper())) for name, doi in reached.items()}
    unreached = [name for name in pages if name not in reached]
    dois = [pages[name]["ids"].get("doi") or (pages[name].get("expected") or {}).get("doi") or TABLE[name]["doi"]
            for name in unreached]
    for name, pub in zip(unreached, corpus_page_fetches.at_url([(pages[n]["url"], d)
                                                                    for n, d in zip(unreached, dois, strict=True)]),
                         strict=True):
        out[name] = (pages[name], pub)
    return out


def check(name: str, entry: dict, pub) -> tuple[dict[str, bool | None], str]:
    """Per aspect (abstract, body): True (right), False (wrong), None (nothing expected); and what the page gave."""
    row = TABLE[name]
    abstract, fulltext = pub.abstract.content, pub.fulltext.content
    if row["abstract_nonspace"] is None:
        from_page = bool(abstract) and pub.abstract.url in {entry["url"], *(s.url for s in pub.visited_sites)}
        abstract_ok = not from_page
        said = f"abstract {collapse(abstract)[:80]!r} (from {pub.abstract.url or 'nowhere'}; the page shows none)"
    else:
        size, want = nonspace(abstract), row["abstract_nonspace"]
        starts = collapse(abstract).startswith(collapse(row["abstract_starts"]))
        abstract_ok = starts and 0.8 * want <= size <= 1.2 * want
        said = (f"abstract {collapse(abstract)[:80]!r}: {size} non-space against {want} ({size / want:.2f} x), "
                f"{'starts right' if starts else 'does not start with ' + repr(row['abstract_starts'])}")
    body_ok = None
    if row["body_sentence"] is not None:
        body_ok = collapse(row["body_sentence"]) in collapse(fulltext)
        said += (f"; body sentence {'found' if body_ok else 'NOT found'} (full text {len(fulltext)} chars, "
                 f"{pub.fulltext.type.name})")
    return {"abstract": abstract_ok, "body": body_ok}, said


def test_the_table_holds_every_fulltext_and_abstract_page(replay_server) -> None:
    """The third batch says each page's kind; the table holds exactly its fulltext and abstract pages, with their kind,
    and for the first two batches pages of those kinds only, each with what it shows."""
    replay, _ = replay_server
    third = {e["name"]: e["expected"]["kind"] for e in replay.by_resource("publisher_page")
             if e["_manifest"] == "pages3.jsonl" and e["expected"]["kind"] in ("fulltext", "abstract")}
    assert {name: row["kind"] for name, row in TABLE.items() if row["manifest"] == "pages3.jsonl"} == third
    names = {e["name"] for e in replay.by_resource("publisher_page")}
    assert set(TABLE) <= names
    for name, row in TABLE.items():
        assert row["kind"] in ("fulltext", "abstract"), name
        assert (row["abstract_starts"] is None) == (row["abstract_nonspace"] is None), name
        assert (row["body_sentence"] is not None) == (row["kind"] == "fulltext"), name
    assert len(TABLE) == 79
    assert set(KNOWN_FAILURES) <= set(TABLE)


def test_every_page_is_reached(fetched) -> None:
    assert sorted(fetched) == sorted(TABLE)
    unreached = [name for name, (_, pub) in fetched.items() if pub is None or not pub.visited_sites]
    assert unreached == []


@pytest.mark.parametrize("name", sorted(TABLE))
def test_page_content(name: str, fetched) -> None:
    entry, pub = fetched[name]
    result, said = check(name, entry, pub)
    passed = all(ok is not False for ok in result.values())
    if name in KNOWN_FAILURES:
        if passed:
            pytest.fail(f"{name} passes now: take it off KNOWN_FAILURES ({said})")
        pytest.xfail(f"{KNOWN_FAILURES[name]}; got {said}")
    assert passed, f"{name} ({TABLE[name]['platform']}, {entry['url']}): {said}"


def test_table_by_platform(fetched) -> None:
    """What held, per platform (pages right in full, abstracts, bodies), what every failing page gave, and the pages
    whose abstract passes the bounds but is not the page's exact block; printed so that a run shows it
    (test_page_content fails on a page not listed in KNOWN_FAILURES)."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: {a: [0, 0] for a in ("pages", "abstract", "body")})
    failing, inexact = [], []
    for name, (entry, pub) in sorted(fetched.items()):
        row = counts[TABLE[name]["platform"]]
        result, said = check(name, entry, pub)
        for aspect, ok in result.items():
            if ok is not None:
                row[aspect][1] += 1
                row[aspect][0] += ok
        passed = all(ok is not False for ok in result.values())
        row["pages"][1] += 1
        row["pages"][0] += passed
        if not passed:
            failing.append(f"  {name}: {said}")
        elif TABLE[name]["abstract_nonspace"] and abs(nonspace(pub.abstract.content) / TABLE[name]["abstract_nonspace"]
                                                      - 1) > 0.02:
            inexact.append(f"  {name}: {said}")
    counts["all"] = {a: [sum(r[a][0] for r in counts.values()), sum(r[a][1] for r in counts.values())]
                     for a in ("pages", "abstract", "body")}
    lines = ["", f"{'platform':24} {'pages':>7} {'abstract':>9} {'body':>7}"]
    for platform in [*sorted(p for p in counts if p != "all"), "all"]:
        row = counts[platform]
        lines.append(f"{platform:24} " + " ".join(f"{row[a][0]:>{w - 3}}/{row[a][1]:<2}" for a, w in
                                                   (("pages", 7), ("abstract", 9), ("body", 7))))
    print("\n".join([*lines, "", f"{len(failing)} pages not right:", *failing, "",
                     f"{len(inexact)} pages right within the bounds, their abstract's size off by more than 2 %:",
                     *inexact]))
    assert counts["all"]["pages"][1] == len(TABLE)
