"""What a dependency itself says about a bad input, asked of the dependency when the test runs.

pubfetch passes some reasons through (a rule file's YAML problem, a CSS selector's syntax error, why a regular
expression does not compile). A test that wrote those words out would fail the day a new release of PyYAML,
soupsieve or Python words them differently, although pubfetch still does what it promises; so the tests spell out
pubfetch's part of a message and take the dependency's part from here.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import soupsieve
import yaml


def re_error(pattern: str) -> str:
    """Python's ``re`` reason for refusing ``pattern`` (pubfetch checks regular expressions with ``re``)."""
    try:
        re.compile(pattern)
    except re.error as e:
        return str(e)
    raise AssertionError(f"{pattern!r} compiles")


def yaml_problem(text: str) -> str:
    """PyYAML's ``problem`` (the reason without its excerpt of the file) for a document it cannot read safely."""
    try:
        list(yaml.safe_load_all(text))
    except yaml.YAMLError as e:
        problem = getattr(e, "problem", None)
        assert problem, f"PyYAML gave no problem for {text!r}: {e}"
        return str(problem)
    raise AssertionError(f"{text!r} is safe YAML")


def selector_error(css: str) -> str:
    """soupsieve's reason, first line, for refusing the CSS selector ``css``."""
    try:
        soupsieve.compile(css)
    except Exception as e:  # noqa: BLE001 - SelectorSyntaxError, or another error for an unsupported feature
        return str(e).splitlines()[0]
    raise AssertionError(f"{css!r} compiles")


def urlsplit_error(url: str) -> str:
    """Python's ``urllib.parse`` reason for refusing ``url``."""
    try:
        urlsplit(url)
    except ValueError as e:
        return str(e)
    raise AssertionError(f"{url!r} splits")
