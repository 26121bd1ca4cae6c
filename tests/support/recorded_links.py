"""The recorded answers that say who cites a paper (the corpus's apis.jsonl: Europe PMC's citations endpoint,
E-utilities ELink), and a fetch run that is answered with them, for the tests of the parsers, the links and the
snowball over recorded data. Each function takes the ``corpus_dir`` fixture's directory (whose test is skipped, with
the suite's one line, when the corpus is absent)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from pubfetch.net.mapping_transport import Canned
from support.fetchrun import FetchRun, fetch_run

#: the recorded citations pages served, by the PMID they list the citers of
CITATIONS = {"15723116": "epmc-citations-med15723116-page1", "20098740": "epmc-citations-med20098740-none"}
#: the recorded ELink answer served to every ELink request (``cmd=neighbor`` for 9298984: every link name, the
#: ``pubmed_pubmed_citedin`` links among them)
ELINK = "eutils-elink-pubmed-neighbor-9298984"


@cache
def _entries(corpus: Path) -> dict[str, dict]:
    lines = (corpus / "apis.jsonl").read_text(encoding="utf-8").splitlines()
    return {entry["name"]: entry for entry in map(json.loads, filter(str.strip, lines))}


def recorded(corpus: Path, name: str) -> bytes:
    return (corpus / _entries(corpus)[name]["body"]).read_bytes()


def recorded_citers(corpus: Path, name: str) -> list[str]:
    """The ``id`` of each entry of a recorded citations page, read with json (not the parser under test)."""
    return [c["id"] for c in json.loads(recorded(corpus, name))["citationList"]["citation"]]


def recorded_links_run(corpus: Path, asked: list[str]) -> FetchRun:
    """A fetch run whose Europe PMC citations and ELink answers are the recorded bodies, each URL asked appended to
    ``asked``. The citations endpoint was recorded in its legacy path form ``/MED/{id}/citations/{page}/json``; it is
    served here at today's ``?page=&pageSize=&format=json`` form, page 1 as recorded, any page not recorded a 404."""
    run = fetch_run(3)
    base = run.config.endpoints.europepmc

    def citations(request) -> Canned:
        asked.append(request.url)
        for pmid, name in CITATIONS.items():
            if request.url.startswith(f"{base}MED/{pmid}/citations?page=1&"):
                return Canned(200, recorded(corpus, name), "application/json")
        return Canned(404, "{}", "application/json")

    def elink(request) -> Canned:
        asked.append(request.url)
        return Canned(200, recorded(corpus, ELINK), "text/xml")

    run.transport.answers.update({f"{base}MED/*": citations, f"{run.config.endpoints.eutils}elink.fcgi": elink})
    return run
