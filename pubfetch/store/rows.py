"""Turning a stored JSON row back into an entry, refusing damaged rows one by one instead of aborting the run.

A row can be damaged by a disk error, a hand edit or another program: JSON that does not parse, a list where an object
belongs, a title that is a number. ``from_json`` accepts much of that silently and the run then fails far away (a
``len()`` of an int while printing). So a row is first checked against the JSON shape a fresh entry of its kind has:
every key present there must hold the same kind of value (text, whole number, true/false, list, object). A damaged row
is reported with its ID and counts as absent (so -db-fetch fetches it again and replaces it); every backend uses this.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: JSON types that may stand in for one another (a whole number written as 1.0 by another tool).
_NUMBER = (int, float)


#: The JSON value kinds a template may hold and what a value of another kind is called; true/false comes first
#: because a bool is also an int, and no other kind accepts a bool.
_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "true/false"), (_NUMBER, "a number"), (str, "text"), (list, "a list"))


def shape_problem(template: object, value: object, where: str = "") -> str | None:
    """The first place where ``value`` does not have the JSON shape of ``template`` (``None`` if it has)."""
    if isinstance(template, dict):
        return _object_problem(template, value, where)
    for kind, name in _KINDS:
        if isinstance(template, kind):
            ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
            return None if ok else f"{where or 'value'} is not {name}"
    return None


def _object_problem(template: dict[str, object], value: object, where: str) -> str | None:
    """The first key of an object whose value has another shape than the template's (absent and null keys pass)."""
    if not isinstance(value, dict):
        return f"{where or 'the row'} is not an object"
    for key, inner in template.items():
        if key in value and value[key] is not None:
            problem = shape_problem(inner, value[key], f"{where}.{key}" if where else key)
            if problem:
                return problem
    return None


def decode_entry(from_json: Callable[[Any], T], template: dict[str, Any], doc: object, what: str) -> T | None:
    """The entry of a stored JSON document, or ``None`` with one error line naming ``what`` (kind and ID) when the row
    is damaged."""
    try:
        # text from SQLite; PostgreSQL's JSONB arrives parsed
        data = doc if isinstance(doc, dict | list) else json.loads(doc)  # type: ignore[arg-type]
        problem = shape_problem(template, data)
        if problem is None:
            return from_json(data)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
        problem = f"{type(e).__name__}: {str(e)[:200]}"
    log.error("database row of %s is damaged (%s); skipped", what, problem)
    return None
