"""The ``--help`` text, generated from the option table so it always lists exactly the options the parser accepts, and
its environment section from the variables the settings declare (:mod:`pubfetch.config.defaults`)."""

from __future__ import annotations

import dataclasses
import textwrap

from pubfetch._version import __version__
from pubfetch.cli.options import GROUPS
from pubfetch.cli.spec import Option
from pubfetch.config import SETTINGS, Endpoints
from pubfetch.config.defaults import PROCESS_VARIABLES
from pubfetch.config.environment import variables
from pubfetch.config.registry import setting_field
from pubfetch.config.values import declared

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


#: Variables no pubfetch setting declares: the HTTP library reads them, as any HTTP client does.
HTTP_LIBRARY_VARIABLES = (("HTTPS_PROXY, NO_PROXY", "proxies, as for any HTTP client"),)


def _meaning(doc: str) -> str:
    """A declared doc line as a meaning in the environment list: without Markdown's code marks."""
    return doc.replace("`", "").rstrip(".")


def _phrase(description: str) -> str:
    """A PubFetcher parameter's description (a sentence, ``E-mail to send ...``) as a phrase of the list."""
    return description[:1].lower() + description[1:] if not description[1:2].isupper() else description


def environment_variables() -> tuple[tuple[str, str], ...]:
    """(variables, meaning): the services' base URLs as one pattern, then each other setting that declares variables
    (its variables in the order they are tried), then the process variables, then the HTTP library's."""
    services = ", ".join(f.name.upper() for f in dataclasses.fields(Endpoints))
    found = [(Endpoints.env_var("<SERVICE>"), f"base URL of a service: {services}")]
    for name, names in variables().items():
        group = SETTINGS[name]
        if group == "endpoints":
            continue
        doc = declared(setting_field(group, name)).doc
        doc = _phrase(doc) if group == "fetching" else doc
        found.append((", else ".join(names), _meaning(doc)))
    found += [(name, _meaning(meaning)) for name, meaning in PROCESS_VARIABLES.items()]
    return (*found, *HTTP_LIBRARY_VARIABLES)


#: Every variable of the environment pubfetch or its HTTP library reads, with its meaning, as --help lists them.
ENVIRONMENT = environment_variables()


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
