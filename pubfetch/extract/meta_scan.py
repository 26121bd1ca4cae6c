"""The ``<meta>`` tags of a page, read from its text: ``name``/``property`` and cleaned ``content`` of each.

The page is scanned here rather than through a DOM parser because values are cleaned the LOCKSS way -- tags stripped
as written in the page, before entities are decoded (``"l&lt;g&gt;a&amp;z"`` -> ``"l<g>a&z"``) -- and a DOM hands out
attribute values already decoded. Comments and raw-text elements (``<script>``, ``<style>``, ...) are skipped as the
HTML tokenizer skips them. :mod:`pubfetch.extract.meta` reads the article's fields from these tags; the LOCKSS-style
metadata layer takes :func:`meta_tags` raw.
"""

from __future__ import annotations

import html as htmlmod
import re
from dataclasses import dataclass

from bs4.dammit import UnicodeDammit

__all__ = ["MetaTag", "clean_value", "decode_page", "meta_tags", "plain_text", "scan_meta"]

_TAG = re.compile(r"<[^<>]*>")  # [^<>] keeps a run of "<" without ">" linear
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class MetaTag:
    """One ``<meta>`` element: its ``name`` and ``property`` (lower-cased, trimmed; "" when absent) and its cleaned
    ``content``."""

    name: str
    prop: str
    content: str

    def names(self) -> tuple[str, ...]:
        """Canonical names the tag answers to (``.`` for ``:``), as PubFetcher's name-or-property selectors see it."""
        return tuple(dict.fromkeys(k.replace(":", ".") for k in (self.name, self.prop) if k))


_RAW_TEXT = ("script", "style", "textarea", "title", "xmp", "noembed", "noframes", "template")
_SKIP = re.compile(r"<!--|<(" + "|".join(_RAW_TEXT) + r")(?=[\s/>])|<meta(?=[\s/>])", re.IGNORECASE)
_CLOSE = {name: re.compile(r"</" + name + r"[\s/>]", re.IGNORECASE) for name in _RAW_TEXT}
_WS = " \t\n\r\f"


def decode_page(html: str | bytes | bytearray) -> str:
    """A page as text: bytes decoded by their BOM or ``<meta charset>`` (UTF-8, bad bytes replaced, when neither
    says)."""
    if isinstance(html, str):
        return html
    data = bytes(html)
    text = UnicodeDammit(data, is_html=True).unicode_markup
    return text if text is not None else data.decode("utf-8", errors="replace")


def _skip(text: str, pos: int, chars: str) -> int:
    """The index of the first character at or after ``pos`` that is not one of ``chars``."""
    n = len(text)
    while pos < n and text[pos] in chars:
        pos += 1
    return pos


def _until(text: str, pos: int, stops: str) -> int:
    """The index of the first character at or after ``pos`` that is one of ``stops`` (or the end)."""
    n = len(text)
    while pos < n and text[pos] not in stops:
        pos += 1
    return pos


def _attribute_value(text: str, pos: int) -> tuple[str, int] | None:
    """The value starting at ``pos`` (just after ``=`` and whitespace) and the index after it; None when a quoted
    value is never closed (the tag then never ends)."""
    if pos < len(text) and text[pos] in "\"'":
        end = text.find(text[pos], pos + 1)
        return None if end < 0 else (text[pos + 1 : end], end + 1)
    end = _until(text, pos, _WS + ">")
    return text[pos:end], end


def _attributes(text: str, pos: int) -> tuple[dict[str, str], int]:
    """Raw attributes of a start tag from just after its name; returns them and the index after ``>``.

    Follows the HTML tokenizer: names end at whitespace, ``/``, ``>`` or ``=``; values are double-, single- or
    unquoted; the first of repeated attributes wins. Linear in the tag's length.
    """
    attrs: dict[str, str] = {}
    n = len(text)
    while (pos := _skip(text, pos, _WS + "/")) < n:
        if text[pos] == ">":
            return attrs, pos + 1
        end = _until(text, pos + 1, _WS + "/>=")  # the first character may be "=" (it is then part of the name)
        name = text[pos:end].lower()
        pos = _skip(text, end, _WS)
        value = ""
        if pos < n and text[pos] == "=":
            found = _attribute_value(text, _skip(text, pos + 1, _WS))
            if found is None:
                return attrs, n
            value, pos = found
        attrs.setdefault(name, value)
    return attrs, n


def clean_value(raw: str, trim: bool = True) -> str:
    """A meta value as LOCKSS reads it: tags stripped (as written), entities decoded, whitespace runs to one space;
    ``trim=False`` keeps a leading or trailing blank as LOCKSS' extractor does (the fetcher trims)."""
    if "<" in raw:
        raw = _TAG.sub("", raw)
    if "&" in raw:
        raw = htmlmod.unescape(raw)
    collapsed = _SPACE.sub(" ", raw)
    return collapsed.strip() if trim else collapsed


_BLOCK_TAG = re.compile(r"<\s*/?\s*(?:p|br|div|li|ul|ol|h[1-6]|tr|td|th|table|section|blockquote)\b[^<>]*>",
                        re.IGNORECASE)


def plain_text(value: str) -> str:
    """A cleaned meta value as text, the way PubFetcher stores meta-tag titles, keywords and abstracts: markup that
    was entity-escaped in the page (``&lt;i&gt;dark&lt;/i&gt;``, ``&lt;p&gt;..``) is removed -- block tags become a
    space, inline tags nothing -- and entities escaped twice are decoded."""
    if "<" not in value and "&" not in value:
        return value
    value = _TAG.sub("", _BLOCK_TAG.sub(" ", value))
    return _SPACE.sub(" ", htmlmod.unescape(value)).strip()


def scan_meta(html: str | bytes | bytearray | None, trim: bool = True) -> list[MetaTag]:
    """Every ``<meta>`` element of a page in document order (outside comments and raw-text elements such as
    ``<script>``), with a ``name`` or ``property``; never raises on content. ``trim`` as in :func:`clean_value`."""
    if html is None:
        return []
    text = decode_page(html)
    tags: list[MetaTag] = []
    pos = 0
    while (match := _SKIP.search(text, pos)) is not None:
        token = match.group(0)
        if token == "<!--":
            end = text.find("-->", match.end())
            pos = len(text) if end < 0 else end + 3
        elif match.group(1):
            _, after = _attributes(text, match.end())
            close = _CLOSE[match.group(1).lower()].search(text, after)
            pos = len(text) if close is None else close.end()
        else:
            attrs, pos = _attributes(text, match.end())
            name = attrs.get("name", "").strip().lower()
            prop = attrs.get("property", "").strip().lower()
            if (name or prop) and "content" in attrs:
                tags.append(MetaTag(name, prop, clean_value(attrs["content"], trim)))
    return tags


def meta_tags(html: str | bytes | bytearray | None, include_property: bool = False,
              trim: bool = True) -> list[tuple[str, str]]:
    """``(name lower-cased, cleaned content)`` of every ``<meta name=.. content=..>``, in document order.

    LOCKSS reads ``name=`` only; ``include_property`` also lists tags known only by ``property=`` (Open Graph) under
    that property. ``trim=False`` keeps leading and trailing blanks (the LOCKSS extractor's values).
    """
    out = []
    for tag in scan_meta(html, trim):
        if tag.name:
            out.append((tag.name, tag.content))
        elif include_property and tag.prop:
            out.append((tag.prop, tag.content))
    return out
