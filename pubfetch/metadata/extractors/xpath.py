"""LOCKSS' XML DOM extractor: XPath expressions mapped to value types, raw keys the XPaths lower-cased.

Its ``text`` values are the DOM text content (mixed content joined without added blanks, none trimmed), as LOCKSS'
XmlDomMetadataExtractor stores them, so that plugins written for LOCKSS read the same values here.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

from lxml import etree

from pubfetch.extract.errors import load_xml
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMapLike
from pubfetch.metadata.extractors.cookmaps import cook
from pubfetch.metadata.extractors.files import FileMetadataExtractor
from pubfetch.metadata.extractors.target import MetadataTarget
from pubfetch.metadata.sources import CachedUrl

__all__ = ["XPATH_VALUE_TYPES", "XPathXmlExtractor"]

log = logging.getLogger(__name__)

XPATH_VALUE_TYPES = ("text", "node", "number", "boolean")


def _number_text(value: float) -> str | None:
    if math.isnan(value):
        return None
    return str(int(value)) if math.isfinite(value) and value.is_integer() else str(value)


def _text_content(el: etree._Element) -> str:
    """DOM ``getTextContent``: the element's text nodes joined as they are (no blanks added between mixed-content
    pieces, none trimmed), what LOCKSS' XmlDomMetadataExtractor stores."""
    return "".join(el.itertext())


class XPathXmlExtractor(FileMetadataExtractor):
    """LOCKSS' XML DOM extractor: ``xpaths`` maps XPath expressions (evaluated on the document root) to a value type;
    every value is stored under the XPath lower-cased. ``text``: the text content of each selected node (its text
    nodes joined as they are, blanks kept, as in LOCKSS) or the string an expression gives; ``node``: each selected
    element serialised as XML; ``number`` and ``boolean``: the value of the expression (``3``, ``2.5``, ``true``;
    nothing for a number that is not one). ``namespaces`` maps prefixes used in the expressions to URIs. One record
    per document; a document that does not parse gives one empty record."""

    kind = "xpath"

    def __init__(self, cook_map: CookMapLike | None = None, *, xpaths: Mapping[str, str] | None = None,
                 namespaces: Mapping[str, str] | None = None) -> None:
        super().__init__(cook_map)
        if not xpaths:
            raise ValueError("the xpath extractor needs xpaths: a mapping XPath -> value type")
        self.namespaces = dict(namespaces or {})
        self.xpaths: dict[str, tuple[str, etree.XPath]] = {}
        for path, value_type in xpaths.items():
            if value_type not in XPATH_VALUE_TYPES:
                raise ValueError(f"XPath {path!r}: value type must be one of {', '.join(XPATH_VALUE_TYPES)}, "
                                 f"not {value_type!r}")
            try:
                compiled = etree.XPath(path, namespaces=self.namespaces)
            except etree.XPathSyntaxError as e:
                raise ValueError(f"invalid XPath {path!r}: {e}") from None
            self.xpaths[path] = (value_type, compiled)

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        data = cu.content()
        am = ArticleMetadata()
        try:
            root = load_xml(data, f"XML document {cu.url}")
        except ValueError as e:
            log.warning("%s: %s; emitting an empty record", cu.url, e)
            return [am]
        for path, (value_type, compiled) in self.xpaths.items():
            try:
                result = compiled(root)
            except etree.XPathEvalError as e:
                log.warning("%s: XPath %r failed: %s", cu.url, path, e)
                continue
            for value in self._values(value_type, result):
                am.put_raw(path.lower(), value)
        return [cook(am, self.cook_map, cu.url)]

    @staticmethod
    def _values(value_type: str, result: Any) -> list[str]:
        if value_type == "boolean":
            return ["true" if bool(result) else "false"]
        if value_type == "number":
            if isinstance(result, list):
                first = result[0] if result else ""
                text = _text_content(first) if isinstance(first, etree._Element) else str(first)
                try:
                    result = float(text)
                except ValueError:
                    return []
            number = _number_text(float(result))
            return [number] if number is not None else []
        items = result if isinstance(result, list) else [result]
        values = []
        for item in items:
            if isinstance(item, etree._Element):
                text = etree.tostring(item, encoding="unicode", with_tail=False) if value_type == "node" \
                    else _text_content(item)
            else:
                text = str(item)
            if text:
                values.append(text)
        return values
