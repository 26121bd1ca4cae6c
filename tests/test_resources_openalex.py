"""OpenAlex through the chain: the citation count and PubMed IDs of a DOI from its recorded work, its retraction flag
(no recorded work is retracted: a work with the recorded works' fields and ``is_retracted`` true), and no request at
all without an API key, with one line saying how to set it."""

from __future__ import annotations

from pubfetch.model.part_type import PartType
from support.apis_corpus import answered
from support.replayrun import fetch_all
from support.scholarly_runs import CROSSREF_DOIS, SCHOLARLY_ON

ON = {**SCHOLARLY_ON, "ask_biorxiv": False}


def work(doi: str, title: str) -> dict:
    return {"DOI": doi, "type": "journal-article", "title": [title], "prefix": doi.split("/")[0]}


def test_openalex_count_and_ids(corpus_dir, replay_server):
    """A DOI whose only record is OpenAlex's gets its citation count and its PMID (the chain then asks PubMed)."""
    _, server = replay_server
    (doc,) = [d for e, d in answered(corpus_dir, "openalex_work") if e["name"] == "openalex-work-doi-xgen.2025.100814"]
    (pub,) = fetch_all(server, ["10.1016/j.xgen.2025.100814"], **ON)
    assert pub.citations_count == doc["cited_by_count"]
    assert pub.pmid.content == doc["ids"]["pmid"].rsplit("/", 1)[-1] and pub.pmid.type is PartType.openalex


def test_openalex_without_key_is_skipped_with_one_line(replay_server, recwarn):
    replay, server = replay_server
    before = replay.counts["openalex"]
    fetch_all(server, CROSSREF_DOIS[:2], **{**ON, "openalex_api_key": ""})
    assert replay.counts["openalex"] == before
    lines = [str(w.message) for w in recwarn if "OpenAlex" in str(w.message)]
    assert len(lines) == 1 and "PUBFETCH_OPENALEX_API_KEY" in lines[0]


def test_openalex_flag(replay_server):
    replay, server = replay_server
    replay.scholarly.add("crossref", "10.9991/paper.c", work("10.9991/paper.c", "A paper only OpenAlex says is "
                                                                                "retracted"))
    replay.scholarly.add("openalex", "10.9991/paper.c", {
        "id": "https://openalex.org/W1", "doi": "https://doi.org/10.9991/paper.c", "title": "A paper",
        "ids": {"openalex": "https://openalex.org/W1", "doi": "https://doi.org/10.9991/paper.c"},
        "is_retracted": True, "cited_by_count": 4})
    (pub,) = fetch_all(server, ["10.9991/paper.c"], **ON)
    assert pub.retracted and pub.citations_count == 4
    assert pub.retraction.to_json() == {"crossref": False, "openalex": True}  # each source its own verdict
