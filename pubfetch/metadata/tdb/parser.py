"""Parsing the ``.tdb`` language into a :class:`~pubfetch.metadata.tdb.model.Tdb`.

The ``.tdb`` language (as written in lockss-daemon's ``tdb/`` files)::

    {
      publisher < name = Ubiquity Press >
      plugin = org.lockss.plugin.ubiquitypress.upn.ClockssUbiquityPartnerNetworkPlugin
      implicit < status ; year ; volume ; name ; param[year] ; param[base_url] >
      {
        title < name = Studium ; issn = 1876-9055 ; eissn = 2212-7283 >
        nondefparam[journal_id] = studium      # comments start with '#' where a token may start
        au < released ; 2008 ; 1 ; Studium Volume 2008 ; 2008 ; https://www.gewina-studium.nl/ >
      }
    }

* ``{ }`` opens a scope; settings made in a scope apply to everything nested in it, and an inner scope may override
  them. Within a scope the statements come in this order: an optional ``publisher <...>`` or ``title <...>`` header,
  then settings (``key = value``, ``key[sub] = value``) and ``implicit <...>``, then nested scopes and ``au <...>``
  lines. Keys are ``[A-Za-z0-9_./]+`` optionally followed by ``[subkey]``.
* ``publisher < name = ... ; ... >`` and ``title < name = ... ; issn = ... ; eissn = ... >`` name the publisher and
  title of the scope (a title needs no publisher: its publisher is then ``Publisher of [<title>]``).
* ``implicit < k1 ; k2 ; ... >`` gives the keys of the positional fields of later ``au < v1 ; v2 ; ... >`` lines, which
  must have exactly that many fields.
* Values: an unquoted value runs to the end of the line (or ``;`` / ``>`` inside ``< >``); surrounding blanks are
  dropped; ``\\;``, ``\\>``, ``\\ ``, ``\\\\`` (and ``\\"`` first) escape. A quoted value ``"..."`` stays on one line
  and escapes ``\\"`` and ``\\\\``. ``key =`` with nothing after it is the empty string.

Every error is a :class:`~pubfetch.metadata.tdb.model.TdbError` whose message starts ``file:line:column:``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from types import MappingProxyType

from pubfetch.metadata.tdb.model import Tdb, TdbAu, TdbError, TdbPublisher, TdbTitle

__all__ = ["load_tdb", "load_tdb_files", "parse_tdb"]

_KEY = re.compile(r"[A-Za-z0-9_./]+(?:\[[A-Za-z0-9_./]+\])?")
_KEYWORD = re.compile(r"(publisher|title|au|implicit)(?=[ \t<]|\r?\n|$)")
_UNQUOTED_ESCAPABLE = frozenset(";> \\")
_PLAIN_RUN = re.compile(r"[^\n;>\\]+")


@dataclass
class _Scope:
    settings: dict[str, str]
    implicit: tuple[str, ...] | None = None
    publisher: TdbPublisher | None = None
    title: TdbTitle | None = None
    defined: dict[str, int] = field(default_factory=dict)  # keys set in this very scope -> line


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        self.source = source
        self.pos = 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        self.tdb = Tdb()

    # --- positions and errors ---

    def where(self, pos: int | None = None) -> tuple[int, int]:
        pos = self.pos if pos is None else pos
        index = bisect.bisect_right(self.line_starts, pos) - 1
        return index + 1, pos - self.line_starts[index] + 1

    def error(self, message: str, pos: int | None = None) -> TdbError:
        line, column = self.where(pos)
        return TdbError(message, self.source, line, column)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def describe(self) -> str:
        char = self.peek()
        if not char:
            return "end of file"
        if char == "\n":
            return "end of line"
        return repr(char)

    # --- lexical helpers ---

    def skip_blanks(self) -> None:
        """Skip spaces and tabs on the current line."""
        while self.peek() in (" ", "\t", "\f", "\v"):
            self.pos += 1

    def skip_space(self, comments: bool = True) -> None:
        """Skip whitespace across lines, and comments ('#' to end of line) where a token may start."""
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char.isspace():
                self.pos += 1
            elif char == "#" and comments:
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            else:
                return

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected {char!r} {what} but got {self.describe()}")
        self.pos += 1

    def keyword(self) -> str | None:
        match = _KEYWORD.match(self.text, self.pos)
        return match.group(1) if match else None

    def read_key(self) -> str:
        match = _KEY.match(self.text, self.pos)
        if not match:
            raise self.error("expected a key ([A-Za-z0-9_./] characters, optionally [subkey]) "
                             f"but got {self.describe()}")
        self.pos = match.end()
        return match.group(0)

    def read_value(self, in_angle: bool) -> str:
        """A value after '=' or inside 'au <': quoted, or unquoted up to end of line (or ';' / '>' in '< >')."""
        self.skip_blanks()
        if self.peek() == '"':
            return self.read_quoted()
        start = self.pos
        chunks: list[str] = []
        length = kept = 0  # characters read so far; length up to the last non-blank or escaped character
        while self.pos < len(self.text):
            plain = _PLAIN_RUN.match(self.text, self.pos)
            if plain:
                chunk = plain.group(0)
                chunks.append(chunk)
                length += len(chunk)
                trailing = len(chunk) - len(chunk.rstrip())
                if trailing < len(chunk):
                    kept = length - trailing
                self.pos = plain.end()
                continue
            if self.text[self.pos] != "\\":
                break  # end of line, ';' or '>'
            following = self.text[self.pos + 1:self.pos + 2]
            if (following and following in _UNQUOTED_ESCAPABLE) or (following == '"' and self.pos == start):
                chunks.append(following)
                length += 1
                kept = length
                self.pos += 2
                continue
            raise self.error(f"invalid escape '\\{following}' in unquoted value "
                             "(only \\; \\> \\space \\\\ and a leading \\\" are allowed)")
        if not in_angle and self.peek() in (";", ">"):
            raise self.error(f"unexpected {self.peek()!r} in value (write \\{self.peek()} for a literal one)")
        return "".join(chunks)[:kept]

    def read_quoted(self) -> str:
        open_pos = self.pos
        self.pos += 1
        chars: list[str] = []
        while True:
            char = self.peek()
            if char in ("", "\n"):
                raise self.error("run-on quoted string (a quoted value must end on its line)", open_pos)
            if char == '"':
                self.pos += 1
                return "".join(chars)
            if char == "\\":
                following = self.text[self.pos + 1:self.pos + 2]
                if following not in ('"', "\\"):
                    raise self.error(f"invalid escape '\\{following}' in quoted value (only \\\" and \\\\)")
                chars.append(following)
                self.pos += 2
                continue
            chars.append(char)
            self.pos += 1

    def end_of_line(self, what: str) -> None:
        """After a value: only blanks and an optional comment may follow on the line."""
        self.skip_blanks()
        if self.peek() == "#":
            end = self.text.find("\n", self.pos)
            self.pos = len(self.text) if end < 0 else end
        if self.peek() not in ("", "\n"):
            raise self.error(f"unexpected {self.describe()} after {what}")

    # --- grammar ---

    def parse(self) -> Tdb:
        root = _Scope({})
        while True:
            self.skip_space()
            if not self.peek():
                return self.tdb
            if self.peek() == "}":
                raise self.error("unmatched '}'")
            if self.peek() != "{":
                raise self.error("expected '{' (a title database is a list of { } scopes) "
                                 f"but got {self.describe()}")
            self.block(root)

    def block(self, parent: _Scope) -> None:
        open_pos = self.pos
        self.pos += 1
        scope = _Scope(dict(parent.settings), parent.implicit, parent.publisher, parent.title)
        phase = 0  # 0: header allowed, 1: settings, 2: nested scopes and au lines
        while True:
            self.skip_space()
            char = self.peek()
            start = self.pos
            if not char:
                line, _ = self.where(open_pos)
                raise self.error(f"end of file inside the '{{' opened at line {line}")
            if char == "}":
                self.pos += 1
                return
            if char == "{":
                phase = 2
                self.block(scope)
                continue
            word = self.keyword()
            if word in ("publisher", "title"):
                if phase > 0:
                    raise self.error(f"'{word} <...>' must be the first statement of its {{ }} scope", start)
                self.pos += len(word)
                self.header(word, scope, start)
                phase = 1
            elif word == "implicit":
                if phase == 2:
                    raise self.error("'implicit <...>' must come before nested scopes and au lines", start)
                self.pos += len(word)
                self.implicit(scope)
                phase = 1
            elif word == "au":
                self.pos += len(word)
                self.au(scope, start)
                phase = 2
            elif _KEY.match(self.text, self.pos):
                if phase == 2:
                    raise self.error("settings must come before nested scopes and au lines "
                                     "(they apply to the whole scope)", start)
                self.assignment(scope)
                phase = 1
            else:
                raise self.error(f"unexpected {self.describe()}")

    def assignment(self, scope: _Scope) -> None:
        start = self.pos
        key = self.read_key()
        self.skip_blanks()
        self.expect("=", f"after {key}")
        value = self.read_value(in_angle=False)
        self.end_of_line(f"the value of {key}")
        self.set(scope, key, value, start)

    def set(self, scope: _Scope, key: str, value: str, pos: int) -> None:
        if key in scope.defined:
            raise self.error(f"{key} is already set in this scope (line {scope.defined[key]})", pos)
        scope.defined[key] = self.where(pos)[0]
        scope.settings[key] = value

    def angle_assignments(self, what: str) -> dict[str, str]:
        self.skip_space()
        self.expect("<", f"after {what}")
        values: dict[str, str] = {}
        while True:
            self.skip_space()
            start = self.pos
            key = self.read_key()
            if key in values:
                raise self.error(f"{key} given twice in {what} <...>", start)
            self.skip_blanks()
            self.expect("=", f"after {key}")
            values[key] = self.read_value(in_angle=True)
            self.skip_space()
            if self.peek() == ">":
                self.pos += 1
                return values
            self.expect(";", f"or '>' after the value of {key} in {what} <...>")

    def header(self, word: str, scope: _Scope, start: int) -> None:
        line = self.where(start)[0]
        props = self.angle_assignments(word)
        name = props.get("name")
        if not name:
            raise self.error(f"{word} <...> without a name", start)
        frozen = MappingProxyType(props)
        if word == "publisher":
            if scope.publisher is not None:
                raise self.error(f"publisher <{name}> inside the scope of publisher <{scope.publisher.name}>", start)
            if scope.title is not None:
                raise self.error(f"publisher <{name}> inside the scope of title <{scope.title.name}>", start)
            scope.publisher = TdbPublisher(name, frozen, self.source, line)
            self.tdb.publishers.append(scope.publisher)
        else:
            if scope.title is not None:
                raise self.error(f"title <{name}> inside the scope of title <{scope.title.name}>", start)
            scope.title = TdbTitle(name, scope.publisher, frozen, self.source, line)
            self.tdb.titles.append(scope.title)

    def implicit(self, scope: _Scope) -> None:
        self.skip_space()
        self.expect("<", "after implicit")
        keys: list[str] = []
        while True:
            self.skip_space()
            start = self.pos
            key = self.read_key()
            if key in keys:
                raise self.error(f"{key} appears twice in implicit <...>", start)
            keys.append(key)
            self.skip_space()
            if self.peek() == ">":
                self.pos += 1
                break
            self.expect(";", "or '>' in implicit <...>")
        if "implicit" in scope.defined:
            raise self.error(f"implicit is already set in this scope (line {scope.defined['implicit']})")
        scope.defined["implicit"] = self.where()[0]
        scope.implicit = tuple(keys)

    def au(self, scope: _Scope, start: int) -> None:
        self.skip_space()
        self.expect("<", "after au")
        values: list[str] = []
        while True:
            self.skip_space(comments=False)
            if self.peek() in (";", ">"):
                values.append("")
            else:
                values.append(self.read_value(in_angle=True))
                self.skip_space(comments=False)
            if self.peek() == ">":
                self.pos += 1
                break
            self.expect(";", "or '>' in au <...>")
        if scope.title is None:
            raise self.error("au <...> outside the scope of a title <...>", start)
        if scope.implicit is None:
            raise self.error("au <...> without an implicit <...> in scope", start)
        if len(values) != len(scope.implicit):
            raise self.error(f"expected {len(scope.implicit)} implicit values ({' ; '.join(scope.implicit)}) "
                             f"but got {len(values)}", start)
        settings = dict(scope.settings)
        settings.update(zip(scope.implicit, values, strict=True))
        if not settings.get("name"):
            raise self.error("au <...> without a name", start)
        if not settings.get("plugin") and not (settings.get("pluginPrefix") and settings.get("pluginSuffix")):
            raise self.error(f"au <{settings['name']}> without a plugin", start)
        self.tdb.add_au(TdbAu(scope.title, MappingProxyType(settings), self.source, self.where(start)[0]))


def parse_tdb(text: str, source: str = "<string>") -> Tdb:
    """Parse the text of a ``.tdb`` file; ``source`` names it in error messages."""
    if not isinstance(text, str):
        raise TypeError(f"parse_tdb takes text, not {type(text).__name__}")
    return _Parser(text, source).parse()


def load_tdb(path: str | PathLike[str]) -> Tdb:
    """Read and parse one ``.tdb`` file (UTF-8, a byte order mark is ignored)."""
    file = Path(path)
    return parse_tdb(file.read_text(encoding="utf-8"), str(file))


def load_tdb_files(paths: Iterable[str | PathLike[str]]) -> Tdb:
    """Read several ``.tdb`` files into one :class:`Tdb`, in the order given."""
    tdb = Tdb()
    for path in paths:
        tdb.extend(load_tdb(path))
    return tdb
