"""The options of the command line that set settings, made from the settings' own declarations: PubFetcher's fetching
parameters (:data:`~pubfetch.config.fetching.FETCHING_FIELDS`) and the settings of :mod:`pubfetch.config.defaults`
that declare an option.

An option's help is its setting's doc line with the declared default, bounds and environment variables, and its value
is checked as a config file's is, so ``--help``, docs/configuration.md and the error for a bad value cannot disagree
with the declaration. Which options there are, and where ``--help`` lists them, stays in :mod:`pubfetch.cli.options`
(PubFetcher's names, arities and groups).
"""

from __future__ import annotations

import dataclasses

from pubfetch.cli.errors import UsageError
from pubfetch.cli.spec import Converter, Group, Option
from pubfetch.config import SETTINGS, cli_options
from pubfetch.config.fetching import FETCHING_FIELDS, parse_fetcher_option
from pubfetch.config.registry import from_text, setting_field
from pubfetch.config.values import declared

__all__ = ["FETCHING", "FETCHING_PRIVATE", "MIN_TIMEOUT_MS", "command_line_settings", "setting_option"]

# --- PubFetcher's fetching parameters --------------------------------------------------------------------------------

#: The parameters PubFetcher lists apart, as private: they say who is asking, not when an entry is fetched.
_PRIVATE = ("europepmcEmail", "oadoiEmail", "userAgent", "journalsYaml", "webpagesYaml")

#: The shortest --timeout taken (milliseconds; 0 is "none"): below it no server can answer, and the value was
#: almost surely meant as seconds.
MIN_TIMEOUT_MS = 100


def _fetcher_convert(value: str, option: str) -> tuple[str, object]:
    try:
        key, parsed = parse_fetcher_option(option, value)
    except ValueError as e:
        raise UsageError(f"option {option}: {e}") from None
    if key == "timeout" and isinstance(parsed, int) and 0 < parsed < MIN_TIMEOUT_MS:
        raise UsageError(f"option {option}: {parsed} ms is too short for any server to answer; the timeout is in "
                         f"milliseconds (e.g. {parsed * 1000} for {parsed} s; 0 for none)")
    return key, parsed


def _fetcher_option(key: str) -> Option:
    f = FETCHING_FIELDS[key]
    default = "empty" if f.default == "" else str(f.default).lower() if isinstance(f.default, bool) else f.default
    help = f"{declared(f).doc.rstrip('.')} (default {default})"
    if isinstance(f.default, bool):  # PubFetcher takes a value (--quick true); pubfetch also takes the bare flag
        return Option((f"--{key}",), help, "?", "[true|false]", _fetcher_convert, "fetcher", dest=key)
    return Option((f"--{key}",), help, 1, _fetcher_metavar(key), _fetcher_convert, "fetcher", dest=key)


def _fetcher_metavar(key: str) -> str:
    if key.endswith("Cooldown"):
        return "MINUTES"
    if key == "timeout":
        return "MS"
    if key.endswith("Email"):
        return "EMAIL"
    if key.endswith("Yaml"):
        return "FILE"
    return "TEXT" if key == "userAgent" else "N"


FETCHING = Group("Fetching parameters", tuple(_fetcher_option(k) for k in FETCHING_FIELDS if k not in _PRIVATE),
                 "They decide when an entry may be fetched again and when content is usable or final.")
FETCHING_PRIVATE = Group("Fetching private parameters", tuple(_fetcher_option(k) for k in _PRIVATE))

# --- pubfetch's settings ---------------------------------------------------------------------------------------------


def _setting_of(option: str) -> str:
    for name, declared_option, _ in cli_options():
        if declared_option == option:
            return name
    raise ValueError(f"no setting declares the option {option} (pubfetch/config/defaults.py)")


def _sentence(text: str) -> str:
    """A doc line of docs/configuration.md as a help text: capitalised, without Markdown's code marks."""
    text = text.replace("`", "")
    return text[:1].upper() + text[1:]


def _number(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def _facts(field: dataclasses.Field[object]) -> list[str]:
    """The declared default, bounds and environment variables of a setting, as --help states them."""
    decl = declared(field)
    facts = []
    if isinstance(field.default, frozenset):  # a set of names, as the option takes them
        facts.append(f"default {','.join(sorted(map(str, field.default)))}")
    elif field.default not in (dataclasses.MISSING, None, ""):
        facts.append(f"default {field.default}")
    if decl.low is not None or decl.high is not None:
        low = _number(decl.low) if decl.low is not None else "0"
        facts.append(f"{low} to {_number(decl.high)}" if decl.high is not None else f"at least {low}")
    if decl.env:
        facts.append("environment " + ", else ".join(decl.env))
    return facts


def _converter(name: str) -> Converter:
    def convert(text: str, option: str) -> object:
        try:
            return from_text(name, text, given_as=option)  # the option as written, not the setting's field name
        except ValueError as e:
            raise UsageError(f"option {e}") from None
    return convert


def setting_option(option: str, metavar: str = "", *, note: str = "", pubfetchers: bool = False) -> Option:
    """The option ``option`` of the setting that declares it, a modifier of the pipeline.

    A true-or-false setting gets a flag that sets it to the opposite of its default (its help the doc line, after
    "Do not" when the flag turns the setting off); any other setting gets one argument (``metavar``), checked as its
    declaration says. ``note``: what the option means on the command line besides the setting (with ``--queue``, say);
    ``pubfetchers``: the option is PubFetcher's own (the others are marked "(pubfetch)", as all pubfetch additions)."""
    name = _setting_of(option)
    field = setting_field(SETTINGS[name], name)
    doc = declared(field).doc
    flag = isinstance(field.default, bool)
    help = _sentence(f"do not {doc}" if field.default is True else doc)
    facts = ([] if flag else _facts(field)) + ([note] if note else [])
    if facts:
        help += f" ({'; '.join(facts)})"
    if not pubfetchers:
        help += " (pubfetch)"
    if flag:
        return Option((option,), help, 0, "", None, "modifier")
    return Option((option,), help, 1, metavar, _converter(name), "modifier")


def command_line_settings(values: dict[str, object]) -> dict[str, object]:
    """The settings the parsed options give, by field name (each option is stored under its name without dashes); a
    flag sets its true-or-false setting to the opposite of the default, and an empty value gives no setting."""
    changes: dict[str, object] = {}
    for name, option, default in cli_options():
        given = values.get(option.lstrip("-"))
        if given is None or given == "" or given is False:
            continue
        changes[name] = (not default) if isinstance(default, bool) else given
    return changes
