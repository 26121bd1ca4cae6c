"""The one family of exceptions the pure parsers raise, and the two doors (JSON, XML) every document comes through.

A parser raises only when a document cannot be read as what it claims to be at all: not JSON or XML, empty, the
wrong overall shape, or a service's own error answer. Everything short of that (a missing title, an invalid PMID, a
field of the wrong type) is logged and skipped, so one bad field never costs the rest of a record. Every exception
raised here is a :class:`ValueError`, which is what callers catch: :class:`ParseError` for JSON and shapes, and the
XML layer's :class:`~pubfetch.extract.xmlsafe.XmlError` (also a ValueError) for documents that are not well-formed
XML.
"""

from __future__ import annotations

import json
from typing import Any

from lxml import etree

from pubfetch.extract.xmlsafe import XmlError, parse_xml


class ParseError(ValueError):
    """The document cannot be read as the expected kind of answer (not JSON, empty, wrong overall shape)."""


class ServiceError(ParseError):
    """The document is a well-formed error answer of the service (Europe PMC ``errMsg``, Unpaywall ``error``)."""


def load_json(data: str | bytes | bytearray | None, what: str = "document") -> Any:
    """Decode a JSON answer; any way it can fail (empty, bad UTF-8, bad JSON, absurd nesting) is a ParseError."""
    if data is None:
        raise ParseError(f"empty {what}")
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ParseError(f"{what} is not UTF-8: {e}") from e
    if not data.strip():
        raise ParseError(f"empty {what}")
    try:
        return json.loads(data)
    except RecursionError as e:  # "[[[[..." deeper than the interpreter allows
        raise ParseError(f"{what} is nested too deeply") from e
    except ValueError as e:  # JSONDecodeError, and int conversion limits
        raise ParseError(f"{what} is not JSON: {e}") from e


def load_xml(data: str | bytes | bytearray | None, what: str = "document") -> etree._Element:
    """Parse hostile XML through :func:`~pubfetch.extract.xmlsafe.parse_xml`; every lxml failure becomes XmlError."""
    if data is None:
        raise XmlError(f"empty {what}")
    try:
        return parse_xml(bytes(data) if isinstance(data, bytearray) else data)
    except XmlError:
        raise
    except (etree.LxmlError, ValueError) as e:  # lxml errors outside XMLSyntaxError, encoding trouble
        raise XmlError(f"{what} is not usable XML: {e}") from e
