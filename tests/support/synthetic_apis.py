"""Synthetic Crossref, OpenAlex, DataCite and doi.org agency lookup for N made-up DOIs outside PubMed, answered by
:class:`~support.synthetic.SyntheticServices` beside its other services (its ``more`` routes): for the benchmark of
a run of non-PubMed DOIs (benchmarks/scholarly.py) and the tests of it.

The DOIs are ``10.5556/api.N`` (registered with Crossref) and, every tenth, ``10.5557/data.N`` (DataCite); Europe PMC,
PubMed and Unpaywall know none of them, doi.org resolves none. The answers have the fields of the recorded answers of
../shared/corpus/apis.jsonl that pubfetch reads (a Crossref ``work-list`` item with title, JATS abstract, authors,
journal, date, licence, funder and reference list; an OpenAlex work with its inverted-index abstract and counts; a
DataCite resource), and every fiftieth Crossref DOI has a retraction notice that names it only in its ``update-to``.
"""

from __future__ import annotations

import json
from urllib.parse import unquote

from support.loopback import Reply, Request
from support.synthetic import SyntheticServices

JSON = "application/json;charset=utf-8"
CROSSREF_PREFIX, DATACITE_PREFIX = "10.5556", "10.5557"
#: the routes under the services' base URL, by endpoint (benchmarks/services.py puts each on a host of its own)
PATHS = {"crossref": "/crossref/", "openalex": "/openalex/", "datacite": "/datacite/"}


def dois(n: int) -> list[str]:
    """The ``n`` DOIs, every tenth DataCite's."""
    return [f"{DATACITE_PREFIX}/data.{i}" if i % 10 == 0 else f"{CROSSREF_PREFIX}/api.{i}" for i in range(n)]


def _index(doi: str) -> int | None:
    tail = doi.strip().lower().rsplit(".", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _title(i: int) -> str:
    return f"Synthetic study {i} of structured metadata outside PubMed"


def _abstract(i: int) -> str:
    return f"We describe synthetic result {i}. " + "It is read from a scholarly API without any publisher page. " * 3


def crossref_work(i: int, n: int) -> dict:
    return {"DOI": f"{CROSSREF_PREFIX}/api.{i}", "type": "journal-article", "title": [_title(i)],
            "abstract": f"<jats:p>{_abstract(i)}</jats:p>", "container-title": ["Journal of Synthetic Physics"],
            "author": [{"given": "Ada", "family": f"Author{i}", "sequence": "first", "affiliation": [{"name": "Lab"}]}],
            "published": {"date-parts": [[2021, 1 + i % 12, 1 + i % 28]]}, "publisher": "Synthetic Press",
            "license": [{"URL": "https://creativecommons.org/licenses/by/4.0/", "content-version": "vor"}],
            "funder": [{"name": "Synthetic Foundation", "award": [f"SF-{i}"]}],
            "reference": [{"key": "r1", "DOI": f"{CROSSREF_PREFIX}/api.{(i + 1) % max(n, 1)}"}]}


def notice(i: int) -> dict:
    return {"DOI": f"{CROSSREF_PREFIX}/notice.{i}", "type": "journal-article", "title": [f"Retraction: {_title(i)}"],
            "update-to": [{"DOI": f"{CROSSREF_PREFIX}/api.{i}", "type": "retraction", "label": "Retraction",
                           "updated": {"date-parts": [[2022, 1, 1]]}, "source": "publisher"}]}


def openalex_work(doi: str, i: int) -> dict:
    words = _abstract(i).split()
    index: dict[str, list[int]] = {}
    for position, word in enumerate(words):
        index.setdefault(word, []).append(position)
    return {"id": f"https://openalex.org/W{i}", "doi": f"https://doi.org/{doi}", "title": _title(i),
            "ids": {"openalex": f"https://openalex.org/W{i}", "doi": f"https://doi.org/{doi}"},
            "abstract_inverted_index": index, "cited_by_count": i % 13, "is_retracted": False,
            "publication_date": f"2021-{1 + i % 12:02d}-{1 + i % 28:02d}"}


def datacite_resource(i: int) -> dict:
    doi = f"{DATACITE_PREFIX}/data.{i}"
    return {"id": doi, "type": "dois", "attributes": {
        "doi": doi, "titles": [{"title": f"Synthetic dataset {i}"}],
        "creators": [{"name": f"Author{i}, Ada", "givenName": "Ada", "familyName": f"Author{i}", "affiliation": []}],
        "descriptions": [{"description": _abstract(i), "descriptionType": "Abstract"}], "publisher": "Zenodo",
        "publicationYear": 2020, "types": {"resourceTypeGeneral": "Dataset"},
        "dates": [{"date": "2020-01-02", "dateType": "Issued"}], "fundingReferences": [], "rightsList": [],
        "relatedIdentifiers": []}}


def add_scholarly_apis(services: SyntheticServices) -> None:
    """Answer the scholarly APIs (under :data:`PATHS`) and doi.org's agency lookup (``/doi/ra/``) for the services'
    ``n`` DOIs; each is counted, rate limited and timed as a service of its own (``doi_ra`` for the lookup)."""
    n = services.n

    def known(doi: str, prefix: str) -> int | None:
        i = _index(doi)
        return i if i is not None and 0 <= i < n and doi.lower().startswith(prefix) and \
            (i % 10 == 0) == (prefix == DATACITE_PREFIX) else None

    def crossref(req: Request) -> Reply:
        filters = [f.partition(":") for f in (req.param("filter") or "").split(",")]
        items = [crossref_work(i, n) for name, _, doi in filters if name == "doi"
                 if (i := known(doi, CROSSREF_PREFIX)) is not None]
        items += [notice(i) for name, _, doi in filters if name == "updates"
                  if (i := known(doi, CROSSREF_PREFIX)) is not None and i % 50 == 1]
        services._note("crossref", [doi.lower() for _, _, doi in filters if doi])
        message = {"total-results": len(items), "items": items, "items-per-page": len(items)}
        return Reply(200, json.dumps({"status": "ok", "message-type": "work-list", "message": message}), JSON)

    def openalex(req: Request) -> Reply:
        name, _, values = (req.param("filter") or "").partition(":")
        found = [(doi, i) for doi in values.split("|") if name == "doi"
                 if (i := known(doi, CROSSREF_PREFIX) if known(doi, CROSSREF_PREFIX) is not None
                     else known(doi, DATACITE_PREFIX)) is not None]
        services._note("openalex", [doi for doi, _ in found])
        results = [openalex_work(doi, i) for doi, i in found]
        return Reply(200, json.dumps({"meta": {"count": len(results)}, "results": results}), JSON)

    def datacite(req: Request) -> Reply:
        wanted = (req.param("ids") or "").split(",")
        data = [datacite_resource(i) for doi in wanted if (i := known(doi, DATACITE_PREFIX)) is not None]
        services._note("datacite", wanted)
        return Reply(200, json.dumps({"data": data, "meta": {"total": len(data)}}), JSON)

    def agency(req: Request) -> Reply:
        prefixes = unquote(req.path.removeprefix("/doi/ra/")).split(",")
        agencies = {CROSSREF_PREFIX: "Crossref", DATACITE_PREFIX: "DataCite"}
        return Reply(200, json.dumps([{"DOI": p, "RA": agencies[p]} if p in agencies else
                                      {"DOI": p, "status": "DOI does not exist"} for p in prefixes]), JSON)

    services.more.update({PATHS["crossref"]: ("crossref", crossref), PATHS["openalex"]: ("openalex", openalex),
                          PATHS["datacite"]: ("datacite", datacite), "/doi/ra/": ("doi_ra", agency)})
