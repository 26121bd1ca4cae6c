"""Synthetic search services built from the recorded answers: Europe PMC's idlist search with cursor paging, and
E-utilities esearch (with the history server) and esummary, for any number of hits, in this process.

The recorded bodies of ../shared/corpus (a Europe PMC ``resultType=idlist`` page; an esearch answer with ``WebEnv``;
an esummary DocSum) are the templates: their fields and shapes are kept and the hits are made up, so a search of
50,000 hits, a cursor failing on its tenth page or a query that grows between two runs can be asked of answers shaped
as the services' are. Hits are made on consecutive days (``per_day`` a day from ``start``); Europe PMC's
``CREATION_DATE`` ranges and PubMed's ``mindate``/``maxdate`` (Entrez date) select them by that day. Every request is
recorded with the time of the services' clock (the test's simulated clock when it gives one), so tests can count
pages, page sizes and the requests in any window.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import urlencode

from lxml import etree

from support.loopback import Reply, Request

#: The synthetic fetching services' numbering (support.synthetic), so that the hits found can also be fetched there.
PMID_BASE = 30_000_000
PMC_BASE = 9_000_000
_CREATED = re.compile(r"CREATION_DATE:\[(\d{4}-\d{2}-\d{2}) TO (\d{4}-\d{2}-\d{2})\]")
EPMC_BASE = "http://ebi.search.test/europepmc/webservices/rest/"
EUTILS_BASE = "http://eutils.search.test/entrez/eutils/"


@dataclass(frozen=True)
class Hit:
    index: int
    day: date
    preprint: bool = False

    @property
    def pmid(self) -> str:
        return "" if self.preprint else str(PMID_BASE + self.index)

    @property
    def pmcid(self) -> str:
        return f"PMC{PMC_BASE + self.index}" if self.index % 2 == 0 and not self.preprint else ""

    @property
    def doi(self) -> str:
        return f"10.5555/synth.{self.index}"


@dataclass
class Seen:
    """One request the services answered: service, parameters, the clock's time, the status answered."""

    service: str
    params: dict[str, str]
    at: float
    status: int


@dataclass
class SearchServices:
    """The two services over ``hits`` made-up hits (see the module docstring)."""

    corpus: Path
    hits: int = 0
    per_day: int = 100
    start: date = date(2021, 1, 1)
    #: every ``preprint_every``-th hit is a Europe PMC preprint (SRC:PPR, a DOI and no PMID); 0: none
    preprint_every: int = 0
    #: whether Europe PMC gives the preprints' DOIs (False: a PPR id alone, no ID pubfetch can use)
    preprint_dois: bool = True
    clock: Callable[[], float] = time.monotonic
    #: Europe PMC cursor offsets (hit numbers) whose pages answer 503; ``fail_times`` how often each (0: always)
    fail_offsets: set[int] = field(default_factory=set)
    fail_times: int = 0
    #: hits Europe PMC and PubMed count but never hand out (a service short of what it announced)
    phantom: int = 0
    requests: list[Seen] = field(default_factory=list)
    #: requests that came as POSTs (Europe PMC's searchPOST, E-utilities with an API key)
    posted: int = 0

    def __post_init__(self) -> None:
        files = self.corpus / "files"
        self._idlist = json.loads((files / "europepmc_search/pyepmc_search_cancer_idlist.json").read_text("utf-8"))
        self._esearch = (files / "eutils_esearch/eutils-esearch-pubmed-usehistory-reldate.xml").read_bytes()
        summary = etree.fromstring((files / "eutils_esummary/eutils-esummary-pubmed-two-ids.xml").read_bytes())
        self._docsum = summary.find("DocSum")
        self._all: list[Hit] = []
        self._history: dict[str, list[Hit]] = {}
        self._failed: dict[int, int] = {}
        self._lock = threading.Lock()
        self.grow(self.hits)

    # --- the hits ------------------------------------------------------------------------------------------------------

    def grow(self, n: int, day: date | None = None) -> list[Hit]:
        """``n`` more hits: on consecutive days after the last ones, or all on ``day`` (records added since a run)."""
        made = []
        for i in range(len(self._all), len(self._all) + n):
            on = day or self.start + timedelta(days=i // self.per_day)
            made.append(Hit(i, on, bool(self.preprint_every) and i % self.preprint_every == self.preprint_every - 1))
        self._all.extend(made)
        return made

    @property
    def all(self) -> list[Hit]:
        return list(self._all)

    def _within(self, first: date | None, last: date | None, preprints: bool = True) -> list[Hit]:
        return [h for h in self._all if (first is None or first <= h.day) and (last is None or h.day <= last)
                and (preprints or not h.preprint)]

    # --- dispatch ------------------------------------------------------------------------------------------------------

    def handle(self, req: Request) -> Reply:
        params = {k: v[0] for k, v in {**req.form, **req.query}.items() if v}
        if req.path.endswith(("/search", "/searchPOST")):
            service, reply = "europepmc", self._europepmc(params)
        elif req.path.endswith("/esearch.fcgi"):
            service, reply = "esearch", self._esearch_reply(params)
        elif req.path.endswith("/esummary.fcgi"):
            service, reply = "esummary", self._esummary_reply(params)
        else:
            service, reply = "other", Reply(404, "not found", "text/plain")
        with self._lock:
            self.requests.append(Seen(service, params, self.clock(), reply.status))
            self.posted += req.method == "POST"
        return reply

    def seen(self, service: str) -> list[Seen]:
        return [r for r in self.requests if r.service == service]

    # --- Europe PMC ----------------------------------------------------------------------------------------------------

    def _europepmc(self, params: dict[str, str]) -> Reply:
        query = params.get("query", "")
        dates = _CREATED.search(query)
        first, last = (date.fromisoformat(dates.group(1)), date.fromisoformat(dates.group(2))) if dates else (None,
                                                                                                              None)
        found = self._within(first, last, preprints="NOT SRC:PPR" not in query)
        cursor = params.get("cursorMark", "*")
        offset = 0 if cursor == "*" else int(base64.b64decode(cursor).decode().removeprefix("offset:"))
        with self._lock:
            if offset in self.fail_offsets:
                self._failed[offset] = self._failed.get(offset, 0) + 1
                if not self.fail_times or self._failed[offset] <= self.fail_times:
                    return Reply(503, "Service Unavailable", "text/plain")
        size = min(int(params.get("pageSize", "25")), 1000)
        page = found[offset:offset + size]
        body = copy.deepcopy(self._idlist)
        body["hitCount"] = len(found) + self.phantom
        following = offset + len(page)
        body["nextCursorMark"] = base64.b64encode(f"offset:{following}".encode()).decode() if page else cursor
        body["nextPageUrl"] = EPMC_BASE + "search?" + urlencode({**params, "cursorMark": body["nextCursorMark"]})
        body["request"] = {**body["request"], "queryString": query, "cursorMark": cursor, "pageSize": size}
        results = []
        for h in page:
            if h.preprint:
                results.append({"id": f"PPR{h.index}", "source": "PPR", **({"doi": h.doi} if self.preprint_dois else {})})
                continue
            r = {"id": h.pmid, "source": "MED", "pmid": h.pmid, "doi": h.doi}
            if h.pmcid:
                r.update(pmcid=h.pmcid, fullTextIdList={"fullTextId": [h.pmcid]})
            results.append(r)
        body["resultList"] = {"result": results}
        return Reply(200, json.dumps(body), "application/json;charset=UTF-8")

    # --- E-utilities ---------------------------------------------------------------------------------------------------

    def _esearch_reply(self, params: dict[str, str]) -> Reply:
        def day(name: str) -> date | None:
            value = params.get(name)
            return date(*map(int, value.split("/"))) if value else None

        if params.get("datetype", "edat") != "edat":
            return Reply(400, "only edat is made up here", "text/plain")
        found = [h for h in self._within(day("mindate"), day("maxdate")) if not h.preprint]
        start, size = int(params.get("retstart", "0")), min(int(params.get("retmax", "20")), 9999)
        start = min(start, 9998)
        root = etree.fromstring(self._esearch)
        with self._lock:
            web_env = f"MCID_synthetic{len(self._history)}"
            self._history[web_env] = found
        root.find("Count").text = str(len(found) + self.phantom)
        ids = found[start:start + size]
        root.find("RetMax").text = str(len(ids))
        root.find("RetStart").text = str(start)
        root.find("QueryKey").text = "1"
        root.find("WebEnv").text = web_env
        id_list = root.find("IdList")
        for el in list(id_list):
            id_list.remove(el)
        for h in ids:
            etree.SubElement(id_list, "Id").text = h.pmid
        for name in ("TranslationSet", "QueryTranslation"):
            for el in root.findall(name):
                root.remove(el)
        return Reply(200, etree.tostring(root, xml_declaration=True, encoding="UTF-8"), "text/xml; charset=UTF-8")

    def _esummary_reply(self, params: dict[str, str]) -> Reply:
        found = self._history.get(params.get("WebEnv", ""))
        if found is None or params.get("query_key") != "1":
            return Reply(200, "<eSummaryResult><ERROR>Invalid query_key</ERROR></eSummaryResult>", "text/xml")
        start, size = int(params.get("retstart", "0")), int(params.get("retmax", "20"))
        root = etree.Element("eSummaryResult")
        for h in found[start:start + size]:
            doc = copy.deepcopy(self._docsum)
            doc.find("Id").text = h.pmid
            ids = next(i for i in doc.iter("Item") if i.get("Name") == "ArticleIds")
            for el in list(ids):
                ids.remove(el)
            for name, value in (("pubmed", h.pmid), ("pmc", h.pmcid), ("doi", h.doi)):
                if value:
                    item = etree.SubElement(ids, "Item", Name=name, Type="String")
                    item.text = value
            root.append(doc)
        return Reply(200, etree.tostring(root, xml_declaration=True, encoding="UTF-8"), "text/xml; charset=UTF-8")

    # --- pubfetch pointed at them ----------------------------------------------------------------------------------------

    def transport(self):
        """An in-process transport answering both services' URLs (no socket)."""
        from pubfetch.net.mapping_transport import MappingTransport
        from support.synthetic import answering

        answer = answering(self.handle)
        return MappingTransport({"http://ebi.search.test/*": answer, "http://eutils.search.test/*": answer})

    @staticmethod
    def endpoints():
        from pubfetch.config import Endpoints

        return Endpoints(europepmc=EPMC_BASE, eutils=EUTILS_BASE)


def search_context(services: SearchServices, *, limiter=None, sleep=None, **changes):
    """The context of a product's run over the services' in-process transport: the client's layers (retries waiting
    with ``sleep`` when given; the rate limiter when given, its key by the endpoints as a run assigns it, else none)
    without a socket. ``changes``: settings."""
    from pubfetch.config import FetchConfig
    from pubfetch.engine.assembly import FetchRun

    values = {"endpoints": services.endpoints(), "allow_private_addresses": True, "timeout": 5000,
              "ncbi_email": "curator@example.org", "rate_limits": False, **changes}
    config = FetchConfig().with_changes(**values)
    return FetchRun(config, transport=services.transport(), rate_limiter=limiter, sleep=sleep).context
