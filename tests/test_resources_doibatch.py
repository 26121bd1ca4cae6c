"""What the scholarly resources share (resources/doibatch.py): content taken only where the earlier resources left it
unfinished, updates and relations joined to other sources', the citation count of a paper outside PubMed only; and a
list a service refuses asked again one DOI at a time (through the replay)."""

from __future__ import annotations

import json

from pubfetch.config import FetchConfig
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Relation, RichName, Update
from pubfetch.resources.doibatch import merge
from pubfetch.resources.pubstate import PubState
from support.fetchrun import run_context
from support.loopback import Reply
from support.replay_apis import JSON
from support.replayrun import fetch_all
from support.scholarly_runs import CROSSREF_DOIS, SCHOLARLY_ON

ON = SCHOLARLY_ON
ARGS = FetcherArgs()


def finished_publication() -> Publication:
    pub = Publication(clock=lambda: 1)
    pub.set_doi("10.1/x", PartType.external, "", ARGS)
    pub.set_pmid("123", PartType.europepmc, "epmc", ARGS)
    pub.set_title("A title from Europe PMC long enough", PartType.europepmc, "epmc", ARGS)
    pub.set_abstract("An abstract from Europe PMC. " * 20, PartType.europepmc, "epmc", ARGS)
    pub.set_rich(RichName.updates, [Update("RetractionIn", pmid="456")], PartType.europepmc, "epmc")
    pub.set_citations_count(5)
    return pub


def api_record() -> ArticleRecord:
    return ArticleRecord(doi="10.1/X", title="Crossref's title", abstract="Crossref's abstract",
                         updates=[Update("ErratumIn", doi="10.1/E")], relations=[Relation("has-preprint", "10.1/P")],
                         citations_count=9)


def test_content_only_where_unfinished_the_rest_joined():
    with run_context(FetchConfig()) as ctx:
        finished = PubState(finished_publication())
        merge(ctx, finished, api_record(), PartType.crossref, "https://api.crossref.org/works/10.1/x")
        fresh = PubState(Publication(clock=lambda: 1))
        fresh.pub.set_doi("10.1/x", PartType.external, "", ARGS)
        merge(ctx, fresh, api_record(), PartType.crossref, "https://api.crossref.org/works/10.1/x")
    pub = finished.pub
    assert pub.title.type is PartType.europepmc and pub.abstract.type is PartType.europepmc
    assert pub.updates.items == [Update("RetractionIn", pmid="456"), Update("ErratumIn", doi="10.1/E")]
    assert pub.updates.type is PartType.europepmc  # the part keeps its first source
    assert pub.relations.items == [Relation("has-preprint", "10.1/P")]
    assert pub.citations_count == 5  # Europe PMC's count of a paper in PubMed is kept
    assert (fresh.pub.title.content, fresh.pub.title.type) == ("Crossref's title", PartType.crossref)
    assert fresh.pub.citations_count == 9  # outside PubMed: the service's count


def test_a_refused_list_is_asked_one_doi_at_a_time(corpus_dir, replay_server):
    """A service that refuses a list for one DOI in it (Crossref validates every filter value) costs only that DOI's
    answer: the others are asked alone."""
    replay, server = replay_server
    refuse = "10.1073/refused-by-crossref"
    handler = replay.scholarly._crossref

    def refusing(path, req):
        if refuse in (req.param("filter") or "") and "," in (req.param("filter") or ""):
            return Reply(400, json.dumps({"status": "failed", "message-type": "validation-failure",
                                          "message": [{"type": "invalid-filter", "message": "bad DOI"}]}), JSON)
        return handler(path, req)

    replay.scholarly._crossref = refusing
    try:
        pubs = {p.doi.content: p for p in fetch_all(server, [CROSSREF_DOIS[0], CROSSREF_DOIS[1], refuse], **ON)}
    finally:
        replay.scholarly._crossref = handler
    assert pubs["10.1073/PNAS.1414271111"].updates.type is PartType.crossref
    assert pubs["10.3389/FGENE.2017.00147"].relations.items == [Relation("has-preprint", "10.1101/171108")]
