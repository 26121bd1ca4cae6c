"""Allow ``python -m pubfetch`` (through the entry point that keeps an early Ctrl-C to one line)."""

import sys

from pubfetch.cli.entry import main

if __name__ == "__main__":
    sys.exit(main())
