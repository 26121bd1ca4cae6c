"""Synthetic services whose papers cite one another, for the snowball tests and benchmark.

The papers of :class:`~support.synthetic.SyntheticServices` form a citation tree: paper ``i`` is cited by the
``fanout`` papers ``fanout * i + seeds + j`` (so the seeds 0..seeds-1 have disjoint citers, and so on down), and
``cross`` adds links that meet papers already found. Each service says the links as the real one does:

- Europe PMC's citations endpoint (today's form ``/{MED|PMC}/{id}/citations?page=&pageSize=&format=json``, the
  recorded answers' JSON shape) lists an open-access citer by its PMCID (source PMC) and another by its PMID (MED),
  so one paper meets the run as a PMCID there and as a PMID from ELink: the dedup across ID forms;
- ELink ``pubmed_pubmed_citedin`` answers one ``LinkSet`` per ``id`` parameter (PMIDs);
- a paper's reference list names what it cites by DOI, in its JATS (open access) and PubMed XML (closed access).

Requests are counted per service as the base class does (``citations``, and ``ncbi`` for ELink beside efetch).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from urllib.parse import parse_qs

from support.loopback import Reply, Request
from support.synthetic import Article, SyntheticServices


class CitingServices(SyntheticServices):
    """The synthetic services, with a citation graph among papers 0..n-1 (see the module docstring)."""

    def __init__(self, n: int, *, seeds: int = 3, fanout: int = 3, cross: Sequence[tuple[int, int]] = (),
                 **kwargs: object) -> None:
        super().__init__(n, **kwargs)  # type: ignore[arg-type]
        self.seeds, self.fanout = seeds, fanout
        #: (citing, cited) links beside the tree's
        self.cross = list(cross)
        #: the page size of the citations endpoint (the service's is 1000; tests make it small to page)
        self.page_size = 1000

    # --- the graph --------------------------------------------------------------------------------------------------

    def citers(self, i: int) -> list[int]:
        first = self.fanout * i + self.seeds
        tree = [c for c in range(first, first + self.fanout) if c < self.n]
        return tree + [a for a, b in self.cross if b == i and a not in tree]

    def cited(self, i: int) -> list[int]:
        return [j for j in range(self.n) if i in self.citers(j)]

    def within(self, depth: int, *, citations: bool = True, references: bool = False) -> set[int]:
        """The papers a snowball from the seeds reaches in ``depth`` steps."""
        found = set(range(self.seeds))
        level = set(found)
        for _ in range(depth):
            step: set[int] = set()
            for i in level:
                step.update(self.citers(i) if citations else ())
                step.update(self.cited(i) if references else ())
            level = step - found
            found |= level
        return found

    # --- the services ----------------------------------------------------------------------------------------------

    def _service(self, path: str) -> str:
        if path.startswith("/epmc/rest/") and path.endswith("/citations"):
            return "citations"
        return super()._service(path)

    def _handle(self, req: Request) -> Reply:
        if self._service(req.path) == "citations":
            return self._limited("citations", req, self._citations)
        if req.path.endswith("/elink.fcgi"):
            return self._limited("ncbi", req, self._elink)
        return super()._handle(req)

    def _limited(self, service: str, req: Request, answer) -> Reply:
        with self._lock:
            self.counts[service] += 1
            if service == "ncbi":
                self.counts["elink"] += 1
        if self._over_limit(service):
            with self._lock:
                self.too_many[service] += 1
            return Reply(429, "Too Many Requests", "text/plain", {"Retry-After": "1"})
        if service in self.failing:
            return Reply(503, "Service Unavailable", "text/html", {"Retry-After": "0"})
        return answer(req)

    def _citations(self, req: Request) -> Reply:
        source, ext = req.path.split("/")[-3:-1]
        a = self.article(pmid=ext) if source == "MED" else self.article(pmcid=ext) if source == "PMC" else None
        self._note("citations", [ext])
        if a is None:
            return Reply(404, json.dumps({"error": "not found"}), "application/json")
        page, size = int(req.param("page") or 1), int(req.param("pageSize") or 25)
        size = min(size, self.page_size)
        citers = [Article(c) for c in self.citers(a.index)]
        listed = citers[(page - 1) * size:page * size]
        items = [{"id": c.pmcid if c.oa else c.pmid, "source": "PMC" if c.oa else "MED", "title": c.title,
                  "pubYear": 2021, "citedByCount": len(self.citers(c.index))} for c in listed]
        body = {"version": "6.9", "hitCount": len(citers),
                "request": {"id": ext, "source": source, "page": page, "pageSize": size},
                "citationList": {"citation": items}}
        return Reply(200, json.dumps(body), "application/json;charset=UTF-8")

    def _elink(self, req: Request) -> Reply:
        form = parse_qs(req.body.decode(), keep_blank_values=True)
        asked = [*req.query.get("id", []), *form.get("id", [])]
        self._note("elink", asked)
        sets = []
        for pmid in asked:
            a = self.article(pmid=pmid)
            links = "".join(f"<Link><Id>{Article(c).pmid}</Id></Link>" for c in self.citers(a.index)) if a else ""
            db = (f"<LinkSetDb><DbTo>pubmed</DbTo><LinkName>pubmed_pubmed_citedin</LinkName>{links}</LinkSetDb>"
                  if links else "")
            sets.append(f"<LinkSet><DbFrom>pubmed</DbFrom><IdList><Id>{pmid}</Id></IdList>{db}</LinkSet>")
        return Reply(200, f'<?xml version="1.0" ?>\n<eLinkResult>{"".join(sets)}</eLinkResult>',
                     "text/xml; charset=UTF-8")

    def _references(self, a: Article, jats: bool) -> str:
        dois = [Article(j).doi for j in self.cited(a.index)]
        if jats:
            return "".join(f'<ref id="c{k}"><element-citation><pub-id pub-id-type="doi">{doi}</pub-id>'
                           "</element-citation></ref>" for k, doi in enumerate(dois))
        return "".join(f'<Reference><Citation>Cited paper.</Citation><ArticleIdList><ArticleId IdType="doi">{doi}'
                       "</ArticleId></ArticleIdList></Reference>" for doi in dois)

    def jats(self, a: Article) -> str:
        return super().jats(a).replace("<ref-list>", "<ref-list>" + self._references(a, True))

    def pubmed_xml(self, a: Article) -> str:
        refs = self._references(a, False)
        return super().pubmed_xml(a).replace("</PubmedData>", f"<ReferenceList>{refs}</ReferenceList></PubmedData>")


def small_graph() -> CitingServices:
    """60 papers: seeds 0-2, each cited by 3 (3-11), each of those by 3 (12-38) ...; paper 4 (open access, listed by
    Europe PMC as PMC9000004 and by ELink as 30000004) also cites seed 1."""
    return CitingServices(60, seeds=3, fanout=3, cross=[(4, 1)])
