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


#: Terminal escape sequences (CSI ``ESC [ ... final``, OSC/DCS/APC/PM strings up to BEL or ``ESC \``, two-character
#: escapes) and then every other C0/C1 control character except newline and tab.
_TERMINAL_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|[\x1b][\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x90\x9d\x98\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_terminal_controls(text: str) -> str:
    """Text safe to print on a terminal: fetched values (a page title of ``\\x1b]0;PWNED\\x07``) could otherwise set the
    window title, rewrite earlier lines or worse. Escape sequences are removed whole, other control characters dropped;
    newlines and tabs stay."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub("", _TERMINAL_SEQUENCE.sub("", text))


def counted(n: int, singular: str, plural: str = "") -> str:
    """``n`` and the noun that agrees with it: "1 publication ID", "2 publication IDs" (``plural``: the noun's plural
    when it is not ``singular`` + "s")."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"
