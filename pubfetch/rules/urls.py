"""URL regexes of rule files: PubFetcher's Java regexes as Python ones (the ``^https?://(www\\.)?`` prefix, leading
flags), and the ``*_src``/``*_dst`` pairs that rewrite a page URL into its full-text or PDF URL."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_URL_PREFIX = r"^https?://(www\.)?"
_LEADING_FLAGS = re.compile(r"^\(\?([aiLmsux]+)\)")
_JAVA_GROUP_REF = re.compile(r"\$(?:\{([A-Za-z][A-Za-z0-9]*)\}|([0-9]))")


def compile_url_regex(regex: str) -> re.Pattern[str]:
    """PubFetcher's URL regex: unless it starts with ``^``, prefixed by ``^https?://(www\\.)?`` and case-insensitive.

    Leading inline flags of the rule (``(?s)foo``) are moved in front of the prefix, where Python requires them.
    """
    if regex.startswith("^"):
        return re.compile(regex)
    flags = "i"
    m = _LEADING_FLAGS.match(regex)
    if m:
        flags += m.group(1).replace("i", "")
        regex = regex[m.end():]
    return re.compile(f"(?{flags}){_URL_PREFIX}{regex}")


@dataclass(frozen=True)
class UrlRewrite:
    """``*_src``/``*_dst``: the page URL with the first match of ``src`` replaced by ``dst`` (Java replaceFirst,
    so ``$1``/``${name}`` refer to groups and a backslash escapes the next character)."""

    src: str
    dst: str
    pattern: re.Pattern[str] = field(repr=False, compare=False)
    pieces: tuple[str | int, ...] = field(repr=False, compare=False)

    @classmethod
    def compile(cls, src: str, dst: str) -> UrlRewrite:
        try:
            pattern = re.compile(src)
        except re.error as e:
            raise ValueError(f"invalid regular expression '{src}': {e}") from e
        return cls(src, dst, pattern, _parse_java_replacement(dst, pattern))

    def apply(self, url: str) -> str | None:
        """The rewritten URL, or None when nothing matched or the result equals the input."""
        m = self.pattern.search(url)
        if m is None:
            return None
        replacement = "".join((m.group(p) or "") if isinstance(p, int) else p for p in self.pieces)
        new = url[: m.start()] + replacement + url[m.end():]
        return new if new and new != url else None


def _parse_java_replacement(dst: str, pattern: re.Pattern[str]) -> tuple[str | int, ...]:
    """Split a Java replacement string into literal text and group numbers (named groups resolved to numbers)."""
    pieces: list[str | int] = []
    literal: list[str] = []
    i = 0
    while i < len(dst):
        c = dst[i]
        if c == "\\":
            if i + 1 >= len(dst):
                raise ValueError(f"replacement '{dst}' ends with a lone backslash")
            literal.append(dst[i + 1])
            i += 2
            continue
        if c != "$":
            literal.append(c)
            i += 1
            continue
        m = _JAVA_GROUP_REF.match(dst, i)
        if m is None:
            raise ValueError(f"replacement '{dst}' has an illegal group reference at position {i} "
                             "(write \\$ for a literal dollar sign)")
        if m.group(1):
            if m.group(1) not in pattern.groupindex:
                raise ValueError(f"replacement '{dst}' refers to group '{m.group(1)}', which the regex lacks")
            group = pattern.groupindex[m.group(1)]
            i = m.end()
        else:
            group = int(m.group(2))
            i = m.end()
            while i < len(dst) and dst[i].isdigit() and group * 10 + int(dst[i]) <= pattern.groups:
                group = group * 10 + int(dst[i])  # Java's greedy-but-valid reading of $12
                i += 1
            if group > pattern.groups:
                raise ValueError(f"replacement '{dst}' refers to group {group}, but the regex has {pattern.groups}")
        if literal:
            pieces.append("".join(literal))
            literal = []
        pieces.append(group)
    if literal:
        pieces.append("".join(literal))
    return tuple(pieces)
