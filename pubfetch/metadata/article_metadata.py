"""ArticleMetadata: one metadata record, as a raw multi-map (what a file said) and a cooked map (what it means).

File metadata extractors store what they find under arbitrary raw keys (``put_raw("citation_title", ...)``); a plugin's
cook map then says which raw keys feed which :class:`~pubfetch.metadata.fields.MetadataField`, and
:meth:`ArticleMetadata. cook` validates and stores the values in the cooked map. Keeping both lets a record be
re-cooked, debugged and compared with the source, and keeps values that failed validation visible (as
:class:`InvalidValue`) instead of silently lost. Semantics follow LOCKSS' ``org.lockss.extractor.ArticleMetadata``
(spec lockss.md section 2).

Public API:

* ``ArticleMetadata()``; raw side: ``put_raw(key, value)`` (value ``str`` or ``Mapping[str, str]``; keys lower-cased,
  duplicates kept), ``get_raw(key)`` (first value or None), ``get_raw_list(key)``, ``get_raw_map(key)`` (first mapping
  value or ``{}``), ``contains_raw_key(key)``, ``raw_keys()``, ``raw_items()``, ``raw_size()``.
* Cooked side (``field`` is a MetadataField; getters also take a key string): ``put(field, value) -> bool``,
  ``put_valid(field, value)`` (raises :class:`~pubfetch.metadata.fields.MetadataError`), ``put_if_better(field, value)
  -> bool``, ``replace(field, value) -> bool``, ``get(field) -> str | None`` (None also when the slot holds an invalid
  value), ``get_list(field) -> list[str]``, ``has_value``, ``has_valid_value``, ``has_invalid_value``,
  ``get_invalid(field) -> InvalidValue | None``, ``keys()`` (cooked keys, invalid ones included), ``size()``,
  ``is_empty()``.
* ``cook(cook_map) -> list[MetadataError]``: ``cook_map`` is a :class:`CookMap`, a mapping ``raw key -> field or
fields``
  or an iterable of ``(raw key, field or fields)`` pairs. Cooking visits the cook map in its declared order (so among
  several raw keys feeding one Single field the first declared wins; LOCKSS iterated a hash map, making the winner
  arbitrary), then each raw value in insertion order, collects every error (with ``raw_key`` set) and never aborts.
* ``locale`` (None = unspecified; may only be set while the cooked map is empty, since validators may depend on it).
* Output: ``pp_string(indent=0)`` ("Metadata" then "Raw Metadata", keys sorted ignoring case), ``str()``;
  ``to_json()`` -> ``{"cooked": {key: str | [str, ...]}, "raw": {key: [value, ...]}, "invalid": {key: {"raw": ...,
  "error": ...}}}`` (Single keys give a string, Multi keys a list; keys sorted) and ``ArticleMetadata.from_json(data)``.
* ``InvalidValue(raw_value, error)``: what a Single slot holds when its only value failed validation.

Storing rules (``put``): for a Single field the value is extracted, then validated; an empty slot takes it; a slot
holding an :class:`InvalidValue` is replaced by a valid value; ``replace`` (a forced put) replaces a valid value; the
same value again succeeds without change; any other value fails with a
:class:`~pubfetch.metadata.fields.CardinalityError` and the FIRST valid value stays. A value that fails validation is
stored as an InvalidValue only in an empty slot (a later invalid value never replaces an earlier one, and an invalid
forced value keeps the old one). For a Multi field each (split) value that validates is appended, duplicates kept;
invalid ones are skipped and the first error reported; a Multi slot never holds an InvalidValue.

Deliberate differences from LOCKSS: "the same value again" compares the normalised value as well as the raw one
(LOCKSS compared only the raw value with the stored, normalised one, so storing ``doi:10.1/x`` twice failed); an
extractor that finds nothing makes the value invalid (LOCKSS stored a null); errors from split values also carry the
field and raw value.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pubfetch.metadata.fields import (
    Cardinality,
    CardinalityError,
    MetadataError,
    MetadataField,
    ValidationError,
    find_field,
)

__all__ = ["ArticleMetadata", "CookMap", "CookMapLike", "InvalidValue", "RawValue"]

RawValue = str | Mapping[str, str]
"""A raw value: a string, or a string -> string mapping (e.g. attributes of one XML element)."""


@dataclass(frozen=True)
class InvalidValue:
    """A value that failed validation, kept in its Single slot so that callers can see what the source said."""

    raw_value: str | None
    error: MetadataError

    def __str__(self) -> str:
        return f"[inv: {self.raw_value}, {type(self.error).__name__}: {self.error}]"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InvalidValue):
            return NotImplemented
        return (self.raw_value, type(self.error), str(self.error)) == (
            other.raw_value, type(other.error), str(other.error))

    def __hash__(self) -> int:
        return hash((self.raw_value, type(self.error), str(self.error)))


class CookMap:
    """Recipe from raw keys to cooked fields: a multi-map ``raw key -> fields`` that remembers declaration order.

    ``CookMap().put("citation_volume", FIELD_VOLUME, DC_FIELD_CITATION_VOLUME)``; putting a raw key again appends
    fields to it (it keeps its first position). Raw keys are matched ignoring case.
    """

    def __init__(self, entries: CookMapLike | None = None) -> None:
        self._entries: dict[str, list[MetadataField]] = {}
        if entries is not None:
            for raw_key, fields in _cook_map_pairs(entries):
                self.put(raw_key, *fields)

    def put(self, raw_key: str, *fields: MetadataField) -> CookMap:
        """Add fields to ``raw_key``; returns self for chaining."""
        if not isinstance(raw_key, str) or not raw_key:
            raise ValueError(f"a cook map key must be a non-empty string, not {raw_key!r}")
        if not fields:
            raise ValueError(f"cook map key {raw_key!r} needs at least one field")
        for f in fields:
            if not isinstance(f, MetadataField):
                raise TypeError(f"cook map key {raw_key!r}: {f!r} is not a MetadataField")
        self._entries.setdefault(raw_key.lower(), []).extend(fields)
        return self

    def items(self) -> list[tuple[str, tuple[MetadataField, ...]]]:
        """``(raw key, fields)`` pairs in declaration order."""
        return [(key, tuple(fields)) for key, fields in self._entries.items()]

    def fields_for(self, raw_key: str) -> tuple[MetadataField, ...]:
        return tuple(self._entries.get(raw_key.lower(), ()))

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, raw_key: object) -> bool:
        return isinstance(raw_key, str) and raw_key.lower() in self._entries

    def __repr__(self) -> str:
        return f"CookMap({dict(self.items())!r})"


CookMapLike = (
    CookMap
    | Mapping[str, MetadataField | Iterable[MetadataField]]
    | Iterable[tuple[str, MetadataField | Iterable[MetadataField]]]
)


def _as_fields(value: MetadataField | Iterable[MetadataField]) -> tuple[MetadataField, ...]:
    if isinstance(value, MetadataField):
        return (value,)
    return tuple(value)


def _cook_map_pairs(cook_map: CookMapLike) -> list[tuple[str, tuple[MetadataField, ...]]]:
    if isinstance(cook_map, CookMap):
        return cook_map.items()
    if isinstance(cook_map, Mapping):
        return [(key, _as_fields(value)) for key, value in cook_map.items()]
    return [(key, _as_fields(value)) for key, value in cook_map]


FieldOrKey = MetadataField | str


def _key(field: FieldOrKey) -> str:
    if isinstance(field, MetadataField):
        return field.key.lower()
    if isinstance(field, str):
        return field.lower()
    raise TypeError(f"expected a MetadataField or a key, not {field!r}")


class ArticleMetadata:
    """One metadata record; see the module docstring for the rules."""

    def __init__(self) -> None:
        self._raw: dict[str, list[RawValue]] = {}
        self._cooked: dict[str, list[str] | InvalidValue] = {}
        self._multi: dict[str, bool] = {}
        self._locale: str | None = None

    # --- locale -----------------------------------------------------------------------------------------------------

    @property
    def locale(self) -> str | None:
        """The locale in which locale-dependent values (dates) are to be read; None when unspecified."""
        return self._locale

    @locale.setter
    def locale(self, locale: str | None) -> None:
        self.set_locale(locale)

    def set_locale(self, locale: str | None) -> None:
        """Set the locale; only while nothing is cooked yet, because validators may already have depended on it."""
        if self._cooked:
            raise RuntimeError("cannot set the locale after storing cooked metadata")
        self._locale = locale

    # --- raw map ----------------------------------------------------------------------------------------------------

    def put_raw(self, key: str, value: RawValue) -> None:
        """Append ``value`` under ``key`` (lower-cased); earlier values and duplicates are kept."""
        if not isinstance(key, str):
            raise TypeError(f"raw metadata keys are strings, not {key!r}")
        if isinstance(value, Mapping):
            value = dict(value)
        elif not isinstance(value, str):
            raise TypeError(f"raw metadata value for {key!r} must be a string or a mapping, not {type(value).__name__}")
        self._raw.setdefault(key.lower(), []).append(value)

    def get_raw(self, key: str) -> RawValue | None:
        """The first raw value under ``key`` (ignoring case), or None."""
        values = self._raw.get(key.lower())
        return values[0] if values else None

    def get_raw_list(self, key: str) -> list[RawValue]:
        """All raw values under ``key`` in insertion order (a copy; empty when none)."""
        return list(self._raw.get(key.lower(), ()))

    def get_raw_map(self, key: str) -> dict[str, str]:
        """The first raw value under ``key`` if it is a mapping, else ``{}``."""
        first = self.get_raw(key)
        return dict(first) if isinstance(first, Mapping) else {}

    def contains_raw_key(self, key: str) -> bool:
        return key.lower() in self._raw

    def raw_keys(self) -> list[str]:
        return list(self._raw)

    def raw_items(self) -> list[tuple[str, list[RawValue]]]:
        return [(key, list(values)) for key, values in self._raw.items()]

    def raw_size(self) -> int:
        """The number of raw keys."""
        return len(self._raw)

    # --- cooked map -------------------------------------------------------------------------------------------------

    def put(self, field: MetadataField, value: str | None) -> bool:
        """Store ``value`` by the field's rules; True when it was stored (or was already there)."""
        return self._put(field, value, force=False) is None

    def put_valid(self, field: MetadataField, value: str | None) -> None:
        """Like :meth:`put`, but raise the :class:`ValidationError` or :class:`CardinalityError` instead of False."""
        error = self._put(field, value, force=False)
        if error is not None:
            raise error

    def put_if_better(self, field: MetadataField, value: str | None) -> bool:
        """Store ``value`` unless it is None or the field already has a valid value; True when a store was attempted
        (even if the attempt failed validation), as in LOCKSS."""
        if value is not None and not self.has_valid_value(field):
            self.put(field, value)
            return True
        return False

    def replace(self, field: MetadataField, value: str | None) -> bool:
        """Forced store: a valid value replaces whatever is there (for a Multi field, all its values); an invalid one
        keeps the old value. Always True."""
        if not field.is_multi:
            self._put_single(field, value, force=True)
            return True
        key = self._remember(field)
        replacement = ArticleMetadata()
        replacement._put_multi(field, value)
        if replacement.get_list(field):
            self._cooked[key] = replacement.get_list(field)
        return True

    def _put(self, field: MetadataField, value: str | None, *, force: bool) -> MetadataError | None:
        if not isinstance(field, MetadataField):
            raise TypeError(f"expected a MetadataField, not {field!r}")
        if field.is_multi:
            return self._put_multi(field, value)
        return self._put_single(field, value, force=force)

    def _remember(self, field: MetadataField) -> str:
        key = field.key.lower()
        self._multi.setdefault(key, field.cardinality is Cardinality.MULTI)
        return key

    def _normalise(self, field: MetadataField, value: str | None) -> str:
        """Extract then validate; any failure is a ValidationError naming the field and raw value."""
        if not isinstance(value, str):
            raise ValidationError(f"Missing value for {field.key}" if value is None
                                  else f"Not a string for {field.key}: {value!r}")
        extracted = field.extract(value)
        if extracted is None:
            raise ValidationError(f"Nothing extracted for {field.key} from: {value}")
        return field.validate(extracted)

    def _put_single(self, field: MetadataField, value: str | None, *, force: bool) -> MetadataError | None:
        key = self._remember(field)
        current = self._cooked.get(key)
        try:
            normalised = self._normalise(field, value)
        except MetadataError as error:
            error.field, error.raw_value = field, value
            if current is None:
                self._cooked[key] = InvalidValue(value, error)
            return error
        if current is None or force or isinstance(current, InvalidValue):
            self._cooked[key] = [normalised]
            return None
        if current[0] in (value, normalised):
            return None
        return CardinalityError(f"Attempt to reset single-valued key: {key} to {value}", field=field,
                                raw_value=value, normalized_value=normalised)

    def _put_multi(self, field: MetadataField, value: str | None) -> MetadataError | None:
        key = self._remember(field)
        if not isinstance(value, str):
            return ValidationError(f"Missing value for {field.key}" if value is None
                                   else f"Not a string for {field.key}: {value!r}", field=field, raw_value=value)
        first_error: MetadataError | None = None
        for element in field.split(value):
            try:
                normalised = self._normalise(field, element)
            except MetadataError as error:
                error.field, error.raw_value = field, value if not field.has_splitter else element
                first_error = first_error or error
                continue
            slot = self._cooked.setdefault(key, [])
            if isinstance(slot, InvalidValue):  # only if a Single field of the same key stored it first
                slot = self._cooked[key] = []
            slot.append(normalised)
        return first_error

    def _slot(self, field: FieldOrKey) -> list[str] | InvalidValue | None:
        return self._cooked.get(_key(field))

    def get(self, field: FieldOrKey) -> str | None:
        """The first valid value, or None (also when the slot holds an invalid value)."""
        slot = self._slot(field)
        return slot[0] if isinstance(slot, list) and slot else None

    def get_list(self, field: FieldOrKey) -> list[str]:
        """All valid values (a copy), or ``[]``."""
        slot = self._slot(field)
        return list(slot) if isinstance(slot, list) else []

    def has_value(self, field: FieldOrKey) -> bool:
        """True when the slot holds a valid or an invalid value."""
        return bool(self._slot(field))

    def has_valid_value(self, field: FieldOrKey) -> bool:
        slot = self._slot(field)
        return isinstance(slot, list) and bool(slot)

    def has_invalid_value(self, field: FieldOrKey) -> bool:
        return isinstance(self._slot(field), InvalidValue)

    def get_invalid(self, field: FieldOrKey) -> InvalidValue | None:
        slot = self._slot(field)
        return slot if isinstance(slot, InvalidValue) else None

    def keys(self) -> list[str]:
        """The cooked keys, including those holding only an invalid value, in the order they were first stored."""
        return list(self._cooked)

    def size(self) -> int:
        """The number of cooked keys."""
        return len(self._cooked)

    def is_empty(self) -> bool:
        return not self._cooked

    # --- cooking ----------------------------------------------------------------------------------------------------

    def cook(self, cook_map: CookMapLike) -> list[MetadataError]:
        """Store raw values in the cooked map by ``cook_map``; returns every error met (never raises for values)."""
        errors: list[MetadataError] = []
        for raw_key, fields in _cook_map_pairs(cook_map):
            values = self._raw.get(raw_key.lower(), [])
            for field in fields:
                for raw_value in values:
                    if not isinstance(raw_value, str):
                        errors.append(ValidationError(
                            f"Raw value of {raw_key} is a mapping, not a string: {raw_value!r}",
                            field=field, raw_key=raw_key))
                        continue
                    try:
                        self.put_valid(field, raw_value)
                    except MetadataError as error:
                        error.raw_key = raw_key
                        errors.append(error)
        return errors

    # --- output -----------------------------------------------------------------------------------------------------

    def pp_string(self, indent: int = 0) -> str:
        """A readable dump: "Metadata" then "Raw Metadata" blocks, keys sorted ignoring case, one per line."""
        tab = " " * indent
        lines: list[str] = []
        for title, mapping in (("Metadata", self._cooked), ("Raw Metadata", self._raw)):
            if not mapping:
                lines.append(f"{tab}{title} (empty)")
                continue
            lines.append(f"{tab}{title}")
            for key in sorted(mapping, key=str.lower):
                lines.append(f"{tab}  {key}: {_pp_values(mapping[key])}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        parts = []
        for key, slot in self._cooked.items():
            parts.append(f"[{key}: {slot}]" if isinstance(slot, InvalidValue) else f"[{key}: {slot!r}]")
        return "[md: " + " ".join(parts) + "]" if parts else "[md:]"

    def __repr__(self) -> str:
        return f"ArticleMetadata(cooked={self.to_json()['cooked']!r}, raw_size={self.raw_size()})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArticleMetadata):
            return NotImplemented
        return self._raw == other._raw and self._cooked == other._cooked and self._locale == other._locale

    __hash__ = None  # type: ignore[assignment]  # mutable

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (see the module docstring); values are copies."""
        cooked: dict[str, Any] = {}
        invalid: dict[str, dict[str, str | None]] = {}
        for key in sorted(self._cooked):
            slot = self._cooked[key]
            if isinstance(slot, InvalidValue):
                invalid[key] = {"raw": slot.raw_value, "error": str(slot.error)}
            elif self._multi.get(key, False):
                cooked[key] = list(slot)
            else:
                cooked[key] = slot[0]
        raw = {key: [dict(v) if isinstance(v, Mapping) else v for v in self._raw[key]] for key in sorted(self._raw)}
        return {"cooked": cooked, "raw": raw, "invalid": invalid}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ArticleMetadata:
        """Rebuild a record from :meth:`to_json` output. Values are trusted (not re-validated): a string is a Single
        value, a list the values of a Multi key; invalid entries come back as InvalidValue with a ValidationError."""
        if not isinstance(data, Mapping):
            raise TypeError(f"ArticleMetadata JSON must be an object, not {type(data).__name__}")
        unknown = set(data) - {"cooked", "raw", "invalid"}
        if unknown:
            raise ValueError(f"unknown ArticleMetadata JSON members: {', '.join(sorted(unknown))}")
        am = cls()
        for key, values in _json_member(data, "raw").items():
            if not isinstance(values, list):
                raise TypeError(f"raw metadata {key!r} must be a list of values, not {values!r}")
            for value in values:
                am.put_raw(key, value)
        for key, value in _json_member(data, "cooked").items():
            lowered = key.lower()
            if isinstance(value, str):
                am._cooked[lowered], am._multi[lowered] = [value], False
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                am._cooked[lowered], am._multi[lowered] = list(value), True
            else:
                raise ValueError(f"cooked metadata {key!r} must be a string or a list of strings, not {value!r}")
        for key, entry in _json_member(data, "invalid").items():
            if not isinstance(entry, Mapping) or "error" not in entry:
                raise ValueError(f"invalid metadata {key!r} must be an object with raw and error, not {entry!r}")
            lowered = key.lower()
            if lowered in am._cooked:
                raise ValueError(f"metadata key {key!r} is both cooked and invalid")
            field = find_field(lowered) or MetadataField(lowered)
            raw_value = entry.get("raw")
            error = ValidationError(str(entry["error"]), field=field, raw_value=raw_value)
            am._cooked[lowered] = InvalidValue(raw_value, error)
            am._multi[lowered] = field.is_multi
        return am


def _json_member(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    member = data.get(name, {})
    if not isinstance(member, Mapping):
        raise TypeError(f"ArticleMetadata JSON member {name!r} must be an object, not {member!r}")
    return member


def _pp_values(slot: list[Any] | InvalidValue) -> str:
    if isinstance(slot, InvalidValue):
        return str(slot)
    if len(slot) == 1:
        return str(slot[0])
    return "[" + "; ".join(str(v) for v in slot) + "]"
