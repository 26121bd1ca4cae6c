"""The scholarly APIs of the replay (tests/support/replay.py): Crossref, OpenAlex, DataCite, bioRxiv/medRxiv and
doi.org's registration-agency lookup, answered from the works recorded in ../shared/corpus/apis.jsonl.

Batched requests are answered the way the services answer them: a Crossref ``works?filter=doi:a,doi:b`` gets every
recorded work of those DOIs as a ``work-list`` (and ``filter=updates:a`` the works whose ``update-to`` names ``a``), an
OpenAlex ``works?filter=doi:a|b`` a results page, a DataCite ``dois?ids=a,b`` a ``data`` list; a one-work request the
work or the service's 404. The agency of a DOI prefix is the service that recorded a work of it. A test adds works in a
service's shape (a retraction notice, a bioRxiv preprint: no recording has one) with :meth:`ScholarlyReplay.add`.
``asked`` counts how often each DOI was named to each service.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from urllib.parse import unquote

from support.loopback import Reply, Request

JSON = "application/json;charset=utf-8"
_DOI_URL = re.compile(r"^https?://(dx\.)?doi\.org/", re.IGNORECASE)


def key(doi: str) -> str:
    return _DOI_URL.sub("", unquote(doi or "").strip()).lower()


class ScholarlyReplay:
    """The recorded works by service and DOI, and the handler of each service's requests."""

    def __init__(self, entries: list[dict], body: Callable[[dict], bytes]) -> None:
        self.works: dict[str, dict[str, dict | list[dict]]] = {"crossref": {}, "openalex": {}, "datacite": {}, "biorxiv": {}}
        self.agencies: dict[str, str] = {}
        self.asked: Counter[tuple[str, str]] = Counter()
        for entry in entries:
            if entry.get("status") != 200 or not entry.get("body"):
                continue
            resource = entry["resource"]
            if resource in ("crossref_work", "crossref_works_filter", "crossref_search"):
                doc = json.loads(body(entry))
                message = doc["message"]
                for work in [message] if doc["message-type"] == "work" else message.get("items", []):
                    self.add("crossref", work["DOI"], work)
            elif resource in ("openalex_work", "openalex_works_filter"):
                doc = json.loads(body(entry))
                for work in doc["results"] if "results" in doc else [doc]:
                    if work.get("doi") and work.get("id"):
                        self.add("openalex", work["doi"], work)
            elif resource in ("datacite_doi", "datacite_dois_list"):
                data = json.loads(body(entry))["data"]
                for resource_ in data if isinstance(data, list) else [data]:
                    self.add("datacite", resource_["attributes"]["doi"], resource_)

    def add(self, service: str, doi: str, work: dict | list[dict], replace: bool = False) -> None:
        """A work of ``service`` (``crossref``, ``openalex``, ``datacite``; ``biorxiv``: a ``details`` answer's
        ``collection``) for ``doi``; the first recorded stays unless ``replace``. Crossref and DataCite works name
        their DOI's agency."""
        works = self.works[service]
        if replace or key(doi) not in works:
            works[key(doi)] = work
        if service in ("crossref", "datacite"):
            self.agencies.setdefault(key(doi).split("/", 1)[0], "Crossref" if service == "crossref" else "DataCite")

    # ------------------------------------------------------------------ handlers (None: not a scholarly API request)

    def __call__(self, host: str, req: Request) -> tuple[str, Reply] | None:
        path = unquote(req.path)
        if host == "api.crossref.org" and path.startswith("/works"):
            return "crossref", self._crossref(path, req)
        if host == "api.openalex.org" and path.startswith("/works"):
            return "openalex", self._openalex(path, req)
        if host == "api.datacite.org" and path.startswith("/dois"):
            return "datacite", self._datacite(path, req)
        if host == "api.biorxiv.org" and path.startswith("/details/"):
            return "biorxiv", self._biorxiv(path)
        if host == "doi.org" and path.startswith("/ra/"):
            return "doi_ra", self._agency(path)
        return None

    def _named(self, service: str, dois: list[str]) -> list:
        self.asked.update((service, key(d)) for d in dois)
        return [self.works[service][key(d)] for d in dict.fromkeys(dois) if key(d) in self.works[service]]

    def _crossref(self, path: str, req: Request) -> Reply:
        if path.startswith("/works/"):
            found = self._named("crossref", [path.removeprefix("/works/")])
            if not found:
                return Reply(404, "Resource not found.", "text/plain")
            return Reply(200, json.dumps({"status": "ok", "message-type": "work", "message": found[0]}), JSON)
        filters = [f.partition(":") for f in (req.param("filter") or "").split(",")]
        items = self._named("crossref", [value for name, _, value in filters if name == "doi"])
        targets = {key(value) for name, _, value in filters if name == "updates"}
        if targets:
            self.asked.update(("crossref_updates", t) for t in targets)
            items += [w for w in self.works["crossref"].values()
                      if any(key(u.get("DOI", "")) in targets for u in w.get("update-to", []))]
        message = {"facets": {}, "total-results": len(items), "items": items, "items-per-page": len(items)}
        return Reply(200, json.dumps({"status": "ok", "message-type": "work-list", "message": message}), JSON)

    def _openalex(self, path: str, req: Request) -> Reply:
        if path.startswith("/works/"):
            found = self._named("openalex", [path.removeprefix("/works/")])
            if not found:
                return Reply(404, "<html><body>Not found</body></html>", "text/html")
            return Reply(200, json.dumps(found[0]), JSON)
        name, _, values = (req.param("filter") or "").partition(":")
        results = self._named("openalex", values.split("|")) if name == "doi" else []
        meta = {"count": len(results), "page": None, "per_page": len(results), "next_cursor": None}
        return Reply(200, json.dumps({"meta": meta, "results": results, "group_by": []}), JSON)

    def _datacite(self, path: str, req: Request) -> Reply:
        if path.startswith("/dois/"):
            found = self._named("datacite", [path.removeprefix("/dois/")])
            if not found:
                return Reply(404, json.dumps({"errors": [{"status": "404", "title": "The resource you are looking "
                                                                                   "for doesn't exist."}]}), JSON)
            return Reply(200, json.dumps({"data": found[0]}), JSON)
        data = self._named("datacite", (req.param("ids") or "").split(","))
        return Reply(200, json.dumps({"data": data, "meta": {"total": len(data)}}), JSON)

    def _biorxiv(self, path: str) -> Reply:
        parts = path.removeprefix("/details/").split("/")
        server, doi = parts[0], "/".join(parts[1:-2])
        items = [i for found in self._named("biorxiv", [doi]) for i in found if i.get("server", "").lower() == server]
        messages = [{"status": "ok" if items else "no posts found"}]
        return Reply(200, json.dumps({"messages": messages, "collection": items}), JSON)

    def _agency(self, path: str) -> Reply:
        out = []
        for prefix in path.removeprefix("/ra/").split(","):
            agency = self.agencies.get(key(prefix).split("/", 1)[0])
            out.append({"DOI": prefix, "RA": agency} if agency else {"DOI": prefix, "status": "DOI does not exist"})
        return Reply(200, json.dumps(out), JSON)
