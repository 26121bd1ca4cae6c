"""What tests/test_extract_reader_preload.py runs in a page worker, and the script that starts that worker in a
process of its own (so that the fork server is started by a page worker pool, whatever ran before in the test
process). The module imports next to nothing: the worker imports it to unpickle the job."""

from __future__ import annotations

import json
import sys
from typing import Any


def parses_seen(html: str, url: str, *, rules: Any) -> dict[str, list[int]]:
    """A job: how often this worker's process found the built-in rule files parsed (hits) and parsed them (misses),
    counting what the fork server did before the fork."""
    from pubfetch.rules import ruleset

    return {name: [info.hits, info.misses] for name, info in (("journals", ruleset._journals_layer.cache_info()),
                                                               ("webpages", ruleset._webpages_layer.cache_info()))}


def main() -> None:
    from pubfetch.extract.reader_workers import page_workers, read_isolated
    from pubfetch.rules import ScrapingRules

    rules = ScrapingRules.load()
    with page_workers(1, rules) as workers:
        seen = read_isolated(parses_seen, ("", ""), rules, workers, time_limit=120, memory_limit=0)
    json.dump(seen, sys.stdout)


if __name__ == "__main__":
    main()
