"""The ``pubfetch`` command line: PubFetcher's one-off operations and its fixed-order pipeline (see main.py).

The entry point is :func:`pubfetch.cli.main.main`; nothing is imported here, so that ``python -m pubfetch`` loads
only what an operation needs.
"""

__all__: list[str] = []
