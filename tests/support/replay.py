"""Replays ../shared/corpus from a loopback server that acts as an HTTP and HTTPS proxy for every real service.

The fetcher is configured with ``http://`` endpoints of the real hosts and a proxy pointing here, so the URLs it sees
(and matches scraping rules against) are the real ones while every byte comes from 127.0.0.1; https URLs come through
``CONNECT`` tunnels (tests/support/tlsintercept.py). Batched requests are
answered the way the services answer them: a Europe PMC query ORing many IDs gets every recorded record matching one
of them, an efetch ID list gets a set of the recorded articles, an annotations request the recorded articles asked for.
Each answer is built from recorded bodies only; nothing is invented.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from lxml import etree

from support.loopback import Reply, Request
from support.replay_apis import ScholarlyReplay

_EXT_ID = re.compile(r"EXT_ID:(\d+)", re.IGNORECASE)
_PMCID = re.compile(r"PMCID:(PMC\d+)", re.IGNORECASE)
_DOI = re.compile(r'DOI:"([^"]+)"', re.IGNORECASE)
#: The corpus manifests, served together: the first batch, the publisher/PubMed pages of the second, the third
#: batch's publisher pages (with what each page shows), and the scholarly APIs' answers of the fourth
#: (tests/support/replay_apis.py).
MANIFESTS = ("manifest.jsonl", "pages.jsonl", "pages3.jsonl", "apis.jsonl")
_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


def _host_path(url: str) -> str:
    split = urlsplit(url)
    host = (split.hostname or "").lower()
    host = host.removeprefix("www.")
    return host + split.path + ("?" + split.query if split.query else "")


class CorpusReplay:
    """A request handler over the corpus manifest; ``counts`` tells how often each service was asked, ``asked`` how
    often each ID was named in a request of a batched service (``("europepmc_search", "PMC123")``,
    ``("efetch_pubmed", "123")``): how many requests a batch takes follows arrival timing, the IDs it asks do not."""

    def __init__(self, corpus_dir: Path) -> None:
        self.dir = corpus_dir
        #: every entry, with the manifest it comes from under "_manifest"
        self.entries = [{**json.loads(line), "_manifest": name} for name in MANIFESTS if (corpus_dir / name).is_file()
                        for line in (corpus_dir / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        self.counts: Counter[str] = Counter()
        self.asked: Counter[tuple[str, str]] = Counter()
        self.search_records: list[dict] = []
        seen: set[tuple[str, str]] = set()
        for e in self.by_resource("europepmc_search"):
            if "format=json" not in e["url"] or "resultType=core" not in e["url"]:
                continue
            for rec in json.loads(self.body(e)).get("resultList", {}).get("result", []):
                key = (rec.get("source", ""), rec.get("id", ""))
                if key not in seen:
                    seen.add(key)
                    self.search_records.append(rec)
        self.annotations: dict[str, dict] = {}
        for e in self.by_resource("europepmc_annotations"):
            for article in json.loads(self.body(e)):
                self.annotations[f"{article['source']}:{article['extId']}"] = article
                if article.get("pmcid"):
                    self.annotations[f"PMC:{article['pmcid']}"] = article
        self.pubmed_articles: dict[str, bytes] = {}
        self.pmc_articles: dict[str, bytes] = {}
        for e in self.by_resource("pubmed_efetch"):
            root = etree.fromstring(self.body(e), _XML_PARSER)
            for art in root:
                pmid = art.findtext(".//PMID")
                if pmid:
                    self.pubmed_articles[pmid] = etree.tostring(art)
        for e in self.by_resource("pmc_efetch"):
            root = etree.fromstring(self.body(e), _XML_PARSER)
            for art in root.iter("article"):
                pmc = art.findtext(".//article-id[@pub-id-type='pmc']") or art.findtext(
                    ".//article-id[@pub-id-type='pmcid']")
                if pmc:
                    self.pmc_articles[pmc.removeprefix("PMC")] = etree.tostring(art)
        self.scholarly = ScholarlyReplay(self.entries, self.body)
        self.pages: dict[str, dict] = {}
        for resource in ("publisher_page", "pubmed_page", "pdf", "unpaywall", "europepmc_fulltext", "doi_redirect"):
            for e in self.by_resource(resource):
                self.pages[_host_path(e["url"])] = e

    def redirect(self, doi: str, location: str) -> None:
        """Answer doi.org for ``doi`` with a single hop to ``location``: a DOI that resolves to another article's
        recorded page, as a resolver or a publisher's mistake does (the page itself stays as recorded)."""
        self.pages[_host_path("https://doi.org/" + doi)] = {
            "name": f"redirect-{doi}", "resource": "doi_redirect", "status": 302, "headers": {"Location": location},
            "body": None}

    def answer(self, url: str, body: bytes, content_type: str, status: int = 200) -> None:
        """Answer ``url`` with a body no recording has (a synthetic service's, such as a bioRxiv JATS full text)."""
        self.pages[_host_path(url)] = {"name": f"answer-{url}", "resource": "synthetic", "status": status,
                                       "headers": {"Content-Type": content_type}, "body": None, "_bytes": body}

    def by_resource(self, resource: str) -> list[dict]:
        return [e for e in self.entries if e["resource"] == resource]

    def body(self, entry: dict) -> bytes:
        if "_bytes" in entry:
            return entry["_bytes"]
        return (self.dir / entry["body"]).read_bytes() if entry.get("body") else b""

    # ------------------------------------------------------------------ the handler

    def __call__(self, req: Request) -> Reply:
        host = req.headers.get("Host", "").split(":")[0].lower().removeprefix("www.")
        path = req.path
        scholarly = self.scholarly(host, req)
        if scholarly is not None:
            self.counts[scholarly[0]] += 1
            return scholarly[1]
        if host == "ebi.ac.uk" and path.startswith("/europepmc/webservices/rest/search"):
            self.counts["europepmc_search"] += 1
            return self._search(req)
        if host == "ebi.ac.uk" and path.startswith("/europepmc/annotations_api/annotationsByArticleIds"):
            self.counts["europepmc_annotations"] += 1
            return self._annotations(req)
        if host == "eutils.ncbi.nlm.nih.gov" and path.endswith("/efetch.fcgi"):
            self.counts["efetch_" + (req.param("db") or "")] += 1
            return self._efetch(req)
        if host == "doi.org":
            self.counts["doi"] += 1
        elif host == "ebi.ac.uk" and path.endswith("/fullTextXML"):
            self.counts["europepmc_fulltext"] += 1
        elif host == "api.unpaywall.org":
            self.counts["unpaywall"] += 1
        else:
            self.counts["other"] += 1
        query = "&".join(f"{k}={v}" for k, vs in req.query.items() for v in vs if k != "email")
        key = host + path + ("?" + query if query else "")
        entry = self.pages.get(key) or self.pages.get(host + unquote(path))
        if entry is None and host in ("doi.org", "api.unpaywall.org"):  # DOIs are case-insensitive
            wanted = (host + unquote(path)).lower()
            entry = next((e for k, e in self.pages.items() if k.split("?")[0].lower() == wanted), None)
        if entry is None:
            return Reply(404, "not recorded", "text/plain")
        headers = {k: v for k, v in entry.get("headers", {}).items() if k.lower() not in ("content-type",)}
        content_type = entry.get("headers", {}).get("Content-Type")
        return Reply(entry["status"], self.body(entry), content_type, headers)

    def _search(self, req: Request) -> Reply:
        query = req.param("query") or ""
        pmids = set(_EXT_ID.findall(query))
        pmcids = {p.upper() for p in _PMCID.findall(query)}
        dois = {d.lower() for d in _DOI.findall(query)}
        self.asked.update(("europepmc_search", i) for i in pmids | pmcids | dois)
        src_med = "SRC:MED" in query.upper()
        found = []
        for rec in self.search_records:
            if rec.get("pmid") in pmids and (not src_med or rec.get("source") == "MED") or rec.get("pmcid", "").upper() in pmcids or rec.get("doi", "").lower() in dois:
                found.append(rec)
        body = {"version": "6.9", "hitCount": len(found), "nextCursorMark": "AoE_end",
                "request": {"queryString": query}, "resultList": {"result": found}}
        return Reply(200, json.dumps(body), "application/json;charset=UTF-8")

    def _annotations(self, req: Request) -> Reply:
        wanted = (req.param("articleIds") or "").split(",")
        types = {t for t in (req.param("type") or "").split(",") if t}
        out = []
        for article_id in wanted:
            article = self.annotations.get(article_id.strip())
            if article is None:
                continue
            anns = [a for a in article["annotations"] if not types or a.get("type") in types]
            out.append({**article, "annotations": anns})
        return Reply(200, json.dumps(out), "application/json;charset=UTF-8")

    def _efetch(self, req: Request) -> Reply:
        db = req.param("db")
        ids = [i.strip().removeprefix("PMC") for i in (req.param("id") or "").split(",") if i.strip()]
        self.asked.update((f"efetch_{db}", i) for i in ids)
        if db == "pubmed":
            arts = [self.pubmed_articles[i] for i in ids if i in self.pubmed_articles]
            body = b"<?xml version=\"1.0\" ?>\n<PubmedArticleSet>\n" + b"\n".join(arts) + b"\n</PubmedArticleSet>\n"
        elif db == "pmc":
            arts = [self.pmc_articles[i] for i in ids if i in self.pmc_articles]
            body = b"<?xml version=\"1.0\" ?>\n<pmc-articleset>" + b"\n".join(arts) + b"</pmc-articleset>\n"
        else:
            return Reply(400, "unknown db", "text/plain")
        return Reply(200, body, "text/xml; charset=UTF-8")


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)
