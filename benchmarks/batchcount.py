"""How close a run came to the fewest requests of each batched service: the smallest batched request set.

A publication asked of a batched service for the k-th time is in that service's k-th pass (a second pass asks the
search again by the PMCID and DOI PubMed gave). The fewest requests a pass can take are ceil(IDs / batch size); their
sum over the passes is the smallest set, which no gathering beats. The table gives the requests made beside it, and
the bound the smallest set gives (bound.py, with the batched services' counts replaced by it).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from services import TESTS  # noqa: F401 - puts the tests' support package on the path
from support.loopback import Request  # noqa: E402
from support.synthetic import SyntheticServices  # noqa: E402

#: The batched services as the server tells them apart, with pubfetch's default IDs per request
#: (pubfetch.config.defaults.Batching).
BATCH_SIZES: dict[str, int] = {"europepmc_search": 200, "annotations": 100, "efetch_pubmed": 200, "efetch_pmc": 200}

_TERMS = re.compile(r'EXT_ID:(\d+)|PMCID:(PMC\d+)|DOI:"([^"]+)"', re.IGNORECASE)


@dataclass(frozen=True)
class BatchedCount:
    """One batched service (annotations: each type of annotation is its own step): requests made, and the fewest."""

    requests: int
    smallest: int
    ids_by_pass: tuple[int, ...]

    @property
    def ratio(self) -> float:
        return self.requests / self.smallest if self.smallest else 0.0


def _publications(services: SyntheticServices, request: Request) -> tuple[str, list[int]] | None:
    """The batched step a request is of, and the synthetic publications (by index) it asks for."""
    service = services._service(request.path)
    if service == "europepmc_search":
        found = [services.article(pmid=p, pmcid=c, doi=d) for p, c, d in _TERMS.findall(request.param("query") or "")]
        return service, [a.index for a in found if a is not None]
    if service == "ncbi" and request.path.endswith("/efetch.fcgi"):
        db = request.param("db") or ""
        ids = [i for i in (request.param("id") or "").split(",") if i]
        found = [services.article(pmid=i) if db == "pubmed" else services.article(pmcid="PMC" + i.removeprefix("PMC"))
                 for i in ids]
        return f"efetch_{db}", [a.index for a in found if a is not None]
    if service == "annotations":
        found = []
        for article_id in (request.param("articleIds") or "").split(","):
            source, _, ext = article_id.partition(":")
            found.append(services.article(pmcid=ext) if source == "PMC" else services.article(pmid=ext))
        return f"annotations:{request.param('type') or ''}", [a.index for a in found if a is not None]
    return None


def batched_counts(services: SyntheticServices, requests: Iterable[Request]) -> dict[str, BatchedCount]:
    """Requests and the smallest batched request set of each batched step, from the requests the server received."""
    made: Counter[str] = Counter()
    passes: dict[str, Counter[int]] = {}  # step -> pass -> IDs
    seen: dict[str, Counter[int]] = {}  # step -> publication -> times asked
    for request in requests:
        asked = _publications(services, request)
        if asked is None:
            continue
        step, publications = asked
        made[step] += 1
        times = seen.setdefault(step, Counter())
        for publication in publications:
            times[publication] += 1
            passes.setdefault(step, Counter())[times[publication]] += 1
    counts = {}
    for step, requests_made in sorted(made.items()):
        size = BATCH_SIZES[step.partition(":")[0]]
        by_pass = tuple(passes.get(step, Counter())[k] for k in sorted(passes.get(step, Counter())))
        counts[step] = BatchedCount(requests_made, sum(math.ceil(n / size) for n in by_pass), by_pass)
    return counts


def with_smallest_sets(counts: dict[str, int], batched: dict[str, BatchedCount]) -> dict[str, int]:
    """The server's request counts by service with each batched step's requests replaced by its smallest set."""
    fewer: Counter[str] = Counter()
    for step, count in batched.items():
        saved = count.requests - count.smallest
        service = step.partition(":")[0]
        fewer[service] += saved
        if service.startswith("efetch_"):
            fewer["ncbi"] += saved  # the server counts efetch under the E-utilities too
    return {service: n - fewer[service] for service, n in counts.items()}
