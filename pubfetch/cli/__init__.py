"""The ``pubfetch`` command line: PubFetcher's one-off operations and its fixed-order pipeline (see main.py)."""
