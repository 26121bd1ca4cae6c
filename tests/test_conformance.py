"""Conformance over ../shared/corpus: fetch every recorded publication through the whole chain, replayed on 127.0.0.1.

The replay server (tests/support/replay.py) is the HTTP proxy of every service, so the fetcher runs exactly as in production
(real endpoint URLs, scraping rules matched against real publisher URLs) while every byte comes from the recordings.
Expected values are read straight from the recorded bodies with json/lxml, not through pubfetch's parsers, so a parser
bug cannot hide behind itself.
"""

from __future__ import annotations

import json
import re

from lxml import etree

from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.rich import RichName
from support.replay import CorpusReplay
from support.replayrun import fetch_all

_TAG = re.compile(r"<[^<>]*>")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


def plain(text: str) -> str:
    return " ".join(_TAG.sub(" ", text or "").split())


def squash(text: str) -> str:
    return "".join(text.split())


def search_records(replay: CorpusReplay) -> list[dict]:
    """Recorded Europe PMC ID look-ups (one record each, source MED)."""
    out = []
    for e in replay.by_resource("europepmc_search"):
        if "EXT_ID" not in e["url"]:
            continue
        for rec in json.loads(replay.body(e))["resultList"]["result"]:
            if rec.get("source") == "MED":
                out.append(rec)
    return out


def test_europepmc_records(replay_server):
    replay, server = replay_server
    records = search_records(replay)
    assert len(records) >= 10
    pubs = fetch_all(server, [r["pmid"] for r in records])
    by_pmid = {p.pmid.content: p for p in pubs}
    for rec in records:
        pub = by_pmid[rec["pmid"]]
        where = rec["pmid"]
        assert pub.pmcid.content == rec.get("pmcid", ""), where
        if rec.get("doi"):
            assert pub.doi.content == rec["doi"].upper(), where
        assert pub.title.type in (PartType.europepmc, PartType.europepmc_xml, PartType.pubmed_xml), where
        assert squash(plain(pub.title.content)) == squash(plain(rec["title"])), where
        if rec.get("abstractText"):
            assert squash(plain(rec["abstractText"]))[:60] in squash(pub.abstract.content), where
        keywords = rec.get("keywordList", {}).get("keyword", [])
        if keywords:
            assert pub.keywords.items == keywords, where
        mesh = [h["descriptorName"] for h in rec.get("meshHeadingList", {}).get("meshHeading", [])]
        if mesh:
            assert [m.term for m in pub.mesh.items] == mesh, where
        journal = rec.get("journalInfo", {}).get("journal", {}).get("title", "")
        assert pub.journal_title == journal, where
        assert pub.oa == (rec.get("isOpenAccess") == "Y"), where
        if rec.get("citedByCount") is not None:
            assert pub.citations_count == int(rec["citedByCount"]), where


def test_open_access_full_text_from_fulltextxml(replay_server):
    replay, server = replay_server
    [pub] = fetch_all(server, ["22338609"])
    assert pub.pmcid.content == "PMC3320746"
    assert pub.fulltext.type is PartType.europepmc_xml
    root = etree.fromstring(replay.body(replay.pages["ebi.ac.uk/europepmc/webservices/rest/PMC3320746/fullTextXML"]),
                            _PARSER)
    jats_title = " ".join("".join(root.find(".//front//article-title").itertext()).split())
    assert pub.fulltext.content.startswith(jats_title + "\n\n")
    first_para = " ".join("".join(root.find(".//body//p").itertext()).split())
    assert squash(first_para)[:80] in squash(pub.fulltext.content)
    assert pub.fulltext.is_final(pub_args())
    # GO terms mined by Europe PMC, grouped by URI
    annotations = json.loads(replay.body(replay.by_resource("europepmc_annotations")[0]))[0]["annotations"]
    go_mentions = [a for a in annotations if a["type"] == "Gene Ontology"]
    assert sum(t.count for t in pub.go.items) == len(go_mentions)
    assert {t.uri for t in pub.go.items} == {a["tags"][0]["uri"] for a in go_mentions}


def pub_args():
    from pubfetch.fetcher_args import FetcherArgs

    return FetcherArgs()


def test_pubmed_efetch_records(replay_server):
    replay, server = replay_server
    expected = {}
    for e in replay.by_resource("pubmed_efetch"):
        root = etree.fromstring(replay.body(e), _PARSER)
        for art in root.iter("PubmedArticle"):
            pmid = art.findtext(".//PMID")
            expected[pmid] = art
    pubs = fetch_all(server, list(expected))
    assert replay.counts["efetch_pubmed"] >= 1
    for pub in pubs:
        art = expected[pub.pmid.content]
        title = " ".join("".join(art.find(".//ArticleTitle").itertext()).split())
        assert squash(pub.title.content) == squash(title), pub.pmid.content
        mesh = [d.text for d in art.iter("DescriptorName")]
        if mesh:
            assert [m.term for m in pub.mesh.items] == mesh
        assert pub.journal_title == art.findtext(".//Journal/Title")


def test_unpaywall_records(replay_server):
    replay, server = replay_server
    entries = replay.by_resource("unpaywall")
    pubs = fetch_all(server, [e["ids"]["doi"] for e in entries])
    by_doi = {p.doi.content: p for p in pubs}
    for e in entries:
        data = json.loads(replay.body(e))
        pub = by_doi[e["ids"]["doi"].upper()]
        assert pub.oa == bool(data["is_oa"]), e["name"]
        if data.get("journal_name"):
            assert pub.journal_title == data["journal_name"], e["name"]
        if data.get("title") and pub.title.type is PartType.oadoi:
            assert pub.title.content == data["title"].strip()


def test_batch_equals_one_at_a_time_and_asks_each_id_once(replay_server):
    replay, server = replay_server
    pmids = [r["pmid"] for r in search_records(replay)] + ["1234567", "20412080", "22351513"]
    before = replay.asked.copy()
    batched = fetch_all(server, pmids)
    asked = replay.asked - before
    # Europe PMC's search and efetch are asked for many publications at once; how the publications group into
    # requests follows their arrival, but no ID is ever named twice in one run of either service
    searched = {i for (service, i) in asked if service == "europepmc_search"}
    assert set(pmids) <= searched
    assert all(n == 1 for n in asked.values()), {k: n for k, n in asked.items() if n > 1}
    assert any(service == "efetch_pubmed" for (service, _) in asked)
    single = [p for pmid in pmids for p in fetch_all(server, [pmid])]

    def comparable(pub):
        d = pub.to_json(computed=True)
        for key in list(d):
            if "ime" in key or key in ("visitedSites", "citationsTimestamp", "citationsTimestampHuman"):
                d.pop(key)
        for part in [*(n.value for n in PartName), *(n.value for n in RichName)]:  # every part, when it was set
            d[part] = {k: v for k, v in d[part].items() if "timestamp" not in k}
        return d

    assert [comparable(p) for p in batched] == [comparable(p) for p in single]


def test_annotation_types_asked_for_come_from_the_recorded_answer_in_one_request(replay_server):
    replay, server = replay_server
    before = replay.counts["europepmc_annotations"]
    [pub] = fetch_all(server, ["22338609"], annotations=["Gene_Proteins", "Diseases", "Chemicals", "Organisms",
                                                          "Accession Numbers", "Resources", "Experimental Methods",
                                                          "Gene Ontology"])
    assert replay.counts["europepmc_annotations"] - before == 1  # every type from one answer (EFO, GO alike)
    recorded = replay.annotations["MED:22338609"]["annotations"]
    for kind in ("Gene_Proteins", "Diseases", "Chemicals", "Organisms", "Accession Numbers", "Resources"):
        terms = [t for t in pub.mined_terms.items if t.type == kind]
        assert sum(t.count for t in terms) == sum(1 for a in recorded if a["type"] == kind), kind
    assert {t.type for t in pub.mined_terms.items} <= {"Gene_Proteins", "Diseases", "Chemicals", "Organisms",
                                                       "Accession Numbers", "Resources"}  # no other type kept
    assert pub.go.items and not pub.efo.items  # the recorded answer has no Experimental Methods
    # the full text's links, from its JATS
    assert ("url", "http://www.uniprot.org/") in {(link.kind, link.value) for link in pub.links.items}
