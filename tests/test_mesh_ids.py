"""MeSH terms taken from Europe PMC (names only) get their unique IDs from PubMed XML, one efetch per batch."""

from __future__ import annotations

import pytest

import pubfetch
from pubfetch.model.part_type import PartType
from support.synthetic import Article, SyntheticServices

pytestmark = pytest.mark.services(4)


def test_mesh_unique_ids_are_filled_from_the_efetch_of_each_group(services: SyntheticServices) -> None:
    pmids = [Article(i).pmid for i in range(4)]
    pubs = list(pubfetch.fetch_many(pmids))
    for pub in pubs:
        assert [(t.term, t.major_topic, t.unique_id) for t in pub.mesh.items] == [
            ("Humans", False, "D006801"), ("Software", True, "D012984"), ("Computational Biology", False, "D019295")]
        assert pub.mesh.type is PartType.europepmc  # the part keeps its source
        assert pub.mesh.url.startswith(services.base + "/epmc/rest/search")
    # one request per group that reaches efetch together: the closed-access pair straight from the search, the
    # open-access pair (whose MeSH terms need their IDs) after their full texts and mined terms
    assert services.counts["efetch_pubmed"] <= 2, services.ids_asked["efetch_pubmed"]
    assert services.ids_asked["efetch_pubmed"] == {pmid: 1 for pmid in pmids}


def test_no_mesh_request_when_mesh_is_not_asked_for(services: SyntheticServices) -> None:
    pubs = list(pubfetch.fetch_many([Article(0).pmid], parts=["title", "abstract", "fulltext"]))
    assert pubs[0].title.content == Article(0).title
    assert services.counts["efetch_pubmed"] == 0
