"""Turn argv into option values, following the table in options.py; every mistake is a :class:`UsageError`.

Rules (those of PubFetcher's JCommander setup, made stricter where it guessed):

* an option takes its arguments from the words after it: none (a flag), exactly n, or one or more ("+"), the last kind
  stopping at the next word that is an option (``-x`` or ``--x`` followed by a letter);
* a double-dash option may also be written ``--name=value``;
* a list option given twice collects both lists; any other option given twice, a flag included, is an error
  (which value was meant? ``--quick false ... --quick`` says both);
* a word that belongs to no option is an error, as is an unknown option (with a suggestion for a likely typo);
* paired options are checked together: a part filter needs its ``-...-part`` list, ``--fetch-part`` excludes
  ``--not-fetch-part``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pubfetch.cli.errors import UsageError
from pubfetch.cli.options import BY_NAME, PART_TESTS
from pubfetch.cli.spec import Option, Role, optional_bool, scrape_selector_key
from pubfetch.config.fetching import parse_fetcher_option

_OPTION_LIKE = re.compile(r"^--?[A-Za-z]")
#: The pipeline options of searches, and the source each asks.
SEARCH_OPTIONS = {"search-europepmc": "europepmc", "search-pubmed": "pubmed"}
#: Pipeline options that leave the found IDs as they were printed (adding, filtering, sorting IDs).
_ID_ONLY = frozenset({"search-europepmc", "search-pubmed", "search-update", "pub", "pub-file", "pub-db"})


@dataclass
class ParsedArgs:
    """Option values by ``dest`` (the option name without dashes), the fetching parameters given (each checked; the
    session's configuration applies them over the config file's and the environment's), and what was given."""

    values: dict[str, Any] = field(default_factory=dict)
    fetcher: dict[str, Any] = field(default_factory=dict)
    order: list[Option] = field(default_factory=list)

    def __contains__(self, dest: str) -> bool:
        return dest in self.values

    def get(self, dest: str, default: Any = None) -> Any:
        return self.values.get(dest, default)

    def flag(self, dest: str) -> bool:
        return bool(self.values.get(dest, False))

    def has_role(self, *roles: Role) -> bool:
        return any(o.role in roles for o in self.order)

    def searches_alone(self) -> bool:
        """A search with no later step: its IDs are printed, one publication a line (the preflight's check of who
        writes to standard output and the pipeline both ask)."""
        pipeline = {o.dest for o in self.order if o.role == "pipeline"}
        return bool(pipeline & (set(SEARCH_OPTIONS) | {"search-update"})) and pipeline <= _ID_ONLY


def _known(word: str) -> Option | None:
    name = word.split("=", 1)[0] if word.startswith("--") else word
    return BY_NAME.get(name)


#: Options of the tools people come from (EDAMmap runs PubFetcher with its own names) and pubfetch's for the same.
OTHER_TOOLS_OPTIONS = {"--fetcher-threads": "--threads"}


def _unknown(word: str) -> UsageError:
    name = word.split("=", 1)[0]
    ours = OTHER_TOOLS_OPTIONS.get(name)
    if ours is not None:
        return UsageError(f"unknown option '{word}': pubfetch's is {ours} (EDAMmap's {name}); see pubfetch --help")
    close = difflib.get_close_matches(name, BY_NAME.keys(), n=1, cutoff=0.75)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return UsageError(f"unknown option '{word}'{hint}; see pubfetch --help")


def _arguments(opt: Option, inline: str | None, argv: Sequence[str], i: int) -> tuple[list[str], int]:
    """The argument words of ``opt`` starting at argv[i]; returns them and the index after them."""
    args = [inline] if inline is not None else []
    if opt.arity == "?":
        if not args and i < len(argv) and not (_known(argv[i]) or _OPTION_LIKE.match(argv[i])):
            return [argv[i]], i + 1
        return args, i
    if opt.arity == "+":
        while i < len(argv) and not (_known(argv[i]) or _OPTION_LIKE.match(argv[i])):
            args.append(argv[i])
            i += 1
        if not args:
            raise UsageError(f"option {opt.name} needs at least one argument ({opt.metavar} ...)")
        return args, i
    assert isinstance(opt.arity, int)
    while len(args) < opt.arity:
        if i >= len(argv):
            what = f"an argument ({opt.metavar})" if opt.arity == 1 else f"{opt.arity} arguments ({opt.metavar})"
            got = "" if opt.arity == 1 else f", got {len(args)}"
            raise UsageError(f"option {opt.name} needs {what}{got}")
        following = _known(argv[i])
        if following is not None:
            raise UsageError(f"option {opt.name} needs an argument ({opt.metavar}) but is followed by option "
                             f"{argv[i]}")
        args.append(argv[i])
        i += 1
    return args, i


def _store(parsed: ParsedArgs, opt: Option, args: list[str]) -> None:
    if opt.role == "fetcher":
        if not args:  # a boolean given as a bare flag
            attribute, value = parse_fetcher_option(opt.name, "true")
        else:
            assert opt.convert is not None
            attribute, value = opt.convert(args[0], opt.name)
        if attribute in parsed.fetcher:
            raise UsageError(f"option {opt.name} given more than once")
        parsed.fetcher[attribute] = value
        return
    convert = opt.convert
    if opt.arity != "+" and opt.dest in parsed.values:
        raise UsageError(f"option {opt.name} given more than once")
    if opt.arity == 0:
        parsed.values[opt.dest] = True
    elif opt.arity == "?":
        assert convert is not None
        parsed.values[opt.dest] = convert(args[0], opt.name) if args else ""
    elif opt.arity == "+":
        assert convert is not None
        parsed.values.setdefault(opt.dest, []).extend(convert(a, opt.name) for a in args)
    else:
        assert convert is not None
        converted = [convert(a, opt.name) for a in args]
        parsed.values[opt.dest] = converted[0] if opt.arity == 1 else tuple(converted)


def _check(parsed: ParsedArgs) -> None:
    """Combinations that cannot work, reported before anything runs."""
    for dest in PART_TESTS:
        test, parts = dest in parsed, f"{dest}-part" in parsed
        if test and not parts:
            raise UsageError(f"option -{dest} needs -{dest}-part (the publication parts to test)")
        if parts and not test:
            raise UsageError(f"option -{dest}-part needs -{dest} (the test to apply to the parts)")
    if "fetch-part" in parsed and "not-fetch-part" in parsed:
        raise UsageError("options --fetch-part and --not-fetch-part can't be used together")
    post = parsed.get("post-document")
    if post is not None and len(post) % 2 != 1:
        raise UsageError("option -post-document needs a URL followed by NAME VALUE pairs; the last NAME has no VALUE")
    selector = parsed.get("fetch-webpage-selector")
    if selector is not None:
        optional_bool(selector[3], "-fetch-webpage-selector")
    scrape = parsed.get("scrape-selector")
    if scrape is not None:
        scrape_selector_key(scrape[1], "-scrape-selector")


def parse_args(argv: Sequence[str]) -> ParsedArgs:
    """Parse the command line; the values are converted and checked, fetching parameters validated."""
    parsed = ParsedArgs()
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        inline: str | None = None
        name = word
        if word.startswith("--") and "=" in word:
            name, inline = word.split("=", 1)
        opt = BY_NAME.get(name)
        if opt is None:
            if _OPTION_LIKE.match(word):
                raise _unknown(word)
            raise UsageError(f"unexpected argument '{word}': it follows no option that takes it; see pubfetch --help")
        if opt.arity == 0 and inline is not None:
            raise UsageError(f"option {opt.name} takes no argument (given '{word}')")
        args, i = _arguments(opt, inline, argv, i) if opt.arity != 0 else ([], i)
        _store(parsed, opt, args)
        parsed.order.append(opt)
    _check(parsed)
    return parsed
