"""Synthetic Europe PMC, annotations, E-utilities, doi.org and Unpaywall services for N publications, on 127.0.0.1.

Used by the chain tests (request counting, failures) and by the benchmarks (latency, rate limits). The documents have
the shapes of the real services' answers (core JSON search results, JATS, PubmedArticleSet, annotation lists), and every
request is counted per service. Optional latency per request and per-service rate limits (HTTP 429 with Retry-After
when a service is asked more often than its limit) make it a stand-in for the real services under load.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Self
from xml.sax.saxutils import escape

from pubfetch.config import FetchConfig
from support.loopback import LoopbackServer, Reply, Request

PMID_BASE = 30_000_000
PMC_BASE = 9_000_000
WORDS = ("protein", "sequence", "alignment", "genome", "expression", "pathway", "ontology", "variant", "cell",
         "network", "structure", "annotation", "tool", "database", "workflow", "model")
_EXT_ID = re.compile(r"EXT_ID:(\d+)", re.IGNORECASE)
_PMCID = re.compile(r"PMCID:(PMC\d+)", re.IGNORECASE)
_DOI = re.compile(r'DOI:"([^"]+)"', re.IGNORECASE)


def _words(i: int, n: int) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n))


@dataclass
class Article:
    index: int

    @property
    def pmid(self) -> str:
        return str(PMID_BASE + self.index)

    @property
    def oa(self) -> bool:
        return self.index % 2 == 0

    @property
    def pmcid(self) -> str:
        return f"PMC{PMC_BASE + self.index}" if self.oa else ""

    @property
    def doi(self) -> str:
        return f"10.5555/synth.{self.index}"

    @property
    def title(self) -> str:
        return f"Synthetic study {self.index} of {_words(self.index, 4)}"

    @property
    def abstract(self) -> str:
        return " ".join(f"Sentence {k} about {_words(self.index + k, 6)}." for k in range(8))

    @property
    def keywords(self) -> list[str]:
        return [WORDS[(self.index + k) % len(WORDS)] for k in range(3)]

    @property
    def mesh(self) -> list[tuple[str, str, bool]]:
        return [("Humans", "D006801", False), ("Software", "D012984", True), ("Computational Biology", "D019295", False)]

    def body_paragraphs(self) -> list[str]:
        return [f"Paragraph {k}: " + " ".join(f"{_words(self.index + k + j, 8)}." for j in range(6)) for k in range(8)]


@dataclass
class ServiceLimit:
    """A service's limits as its server counts them: at most ``count`` requests in any rolling ``seconds`` of each
    window (a bare number is that many a second). A request over a limit is refused and not counted."""

    windows: tuple[tuple[float, float], ...]
    _times: list[float] = field(default_factory=list)

    @classmethod
    def of(cls, limit: float | Sequence[tuple[float, float]]) -> ServiceLimit:
        return cls(((float(limit), 1.0),) if isinstance(limit, int | float) else tuple(limit))

    def admit(self, now: float) -> bool:
        """Whether a request arriving at ``now`` is within every window (and, if so, count it)."""
        times = self._times
        for count, seconds in self.windows:
            if len(times) - bisect.bisect_right(times, now - seconds) >= count:
                return False
        times.append(now)
        longest = max(seconds for _, seconds in self.windows)
        if times[0] <= now - 2 * longest:
            del times[:bisect.bisect_right(times, now - longest)]
        return True


class SyntheticServices:
    """The services for publications 0..n-1. ``failing`` names services answering 503; ``latency`` delays answers."""

    def __init__(self, n: int, *, latency: float = 0.0,
                 limits: Mapping[str, float | Sequence[tuple[float, float]]] | None = None) -> None:
        self.n = n
        self.latency = latency
        self.failing: set[str] = set()
        #: Retry-After of the failing services' 503s (None: no header, so the client backs off on its own)
        self.failing_retry_after: str | None = None
        #: path -> Reply answered before any service (publisher pages, PDFs, redirects of a test), or a function of
        #: the request giving it (a test's answer that waits for an event)
        self.extra: dict[str, Reply | Callable[[Request], Reply]] = {}
        self.counts: Counter[str] = Counter()
        self.too_many: Counter[str] = Counter()
        self.ids_asked: dict[str, Counter[str]] = {}
        self._limits = {k: ServiceLimit.of(v) for k, v in (limits or {}).items()}
        #: the clock the limits are counted on (a test's fake clock, shared with the client's rate limiter)
        self.clock: Callable[[], float] = time.monotonic
        #: answer the first try of every third distinct request with 503 and Retry-After (the benchmarks' flaky run)
        self.fail_every_third = False
        self.injected: Counter[str] = Counter()
        #: requests identical (method, path, query, body) to one answered before, by service
        self.repeats: Counter[str] = Counter()
        self._answered: set[int] = set()
        self._failed_once: set[int] = set()
        self._lock = threading.Lock()
        #: second passes: articles Europe PMC's search does not find by PMID (only by PMCID or DOI), so that their
        #: PMCID and DOI come from PubMed and they go round the resources again with them ...
        self.search_misses_pmid: Callable[[Article], bool] = lambda a: False
        #: ... and open-access articles whose PMCID PubMed does not give either: their DOI resolves to a publisher
        #: page (under ``page_base``, default this server) that names it
        self.pmcid_on_page_only: Callable[[Article], bool] = lambda a: False
        self.page_base = ""
        #: (service, start, end) of every request answered, epoch seconds, when a list is given (the benchmarks'
        #: host timelines)
        self.timeline: list[tuple[str, float, float]] | None = None
        #: more services by path prefix: (service name, handler), asked before the others (tests/support/
        #: synthetic_apis.py adds the scholarly APIs)
        self.more: dict[str, tuple[str, Callable[[Request], Reply]]] = {}
        self.server = LoopbackServer({"/*": self.handle})

    def __enter__(self) -> Self:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    @property
    def base(self) -> str:
        return self.server.base

    def endpoints(self):
        from pubfetch.config import Endpoints

        b = self.base
        return Endpoints(europepmc=f"{b}/epmc/rest/", europepmc_annotations=f"{b}/epmc/annotations/",
                         eutils=f"{b}/eutils/", pubmed=f"{b}/pubmed/", doi=f"{b}/doi/", unpaywall=f"{b}/unpaywall/")

    def article(self, pmid: str = "", pmcid: str = "", doi: str = "") -> Article | None:
        if pmid.isdigit() and 0 <= int(pmid) - PMID_BASE < self.n:
            return Article(int(pmid) - PMID_BASE)
        if pmcid.upper().startswith("PMC") and pmcid[3:].isdigit():
            i = int(pmcid[3:]) - PMC_BASE
            if 0 <= i < self.n and i % 2 == 0:
                return Article(i)
        m = re.fullmatch(r"10\.5555/synth\.(\d+)", doi, re.IGNORECASE)
        if m and int(m.group(1)) < self.n:
            return Article(int(m.group(1)))
        return None

    def pmids(self, count: int | None = None) -> list[str]:
        return [Article(i).pmid for i in range(self.n if count is None else count)]

    # ------------------------------------------------------------------ dispatch

    def _service(self, path: str) -> str:
        for prefix, (name, _) in self.more.items():
            if path.startswith(prefix):
                return name
        if path.startswith("/epmc/rest/search"):
            return "europepmc_search"
        if path.startswith("/epmc/rest/") and path.endswith("/fullTextXML"):
            return "europepmc_fulltext"
        if path.startswith("/epmc/annotations/"):
            return "annotations"
        if path.startswith("/eutils/"):
            return "ncbi"
        if path.startswith("/doi/"):
            return "doi"
        if path.startswith("/unpaywall/"):
            return "unpaywall"
        if path.startswith("/pages/"):
            return "publisher"
        return "other"

    def _over_limit(self, service: str) -> bool:
        limit = self._limits.get(service)
        if limit is None:
            return False
        now = self.clock()
        with self._lock:
            return not limit.admit(now)

    def handle(self, req: Request) -> Reply:
        if self.timeline is None:
            return self._handle(req)
        started = time.time()
        try:
            return self._handle(req)
        finally:
            self.timeline.append((self._service(req.path), started, time.time()))

    def _handle(self, req: Request) -> Reply:
        if req.path in self.extra:
            with self._lock:
                self.counts["extra:" + req.path] += 1
            extra = self.extra[req.path]
            return extra(req) if callable(extra) else extra
        service = self._service(req.path)
        with self._lock:
            self.counts[service] += 1
        if self.latency:
            time.sleep(self.latency)
        if self._over_limit(service):
            with self._lock:
                self.too_many[service] += 1
            return Reply(429, "Too Many Requests", "text/plain", {"Retry-After": "1"})
        if service in self.failing:
            headers = {} if self.failing_retry_after is None else {"Retry-After": self.failing_retry_after}
            return Reply(503, "Service Unavailable", "text/html", headers)
        key = hash((req.method, req.path, tuple(sorted((k, tuple(v)) for k, v in req.query.items())), req.body))
        with self._lock:
            if self.fail_every_third and key % 3 == 0 and key not in self._failed_once:
                self._failed_once.add(key)
                self.injected[service] += 1
                return Reply(503, "Service Unavailable", "text/plain", {"Retry-After": "1"})
            if key in self._answered:
                self.repeats[service] += 1
            self._answered.add(key)
        handler = {
            "europepmc_search": self._search,
            "europepmc_fulltext": self._fulltext,
            "annotations": self._annotations,
            "ncbi": self._efetch,
            "doi": self._doi,
            "publisher": self._page,
            **{name: answer for name, answer in self.more.values()},
        }.get(service)
        if handler is None:
            return Reply(404, "not found", "text/plain")
        return handler(req)

    def _note(self, service: str, ids: list[str]) -> None:
        with self._lock:
            self.ids_asked.setdefault(service, Counter()).update(ids)

    # ------------------------------------------------------------------ Europe PMC

    def search_record(self, a: Article) -> dict:
        rec = {
            "id": a.pmid, "source": "MED", "pmid": a.pmid, "doi": a.doi, "title": a.title,
            "authorString": "Doe J, Roe R.", "pubYear": "2020", "abstractText": a.abstract,
            "journalInfo": {"issue": "3", "volume": "12", "journal": {"title": "Journal of Synthetic Biology",
                                                                      "issn": "1234-5678"}},
            "pageInfo": "100-110", "keywordList": {"keyword": a.keywords},
            "meshHeadingList": {"meshHeading": [{"majorTopic_YN": "Y" if major else "N", "descriptorName": term}
                                                for term, _, major in a.mesh]},
            "isOpenAccess": "Y" if a.oa else "N", "inEPMC": "Y" if a.oa else "N", "inPMC": "Y" if a.oa else "N",
            "hasPDF": "N", "hasTextMinedTerms": "Y" if a.oa else "N", "citedByCount": a.index % 17,
            "firstPublicationDate": f"2020-{1 + a.index % 12:02d}-{1 + a.index % 28:02d}",
            "pubTypeList": {"pubType": ["research-article", "Journal Article"]},
        }
        if a.oa:
            rec["pmcid"] = a.pmcid
        return rec

    def _search(self, req: Request) -> Reply:
        query = req.param("query") or ""
        found = []
        for pmid in _EXT_ID.findall(query):
            if (a := self.article(pmid=pmid)) is not None and not self.search_misses_pmid(a):
                found.append(a)
        for pmcid in _PMCID.findall(query):
            if (a := self.article(pmcid=pmcid)) is not None:
                found.append(a)
        for doi in _DOI.findall(query):
            if (a := self.article(doi=doi)) is not None:
                found.append(a)
        self._note("europepmc_search", [a.pmid for a in found])
        body = {"version": "6.9", "hitCount": len(found), "nextCursorMark": "AoIIP4AAACgyMDAw",
                "request": {"queryString": query, "resultType": "core"},
                "resultList": {"result": [self.search_record(a) for a in found]}}
        return Reply(200, json.dumps(body), "application/json;charset=UTF-8")

    def jats(self, a: Article) -> str:
        kwds = "".join(f"<kwd>{escape(k)}</kwd>" for k in a.keywords)
        paras = "".join(f"<p>{escape(p)}</p>" for p in a.body_paragraphs())
        return (f'<article article-type="research-article"><front><journal-meta><journal-title-group>'
                f"<journal-title>Journal of Synthetic Biology</journal-title></journal-title-group></journal-meta>"
                f'<article-meta><article-id pub-id-type="pmid">{a.pmid}</article-id>'
                f'<article-id pub-id-type="pmc">{a.pmcid[3:]}</article-id>'
                f'<article-id pub-id-type="doi">{a.doi}</article-id>'
                f"<title-group><article-title>{escape(a.title)}</article-title></title-group>"
                f"<abstract><p>{escape(a.abstract)}</p></abstract><kwd-group>{kwds}</kwd-group></article-meta>"
                f'</front><body><sec><title>Introduction</title>{paras}</sec></body><back><ref-list><ref id="r1">'
                f"<mixed-citation>A reference.</mixed-citation></ref></ref-list></back></article>")

    def _fulltext(self, req: Request) -> Reply:
        pmcid = req.path.split("/")[-2]
        a = self.article(pmcid=pmcid)
        self._note("europepmc_fulltext", [pmcid])
        if a is None:
            return Reply(404, "<error>not found</error>", "application/xml")
        return Reply(200, '<?xml version="1.0" encoding="UTF-8"?>\n' + self.jats(a), "application/xml")

    def _annotations(self, req: Request) -> Reply:
        """The annotations of the open-access articles asked for: of the ``type`` asked, or of every type (as the
        service answers without one)."""
        wanted = [x for x in (req.param("articleIds") or "").split(",") if x]
        kind = req.param("type") or ""
        self._note("annotations:" + kind, wanted)
        out = []
        for article_id in wanted:
            source, _, ext = article_id.partition(":")
            a = self.article(pmcid=ext) if source == "PMC" else self.article(pmid=ext)
            if a is None or not a.oa:
                continue
            anns = [{"exact": name, "type": each, "tags": [{"name": name, "uri": uri}], "frequency": 1 + k}
                    for each, tags in ANNOTATIONS.items() if each == kind or not kind
                    for k, (name, uri) in enumerate(tags)]
            out.append({"source": source, "extId": ext, "pmcid": a.pmcid,
                        "annotations": anns})
        return Reply(200, json.dumps(out), "application/json;charset=UTF-8")

    # ------------------------------------------------------------------ E-utilities

    def pubmed_xml(self, a: Article) -> str:
        mesh = "".join(f'<MeshHeading><DescriptorName UI="{ui}" MajorTopicYN="{"Y" if major else "N"}">{t}'
                       f"</DescriptorName></MeshHeading>" for t, ui, major in a.mesh)
        ids = f'<ArticleId IdType="pubmed">{a.pmid}</ArticleId><ArticleId IdType="doi">{a.doi}</ArticleId>'
        if a.oa and not self.pmcid_on_page_only(a):
            ids += f'<ArticleId IdType="pmc">{a.pmcid}</ArticleId>'
        return (f'<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">{a.pmid}</PMID>'
                f'<Article PubModel="Print"><Journal><ISSN IssnType="Print">1234-5678</ISSN><JournalIssue>'
                f"<Volume>12</Volume><Issue>3</Issue><PubDate><Year>2020</Year><Month>Mar</Month></PubDate>"
                f"</JournalIssue><Title>Journal of Synthetic Biology</Title></Journal>"
                f"<ArticleTitle>{escape(a.title)}</ArticleTitle><Abstract><AbstractText>{escape(a.abstract)}"
                f'</AbstractText></Abstract><AuthorList><Author ValidYN="Y"><LastName>Doe</LastName>'
                f"<ForeName>Jane</ForeName></Author></AuthorList></Article>"
                f"<MeshHeadingList>{mesh}</MeshHeadingList></MedlineCitation>"
                f"<PubmedData><ArticleIdList>{ids}</ArticleIdList></PubmedData></PubmedArticle>")

    def _efetch(self, req: Request) -> Reply:
        db = req.param("db")
        ids = [i for i in (req.param("id") or "").split(",") if i]
        self._note(f"efetch_{db}", ids)
        with self._lock:
            self.counts[f"efetch_{db}"] += 1
        if db == "pubmed":
            arts = [self.pubmed_xml(a) for i in ids if (a := self.article(pmid=i)) is not None]
            body = '<?xml version="1.0" ?>\n<PubmedArticleSet>' + "".join(arts) + "</PubmedArticleSet>"
        elif db == "pmc":
            arts = [self.jats(a) for i in ids if (a := self.article(pmcid="PMC" + i.removeprefix("PMC"))) is not None]
            body = '<?xml version="1.0" ?>\n<pmc-articleset>' + "".join(arts) + "</pmc-articleset>"
        else:
            return Reply(400, "unknown db", "text/plain")
        return Reply(200, body, "text/xml; charset=UTF-8")


    # ------------------------------------------------------------------ doi.org and publisher pages

    def _doi(self, req: Request) -> Reply:
        a = self.article(doi=req.path.removeprefix("/doi/"))
        if a is None or not (a.oa and self.pmcid_on_page_only(a)):
            return Reply(404, "not found", "text/plain")
        return Reply(302, "", "text/plain", {"Location": f"{self.page_base or self.base}/pages/{a.index}"})

    def _page(self, req: Request) -> Reply:
        index = req.path.removeprefix("/pages/")
        if not index.isdigit() or int(index) >= self.n:
            return Reply(404, "not found", "text/plain")
        a = Article(int(index))
        return Reply(200, f'<html><head><meta name="citation_title" content="{escape(a.title)}">'
                     f'<meta name="citation_doi" content="{a.doi}"><meta name="citation_pmid" content="{a.pmid}">'
                     f'<meta name="citation_pmcid" content="{a.pmcid}"></head><body><h1>{escape(a.title)}</h1>'
                     f"<p>{escape(a.abstract)}</p></body></html>")


def answering(handle: Callable[[Request], Reply]):
    """A transport's answer from a server's handler, in this process: the request as the server would have received
    it, the handler's reply as the transport's (a reset as a failed exchange)."""
    from urllib.parse import parse_qs, urlencode, urlsplit

    from pubfetch.net.mapping_transport import Canned
    from pubfetch.net.outcome import OutcomeKind
    from pubfetch.net.retry import ExchangeFailed

    def answer(request) -> Canned:
        split = urlsplit(request.url)
        data = request.data
        body = (data if isinstance(data, bytes) else data.encode() if isinstance(data, str)
                else urlencode(dict(data)).encode() if data else b"")
        reply = handle(Request(request.method, split.path, parse_qs(split.query, keep_blank_values=True),
                               dict(request.headers), body, time.monotonic(), target=request.url))
        if reply.reset:
            raise ExchangeFailed(OutcomeKind.IO_ERROR, "connection reset")
        return Canned(reply.status, reply.body, reply.content_type, reply.headers)

    return answer


def in_process(services: SyntheticServices):
    """A transport answering the services' URLs in this process, from their handler, without the server running:
    the chain and resources are tested through every client layer but no socket."""
    from pubfetch.net.mapping_transport import MappingTransport

    answer = answering(services.handle)
    return MappingTransport({services.base + "/*": answer})


#: The scholarly APIs (Crossref, OpenAlex, DataCite, bioRxiv/medRxiv) have no synthetic service here: the runs of
#: these services leave them off (their own tests turn them on with the recorded corpus or services of their own).
SCHOLARLY_OFF = {"ask_crossref": False, "ask_openalex": False, "ask_datacite": False, "ask_biorxiv": False}
SCHOLARLY_OFF_ENV = {f"PUBFETCH_{name.upper()}": "false" for name in SCHOLARLY_OFF}


def use_services(monkeypatch, tmp_path, services: SyntheticServices | None = None, *, emails: bool = True) -> None:
    """Point pubfetch (through the environment) at ``services``, with a private rate-limit file, no user
    configuration file or NCBI API key (the machine's own would change what is asked) and, unless ``emails`` is
    False, the e-mail addresses NCBI and Unpaywall want (so no warning says they are missing); with False, none."""
    monkeypatch.setenv("PUBFETCH_RATE_DB", str(tmp_path / "rates.sqlite"))
    for name, value in SCHOLARLY_OFF_ENV.items():
        monkeypatch.setenv(name, value)
    for name in ("PUBFETCH_CONFIG", "NCBI_API_KEY", "PUBFETCH_NCBI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    for name in ("PUBFETCH_NCBI_EMAIL", "PUBFETCH_UNPAYWALL_EMAIL"):
        if emails:
            monkeypatch.setenv(name, "curator@example.org")
        else:
            monkeypatch.delenv(name, raising=False)
    if services is not None:
        for name, value in vars(services.endpoints()).items():
            monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", value)


#: the synthetic annotations by type, in the service's documented shape (Europe PMC Annotations API,
#: https://europepmc.org/AnnotationsApi: each annotation its ``exact`` text, ``type``, ``tags`` of ``name`` and ``uri``,
#: and a ``frequency``; the recorded answers in the corpus have that shape)
ANNOTATIONS: dict[str, list[tuple[str, str]]] = {
    "Experimental Methods": [("sequencing", "http://www.ebi.ac.uk/efo/EFO_0004170")],
    "Gene Ontology": [("cell", "http://purl.obolibrary.org/obo/GO_0005623"),
                      ("signal transduction", "http://purl.obolibrary.org/obo/GO_0007165")],
    "Gene_Proteins": [("BRCA2", "https://www.uniprot.org/uniprot/P51587")],
    "Diseases": [("breast cancer", "http://linkedlifedata.com/resource/umls-concept/C0006142")],
    "Organisms": [("human", "http://identifiers.org/taxonomy/9606")],
}


#: Hosts of the services for :func:`in_process_hosts`, as in production: Europe PMC's REST and annotations APIs share
#: one host, the others have their own.
HOSTS = {"europepmc": "http://ebi.test/epmc/rest/", "europepmc_annotations": "http://ebi.test/epmc/annotations/",
         "eutils": "http://eutils.test/eutils/", "pubmed": "http://pubmed.test/pubmed/", "doi": "http://doi.test/doi/",
         "unpaywall": "http://unpaywall.test/unpaywall/"}


def in_process_hosts(services: SyntheticServices, others: dict | None = None):
    """As :func:`in_process`, with each service on its own host as in production (one connection each), publisher
    pages on ``http://pages.test``; ``others`` maps more URL prefixes (``"http://slow.test/*"``) to answers. Returns
    the transport and the endpoints (the scholarly APIs' stay the real ones: :data:`SCHOLARLY_OFF`)."""
    from urllib.parse import urlsplit

    from pubfetch.config import Endpoints
    from pubfetch.net.mapping_transport import MappingTransport

    inner = in_process(services)
    services.page_base = "http://pages.test"

    def answer(request):
        path = urlsplit(request.url)
        rewritten = services.base + path.path + (f"?{path.query}" if path.query else "")
        return inner.answer_for(dataclasses.replace(request, url=rewritten))

    hosts = {f"{urlsplit(url).scheme}://{urlsplit(url).netloc}/*" for url in HOSTS.values()} | {"http://pages.test/*"}
    transport = MappingTransport({**{host: answer for host in hosts}, **(others or {})})
    return transport, Endpoints(**HOSTS)


#: Services asked for many publications at once. A host that is free takes what has gathered, so how many requests a
#: run makes of these varies with arrival timing, while the IDs each is asked for do not (``ids_asked``); the other
#: services are asked once per publication and their counts are exact.
BATCHED_SERVICES = frozenset({"europepmc_search", "annotations", "ncbi", "efetch_pubmed", "efetch_pmc"})


def per_publication(counts: Counter[str]) -> Counter[str]:
    """The request counts of the services asked once per publication."""
    return Counter({service: n for service, n in counts.items() if service not in BATCHED_SERVICES})



def ncbi_requests(services: SyntheticServices) -> list[Request]:
    """Requests that pubfetch's limiter counts as NCBI: E-utilities and PubMed pages, answered or refused."""
    return [r for r in services.server.requests if r.path.startswith(("/eutils/", "/pubmed/"))]


def efetch_ids_sent(services: SyntheticServices) -> Counter[tuple[str, str]]:
    """How often each ``(database, ID)`` was sent to efetch, failed requests included (``ids_asked`` counts only the
    requests the services answered)."""
    return Counter((r.param("db") or "", i) for r in ncbi_requests(services) if r.path.endswith("/efetch.fcgi")
                   for i in (r.param("id") or "").split(",") if i)


def assert_efetch_asked_each_once(ncbi: list[Request], pmids: list[str], batch: int) -> None:
    """Every PMID was in exactly one efetch (none repeated, after a 429 or otherwise), and the efetch requests were
    at most two per batch (a batch's closed-access publications reach efetch right after the search, its open-access
    ones after their full texts, and they are asked together only when the full texts come within the linger) and at
    least one per batches a request may span: the two in flight and the ``carry_batches`` a request waiting for
    company may gather beyond them (docs/throughput.md), never more."""
    asked = [pmid for r in ncbi for pmid in r.param("id").split(",")]
    assert sorted(asked) == sorted(pmids)
    spanned = 2 + FetchConfig().batching.carry_batches
    assert -(-len(pmids) // (spanned * batch)) <= len(ncbi) <= 2 * len(pmids) // batch, [
        len(r.param("id").split(",")) for r in ncbi]


def hold_searches(services: SyntheticServices) -> tuple[threading.Event, threading.Event]:
    """(searching, release): every Europe PMC search waits, once ``searching`` is set by the first, until the test sets
    ``release``, so a run stays mid-fetch (holding its database) for as long as the test needs it there."""
    answer = services.handle
    searching, release = threading.Event(), threading.Event()

    def held(request):
        if request.path.endswith("/search"):
            searching.set()
            release.wait(300)
        return answer(request)

    services.server.routes["/*"] = held
    return searching, release


def serve_doi_page(services: SyntheticServices, article: Article, body: str) -> str:
    """Make ``article``'s DOI resolve to a publisher page of ``body`` on the services' server; the page's path (its
    request count is ``services.counts["extra:" + path]``)."""
    path = f"/article/{article.index}"
    services.extra[f"/doi/{article.doi.upper()}"] = Reply(302, "", "text/plain", {"Location": services.base + path})
    services.extra[path] = Reply(200, body)
    return path
