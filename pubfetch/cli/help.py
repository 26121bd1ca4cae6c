"""The ``--help`` text, generated from the option table so it always lists exactly the options the parser accepts."""

from __future__ import annotations

import textwrap

from pubfetch._version import __version__
from pubfetch.cli.options import GROUPS
from pubfetch.cli.spec import Option

WIDTH = 120
COLUMN = 36

USAGE = "usage: pubfetch [-OPERATION [ARG ...] ...] [--MODIFIER [ARG ...] ...]"

INTRO = (
    f"pubfetch {__version__}: fetch publications (title, keywords, MeSH, EFO/GO terms, abstract, full text), "
    "webpages and docs, keep them in a database, filter them and output them as text, HTML or JSON "
    "(a Python PubFetcher).\n\n"
    "Single-dash options are operations, double-dash options modify them. One-off operations run first, in the "
    "order listed; then the pipeline runs its steps in the fixed order of the numbered groups below (add IDs, "
    "filter IDs, ..., output), whatever the order of the options on the command line. Errors print one line on "
    "stderr and exit with status 2."
)

EXAMPLES = """Examples:
  pubfetch -pub-file examples/pmids.txt -db-fetch-end pubs.db     (creates pubs.db when missing; re-runnable)
  pubfetch -pub-db pubs.db -db pubs.db -usable -out --format json
  pubfetch -pub 31114920 PMC6198355 -db pubs.db -out --out-part title abstract --plain
  pubfetch -pub-json exported.json -put pubs.db"""


ENVIRONMENT = (
    ("NCBI_API_KEY (or PUBFETCH_NCBI_API_KEY)", "NCBI API key: 10 instead of 3 requests/s"),
    ("PUBFETCH_NCBI_EMAIL, PUBFETCH_NCBI_TOOL", "e-mail and tool name sent to NCBI E-utilities"),
    ("PUBFETCH_EUROPEPMC_EMAIL", "e-mail sent to Europe PMC"),
    ("PUBFETCH_UNPAYWALL_EMAIL", "e-mail sent to Unpaywall (it requires one)"),
    ("PUBFETCH_<SERVICE>_URL", "base URL of a service: EUROPEPMC, EUROPEPMC_ANNOTATIONS, EUTILS, PUBMED, DOI, "
     "UNPAYWALL"),
    ("PUBFETCH_RATE_DB", "the shared rate limits: a file or a redis:// URL"),
    ("PUBFETCH_DB_OUTAGE_S", "seconds a PostgreSQL outage is ridden out (300)"),
    ("PUBFETCH_CHROMIUM", "the Chromium binary"),
    ("PUBFETCH_THREADS", "worker threads"),
    ("PUBFETCH_CONFIG", "the config file"),
    ("PUBFETCH_RESULT_BACKEND", "where a queue keeps its jobs' results (a Redis URL)"),
    ("HTTPS_PROXY, NO_PROXY", "proxies, as for any HTTP client"),
    ("REQUESTS_CA_BUNDLE (or CURL_CA_BUNDLE)", "the CA bundle"),
)


def _environment() -> str:
    """The closing section of --help: the environment and where the config file is looked for on this machine."""
    from pubfetch.config import default_file

    lines = ["Environment (the config file overrides the settings it names; command-line options override both):"]
    wrapper = textwrap.TextWrapper(width=WIDTH, subsequent_indent=" " * COLUMN, break_on_hyphens=False)
    for name, meaning in ENVIRONMENT:
        lines.append(wrapper.fill(f"  {name.ljust(COLUMN - 2)}{meaning}") if len(name) < COLUMN - 3 else f"  {name}\n"
                     + wrapper.fill(" " * COLUMN + meaning))
    found = default_file()
    where = (f"{found} (in use)" if found else
             "$PUBFETCH_CONFIG, else ~/.config/pubfetch/config.yaml (none found)")
    lines += ["", f"Config file: {where}"]
    return "\n".join(lines)


def _left(opt: Option) -> str:
    names = ", ".join(opt.names)
    if opt.arity == 0:
        return names
    if opt.arity == "+":
        return f"{names} {opt.metavar} ..." if not opt.metavar.endswith("]") else f"{names} {opt.metavar}"
    return f"{names} {opt.metavar}"


def _entry(opt: Option) -> str:
    left = "  " + _left(opt)
    wrapper = textwrap.TextWrapper(width=WIDTH, subsequent_indent=" " * COLUMN, break_on_hyphens=False)
    if len(left) < COLUMN - 1:
        return wrapper.fill(left.ljust(COLUMN) + opt.help)
    return left + "\n" + wrapper.fill(" " * COLUMN + opt.help)


def format_help() -> str:
    first, second = INTRO.split("\n\n")[:2]
    parts = [USAGE, "", textwrap.fill(first, WIDTH), "", textwrap.fill(second, WIDTH)]
    for group in GROUPS:
        parts += ["", f"{group.title}:"]
        if group.note:
            parts.append(textwrap.fill(group.note, WIDTH, initial_indent="  ", subsequent_indent="  "))
        parts += [_entry(o) for o in group.options]
    parts += ["", EXAMPLES, "", _environment()]
    return "\n".join(parts) + "\n"
