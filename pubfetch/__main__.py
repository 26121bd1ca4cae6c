"""Allow ``python -m pubfetch``."""

import sys

from pubfetch.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
