"""The lower bound of a fetch run's wall time, computed from the requests it made.

No schedule can be faster than its busiest resource: a rate-limited service needs (necessary requests / rate)
seconds, and a host served over c connections needs (requests x latency / c) seconds. The bound is the largest of
these; wall / bound says how close pubfetch came. Necessary requests are those the server counted minus repeats of an
answered request, 429s and injected failures (pubfetch should not have needed them).
"""

from __future__ import annotations

from dataclasses import dataclass

#: pubfetch's rate-limit keys (pubfetch.net.ratelimit.default_limits, without an NCBI API key) -> (requests per
#: second, the synthetic server's services counted under the key). PubMed pages share NCBI's allowance.
RATES: dict[str, tuple[float, tuple[str, ...]]] = {
    "ncbi": (3.0, ("ncbi", "other")),
    "europepmc": (10.0, ("europepmc_search", "europepmc_fulltext")),
    "europepmc_annotations": (10.0, ("annotations",)),
    "unpaywall": (10.0, ("unpaywall",)),
    "doi": (20.0, ("doi",)),
    "host": (4.0, ("publisher",)),
}
#: host -> (services it serves, connections pubfetch keeps to it). doi.org takes no connection slot (PubFetcher).
HOSTS: dict[str, tuple[tuple[str, ...], int]] = {
    "www.ebi.ac.uk": (("europepmc_search", "europepmc_fulltext", "annotations"), 1),
    "eutils.ncbi.nlm.nih.gov": (("ncbi",), 1),
    "pubmed.ncbi.nlm.nih.gov": (("other",), 1),
    "api.unpaywall.org": (("unpaywall",), 1),
    "publisher": (("publisher",), 1),
}


@dataclass(frozen=True)
class Bound:
    seconds: float
    binding: str  # what sets it: "unpaywall: 500 requests at 10/s"


def lower_bound(requests: dict[str, int], wasted: dict[str, int], latency: float) -> Bound:
    """The bound for ``requests`` by server-side service, of which ``wasted`` were not necessary."""
    candidates = [Bound(0.0, "nothing asked")]
    for key, (rate, services) in RATES.items():
        necessary = sum(max(0, requests.get(s, 0) - wasted.get(s, 0)) for s in services)
        candidates.append(Bound(necessary / rate, f"{key}: {necessary:,} requests at {rate:g}/s"))
    for host, (services, connections) in HOSTS.items():
        sent = sum(requests.get(s, 0) for s in services)
        candidates.append(Bound(sent * latency / connections,
                                f"{host}: {sent:,} requests x {latency * 1000:.0f} ms / {connections} connection"))
    return max(candidates, key=lambda b: b.seconds)
