"""The lower bound of a fetch run's wall time, computed from the requests it made.

No schedule can be faster than its busiest resource: a rate-limited service needs the time its documented windows
allow for its necessary requests (n / rate for a per-second limit; n requests within a rolling window of c requests
per s seconds take at least (n - 1) // c x s), and a host served over c connections needs (requests x latency / c)
seconds. The bound is the largest of these; wall / bound says how close pubfetch came. Necessary requests are those the
server counted minus repeats of an answered request, 429s and injected failures (pubfetch should not have needed
them).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pubfetch.config.limits import DAY, DOCUMENTED, format_windows  # noqa: E402

#: pubfetch's rate-limit keys -> the synthetic server's services counted under the key; their windows are the documented
#: ones (pubfetch.config.limits.DOCUMENTED, without an NCBI API key). PubMed pages share NCBI's allowance.
SERVICES_OF_KEY: dict[str, tuple[str, ...]] = {
    "ncbi": ("ncbi", "other"),
    "europepmc": ("europepmc_search", "europepmc_fulltext", "citations"),
    "europepmc_annotations": ("annotations",),
    "unpaywall": ("unpaywall",),
    "doi": ("doi", "doi_ra"),
    "crossref": ("crossref",),
    "openalex": ("openalex",),
    "datacite": ("datacite",),
    "host": ("publisher",),
}
#: host -> (services it serves, connections pubfetch keeps to it). doi.org takes no connection slot (PubFetcher).
HOSTS: dict[str, tuple[tuple[str, ...], int]] = {
    "www.ebi.ac.uk": (("europepmc_search", "europepmc_fulltext", "citations", "annotations"), 1),
    "eutils.ncbi.nlm.nih.gov": (("ncbi",), 1),
    "pubmed.ncbi.nlm.nih.gov": (("other",), 1),
    "api.unpaywall.org": (("unpaywall",), 1),
    "publisher": (("publisher",), 1),
    "api.crossref.org": (("crossref",), 1),
    "api.openalex.org": (("openalex",), 1),
    "api.datacite.org": (("datacite",), 1),
}


def least_seconds(requests: int, windows: Iterable[tuple[int, float]]) -> float:
    """The least time ``requests`` requests take within these (count, seconds) windows: a window of a second or less
    as a rate, a longer one rolling (the first ``count`` go at once, the next a window later), a day's not at all (it
    refuses rather than delays)."""
    least = 0.0
    for count, seconds in windows:
        if seconds <= 1:
            least = max(least, requests * seconds / count)
        elif seconds < DAY and requests > 0:
            least = max(least, (requests - 1) // count * seconds)
    return least


@dataclass(frozen=True)
class Bound:
    seconds: float
    binding: str  # what sets it: "unpaywall: 500 requests at 10/s"


def lower_bound(requests: dict[str, int], wasted: dict[str, int], latency: float,
                credentials: dict[str, str] | None = None) -> Bound:
    """The bound for ``requests`` by server-side service, of which ``wasted`` were not necessary; ``credentials``:
    the settings given that earn a service more (``crossref_mailto``), by name."""
    candidates = [Bound(0.0, "nothing asked")]
    for key, services in SERVICES_OF_KEY.items():
        necessary = sum(max(0, requests.get(s, 0) - wasted.get(s, 0)) for s in services)
        windows = DOCUMENTED[key].chosen(credentials or {})
        candidates.append(Bound(least_seconds(necessary, windows),
                                f"{key}: {necessary:,} requests at {format_windows(windows)}"))
    for host, (services, connections) in HOSTS.items():
        sent = sum(requests.get(s, 0) for s in services)
        candidates.append(Bound(sent * latency / connections,
                                f"{host}: {sent:,} requests x {latency * 1000:.0f} ms / {connections} connection"))
    return max(candidates, key=lambda b: b.seconds)
