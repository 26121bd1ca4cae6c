"""A run of N DOIs outside PubMed against synthetic services enforcing the documented limits: does pubfetch stay
close to its rate-limit bound, get no 429, and ask Crossref and OpenAlex in batches?

The services are benchmarks/services.py's hosted synthetic ones (Europe PMC, doi.org, Unpaywall ...) with the
scholarly APIs of tests/support/synthetic_apis.py on hosts of their own: N DOIs, nine in ten registered with Crossref
and one in ten with DataCite, that Europe PMC, PubMed, doi.org and Unpaywall do not know (so each DOI costs its
Europe PMC search share, a doi.org and an Unpaywall request beside the scholarly APIs). Every service answers after
``--latency`` and refuses with 429 what its documented limits refuse: Crossref's polite pool 10/s (the run gives a
contact address), OpenAlex 100/s, DataCite 1,000 per 5 minutes, doi.org 20/s, Unpaywall 10/s, Europe PMC 10/s.

The child is ``python -m pubfetch -pub-file dois.txt -db-fetch-end pubs.db`` with the scholarly APIs on, an OpenAlex
key and the contact addresses. The table gives the wall time, the lower bound its requests allow (bound.py, with the
contact addresses' windows), wall / bound, the 429s, and the requests per DOI by service.

    python benchmarks/scholarly.py              # 1,000 DOIs
    python benchmarks/scholarly.py --dois 200 --latency 0.05
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "tests", Path(__file__).resolve().parent):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bound import lower_bound  # noqa: E402
from fetchbench import child_env, run_pubfetch, write_id_file  # noqa: E402
from services import SERVER_LIMITS, HostedServices  # noqa: E402
from support.synthetic import SCHOLARLY_OFF_ENV  # noqa: E402
from support.synthetic_apis import add_scholarly_apis, dois  # noqa: E402

#: server-side services -> column headings, in table order
COLUMNS = {"europepmc_search": "EPMC search", "doi_ra": "agency", "crossref": "Crossref", "openalex": "OpenAlex",
           "datacite": "DataCite", "doi": "doi.org", "unpaywall": "Unpaywall"}
CONTACT = "benchmark@example.org"
CREDENTIALS = {"crossref_mailto": CONTACT, "datacite_mailto": CONTACT, "openalex_api_key": "benchmark-key"}


def run(count: int, latency: float, workdir: Path) -> dict[str, object]:
    with HostedServices(count, latency=latency, limits=SERVER_LIMITS) as hosted:
        add_scholarly_apis(hosted.services)
        env = child_env(hosted, workdir / "rates.sqlite")
        env.update({name: "true" for name in SCHOLARLY_OFF_ENV})
        env.update({"PUBFETCH_ASK_BIORXIV": "false", "PUBFETCH_CROSSREF_MAILTO": CONTACT,
                    "PUBFETCH_DATACITE_MAILTO": CONTACT, "PUBFETCH_OPENALEX_API_KEY": "benchmark-key",
                    "PUBFETCH_UNPAYWALL_EMAIL": CONTACT, "PUBFETCH_EUROPEPMC_EMAIL": CONTACT})
        ids = write_id_file(workdir / "dois.txt", dois(count))
        db = workdir / "pubs.db"
        init = run_pubfetch(["-db-init", str(db)], env, 120)
        if init.exit_status != 0:
            raise RuntimeError(f"pubfetch -db-init failed: {init.stderr_tail}")
        hosted.reset()
        child = run_pubfetch(["-pub-file", str(ids), "-db-fetch-end", str(db), "--allow-private-addresses", "--quiet",
                              "--no-javascript"], env, 3600)
        if child.exit_status not in (0, 1):  # 1: no full text anywhere, so nothing is final
            raise RuntimeError(f"pubfetch exited with {child.exit_status}: {child.stderr_tail}")
        services = hosted.services
        wasted = services.repeats + services.too_many + services.injected
        bound = lower_bound(dict(services.counts), dict(wasted), latency, CREDENTIALS)
        return {"dois": count, "wall": child.wall_s, "cpu": child.cpu_s, "bound": bound.seconds,
                "binding": bound.binding, "too_many": dict(services.too_many),
                "requests": {s: services.counts.get(s, 0) for s in COLUMNS}}


def table(result: dict) -> str:
    requests: dict[str, int] = result["requests"]  # type: ignore[assignment]
    count: int = result["dois"]  # type: ignore[assignment]
    head = "| DOIs | wall | bound (what sets it) | wall / bound | 429s | " + " | ".join(COLUMNS.values()) + " |"
    rule = "|" + "---|" * (5 + len(COLUMNS))
    per_doi = " | ".join(f"{requests[s] / count:.3f} ({requests[s]:,})" for s in COLUMNS)
    row = (f"| {count:,} | {result['wall']:.1f} s | {result['bound']:.1f} s ({result['binding']}) | "
           f"{result['wall'] / result['bound']:.2f} | {sum(result['too_many'].values())} | {per_doi} |")
    return "\n".join((head, rule, row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dois", type=int, default=1000, help="DOIs fetched (default 1,000)")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds every answer waits (default 0.1)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.dois, args.latency, Path(tmp))
    print(table(result))
    print(f"\nrequests per DOI, by service (count); CPU {result['cpu']:.1f} s; 429s by service: {result['too_many']}")


if __name__ == "__main__":
    main()
