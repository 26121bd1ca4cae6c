"""Europe PMC's references endpoint (``--references``): asked only when opted in, only for a paper whose full text and
PubMed record give no reference list and whose search record says it has references; paged until the announced
count; a failed page keeps no partial list and makes the entry retryable."""

from __future__ import annotations

import json

from pubfetch.config import FetchConfig
from pubfetch.fetcher import fetch_many
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.resources.base import Context
from support.loopback import Reply, Request
from support.synthetic import SCHOLARLY_OFF, Article, SyntheticServices

#: the closed-access article (odd index: no JATS) has these references, in citedOrder; the open one has a ref-list
CITED = [("MED", "10000001", 1), ("PMC", "PMC555", 2), ("MED", "10000003", 3)]


class WithReferences(SyntheticServices):
    """The synthetic services whose search records say "hasReferences", with a references endpoint of two pages."""

    page_size = 2

    def search_record(self, a: Article) -> dict:
        return {**super().search_record(a), "hasReferences": "Y"}

    def handle(self, req: Request) -> Reply:
        if not req.path.endswith("/references"):
            return super().handle(req)
        with self._lock:
            self.counts["references"] += 1
        if "references" in self.failing:
            return Reply(503, "Service Unavailable", "text/plain")
        page = int(req.param("page") or "1")
        chunk = CITED[(page - 1) * self.page_size:page * self.page_size]
        items = [{"id": cited, "source": source, "citedOrder": order, "title": f"Cited paper {order}",
                  "authorString": "Roe R.", "journalAbbreviation": "J Synth", "pubYear": 2019, "volume": "4",
                  "pageInfo": str(order)} for source, cited, order in reversed(chunk)]  # citedOrder puts them right
        body = {"version": "6.9", "hitCount": len(CITED), "request": {"page": page},
                "referenceList": {"reference": items}}
        return Reply(200, json.dumps(body), "application/json")


def _fetch(services: SyntheticServices, **changes: object) -> list[Publication]:
    values = {"endpoints": services.endpoints(), "allow_private_addresses": True, "javascript": False, "threads": 2,
              "linger_ms": 600_000, "busy_retries": 0, "timeout": 5000, **changes}
    cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, **values)
    with Context(cfg) as ctx:
        return list(fetch_many(services.pmids(), config=cfg, context=ctx))


def test_no_request_unless_asked_for() -> None:
    with WithReferences(2) as services:
        _open, closed = _fetch(services)
    assert services.counts["references"] == 0
    assert closed.references.is_empty()


def test_references_are_read_page_by_page_for_papers_without_a_list() -> None:
    with WithReferences(2) as services:
        open_access, closed = _fetch(services, references=True)
    assert services.counts["references"] == 2  # the closed paper's two pages; the open one has its JATS ref-list
    assert [r.text for r in open_access.references.items] == ["A reference."]
    assert open_access.references.type is PartType.europepmc_xml
    assert [(r.pmid, r.pmcid, r.title) for r in closed.references.items] == [
        ("10000001", "", "Cited paper 1"), ("", "PMC555", "Cited paper 2"), ("10000003", "", "Cited paper 3")]
    assert closed.references.items[0].text == "Roe R. Cited paper 1. J Synth 2019;4:1."
    assert closed.references.type is PartType.europepmc
    assert closed.references.url.endswith(f"/MED/{closed.pmid.content}/references?format=json")


def test_a_failed_page_keeps_no_partial_list() -> None:
    with WithReferences(2) as services:
        services.failing.add("references")
        _open, closed = _fetch(services, references=True)
    assert services.counts["references"] >= 1
    assert closed.references.is_empty()
    assert closed.state.fetch_exception
