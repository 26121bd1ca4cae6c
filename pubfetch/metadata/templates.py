"""Printf templates: plugin strings such as ``"\\"%s%d/\\", base_url, year"`` turned into URLs, regexps or names.

LOCKSS plugins write start URLs, crawl rules, article-iterator roots and patterns as one string holding a C printf
format between double quotes and a comma-separated list of arguments; each argument is a parameter name or
``function(parameter)``. The same template is converted differently by context (spec lockss.md section 8):

* URL list (:func:`url_list`): every Set and NumRange argument is expanded and the Cartesian product formatted, the
FIRST
  multi-valued argument varying fastest; a NumRange expands to at most :data:`MAX_NUM_RANGE_SIZE` numbers; a string
  Range cannot be expanded and is a definition error.
* Regexp (:func:`match_pattern`): string values are regex-quoted (every ASCII non-word character escaped, as Perl's
  quotemeta does, so the result is valid for Python's ``re``), a Set becomes ``(?:a|b|...)``, a Range ``(.*)`` and a
  NumRange ``(\\d+)`` whose bounds are kept as match arguments for a later range check; in URL context a space matches
  ``( |\\+|%20)``.
* Display name (:func:`display_name`): Sets joined with ", ", ranges with "-", missing values as "(null)".

A missing parameter value makes :func:`url_list` return ``[]`` and :func:`match_pattern` return None (the rule simply
does not apply to this AU); an unknown parameter or function, a malformed template, or a string Range in a URL is a
:class:`TemplateError`, because the plugin definition itself is wrong.

Public API:

* ``parse_template(text) -> PrintfTemplate`` (``format``, ``args``: tuple of :class:`TemplateArg` with ``raw``,
  ``param``, ``fn``); ``str(template)`` gives the template text back.
* ``url_list(template, config, *, functor=DEFAULT_FUNCTOR, allow_untyped=False) -> list[str]``
* ``match_pattern(template, config, *, url_context=False, functor=..., allow_untyped=False) -> MatchPattern | None``;
  :class:`MatchPattern` has ``regexp``, ``match_args``, ``match_arg_types`` and ``compile(flags=0)``.
* ``display_name(template, config, *, functor=..., allow_untyped=False) -> str``
* ``sprintf(format, args) -> str``: the printf engine (``%[flags][width][.precision]conv``, conversions ``d i o x X e
  E f F g G c s %``); a string given to ``%d``/``%i`` is printed as by ``%s`` so that regexp substitutions can fill
  numeric slots.
* ``quote_regexp(text, url_context=False) -> str``
* Functors: :class:`ParamFunctor` with ``type_of(name)``, ``apply(name, value)``, ``with_function(name, result_type,
  function)``; :data:`DEFAULT_FUNCTOR` knows ``url_host`` (no port, case kept), ``url_path``, ``add_www``, ``del_www``,
  ``to_https``, ``to_http``, ``url_encode``/``url_decode`` (UTF-8, form encoding), ``range_min``, ``range_max``,
  ``num_range_min``, ``num_range_max`` and ``short_year``. An unknown name raises ``TemplateError("Undefined
  function: X")``.

``config`` is a :class:`pubfetch.metadata.au.AuConfig`; its descriptors give each argument's type.

A string without a quoted format (``http://no.args/blah``) is, as in LOCKSS' ``PrintfConverter``, the whole string as
a format without arguments, used as it is: the URL list is ``[text]``, the name ``text`` and the regexp ``text``.
:func:`printf_to_elements` splits a template into :class:`PrintfElement` items (LOCKSS' ``printfToElements``).

Deliberate differences from LOCKSS: a NumRange in a URL expands to at most 100 numbers (LOCKSS' cap let 101 through);
a template with text before its opening quote or junk after the closing one is refused instead of ignored.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus, unquote_plus

from pubfetch.metadata.au import AuConfig
from pubfetch.metadata.params import InvalidParamValue, ParamType, derived_values, parse_value

__all__ = [
    "DEFAULT_FUNCTOR",
    "MAX_NUM_RANGE_SIZE",
    "NUM_SUBSTITUTION",
    "RANGE_SUBSTITUTION",
    "URL_ESCAPED_SPACE",
    "MatchPattern",
    "ParamFunctor",
    "PrintfTemplate",
    "PrintfElement",
    "TemplateArg",
    "TemplateError",
    "display_name",
    "match_pattern",
    "parse_template",
    "printf_to_elements",
    "quote_regexp",
    "sprintf",
    "url_list",
]

log = logging.getLogger(__name__)

MAX_NUM_RANGE_SIZE = 100
RANGE_SUBSTITUTION = "(.*)"
NUM_SUBSTITUTION = r"(\d+)"
URL_ESCAPED_SPACE = r"( |\+|%20)"


class TemplateError(ValueError):
    """A plugin definition error: malformed template, unknown parameter or function, value not usable in context."""


# --- parsing -------------------------------------------------------------------------------------------------------

_PARAM = re.compile(r"\w+")
_FN_CALL = re.compile(r"(\w+)\((\w+)\)")


@dataclass(frozen=True)
class TemplateArg:
    """One printf argument: a parameter name, optionally wrapped in a function call (``url_host(base_url)``)."""

    raw: str
    param: str
    fn: str | None = None


@dataclass(frozen=True)
class PrintfTemplate:
    """A parsed template: the printf format and its arguments."""

    format: str
    args: tuple[TemplateArg, ...] = ()

    def __str__(self) -> str:
        return '"' + self.format + '"' + "".join(", " + arg.raw for arg in self.args)


def parse_template(text: str | PrintfTemplate) -> PrintfTemplate:
    """Parse ``"FORMAT", arg1, arg2``: the format lies between the first and the last double quote; text without such
    a pair is a format of its own, without arguments."""
    if isinstance(text, PrintfTemplate):
        return text
    if not isinstance(text, str):
        raise TypeError(f"a printf template is a string, not {text!r}")
    first, last = text.find('"'), text.rfind('"')
    if first < 0 or last <= first:
        return PrintfTemplate(text)
    if text[:first].strip():
        raise TemplateError(f"text before the format of printf template {text!r}")
    fmt, rest = text[first + 1:last], text[last + 1:].strip()
    if rest and not rest.startswith(","):
        raise TemplateError(f"expected ',' after the format of printf template {text!r}")
    args = []
    for piece in rest.split(","):
        raw = piece.strip()
        if not raw:
            continue
        call = _FN_CALL.fullmatch(raw)
        if call:
            args.append(TemplateArg(raw, call.group(2), call.group(1)))
        elif _PARAM.fullmatch(raw):
            args.append(TemplateArg(raw, raw))
        else:
            raise TemplateError(f"malformed printf argument {raw!r} in {text!r}: expected name or fn(name)")
    template = PrintfTemplate(fmt, tuple(args))
    if args:
        wanted = len(_conversions(fmt, text))
        if wanted != len(args):
            raise TemplateError(f"printf template {text!r} has {wanted} conversion(s) but {len(args)} argument(s)")
    return template


@dataclass(frozen=True)
class PrintfElement:
    """One piece of a printf format, as LOCKSS' ``PrintfUtil.PrintfElement``: literal text (``format`` None; ``%%``
    stays ``"%%"``) or one conversion (``format`` like ``"%02d"``) with the argument it formats."""

    format: str | None
    element: str


def printf_to_elements(template: str | PrintfTemplate) -> list[PrintfElement]:
    """The format of ``template`` as literal and conversion elements in order (LOCKSS' ``printfToElements``):
    ``"foo%dbar%sbaz%%", my_int, my_str`` -> foo, %d my_int, bar, %s my_str, baz, %%."""
    parsed = parse_template(template)
    fmt = parsed.format
    elements: list[PrintfElement] = []
    args = iter(parsed.args)
    pos = 0
    for match in _conversions(fmt, fmt, with_percent=True):
        if match.start() > pos:
            elements.append(PrintfElement(None, fmt[pos:match.start()]))
        if match.group("conv") == "%":
            elements.append(PrintfElement(None, "%%"))
        else:
            arg = next(args, None)
            if arg is None:
                raise TemplateError(f"printf template {str(parsed)!r} has more conversions than arguments")
            elements.append(PrintfElement(match.group(0), arg.raw))
        pos = match.end()
    if pos < len(fmt):
        elements.append(PrintfElement(None, fmt[pos:]))
    return elements


# --- printf --------------------------------------------------------------------------------------------------------

_CONVERSION = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\d+)?(?:\.(?P<precision>\d+))?(?P<conv>[diouxXeEfFgGcs%])")


def _conversions(fmt: str, where: str, with_percent: bool = False) -> list[re.Match[str]]:
    found: list[re.Match[str]] = []
    pos = 0
    while True:
        start = fmt.find("%", pos)
        if start < 0:
            return found
        match = _CONVERSION.match(fmt, start)
        if not match:
            raise TemplateError(f"unsupported printf conversion at {fmt[start:start + 8]!r} in {where!r}")
        if with_percent or match.group("conv") != "%":
            found.append(match)
        pos = match.end()


def _java_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _format_one(match: re.Match[str], value: Any, strict: bool = False) -> str:
    spec = match.group(0)
    conv = match.group("conv")
    try:
        if conv == "s" or (conv in "di" and isinstance(value, str) and not strict):
            return (spec[:-1] + "s") % _java_text(value)
        if conv in "dioxX":
            if isinstance(value, bool) or not isinstance(value, int):
                raise TemplateError(f"printf {spec} needs an integer, not {value!r}")
            return spec % value
        if conv == "c" and isinstance(value, str) and len(value) != 1:
            raise TemplateError(f"printf {spec} needs one character, not {value!r}")
        return spec % value
    except (TypeError, ValueError) as e:
        if isinstance(e, TemplateError):
            raise
        raise TemplateError(f"printf {spec} cannot format {value!r}: {e}") from None


def sprintf(fmt: str, args: list[Any] | tuple[Any, ...], *, strict: bool = False) -> str:
    """Format ``args`` into ``fmt`` with C printf rules (see the module docstring); ``strict`` refuses text under
    ``%d``/``%i`` (what LOCKSS' PrintfFormat does outside regexps)."""
    out: list[str] = []
    pos = 0
    index = 0
    for match in _CONVERSION.finditer(fmt):
        if fmt.find("%", pos, match.start()) >= 0:
            bad = fmt.find("%", pos, match.start())
            raise TemplateError(f"unsupported printf conversion at {fmt[bad:bad + 8]!r} in {fmt!r}")
        out.append(fmt[pos:match.start()])
        if match.group("conv") == "%":
            out.append("%")
        else:
            if index >= len(args):
                raise TemplateError(f"printf format {fmt!r} has more conversions than the {len(args)} argument(s)")
            out.append(_format_one(match, args[index], strict))
            index += 1
        pos = match.end()
    if "%" in fmt[pos:]:
        raise TemplateError(f"unsupported printf conversion in {fmt!r}")
    out.append(fmt[pos:])
    if index != len(args):
        raise TemplateError(f"printf format {fmt!r} uses {index} of {len(args)} argument(s)")
    return "".join(out)


# --- functors ------------------------------------------------------------------------------------------------------

_SCHEME_HOST = re.compile(r"^(\w+://)([^/]+)")


def _text_arg(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TemplateError(f"Illegal arg type for {name}: {value!r}")
    return value


def _url_part(part: str) -> Callable[[Any], str]:
    def function(value: Any) -> str:
        url = _text_arg(f"url_{part}", value)
        try:
            parsed = parse_value(ParamType.URL, url)
        except InvalidParamValue as e:
            raise TemplateError(f"Malformed fn arg for url_{part}: {e}") from None
        return derived_values("u", ParamType.URL, parsed)[f"u_{part}"]

    return function


def _add_www(value: Any) -> str:
    url = _text_arg("add_www", value)
    match = _SCHEME_HOST.match(url)
    if not match or match.group(2).lower().startswith("www."):
        return url
    return match.group(1) + "www." + match.group(2) + url[match.end():]


def _del_www(value: Any) -> str:
    url = _text_arg("del_www", value)
    match = _SCHEME_HOST.match(url)
    if not match or not match.group(2).lower().startswith("www."):
        return url
    return match.group(1) + match.group(2)[4:] + url[match.end():]


def _replace_scheme(old: str, new: str) -> Callable[[Any], str]:
    def function(value: Any) -> str:
        url = _text_arg(f"to_{new}", value)
        if url[: len(old)].lower() == old and url[len(old):len(old) + 1] == ":":
            return new + url[len(old):]
        return url

    return function


def _url_encode(value: Any) -> str:
    # java.net.URLEncoder: keeps a-z A-Z 0-9 . - * _, space -> '+', the rest %XX of the UTF-8 bytes.
    return quote_plus(_text_arg("url_encode", value), safe="*").replace("~", "%7E")


def _url_decode(value: Any) -> str:
    return unquote_plus(_text_arg("url_decode", value), encoding="utf-8", errors="strict")


def _range_end(name: str, param_type: ParamType, end: int) -> Callable[[Any], Any]:
    def function(value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = parse_value(param_type, value)
            except InvalidParamValue as e:
                raise TemplateError(f"Invalid format for {name}: {e}") from None
        if not isinstance(value, tuple | list) or len(value) != 2:
            raise TemplateError(f"Illegal arg type for {name}: {value!r}")
        return value[end]

    return function


def _short_year(value: Any) -> int:
    if isinstance(value, str):
        try:
            value = parse_value(ParamType.YEAR, value)
        except InvalidParamValue as e:
            raise TemplateError(f"Invalid format for short_year: {e}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TemplateError(f"Illegal arg type for short_year: {value!r}")
    return value % 100


@dataclass(frozen=True)
class ParamFunctor:
    """The functions templates may apply to parameter values, each with the type of its result."""

    functions: Mapping[str, tuple[ParamType, Callable[[Any], Any]]] = field(default_factory=dict)

    def type_of(self, name: str) -> ParamType | None:
        entry = self.functions.get(name)
        return entry[0] if entry else None

    def apply(self, name: str, value: Any) -> Any:
        entry = self.functions.get(name)
        if entry is None:
            raise TemplateError(f"Undefined function: {name}")
        return entry[1](value)

    def with_function(self, name: str, result_type: ParamType, function: Callable[[Any], Any]) -> ParamFunctor:
        """A functor with one more (or a replaced) function, as a plugin's own functor class would add."""
        return ParamFunctor({**self.functions, name: (ParamType(result_type), function)})


_STRING = ParamType.STRING
DEFAULT_FUNCTOR = ParamFunctor({
    "url_host": (_STRING, _url_part("host")),
    "url_path": (_STRING, _url_part("path")),
    "add_www": (_STRING, _add_www),
    "del_www": (_STRING, _del_www),
    "to_https": (_STRING, _replace_scheme("http", "https")),
    "to_http": (_STRING, _replace_scheme("https", "http")),
    "url_encode": (_STRING, _url_encode),
    "url_decode": (_STRING, _url_decode),
    "range_min": (_STRING, _range_end("range_min", ParamType.RANGE, 0)),
    "range_max": (_STRING, _range_end("range_max", ParamType.RANGE, 1)),
    "num_range_min": (ParamType.LONG, _range_end("num_range_min", ParamType.NUM_RANGE, 0)),
    "num_range_max": (ParamType.LONG, _range_end("num_range_max", ParamType.NUM_RANGE, 1)),
    "short_year": (ParamType.INT, _short_year),
})
"""LOCKSS' BaseAuParamFunctor functions plus ``short_year``."""


# --- argument values -----------------------------------------------------------------------------------------------


def _resolve(arg: TemplateArg, config: AuConfig, functor: ParamFunctor,
             allow_untyped: bool) -> tuple[Any, ParamType]:
    """The value (None when missing) and type of one argument."""
    param_type = config.type_of(arg.param)
    value = config.get(arg.param)
    if param_type is None:
        if allow_untyped and arg.param in config.extras:
            param_type, value = ParamType.STRING, config.extras[arg.param]
        elif not allow_untyped:
            raise TemplateError(f"Unknown param in printf conversion: {arg.param}")
        else:
            param_type = ParamType.STRING
    if arg.fn is None:
        return value, param_type
    result_type = functor.type_of(arg.fn)
    if result_type is None:
        raise TemplateError(f"Undefined function: {arg.fn}")
    if value is None:
        return None, result_type
    return functor.apply(arg.fn, value), result_type


_WORD_ASCII = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def quote_regexp(text: str, url_context: bool = False) -> str:
    """Escape every character that is not a word character (Perl quotemeta); in URL context a space matches ' ', '+'
    or '%20'."""
    out = []
    for char in text:
        if char in _WORD_ASCII or (ord(char) > 127 and char.isalnum()):
            out.append(char)
        elif char == " " and url_context:
            out.append(URL_ESCAPED_SPACE)
        else:
            out.append("\\" + char)
    return "".join(out)


# --- URL lists -----------------------------------------------------------------------------------------------------


def url_list(template: str | PrintfTemplate, config: AuConfig, *, functor: ParamFunctor = DEFAULT_FUNCTOR,
             allow_untyped: bool = False) -> list[str]:
    """Expand a template into URLs (see the module docstring); ``[]`` when a parameter value is missing."""
    parsed = parse_template(template)
    if not parsed.args:
        return [parsed.format]
    slots: list[list[Any]] = []
    missing = False
    for arg in parsed.args:
        value, param_type = _resolve(arg, config, functor, allow_untyped)
        if value is None:
            missing = True
            log.warning("missing value for %s in %s", arg.raw, parsed)
            continue
        if param_type is ParamType.SET:
            slots.append([_java_text(v) for v in value])
        elif param_type is ParamType.NUM_RANGE:
            slots.append(_expand_num_range(arg, value))
        elif param_type is ParamType.RANGE:
            raise TemplateError(f"String range params are not allowed in URL patterns: {arg.raw}")
        else:
            slots.append([value])
    if missing:
        return []
    # itertools.product varies the LAST list fastest; LOCKSS varies the FIRST multi-valued argument fastest.
    return [sprintf(parsed.format, combo[::-1]) for combo in itertools.product(*slots[::-1])]


def _expand_num_range(arg: TemplateArg, value: Any) -> list[int]:
    low, high = value
    if isinstance(low, str) or isinstance(high, str):
        raise TemplateError(f"Numeric range {arg.raw} = {low}-{high} is not numeric and cannot be expanded into URLs")
    if high - low + 1 > MAX_NUM_RANGE_SIZE:
        log.error("Excessively large numeric range: %d-%d, truncating to %d values", low, high, MAX_NUM_RANGE_SIZE)
        high = low + MAX_NUM_RANGE_SIZE - 1
    return list(range(low, high + 1))


# --- regexps -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchPattern:
    """A regexp made from a template, with the bounds of its range groups (one per ``(.*)`` / ``(\\d+)`` group, in
    order) so that matches can be checked against the AU's ranges."""

    regexp: str
    match_args: tuple[Any, ...] = ()
    match_arg_types: tuple[ParamType, ...] = ()

    def compile(self, flags: int = 0) -> re.Pattern[str]:
        try:
            return re.compile(self.regexp, flags)
        except re.error as e:
            raise TemplateError(f"regexp {self.regexp!r} does not compile: {e}") from None


def match_pattern(template: str | PrintfTemplate, config: AuConfig, *, url_context: bool = False,
                  functor: ParamFunctor = DEFAULT_FUNCTOR, allow_untyped: bool = False) -> MatchPattern | None:
    """Convert a template into a regexp (see the module docstring); None when a parameter value is missing."""
    parsed = parse_template(template)
    if not parsed.args:
        return MatchPattern(parsed.format)
    substitutions: list[Any] = []
    match_args: list[Any] = []
    match_types: list[ParamType] = []
    missing = False
    for arg in parsed.args:
        value, param_type = _resolve(arg, config, functor, allow_untyped)
        if value is None:
            missing = True
            log.warning("missing value for %s in %s", arg.raw, parsed)
            continue
        if param_type is ParamType.SET:
            substitutions.append("(?:" + "|".join(quote_regexp(_java_text(v), url_context) for v in value) + ")")
        elif param_type in (ParamType.RANGE, ParamType.NUM_RANGE):
            substitutions.append(RANGE_SUBSTITUTION if param_type is ParamType.RANGE else NUM_SUBSTITUTION)
            match_args.append(value)
            match_types.append(param_type)
        elif isinstance(value, str):
            substitutions.append(quote_regexp(value, url_context))
        else:
            substitutions.append(value)
    if missing:
        return None
    return MatchPattern(sprintf(parsed.format, substitutions), tuple(match_args), tuple(match_types))


# --- display names -------------------------------------------------------------------------------------------------


def display_name(template: str | PrintfTemplate, config: AuConfig, *, functor: ParamFunctor = DEFAULT_FUNCTOR,
                 allow_untyped: bool = False) -> str:
    """Format a template for people (AU names): Sets joined by ", ", ranges by "-", missing values as "(null)". As in
    LOCKSS' NameConverter, such joined text under ``%d`` is a definition error."""
    parsed = parse_template(template)
    if not parsed.args:
        return parsed.format
    substitutions: list[Any] = []
    for arg in parsed.args:
        value, param_type = _resolve(arg, config, functor, allow_untyped)
        if value is None:
            substitutions.append("(null)")
        elif param_type is ParamType.SET:
            substitutions.append(", ".join(_java_text(v) for v in value))
        elif param_type in (ParamType.RANGE, ParamType.NUM_RANGE):
            substitutions.append("-".join(_java_text(v) for v in value))
        else:
            substitutions.append(value)
    return sprintf(parsed.format, substitutions, strict=True)
