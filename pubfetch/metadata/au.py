"""An archival unit's (AU's) plugin parameters, their derived parameters, and AU identifiers.

A plugin describes its configurable values with parameter descriptors (:class:`.params.ParamDescr`, the 12
LOCKSS types); an AU is the plugin plus one value per parameter ("the 2004 volume of journal X on host Y"). This module
parses an AU's configured text into typed values with the shared rules of :mod:`.params`, adds the derived
parameters LOCKSS defines (``<url>_host``, ``<url>_path``, ``au_short_<year>``) so that printf templates
(:mod:`pubfetch.metadata.templates`) can refer to them, and computes AU ids exactly as LOCKSS does, so that ids are
interchangeable (spec lockss.md sections 7 and 9).

Public API:

* ``AuConfig.parse(raw, descriptors=(), *, unknown="keep")`` -> :class:`AuConfig`: ``raw`` maps parameter keys to
  their text; ``descriptors`` are the plugin's :class:`~.params.ParamDescr` objects or keys of
  :data:`~pubfetch.metadata.descriptors.BUILTIN_DESCRIPTORS`. Keys without a descriptor are looked up among the
  built-ins (``pub_down``, ``crawl_proxy``, ...); other keys are kept as untyped text in ``extras``
  (``unknown="keep"``) or refused with :class:`~.params.UnknownParameter` (``unknown="error"``). A value
  that does not parse raises :class:`~.params.InvalidParamValue` naming the key. Missing values are
  allowed (templates then yield nothing).
* :class:`AuConfig`: ``values`` (typed, derived ones included), ``raw`` (text of typed parameters), ``extras``,
  ``descriptors`` (declared and derived, keyed by key); ``config[key]``, ``get(key)``, ``key in config``,
  ``type_of(key) -> ParamType | None``, ``descriptor(key)``, ``definitional_values() -> dict[str, str]``,
  ``au_key()``, ``au_id(plugin_id)``.
* ``derived_descriptors(descr) -> list[ParamDescr]`` (what a Url or Year parameter brings into existence).
* ``is_reserved_param(key)`` (LOCKSS' ConfigParamDescr.isReservedParam: the ``reserved.`` namespace) and
  :class:`ConfigParamAssignment` (a descriptor with a title database's suggested value and an editable flag).
* AU ids: ``au_id(plugin_id, values, descriptors=None)``, ``au_key(values)``, ``plugin_key(plugin_id)`` ('.' -> '|'),
  ``plugin_id_from_key(key)``, ``parse_au_id(auid) -> (plugin_id, values)``, ``config_key_from_au_id(auid)``
  (LOCKSS' PluginManager.configKeyFromAuId), ``encode_prop_key(text)``,
  ``decode_prop_key(text)``; errors are :class:`AuIdError`.

AU id rule: ``plugin_key(plugin_id) + "&" + au_key(definitional values)``, where ``au_key`` sorts the keys (Java string
order) and joins ``encode(key) + "~" + encode(value)`` with ``&``; ``encode`` keeps ``a-z A-Z 0-9 - _ *``, turns a space
into ``+`` and everything else into ``%XX`` (upper-case hex of the UTF-8 bytes, so ``.`` is ``%2E``). Only
definitional parameters count; a missing one is an error because the id would silently name another AU.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from pubfetch.metadata.descriptors import BUILTIN_DESCRIPTORS
from pubfetch.metadata.params import (
    ParamDescr,
    ParamType,
    UnknownParameter,
    derived_values,
)

__all__ = [
    "RESERVED_PARAM_PREFIX",
    "AuConfig",
    "AuIdError",
    "ConfigParamAssignment",
    "au_id",
    "au_key",
    "config_key_from_au_id",
    "decode_prop_key",
    "derived_descriptors",
    "encode_prop_key",
    "is_reserved_param",
    "parse_au_id",
    "plugin_id_from_key",
    "plugin_key",
    "resolve_descriptor",
]


RESERVED_PARAM_PREFIX = "reserved."


def is_reserved_param(key: str) -> bool:
    """Whether ``key`` is in LOCKSS' reserved AU-configuration namespace (``reserved.wrapper``, ``reserved.disabled``,
    ...), which no plugin parameter may use (ConfigParamDescr.isReservedParam): ``reserved.`` counts, ``reservedfoo``
    does not."""
    return key.startswith(RESERVED_PARAM_PREFIX)


@dataclass(frozen=True)
class ConfigParamAssignment:
    """A parameter assignment from a title database (LOCKSS' ConfigParamAssignment): a descriptor, a suggested value
    and whether the value may be edited, which by default it may exactly when no value is given. Equal when
    descriptor, value and editability are."""

    descr: ParamDescr
    value: str | None = None
    editable: bool | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.descr, ParamDescr):
            raise TypeError(f"a parameter assignment needs a ParamDescr, not {self.descr!r}")
        if self.editable is None:
            object.__setattr__(self, "editable", not self.value)

    def __str__(self) -> str:
        return f"[CPA: {self.descr.key}, val:{self.value}]"


class AuIdError(ValueError):
    """An AU id that cannot be made (a definitional parameter is missing) or read (malformed encoding)."""


def resolve_descriptor(spec: ParamDescr | str) -> ParamDescr:
    """A descriptor as given, or the built-in one with that key (``"base_url"``)."""
    if isinstance(spec, ParamDescr):
        return spec
    if isinstance(spec, str):
        try:
            return BUILTIN_DESCRIPTORS[spec]
        except KeyError:
            raise UnknownParameter(
                f"{spec!r} is not a built-in parameter; known: {', '.join(BUILTIN_DESCRIPTORS)}") from None
    raise TypeError(f"expected a ParamDescr or a built-in parameter key, not {spec!r}")


def derived_descriptors(descr: ParamDescr) -> list[ParamDescr]:
    """Descriptors of the derived parameters of ``descr``: ``k_host`` and ``k_path`` (String) for a Url, ``au_short_k``
    (Int, the year modulo 100) for a Year; none otherwise. They are non-definitional, marked ``derived`` and named as
    LOCKSS' ConfigParamDescr.getDerivedDescr names them: "base_url_host (derived from Base URL)"."""
    if descr.type is ParamType.URL:
        keys, derived_type = [f"{descr.key}_host", f"{descr.key}_path"], ParamType.STRING
    elif descr.type is ParamType.YEAR:
        keys, derived_type = [f"au_short_{descr.key}"], ParamType.INT
    else:
        return []
    return [ParamDescr(key, derived_type, f"{key} (derived from {descr.display_name})", definitional=False,
                       derived=True) for key in keys]


@dataclass(frozen=True)
class AuConfig:
    """An AU's parameter values, typed by the plugin's descriptors (see the module docstring)."""

    descriptors: Mapping[str, ParamDescr]
    raw: Mapping[str, str]
    values: Mapping[str, Any]
    extras: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, raw: Mapping[str, str], descriptors: Iterable[ParamDescr | str] = (), *,
              unknown: Literal["keep", "error"] = "keep") -> AuConfig:
        if unknown not in ("keep", "error"):
            raise ValueError(f"unknown must be 'keep' or 'error', not {unknown!r}")
        declared: dict[str, ParamDescr] = {}
        for spec in descriptors:
            descr = resolve_descriptor(spec)
            if descr.key in declared and declared[descr.key] != descr:
                raise ValueError(f"parameter {descr.key} is described twice, differently")
            declared[descr.key] = descr
        typed_raw: dict[str, str] = {}
        values: dict[str, Any] = {}
        extras: dict[str, str] = {}
        for key, text in raw.items():
            if not isinstance(key, str):
                raise TypeError(f"parameter keys are strings, not {key!r}")
            found = declared.get(key) or BUILTIN_DESCRIPTORS.get(key)
            if found is None:
                if unknown == "error":
                    raise UnknownParameter(f"no descriptor for parameter {key!r}; described: {', '.join(declared)}")
                if not isinstance(text, str):
                    raise TypeError(f"parameter {key}: values are given as text, not {text!r}")
                extras[key] = text
                continue
            values[key] = found.parse(text)
            typed_raw[key] = text
            declared.setdefault(key, found)
        all_descriptors = dict(declared)
        for descr in list(declared.values()):
            for derived in derived_descriptors(descr):
                if derived.key in declared:
                    continue  # a plugin's own parameter of that name wins
                all_descriptors[derived.key] = derived
                if descr.key in values:
                    values[derived.key] = derived_values(descr.key, descr.type, values[descr.key])[derived.key]
        return cls(MappingProxyType(all_descriptors), MappingProxyType(typed_raw), MappingProxyType(values),
                   MappingProxyType(extras))

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def __contains__(self, key: object) -> bool:
        return key in self.values

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def descriptor(self, key: str) -> ParamDescr | None:
        return self.descriptors.get(key)

    def type_of(self, key: str) -> ParamType | None:
        """The type of a described (or derived) parameter, None for an unknown name."""
        descr = self.descriptors.get(key)
        return descr.type if descr is not None else None

    def definitional_values(self) -> dict[str, str]:
        """The text of every definitional parameter; :class:`AuIdError` names those missing."""
        missing = [d.key for d in self.descriptors.values()
                   if d.definitional and not d.derived and d.key not in self.raw]
        if missing:
            raise AuIdError(f"missing definitional parameter(s): {', '.join(missing)}")
        return {d.key: self.raw[d.key] for d in self.descriptors.values() if d.definitional and not d.derived}

    def au_key(self) -> str:
        return au_key(self.definitional_values())

    def au_id(self, plugin_id: str) -> str:
        return plugin_key(plugin_id) + "&" + self.au_key()


# --- PropKeyEncoder ------------------------------------------------------------------------------------------------

_KEEP = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_*")


def encode_prop_key(text: str) -> str:
    """LOCKSS' PropKeyEncoder: keep ``a-z A-Z 0-9 - _ *``, space -> ``+``, else ``%XX`` per UTF-8 byte (upper hex)."""
    if not isinstance(text, str):
        raise TypeError(f"only text can be encoded in an AU id, not {text!r}")
    out: list[str] = []
    for char in text:
        if char in _KEEP:
            out.append(char)
        elif char == " ":
            out.append("+")
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
    return "".join(out)


def decode_prop_key(text: str) -> str:
    """The inverse of :func:`encode_prop_key`; :class:`AuIdError` on a broken ``%`` escape or bad UTF-8."""
    data = bytearray()
    i = 0
    while i < len(text):
        char = text[i]
        if char == "%":
            pair = text[i + 1:i + 3]
            if len(pair) != 2 or any(c not in "0123456789abcdefABCDEF" for c in pair):
                raise AuIdError(f"broken %-escape at position {i} in {text!r}")
            data.append(int(pair, 16))
            i += 3
            continue
        data.extend(b" " if char == "+" else char.encode("utf-8"))
        i += 1
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AuIdError(f"not UTF-8 after decoding {text!r}: {e}") from None


def _java_order(key: str) -> bytes:
    # Java sorts strings by UTF-16 code units; this differs from code point order above U+FFFF.
    return key.encode("utf-16-be", "surrogatepass")


def au_key(values: Mapping[str, str]) -> str:
    """The AU key of these (definitional) values: sorted keys, ``enc(key)~enc(value)`` joined by ``&``."""
    parts = []
    for key in sorted(values, key=_java_order):
        value = values[key]
        if not isinstance(value, str):
            raise TypeError(f"AU id value of {key} must be text, not {value!r}")
        parts.append(f"{encode_prop_key(key)}~{encode_prop_key(value)}")
    return "&".join(parts)


def plugin_key(plugin_id: str) -> str:
    """``org.lockss.plugin.Blah`` -> ``org|lockss|plugin|Blah``."""
    if not isinstance(plugin_id, str) or not plugin_id:
        raise AuIdError(f"a plugin id must be a non-empty string, not {plugin_id!r}")
    return plugin_id.replace(".", "|")


def plugin_id_from_key(key: str) -> str:
    return key.replace("|", ".")


def au_id(plugin_id: str, values: Mapping[str, str],
          descriptors: Iterable[ParamDescr | str] | None = None) -> str:
    """The AU id of ``plugin_id`` with ``values``. With ``descriptors`` only the definitional parameters count and a
    missing one raises :class:`AuIdError`; without, every given value counts (for callers that already filtered)."""
    if descriptors is not None:
        chosen: dict[str, str] = {}
        missing: list[str] = []
        for spec in descriptors:
            descr = resolve_descriptor(spec)
            if not descr.definitional or descr.derived:
                continue
            if descr.key in values:
                chosen[descr.key] = values[descr.key]
            else:
                missing.append(descr.key)
        if missing:
            raise AuIdError(f"missing definitional parameter(s) for {plugin_id}: {', '.join(missing)}")
        values = chosen
    return plugin_key(plugin_id) + "&" + au_key(values)


def config_key_from_au_id(auid: str) -> str:
    """The key of an AU's subtree in LOCKSS' configuration (``org.lockss.au.<key>``): the AU id with its first ``&``
    turned into ``.`` (PluginManager.configKeyFromAuId)."""
    if "&" not in auid:
        raise AuIdError(f"not an AU id (no '&' after the plugin key): {auid!r}")
    return auid.replace("&", ".", 1)


def parse_au_id(auid: str) -> tuple[str, dict[str, str]]:
    """Split an AU id into its plugin id and decoded parameter values. Each part must be one ``key~value`` with a
    non-empty key and value (``P&foo~`` and ``P&foo~bar~`` are refused, as LOCKSS refuses malformed encoded keys)."""
    if not isinstance(auid, str) or "&" not in auid:
        raise AuIdError(f"not an AU id (no '&' after the plugin key): {auid!r}")
    key, _, rest = auid.partition("&")
    if not key:
        raise AuIdError(f"AU id without a plugin key: {auid!r}")
    values: dict[str, str] = {}
    for part in rest.split("&") if rest else []:
        name, tilde, value = part.partition("~")
        if not tilde:
            raise AuIdError(f"AU id part without '~': {part!r} in {auid!r}")
        if not name or not value or "~" in value:
            raise AuIdError(f"malformed encoded key~value {part!r} in {auid!r}")
        decoded = decode_prop_key(name)
        if decoded in values:
            raise AuIdError(f"parameter {decoded!r} appears twice in {auid!r}")
        values[decoded] = decode_prop_key(value)
    return plugin_id_from_key(key), values
