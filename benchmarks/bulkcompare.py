"""Parse + store against pubmed_parser's parse alone, in one process, on one synthetic file (the corpus's record
shapes): interleaved rounds of pubmed_parser's ``parse_medline_xml``, pubfetch's parse (``read_medline``) and
pubfetch's parse + store into SQLite and into PostgreSQL (``import_file``, what one worker of ``-db-import-medline``
runs; a new database each round), each in CPU seconds of this process (no interpreter start counted; PostgreSQL's
server is another process, its CPU not counted); medians. PostgreSQL is left out when it is not reachable.

```sh
python benchmarks/bulkcompare.py --records 6000 --rounds 3
```
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from pubfetch.bulk.ledger import ensure_tables  # noqa: E402
from pubfetch.bulk.medline import read_medline  # noqa: E402
from pubfetch.bulk.runner import FileJob, import_file  # noqa: E402
from pubfetch.bulk.sources import BulkFile  # noqa: E402
from pubfetch.config import FetchConfig  # noqa: E402
from pubfetch.store import open_or_init_store  # noqa: E402
from support.bulkfiles import write_synthetic  # noqa: E402
from support.pgdb import own_database  # noqa: E402

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def _cpu(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


@contextlib.contextmanager
def _database(kind: str, tmp: Path, round_: int) -> Iterator[str]:
    if kind == "sqlite":
        yield str(tmp / f"round{round_}.db")
        return
    import psycopg

    admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=5)
    with own_database(admin, f"pubfetch_bulkcompare_{os.getpid()}_{round_}") as url:
        yield url


def _pg_reachable() -> bool:
    try:
        import psycopg

        psycopg.connect(PG_ADMIN, connect_timeout=5).close()
    except Exception:  # psycopg missing or the server away: its column is left out
        return False
    return True


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=6000)
    p.add_argument("--rounds", type=int, default=3)
    opts = p.parse_args()
    import pubmed_parser

    n = opts.records
    tmp = Path(tempfile.mkdtemp(prefix="bulkcompare-"))
    path = write_synthetic(tmp / "pubmed26n0001.xml.gz", n)
    cfg = FetchConfig.from_env()
    engines = ["sqlite", "postgresql"] if _pg_reachable() else ["sqlite"]
    rates: dict[str, list[float]] = {"pubmed_parser_parse": [], "parse": [],
                                     **{f"parse_store_{e}": [] for e in engines}}
    for r in range(opts.rounds):
        rates["pubmed_parser_parse"].append(n / _cpu(lambda: sum(1 for _ in pubmed_parser.parse_medline_xml(
            str(path)))))
        rates["parse"].append(n / _cpu(lambda: sum(1 for _ in read_medline(str(path), path.name))))
        for engine in engines:
            with _database(engine, tmp, r) as db:
                with open_or_init_store(db) as store:
                    ensure_tables(store)
                job = FileJob(db, "medline", BulkFile(path.name, str(path)), 26_000_001, cfg.bulk.import_chunk,
                              cfg.fetching, cfg.endpoints.eutils, cfg.endpoints.europepmc)
                rates[f"parse_store_{engine}"].append(n / _cpu(functools.partial(import_file, job)))
        print(json.dumps({k: round(v[-1], 1) for k, v in rates.items()}), f"load {os.getloadavg()[0]:.1f}",
              flush=True)
    print(json.dumps({"records": n, "rounds": opts.rounds, "per_cpu_second_median":
                      {k: round(statistics.median(v), 1) for k, v in rates.items()},
                      "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}, indent=2))


if __name__ == "__main__":
    main()
