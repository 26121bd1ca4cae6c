"""Small text helpers shared by the model and the parsers."""

from __future__ import annotations

import html
import re

_TAG = re.compile(r"<[^<>]*>")
_SPACE = re.compile(r"\s+")


def strip_html(text: str) -> str:
    """Plain text of a value that may carry markup (meta tags, PDF info): tags dropped, entities decoded, spaces
    collapsed.

    PubFetcher runs such values through jsoup's cleaner with an empty whitelist, which also escapes ``&`` to ``&amp;``;
    pubfetch keeps plain text instead, since every consumer reads these values as text.
    """
    if "<" not in text and "&" not in text:
        return _SPACE.sub(" ", text).strip()
    return _SPACE.sub(" ", html.unescape(_TAG.sub(" ", text))).strip()


def collapse_space(text: str) -> str:
    return _SPACE.sub(" ", text).strip()
