"""Checking a parsed plugin definition completely, key by key, and building the :class:`Plugin` from it.

Unknown keys are errors (they are usually typos, so the closest allowed key is suggested), and regexps, printf
templates, replacement strings, roles, MIME types and field names are all checked when the plugin is loaded rather
than when an AU first meets them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_files import ALL_ROLES
from pubfetch.metadata.article_metadata import CookMap
from pubfetch.metadata.au import derived_descriptors, is_reserved_param, resolve_descriptor
from pubfetch.metadata.descriptors import BUILTIN_DESCRIPTORS
from pubfetch.metadata.extractors import extractor_kinds, make_extractor
from pubfetch.metadata.iterators import check_replacement
from pubfetch.metadata.params import ParamDescr, ParamType, UnknownParameter
from pubfetch.metadata.plugin_definition import AspectDef, ExtractorDef, IteratorDef, Plugin, PluginError
from pubfetch.metadata.templates import DEFAULT_FUNCTOR, TemplateError, parse_template

__all__ = ["PluginReader"]


_FLAGS = {"IGNORECASE": re.IGNORECASE, "CASE_INSENSITIVE": re.IGNORECASE, "MULTILINE": re.MULTILINE,
          "DOTALL": re.DOTALL, "VERBOSE": re.VERBOSE, "COMMENTS": re.VERBOSE, "ASCII": re.ASCII}
_TOP_KEYS = ("id", "name", "version", "description", "params", "default_article_mime_type", "bulk_content",
             "custom_roles", "article_iterator", "article_metadata", "metadata_extractors")
_ITERATOR_KEYS = ("roots", "root_templates", "pattern", "pattern_template", "pattern_flags", "include_subtree_pattern",
                  "include_subtree_pattern_template", "include_subtree_flags", "exclude_subtree_pattern",
                  "exclude_subtree_pattern_template", "exclude_subtree_flags", "mime_types", "aspects",
                  "full_text_from_roles", "role_from_other_roles", "visit_archive_members")
_ASPECT_KEYS = ("name", "patterns", "flags", "replacements", "roles", "mime_types")
_METADATA_KEYS = ("role", "add_tdb_defaults", "check_access_url", "prefer_tdb_publisher")
_EXTRACTOR_KEYS = ("extractor", "cook_map", "options")
_PARAM_KEYS = ("key", "type", "display_name", "description", "size", "definitional", "default_only")
_FIELD_SPEC_KEYS = ("field", "split", "extract", "html_text")
_PLUGIN_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)*+")
_MIME = re.compile(r"(\*|[a-z0-9][a-z0-9!#$&^_.+-]*/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*))")


class PluginReader:
    """Checks a parsed plugin definition key by key and builds the :class:`Plugin`; every error names the file and
    the key (see :mod:`pubfetch.metadata.plugin` for the keys)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.param_names: set[str] = set()
        self.roles: set[str] = set(ALL_ROLES)

    def error(self, key: str, message: str) -> PluginError:
        return PluginError(self.source, key, message)

    # --- generic checks ---

    def mapping(self, value: Any, key: str, allowed: Sequence[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(key or "(top level)", f"expected a mapping, not {_kind(value)}")
        for name in value:
            if not isinstance(name, str):
                raise self.error(key or "(top level)", f"keys must be strings, not {name!r}")
            if name not in allowed:
                hint = difflib.get_close_matches(name, allowed, n=1)
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
                raise self.error(_join(key, name), f"unknown key{suggestion}; allowed: {', '.join(allowed)}")
        return value

    def string(self, value: Any, key: str, *, allow_empty: bool = False) -> str:
        if not isinstance(value, str) or (not value and not allow_empty):
            raise self.error(key, f"expected a non-empty string, not {_kind(value)}")
        return value

    def boolean(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, not {_kind(value)}")
        return value

    def strings(self, value: Any, key: str, *, single_ok: bool = True,
                allow_empty_list: bool = False) -> tuple[str, ...]:
        if isinstance(value, str) and single_ok:
            value = [value]
        if not isinstance(value, list) or (not value and not allow_empty_list):
            raise self.error(key, f"expected a non-empty list of strings, not {_kind(value)}")
        return tuple(self.string(item, f"{key}[{i}]") for i, item in enumerate(value))

    def flags(self, value: Any, key: str) -> int:
        if value is None:
            return 0
        result = 0
        for i, name in enumerate(self.strings(value, key)):
            flag = _FLAGS.get(name.upper())
            if flag is None:
                raise self.error(f"{key}[{i}]", f"unknown regexp flag {name!r}; known: {', '.join(_FLAGS)}")
            result |= flag
        return result

    def regexp(self, value: Any, key: str, flags: int) -> str:
        text = self.string(value, key)
        try:
            re.compile(text, flags)
        except re.error as e:
            raise self.error(key, f"invalid regular expression {text!r}: {e}") from None
        return text

    def template(self, value: Any, key: str) -> str:
        text = self.string(value, key)
        try:
            parsed = parse_template(text)
        except TemplateError as e:
            raise self.error(key, f"invalid printf template {text!r}: {e}") from None
        for arg in parsed.args:
            if arg.param not in self.param_names:
                raise self.error(key, f"template argument {arg.raw!r} names no parameter of this plugin "
                                      f"(parameters: {', '.join(sorted(self.param_names)) or 'none'})")
            if arg.fn is not None and DEFAULT_FUNCTOR.type_of(arg.fn) is None:
                raise self.error(key, f"Undefined function: {arg.fn}")
        return text

    def mime_types(self, value: Any, key: str) -> tuple[str, ...]:
        types = self.strings(value, key)
        for i, mime in enumerate(types):
            if not _MIME.fullmatch(mime.lower()):
                raise self.error(f"{key}[{i}]", f"not a MIME type: {mime!r}")
        return tuple(m.lower() for m in types)

    def role(self, value: Any, key: str) -> str:
        role = self.string(value, key)
        if role not in self.roles:
            hint = difflib.get_close_matches(role, sorted(self.roles), n=1)
            suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise self.error(key, f"unknown role {role!r}{suggestion}; declare custom roles under custom_roles")
        return role

    def role_list(self, value: Any, key: str) -> tuple[str, ...]:
        return tuple(self.role(r, f"{key}[{i}]") for i, r in enumerate(self.strings(value, key)))

    # --- sections ---

    def plugin(self, data: Any) -> Plugin:
        if data is None:
            raise self.error("", "the plugin file is empty")
        top = self.mapping(data, "", _TOP_KEYS)
        for required in ("id", "name"):
            if required not in top:
                raise self.error(required, "missing (every plugin needs an id and a name)")
        plugin_id = self.string(top["id"], "id")
        if not _PLUGIN_ID.fullmatch(plugin_id):
            raise self.error("id", f"{plugin_id!r} is not a dotted identifier such as org.example.plugin.MyPlugin")
        params = self.params(top.get("params", []))
        for role in self.strings(top.get("custom_roles", []), "custom_roles", allow_empty_list=True):
            self.roles.add(role)
        given_mime = top.get("default_article_mime_type")
        default_mime = None if given_mime is None else self.mime_types(given_mime, "default_article_mime_type")[0]
        iterator = self.iterator(top["article_iterator"]) if top.get("article_iterator") is not None else None
        metadata = self.mapping(top.get("article_metadata") or {}, "article_metadata", _METADATA_KEYS)
        given_role = metadata.get("role")
        metadata_role = self.role(given_role, "article_metadata.role") if given_role is not None else None
        version = top.get("version", "")
        if not isinstance(version, str | int | float) or isinstance(version, bool):
            raise self.error("version", f"expected a string or number, not {_kind(version)}")
        return Plugin(
            id=plugin_id,
            name=self.string(top["name"], "name"),
            params=params,
            iterator=iterator,
            extractors=self.extractors(top.get("metadata_extractors")),
            metadata_role=metadata_role,
            add_tdb_defaults=self.boolean(metadata.get("add_tdb_defaults", True), "article_metadata.add_tdb_defaults"),
            check_access_url=self.boolean(metadata.get("check_access_url", True), "article_metadata.check_access_url"),
            prefer_tdb_publisher=self.boolean(metadata.get("prefer_tdb_publisher", False),
                                              "article_metadata.prefer_tdb_publisher"),
            default_article_mime_type=default_mime,
            bulk_content=self.boolean(top.get("bulk_content", False), "bulk_content"),
            version=str(version),
            description=self.string(top.get("description", ""), "description", allow_empty=True),
            custom_roles=tuple(sorted(self.roles - set(ALL_ROLES))),
            source=self.source,
        )

    def params(self, value: Any) -> tuple[ParamDescr, ...]:
        if not isinstance(value, list):
            raise self.error("params", f"expected a list of parameters, not {_kind(value)}")
        found: dict[str, ParamDescr] = {}
        for i, item in enumerate(value):
            key = f"params[{i}]"
            descr = self.builtin_param(item, key) if isinstance(item, str) else self.param_descr(item, key)
            if descr.key in found:
                raise self.error(key, f"parameter {descr.key!r} is declared twice")
            if is_reserved_param(descr.key):
                raise self.error(key, f"parameter {descr.key!r} uses the reserved name space 'reserved.'")
            found[descr.key] = descr
        self.param_names = set(found)
        for descr in found.values():
            self.param_names.update(d.key for d in derived_descriptors(descr))
        return tuple(found.values())

    def builtin_param(self, name: str, key: str) -> ParamDescr:
        try:
            return resolve_descriptor(name)
        except UnknownParameter as e:
            raise self.error(key, str(e)) from None

    def param_descr(self, item: Any, key: str) -> ParamDescr:
        """A parameter given as a mapping; the attributes it leaves out come from the built-in of that name."""
        spec = self.mapping(item, key, _PARAM_KEYS)
        if "key" not in spec:
            raise self.error(key, "a parameter descriptor needs a key")
        name = self.string(spec["key"], f"{key}.key")
        base = BUILTIN_DESCRIPTORS.get(name)
        if "type" not in spec and base is None:
            raise self.error(key, f"parameter {name!r} is not built in, so it needs a type")
        param_type = self.param_type(spec["type"], f"{key}.type") if base is None or "type" in spec else base.type
        size = spec.get("size", base.size if base else 0)
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise self.error(f"{key}.size", f"expected a non-negative integer, not {_kind(size)}")
        return ParamDescr(
            name, param_type,
            self.string(spec.get("display_name", base.display_name if base else name), f"{key}.display_name"),
            self.string(spec.get("description", base.description if base else ""), f"{key}.description",
                        allow_empty=True),
            size,
            definitional=self.boolean(spec.get("definitional", base.definitional if base else True),
                                      f"{key}.definitional"),
            default_only=self.boolean(spec.get("default_only", base.default_only if base else False),
                                      f"{key}.default_only"),
        )

    def param_type(self, value: Any, key: str) -> ParamType:
        if isinstance(value, int) and not isinstance(value, bool):
            try:
                return ParamType(value)
            except ValueError:
                raise self.error(key, f"unknown parameter type code {value} (1-12)") from None
        if isinstance(value, str):
            wanted = value.replace("_", "").lower()
            for member in ParamType:
                if wanted in (member.name.replace("_", "").lower(), member.lockss_name.lower()):
                    return member
        names = ", ".join(t.lockss_name for t in ParamType)
        raise self.error(key, f"unknown parameter type {value!r}; use a code 1-12 or one of {names}")

    def iterator(self, value: Any) -> IteratorDef:
        key = "article_iterator"
        spec = self.mapping(value, key, _ITERATOR_KEYS)
        values: dict[str, Any] = {**self.iterator_roots(spec, key), **self.iterator_patterns(spec, key)}
        if "mime_types" in spec:
            values["mime_types"] = self.mime_types(spec["mime_types"], f"{key}.mime_types")
        if "visit_archive_members" in spec:
            values["visit_archive_members"] = self.boolean(spec["visit_archive_members"],
                                                           f"{key}.visit_archive_members")
        aspects = spec.get("aspects", [])
        if not isinstance(aspects, list):
            raise self.error(f"{key}.aspects", f"expected a list of aspects, not {_kind(aspects)}")
        values["aspects"] = tuple(self.aspect(a, f"{key}.aspects[{i}]") for i, a in enumerate(aspects))
        self.check_replacements(values["aspects"], f"{key}.aspects")
        values.update(self.iterator_role_rules(spec, key))
        if (values.get("full_text_from_roles") or values.get("role_from_other_roles")) and not values["aspects"]:
            raise self.error(key, "full_text_from_roles and role_from_other_roles need aspects")
        return IteratorDef(**values)

    def iterator_roots(self, spec: dict[str, Any], key: str) -> dict[str, Any]:
        if "roots" in spec and "root_templates" in spec:
            raise self.error(key, "give roots or root_templates, not both")
        if "roots" in spec:
            return {"roots": self.strings(spec["roots"], f"{key}.roots")}
        if "root_templates" in spec:
            templates = self.strings(spec["root_templates"], f"{key}.root_templates")
            return {"root_templates": tuple(self.template(t, f"{key}.root_templates[{i}]")
                                            for i, t in enumerate(templates))}
        return {}

    def iterator_patterns(self, spec: dict[str, Any], key: str) -> dict[str, Any]:
        """The article pattern and the include/exclude subtree patterns, each given as a regexp or a template."""
        values: dict[str, Any] = {}
        for name in ("pattern", "include_subtree_pattern", "exclude_subtree_pattern"):
            flags_key = "pattern_flags" if name == "pattern" else name.replace("_pattern", "_flags")
            flags = self.flags(spec.get(flags_key), f"{key}.{flags_key}")
            values[flags_key] = flags
            if name in spec and f"{name}_template" in spec:
                raise self.error(key, f"give {name} or {name}_template, not both")
            if name in spec:
                values[name] = self.regexp(spec[name], f"{key}.{name}", flags)
            if f"{name}_template" in spec:
                values[f"{name}_template"] = self.template(spec[f"{name}_template"], f"{key}.{name}_template")
        return values

    def iterator_role_rules(self, spec: dict[str, Any], key: str) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if "full_text_from_roles" in spec:
            values["full_text_from_roles"] = self.role_list(spec["full_text_from_roles"],
                                                            f"{key}.full_text_from_roles")
        if "role_from_other_roles" in spec:
            mapping = spec["role_from_other_roles"]
            if not isinstance(mapping, dict):
                raise self.error(f"{key}.role_from_other_roles", f"expected a mapping role -> roles, not "
                                                                 f"{_kind(mapping)}")
            values["role_from_other_roles"] = tuple(
                (self.role(role, f"{key}.role_from_other_roles"),
                 self.role_list(others, f"{key}.role_from_other_roles.{role}"))
                for role, others in mapping.items())
        return values

    def aspect(self, value: Any, key: str) -> AspectDef:
        spec = self.mapping(value, key, _ASPECT_KEYS)
        if "roles" not in spec:
            raise self.error(key, "an aspect needs roles")
        flags = self.flags(spec.get("flags"), f"{key}.flags")
        patterns = tuple(self.regexp(p, f"{key}.patterns[{i}]", flags)
                         for i, p in enumerate(self.strings(spec.get("patterns", []), f"{key}.patterns",
                                                            allow_empty_list=True)))
        replacements = self.strings(spec.get("replacements", []), f"{key}.replacements", allow_empty_list=True)
        if not patterns and not replacements:
            raise self.error(key, "an aspect needs patterns (a major aspect) or replacements (a minor aspect)")
        for i, replacement in enumerate(replacements):
            try:
                check_replacement(replacement)
            except ValueError as e:
                raise self.error(f"{key}.replacements[{i}]", str(e)) from None
        mime_types = self.mime_types(spec["mime_types"], f"{key}.mime_types") if "mime_types" in spec else ()
        return AspectDef(self.role_list(spec["roles"], f"{key}.roles"), patterns, flags, replacements, mime_types,
                         self.string(spec.get("name", ""), f"{key}.name", allow_empty=True))

    def check_replacements(self, aspects: Sequence[AspectDef], key: str) -> None:
        """Every group a replacement refers to must exist in every major aspect's patterns (a replacement is applied
        to the match of whichever major aspect selected the URL)."""
        compiled = [(i, re.compile(p, a.flags)) for i, a in enumerate(aspects) for p in a.patterns]
        if not compiled:
            if aspects:
                raise self.error(key, "no aspect has patterns: at least one major aspect is needed")
            return
        for i, aspect in enumerate(aspects):
            for j, replacement in enumerate(aspect.replacements):
                for ref in check_replacement(replacement):
                    for owner, pattern in compiled:
                        missing = (ref not in pattern.groupindex) if isinstance(ref, str) else ref > pattern.groups
                        if missing:
                            raise self.error(f"{key}[{i}].replacements[{j}]",
                                             f"refers to group {ref} which pattern {pattern.pattern!r} of aspect "
                                             f"[{owner}] does not have")

    def extractors(self, value: Any) -> tuple[ExtractorDef, ...]:
        if value is None:
            return ()
        key = "metadata_extractors"
        if not isinstance(value, dict) or not value:
            raise self.error(key, f"expected a mapping MIME type -> extractor, not {_kind(value)}")
        found = []
        for mime, spec in value.items():
            where = f"{key}.{mime}"
            mime_type = self.mime_types(mime, key)[0]
            entry = self.mapping(spec, where, _EXTRACTOR_KEYS)
            if "extractor" not in entry:
                raise self.error(where, f"missing extractor (one of {', '.join(extractor_kinds())})")
            kind = self.string(entry["extractor"], f"{where}.extractor")
            if kind not in extractor_kinds():
                raise self.error(f"{where}.extractor", f"unknown extractor {kind!r}; known: "
                                                       f"{', '.join(extractor_kinds())}")
            cook_map = self.cook_map(entry["cook_map"], f"{where}.cook_map") if "cook_map" in entry else None
            options = entry.get("options") or {}
            if not isinstance(options, dict):
                raise self.error(f"{where}.options", f"expected a mapping, not {_kind(options)}")
            try:
                make_extractor(kind, cook_map, **options)
            except ValueError as e:
                raise self.error(f"{where}.options", str(e)) from None
            found.append(ExtractorDef(mime_type, kind, cook_map, dict(options)))
        return tuple(found)

    def cook_map(self, value: Any, key: str) -> CookMap:
        if value is None:
            return CookMap()
        if not isinstance(value, dict):
            raise self.error(key, f"expected a mapping raw key -> field(s), not {_kind(value)}")
        cook_map = CookMap()
        for raw_key, spec in value.items():
            where = f"{key}.{raw_key}"
            if not isinstance(raw_key, str) or not raw_key:
                raise self.error(key, f"raw keys must be non-empty strings, not {raw_key!r}")
            specs = spec if isinstance(spec, list) else [spec]
            if not specs:
                raise self.error(where, "needs at least one field")
            cook_map.put(raw_key, *(self.field_spec(s, f"{where}[{i}]" if isinstance(spec, list) else where)
                                    for i, s in enumerate(specs)))
        return cook_map

    def field_spec(self, value: Any, key: str) -> mf.MetadataField:
        if isinstance(value, str):
            return self.field(value, key)
        spec = self.mapping(value, key, _FIELD_SPEC_KEYS)
        if "field" not in spec:
            raise self.error(key, "a field specification needs 'field'")
        base = self.field(self.string(spec["field"], f"{key}.field"), f"{key}.field")
        variants = [name for name in ("split", "extract", "html_text") if name in spec]
        if len(variants) > 1:
            raise self.error(key, f"give one of split, extract, html_text, not {' and '.join(variants)}")
        try:
            if "split" in spec:
                parts = self.strings(spec["split"], f"{key}.split")
                if len(parts) > 3:
                    raise self.error(f"{key}.split", "expected [separator], [separator, delimiter] or "
                                                     "[separator, open, close]")
                if not base.is_multi:
                    raise self.error(key, f"field {base.key} holds one value; only multi-valued fields can be split")
                return base.with_splitter(mf.split_at(*parts))
            if "extract" in spec:
                extract = self.mapping(spec["extract"], f"{key}.extract", ("pattern", "group"))
                pattern = self.regexp(extract.get("pattern"), f"{key}.extract.pattern", 0)
                group = extract.get("group", 0)
                if not isinstance(group, int) or isinstance(group, bool):
                    raise self.error(f"{key}.extract.group", f"expected a group number, not {_kind(group)}")
                return base.with_extractor(mf.group_extractor(pattern, group))
            if "html_text" in spec and self.boolean(spec["html_text"], f"{key}.html_text"):
                return base.with_extractor(mf.html_text_extractor())
        except PluginError:
            raise
        except ValueError as e:
            raise self.error(key, str(e)) from None
        return base

    def field(self, name: str, key: str) -> mf.MetadataField:
        found = mf.find_field(name)
        if found is None:
            hint = difflib.get_close_matches(name.lower(), list(mf.BUILTIN_FIELDS), n=1)
            suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise self.error(key, f"{name!r} is not a metadata field{suggestion}")
        return found


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"the string {value!r}" if value else "an empty string"
    if isinstance(value, bool):
        return f"the boolean {value}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "an empty list" if not value else "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
