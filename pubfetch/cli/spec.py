"""How one command-line option is described, and the converters that turn its text arguments into values.

PubFetcher's options are single-dash words (``-pub-file``) that take zero, a fixed number, or a variable number of
arguments, which no standard parser models well; a table of :class:`Option` records read by a small parser (parser.py)
keeps every option's name, arity, converter, group and help text in one place, and the help output is generated
from the same table, so the two can never disagree.

Converters get the option name so that every error message says which option was wrong.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import regex as regex_module

from pubfetch.cli.errors import UsageError
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.timefmt import parse_instant
from pubfetch.output.common import Format

Converter = Callable[[str, str], Any]
"""``convert(text, option_name) -> value``; raises :class:`UsageError` naming the option."""

Arity = int | Literal["+", "?"]
"""0 for a flag, n for exactly n arguments, "+" for one or more (up to the next option), "?" for a flag that may be
followed by a value its converter accepts (PubFetcher's ``--quick true``, also given bare as ``--quick``)."""

Role = Literal["general", "fetcher", "oneoff", "pipeline", "modifier", "test"]


@dataclass(frozen=True)
class Option:
    """One option: its names, where its value is stored, how many arguments it takes and how they are converted."""

    names: tuple[str, ...]
    help: str
    arity: Arity = 0
    metavar: str = ""
    convert: Converter | None = None
    role: Role = "pipeline"
    network: bool = False
    """Needs the network: done by a fetch function of :mod:`pubfetch.cli.fetching` in the command's session."""
    dest: str = ""

    def __post_init__(self) -> None:
        if not self.dest:
            object.__setattr__(self, "dest", self.names[-1].lstrip("-"))

    @property
    def name(self) -> str:
        """The name used in messages: the long one for options that have a short alias (``--log``)."""
        return self.names[-1]

    @property
    def is_list(self) -> bool:
        return self.arity == "+"


@dataclass(frozen=True)
class Group:
    """A heading of ``--help`` and the options listed under it."""

    title: str
    options: tuple[Option, ...]
    note: str = ""


# --- converters ----------------------------------------------------------------------------------------------------


def text(value: str, option: str) -> str:
    return value


def count(value: str, option: str) -> int:
    """A whole number >= 0 (PubFetcher's "positive integer" allows 0)."""
    v = value.strip()
    if not re.fullmatch(r"\+?[0-9]+", v):
        raise UsageError(f"option {option}: invalid value '{value}': expected a whole number >= 0")
    return int(v)


def positive(value: str, option: str) -> int:
    n = count(value, option)
    if n < 1:
        raise UsageError(f"option {option}: invalid value '{value}': expected a whole number >= 1")
    return n


def integer(value: str, option: str) -> int:
    v = value.strip()
    if not re.fullmatch(r"[+-]?[0-9]+", v):
        raise UsageError(f"option {option}: invalid value '{value}': expected a whole number")
    return int(v)


#: Longest one regular-expression filter may search one entry: real filters take microseconds; a pattern that
#: backtracks exponentially (``(a|aa)+$`` over forty a's) would otherwise never finish.
REGEX_TIME_LIMIT_S = 2.0


@dataclass(frozen=True)
class TimedPattern:
    """A compiled filter regex (``regex`` module, re-compatible syntax) whose every search has a time limit."""

    compiled: regex_module.Pattern[str]
    option: str

    @property
    def pattern(self) -> str:
        return self.compiled.pattern

    def search(self, text: str) -> bool:
        """Whether the pattern matches anywhere in ``text``; a search over the time limit is a UsageError."""
        try:
            return self.compiled.search(text, timeout=REGEX_TIME_LIMIT_S) is not None
        except TimeoutError:
            raise UsageError(
                f"option {self.option}: regular expression '{self.pattern}' took over {REGEX_TIME_LIMIT_S:g} s on one "
                f"entry (nested repetition such as (a|aa)+ backtracks exponentially); simplify it") from None


def regex(value: str, option: str) -> TimedPattern:
    """A regular expression in Python ``re`` syntax (checked, and errors worded, by ``re``), matched anywhere in the
    text (PubFetcher's ``find()``) by the ``regex`` module, which can stop a search at a time limit."""
    try:
        re.compile(value)
        return TimedPattern(regex_module.compile(value), option)
    except (re.error, regex_module.error) as e:
        raise UsageError(f"option {option}: invalid regular expression '{value}': {e}") from None


def instant(value: str, option: str) -> int:
    """An ISO-8601 instant (``2024-01-31T12:00:00Z``; a bare date means its midnight UTC) in epoch milliseconds."""
    try:
        return parse_instant(value)
    except ValueError as e:
        raise UsageError(f"option {option}: {e}") from None


def part_name(value: str, option: str) -> PartName:
    try:
        return PartName.parse(value)
    except ValueError as e:
        raise UsageError(f"option {option}: {e}") from None


def part_type(value: str, option: str) -> PartType:
    try:
        return PartType(value)
    except ValueError:
        known = ", ".join(t.value for t in PartType)
        raise UsageError(f"option {option}: unknown publication part type '{value}': expected one of {known}") from None


def output_format(value: str, option: str) -> Format:
    try:
        fmt = Format(value)
    except ValueError:
        known = ", ".join(f.value for f in Format)
        raise UsageError(f"option {option}: unknown format '{value}': expected one of {known}") from None
    library = CITATION_LIBRARIES.get(fmt)
    if library is not None and importlib.util.find_spec(library) is None:  # said now, not after a long fetch
        raise UsageError(f"option {option}: {value} needs {library}: pip install 'pubfetch[citations]'")
    return fmt


#: the library each citation format is written with (checked when the format is chosen)
CITATION_LIBRARIES = {Format.bibtex: "bibtexparser", Format.ris: "rispy"}


def optional_bool(value: str, option: str) -> bool | None:
    """``true``, ``false`` or empty (meaning "decide automatically")."""
    v = value.strip().lower()
    if v == "":
        return None
    if v in ("true", "false"):
        return v == "true"
    raise UsageError(f"option {option}: invalid value '{value}': expected true, false or an empty string")


#: KEY of ``-scrape-selector``: the names of PubFetcher's ScrapeSiteKey, each with the journal rule key it reads
#: (``theAbstract`` is the rule key ``abstract``, which is accepted too).
SCRAPE_SELECTOR_KEYS = {name: name for name in (
    "pmid", "pmcid", "doi", "title", "subtitle", "keywords", "keywords_split", "theAbstract", "fulltext",
    "fulltext_src", "fulltext_dst", "fulltext_a", "pdf_src", "pdf_dst", "pdf_a", "corresp_author_names",
    "corresp_author_emails", "wait_until")} | {"theAbstract": "abstract", "abstract": "abstract"}


def scrape_selector_key(value: str, option: str) -> str:
    """The journal rule key a ``-scrape-selector`` KEY names."""
    try:
        return SCRAPE_SELECTOR_KEYS[value]
    except KeyError:
        known = ", ".join(k for k in SCRAPE_SELECTOR_KEYS if k != "abstract")
        raise UsageError(f"option {option}: unknown KEY '{value}': expected one of {known}") from None


# --- the makers of the option table (pubfetch.cli.options) ------------------------------------------------------

def option(names: str, help: str, arity: Arity = 0, metavar: str = "", convert: Converter | None = None,
         role: Role = "pipeline", network: bool = False) -> Option:
    return Option(tuple(names.split()), help, arity, metavar, convert, role, network)


def flag(names: str, help: str, role: Role = "pipeline", network: bool = False) -> Option:
    return option(names, help, 0, "", None, role, network)


def one(names: str, metavar: str, help: str, convert: Converter = text, role: Role = "pipeline",
        network: bool = False) -> Option:
    return option(names, help, 1, metavar, convert, role, network)


def many(names: str, metavar: str, help: str, convert: Converter = text, role: Role = "pipeline",
         network: bool = False) -> Option:
    return option(names, help, "+", metavar, convert, role, network)


def fixed(names: str, metavar: str, help: str, role: Role = "oneoff", network: bool = False) -> Option:
    """Exactly as many text arguments as ``metavar`` has words."""
    return option(names, help, len(metavar.split()), metavar, text, role, network)
