"""Every regular expression of a package, and the shape that makes one backtrack for ever: a quantified group holding
an unbounded quantifier (``(a+)+``, ``(?:[*†]+,?\\d?)+$``), or a group repeated without bound holding a quantifier of
variable count (``(?:a{1,3})+``).

Such a pattern, asked to fail on a long enough run of what the inner quantifier takes, tries every way of splitting
the run between the two quantifiers: exponential in the run's length, while Python's regular-expression engine holds
the interpreter lock. An atomic group or a possessive quantifier (``(?>...)``, ``*+``) cannot be re-entered and is
safe; a group repeated at most once (``(?:...)?``) has nothing to split.

The patterns are found two ways, since neither finds all: by importing every module and taking the compiled patterns
its globals and classes hold (patterns built from parts, ``re.compile(a + b)``, are found only so), and by reading every
module's source for calls of :mod:`re` (or the ``regex`` package) with a literal pattern (those compiled inside
functions are found only so).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from types import ModuleType
from typing import Any

__all__ = ["FoundPattern", "nested_quantifiers", "package_patterns"]

_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT)
#: The functions of ``re`` (and ``regex``) whose first argument is a pattern.
_PATTERN_FUNCTIONS = frozenset(("compile", "sub", "subn", "match", "search", "fullmatch", "findall", "finditer",
                                "split"))


@dataclass(frozen=True)
class FoundPattern:
    """A pattern and where it is: the module's name and what holds it (a global's name, or the source line)."""

    module: str
    where: str
    pattern: str | bytes
    flags: int = 0


def _subpatterns(op: Any, av: Any) -> list[Any]:
    """The parsed subpatterns an item of a parsed pattern holds (atomic groups and possessive repeats left out: they
    cannot backtrack into themselves)."""
    if op in _REPEATS:
        return [av[2]]
    if op is sre.SUBPATTERN:
        return [av[-1]]
    if op is sre.BRANCH:
        return list(av[1])
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    if op is sre.GROUPREF_EXISTS:
        return [branch for branch in av[1:] if branch is not None]
    return []


def _holds_repeat(items: Any, unbounded: bool) -> bool:
    """Whether the items hold a quantifier of variable count: an unbounded one, or with ``unbounded`` false any."""
    for op, av in items:
        if op in _REPEATS and (av[1] == sre.MAXREPEAT if unbounded else av[0] != av[1]):
            return True
        if any(_holds_repeat(sub, unbounded) for sub in _subpatterns(op, av)):
            return True
    return False


def _nested(items: Any, out: list[str]) -> None:
    for op, av in items:
        if op in _REPEATS:
            low, high, sub = av
            if high > 1 and _holds_repeat(sub, True):
                out.append(f"a group repeated {low} to {'unbounded' if high == sre.MAXREPEAT else high} times holds "
                           "an unbounded quantifier")
            elif high == sre.MAXREPEAT and _holds_repeat(sub, False):
                out.append(f"a group repeated {low} to unbounded times holds a quantifier of variable count")
        for sub in _subpatterns(op, av):
            _nested(sub, out)


def nested_quantifiers(pattern: str | bytes, flags: int = 0) -> list[str]:
    """What makes ``pattern`` backtrack exponentially: one line per quantified group (repeated more than once) that
    holds an unbounded quantifier, or repeated without bound and holding a quantifier of variable count
    (``(?:a{1,3})+`` splits a run of ``a`` as many ways); empty for a safe pattern."""
    out: list[str] = []
    _nested(sre_parse.parse(pattern, flags), out)
    return out


def _modules(package: ModuleType) -> Iterator[ModuleType]:
    yield package
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        yield importlib.import_module(info.name)


def _held_patterns(value: Any, depth: int = 0) -> Iterator[re.Pattern[Any]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 2 and isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            yield from _held_patterns(item, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for item in value.values():
            yield from _held_patterns(item, depth + 1)


def _compiled(module: ModuleType) -> Iterator[FoundPattern]:
    """Patterns held by the module's globals and by the attributes of the classes it defines."""
    for name, value in vars(module).items():
        holders = [(name, value)]
        if isinstance(value, type) and value.__module__ == module.__name__:
            holders += [(f"{name}.{attr}", v) for attr, v in vars(value).items()]
        for where, held in holders:
            for pattern in _held_patterns(held):
                yield FoundPattern(module.__name__, where, pattern.pattern, pattern.flags)


def _literal(node: ast.Call) -> str | bytes | None:
    if not (isinstance(node.func, ast.Attribute) and node.func.attr in _PATTERN_FUNCTIONS
            and isinstance(node.func.value, ast.Name) and node.func.value.id in ("re", "regex")):
        return None
    args = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "pattern")]
    if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, (str, bytes)):
        return args[0].value
    return None


def _in_source(module: ModuleType) -> Iterator[FoundPattern]:
    """Literal patterns given to the functions of ``re`` anywhere in the module's source."""
    path = Path(module.__file__ or "")
    if path.suffix != ".py":
        return
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and (pattern := _literal(node)) is not None:
            yield FoundPattern(module.__name__, f"line {node.lineno}", pattern)


def package_patterns(package: ModuleType) -> list[FoundPattern]:
    """Every pattern of ``package`` and its modules (each module imported), compiled ones and literal ones."""
    found: list[FoundPattern] = []
    for module in _modules(package):
        found += _compiled(module)
        found += _in_source(module)
    return found
