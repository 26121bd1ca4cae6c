"""Run inside ``unshare -rm`` with a 64 kB tmpfs mounted on argv[1] (see test_spill.py): fills an end-of-run retry list
there past the space, reads it back, and prints one JSON object: how many documents came back, in order or not."""

from __future__ import annotations

import json
import logging
import sys

from pubfetch.store.spill import SpillList

logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
N = 400
spill = SpillList(directory=sys.argv[1])
for i in range(N):
    spill.append((N - i, 0), {"i": i, "text": "x" * 1000})  # 400 kB into 64 kB, read back in reverse
back = [doc["i"] for chunk in spill.chunks(7) for doc in chunk]
spill.close()
print(json.dumps({"count": len(back), "ordered": back == list(range(N - 1, -1, -1))}))
