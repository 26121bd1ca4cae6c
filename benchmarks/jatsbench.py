"""The JATS import's memory: a large open-access package of the corpus's full texts (cycled, each with IDs of its
own) imported by one process, its peak RSS when 10 % of the articles are stored and at the end, for PMC's tar.gz and
for Europe PMC's gzip of many ``<article>`` elements.

```sh
python benchmarks/jatsbench.py --articles 3000
```
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))

from bulkbench import import_run  # noqa: E402
from machine import describe  # noqa: E402
from support.bulkfiles import write_synthetic_jats_bulk, write_synthetic_package  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--articles", type=int, default=3000)
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "jats_memory_results.json")
    opts = p.parse_args()
    results: dict[str, object] = {"machine": describe(), "articles": opts.articles}
    with tempfile.TemporaryDirectory(prefix="jatsbench-") as tmp:
        for kind, write, name in (("pmc_tar_gz", write_synthetic_package, "oa_package.tar.gz"),
                                  ("europepmc_gzip", write_synthetic_jats_bulk, "europepmc_bulk.xml.gz")):
            path = write(Path(tmp) / name, opts.articles)
            db = Path(tmp) / f"{kind}.db"
            row = import_run(str(db), [path], 1, opts.articles, watch=db, operation="-db-import-jats",
                             counted="publications")
            row["file_bytes"] = path.stat().st_size
            results[kind] = row
            print(kind, json.dumps(row), flush=True)
        results["load_average_at_end"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    results["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    opts.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
