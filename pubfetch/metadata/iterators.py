"""Article iterators: group an archival unit's URLs into one :class:`ArticleFiles` per article.

:class:`SubTreeArticleIterator` walks the AU's URLs, optionally only below some root URLs, and turns each URL that is
an article URL (it has content, matches the pattern, has the MIME type) into an :class:`ArticleFiles`.
:class:`SubTreeArticleIteratorBuilder` builds one from *aspects*, for sites where the URLs of an article's renditions
(HTML, PDF, abstract, ...) can be derived from one another by regular expressions and replacement strings. Both follow
LOCKSS' ``SubTreeArticleIterator`` and ``SubTreeArticleIteratorBuilder`` (spec lockss.md section 6):

* :class:`Spec`: ``target``, ``mime_type``, ``roots`` or ``root_templates`` (printf templates expanded as URL lists;
  not both), ``pattern`` or ``pattern_template`` (a regexp template) with ``pattern_flags``, an include-subtree or
  exclude-subtree pattern (or template; the include pattern wins when both are given), ``visit_archive_members``
  (zip and tar archives are opened and their members, ``<archive URL>!/<member>``, are the candidates instead of
  the archive; see :mod:`pubfetch.metadata.archives`).
* The MIME type articles must have is ``target.format``, else the spec's, else the plugin's default article type.
* No roots (or templates that expand to nothing) means the whole AU. Each root stands for a directory: ``.../vol1``
  covers ``.../vol1`` and ``.../vol1/...`` but not ``.../vol10``. With an include pattern, only URLs it matches at
  their start are visited, plus the ancestors (directory prefixes) of such URLs in the AU; with an exclude pattern,
  URLs it matches at their start are skipped.
* A URL is an article URL when it has content, the pattern is found in it (``re.search``, unanchored) and its media
  type equals the MIME type ignoring case. A CU whose check or visit raises is logged and skipped.
* Order: roots in the given order, URLs sorted within each root.
* :meth:`SubTreeArticleIterator.visit_article_cu` may give 0..n ArticleFiles; by default one with only the full-text
  CU set.

Builder (aspects in declaration order): an aspect with patterns is *major* (its patterns select article URLs), one
with only replacement strings is *minor*. For a URL, the first major aspect whose pattern is found in it is selected;
if an EARLIER aspect's replacement (Java ``Matcher.replaceFirst`` syntax: ``$1``, ``${name}``, ``\\$``) of that match
names a URL with content, the URL is skipped (the article comes from the earlier aspect's URL: an article with HTML and
PDF is emitted once). Otherwise the URL becomes the full text, the aspect's roles are set to it, and unless the target
is ``Article``, later aspects' replacements fill their roles (first URL with content; roles already set are kept).
Then :meth:`~SubTreeArticleIteratorBuilder.set_role_from_other_roles` sets a role from the first present of other
roles (overwriting; skipped for an ``Article`` target), and only after that
:meth:`~SubTreeArticleIteratorBuilder.set_full_text_from_roles` resets the full text to the first present role (None
when none is), so a full-text role list may name a role filled from other roles, as in LOCKSS.

pubfetch additions: ``mime_type`` may list several types (``text/xml`` and ``application/xml``), and an aspect may name
the MIME types its URLs must have (so a PDF served at an extension-less URL is not taken for the HTML rendition).
Deliberate differences from LOCKSS: later aspects also fill roles when no target is given (LOCKSS skipped them unless
a non-Article target was set, which plugins never intended). Include/exclude subtree patterns apply with and without
roots, as in LOCKSS.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Self

from pubfetch.metadata.archival_unit import ArchivalUnit
from pubfetch.metadata.archives import archive_kind
from pubfetch.metadata.article_files import ArticleFiles
from pubfetch.metadata.extractors import MetadataTarget
from pubfetch.metadata.sources import CachedUrl
from pubfetch.metadata.templates import DEFAULT_FUNCTOR, ParamFunctor, match_pattern, url_list

__all__ = [
    "Aspect",
    "BuildableSubTreeArticleIterator",
    "Spec",
    "SubTreeArticleIterator",
    "SubTreeArticleIteratorBuilder",
    "check_replacement",
    "java_replace_first",
]

log = logging.getLogger(__name__)

PatternLike = str | re.Pattern[str]


def _mime_tuple(value: str | Sequence[str] | None, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    values = (value,) if isinstance(value, str) else tuple(value)
    for mime in values:
        if not isinstance(mime, str) or "/" not in mime:
            raise ValueError(f"{what}: not a MIME type: {mime!r}")
    return tuple(m.strip().lower() for m in values)


@dataclass
class Spec:
    """Which URLs an article iterator visits (see the module docstring)."""

    target: MetadataTarget | None = None
    mime_type: str | Sequence[str] | None = None
    roots: Sequence[str] | None = None
    root_templates: Sequence[str] | None = None
    pattern: PatternLike | None = None
    pattern_template: str | None = None
    pattern_flags: int = 0
    include_subtree_pattern: PatternLike | None = None
    include_subtree_pattern_template: str | None = None
    include_subtree_flags: int = 0
    exclude_subtree_pattern: PatternLike | None = None
    exclude_subtree_pattern_template: str | None = None
    exclude_subtree_flags: int = 0
    visit_archive_members: bool = False

    def __post_init__(self) -> None:
        if self.roots is not None and self.root_templates is not None:
            raise ValueError("Can't set both roots and root templates")
        for name in ("pattern", "include_subtree_pattern", "exclude_subtree_pattern"):
            if getattr(self, name) is not None and getattr(self, f"{name}_template") is not None:
                raise ValueError(f"Can't set both {name} and {name}_template")
        if isinstance(self.roots, str) or isinstance(self.root_templates, str):
            raise TypeError("roots and root_templates are lists of strings, not a string")
        _mime_tuple(self.mime_type, "spec mime_type")

    @property
    def mime_types(self) -> tuple[str, ...]:
        return _mime_tuple(self.mime_type, "spec mime_type")


def _under(url: str, root: str) -> bool:
    if root.endswith("/"):
        return url.startswith(root)
    return url == root or url.startswith(root + "/")


def _ancestors(url: str) -> set[str]:
    """Directory prefixes of a URL (with and without their trailing slash), below ``scheme://``."""
    found: set[str] = set()
    start = url.find("://")
    start = start + 3 if start >= 0 else 0
    index = url.find("/", start)
    while index >= 0:
        found.add(url[:index])
        found.add(url[: index + 1])
        index = url.find("/", index + 1)
    found.discard(url)
    return found


class SubTreeArticleIterator(Iterator[ArticleFiles]):
    """Iterates over the article URLs of an AU (see the module docstring); subclasses override
    :meth:`is_article_cu`, :meth:`visit_article_cu` or :meth:`create_article_files`."""

    def __init__(self, au: ArchivalUnit, spec: Spec | None = None, *, functor: ParamFunctor = DEFAULT_FUNCTOR) -> None:
        self.au = au
        self.spec = spec if spec is not None else Spec()
        self.functor = functor
        self.target = self.spec.target
        self.mime_types = self._mime_types()
        self.pattern = self._make_pattern(self.spec.pattern, self.spec.pattern_template, self.spec.pattern_flags)
        self.include_pattern = self._make_pattern(self.spec.include_subtree_pattern,
                                                  self.spec.include_subtree_pattern_template,
                                                  self.spec.include_subtree_flags)
        self.exclude_pattern = None if self.include_pattern is not None else self._make_pattern(
            self.spec.exclude_subtree_pattern, self.spec.exclude_subtree_pattern_template,
            self.spec.exclude_subtree_flags)
        self.roots = self._make_roots()
        self._items = self._generate()

    # --- set-up ---

    def _mime_types(self) -> tuple[str, ...]:
        if self.target is not None and self.target.format:
            return _mime_tuple(self.target.format, "target format")
        if self.spec.mime_type is not None:
            return self.spec.mime_types
        return _mime_tuple(self.au.default_mime_type, "default article MIME type")

    def _make_pattern(self, pattern: PatternLike | None, template: str | None, flags: int) -> re.Pattern[str] | None:
        if isinstance(pattern, re.Pattern):
            return pattern
        if pattern is not None:
            return re.compile(pattern, flags)
        if template is not None:
            converted = match_pattern(template, self.au.config, url_context=True, functor=self.functor)
            if converted is None:
                log.warning("pattern template %s has a missing parameter value: no URL can match", template)
                return re.compile(r"(?!)")
            return converted.compile(flags)
        return None

    def _make_roots(self) -> list[str]:
        if self.spec.roots is not None:
            return list(self.spec.roots)
        roots: list[str] = []
        for template in self.spec.root_templates or ():
            expanded = url_list(template, self.au.config, functor=self.functor)
            if not expanded:
                log.warning("root template %s expanded to no URL", template)
            roots.extend(expanded)
        return roots

    # --- candidates ---

    def _subtree_filter(self, urls: list[str]) -> list[str]:
        if self.include_pattern is not None:
            matching = [u for u in urls if self.include_pattern.match(u)]
            ancestors: set[str] = set()
            for url in matching:
                ancestors |= _ancestors(url)
            keep = set(matching) | ancestors
            return [u for u in urls if u in keep]
        if self.exclude_pattern is not None:
            return [u for u in urls if not self.exclude_pattern.match(u)]
        return urls

    def candidate_urls(self) -> Iterator[str]:
        """The URLs visited, in order: roots in the given order, sorted within each."""
        all_urls = sorted(self.au.urls())
        if not self.roots:
            yield from self._subtree_filter(all_urls)
            return
        for root in self.roots:
            yield from self._subtree_filter([u for u in all_urls if _under(u, root)])

    def _changed_in_time(self, cu: CachedUrl) -> bool:
        after = self.target.include_files_changed_after if self.target is not None else 0
        return not after or cu.fetch_time is None or cu.fetch_time > after

    # --- per CU ---

    def is_article_cu(self, cu: CachedUrl) -> bool:
        """Has content, the pattern is found in the URL, the media type is one of the MIME types."""
        if not cu.has_content():
            return False
        if self.pattern is not None and not self.pattern.search(cu.url):
            return False
        return not self.mime_types or cu.mime_type in self.mime_types

    def visit_article_cu(self, cu: CachedUrl) -> Iterable[ArticleFiles]:
        """The ArticleFiles an article URL gives; by default the one :meth:`create_article_files` makes, if any."""
        af = self.create_article_files(cu)
        return [af] if af is not None else []

    def create_article_files(self, cu: CachedUrl) -> ArticleFiles | None:
        """An ArticleFiles with only its full-text CU set."""
        return ArticleFiles(cu)

    def _candidate_cus(self, url: str) -> list[CachedUrl]:
        """The CU of a candidate URL, or with ``visit_archive_members`` the members of a zip or tar archive instead
        of the archive itself."""
        cu = self.au.make_cached_url(url)
        if cu is None or not self._changed_in_time(cu):
            return []
        if self.spec.visit_archive_members and cu.has_content() and archive_kind(cu) is not None:
            return self.au.open_archive(cu).members()
        return [cu]

    def _visit(self, cu: CachedUrl) -> list[ArticleFiles]:
        if not self.is_article_cu(cu):
            return []
        return list(self.visit_article_cu(cu))

    def _generate(self) -> Iterator[ArticleFiles]:
        for url in self.candidate_urls():
            try:
                cus = self._candidate_cus(url)
            except Exception as e:  # one bad CU must not end the iteration (as in LOCKSS)
                log.warning("error processing %s: %s: %s; skipped", url, type(e).__name__, e)
                continue
            for cu in cus:
                try:
                    found = self._visit(cu)
                except Exception as e:
                    log.warning("error processing %s: %s: %s; skipped", cu.url, type(e).__name__, e)
                    log.debug("traceback of the error processing %s", cu.url, exc_info=True)
                    continue
                yield from found

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> ArticleFiles:
        return next(self._items)


# --- Java replacement strings --------------------------------------------------------------------------------------


def _named_group(match: re.Match[str], replacement: str, i: int) -> tuple[str, int]:
    """``${name}`` starting at ``replacement[i]`` (the ``$``): the group's text and the index after ``}``."""
    end = replacement.find("}", i + 2)
    if end < 0:
        raise ValueError(f"named capturing group is missing trailing '}}' in {replacement!r}")
    name = replacement[i + 2:end]
    if name not in match.re.groupindex:
        raise ValueError(f"No group with name {{{name}}} in pattern {match.re.pattern!r}")
    return match.group(name) or "", end + 1


def _numbered_group(match: re.Match[str], replacement: str, i: int) -> tuple[str, int]:
    """``$n`` starting at ``replacement[i]``: Java takes further digits only while the group number stays valid."""
    n, groups = len(replacement), match.re.groups
    number = int(replacement[i + 1])
    i += 2
    while i < n and replacement[i].isdigit() and number * 10 + int(replacement[i]) <= groups:
        number = number * 10 + int(replacement[i])
        i += 1
    if number > groups:
        raise ValueError(f"No group {number} in pattern {match.re.pattern!r}")
    return match.group(number) or "", i


def _group_reference(match: re.Match[str], replacement: str, i: int) -> tuple[str, int]:
    if i + 1 >= len(replacement):
        raise ValueError(f"Illegal group reference: group index is missing in {replacement!r}")
    if replacement[i + 1] == "{":
        return _named_group(match, replacement, i)
    if replacement[i + 1].isdigit():
        return _numbered_group(match, replacement, i)
    raise ValueError(f"Illegal group reference in replacement {replacement!r}")


def _expand(match: re.Match[str], replacement: str) -> str:
    out: list[str] = []
    i, n = 0, len(replacement)
    while i < n:
        char = replacement[i]
        if char == "\\":
            if i + 1 >= n:
                raise ValueError(f"character to be escaped is missing at the end of replacement {replacement!r}")
            out.append(replacement[i + 1])
            i += 2
        elif char == "$":
            text, i = _group_reference(match, replacement, i)
            out.append(text)
        else:
            out.append(char)
            i += 1
    return "".join(out)


def java_replace_first(match: re.Match[str], replacement: str) -> str:
    """``Matcher.replaceFirst``: the matched string with its (first) match replaced by the expanded replacement."""
    text = match.string
    return text[: match.start()] + _expand(match, replacement) + text[match.end():]


def check_replacement(replacement: str) -> list[int | str]:
    """The group references of a Java replacement string (numbers as their longest digit run, names); ValueError
    for malformed ones (a ``$`` without a group, a trailing backslash, an unterminated ``${``)."""
    refs: list[int | str] = []
    i, n = 0, len(replacement)
    while i < n:
        char = replacement[i]
        if char == "\\":
            if i + 1 >= n:
                raise ValueError(f"replacement {replacement!r} ends with a lone backslash")
            i += 2
        elif char == "$":
            rest = replacement[i + 1:]
            named = re.match(r"\{([A-Za-z][A-Za-z0-9]*)\}", rest)
            digits = re.match(r"\d+", rest)
            if named:
                refs.append(named.group(1))
                i += 1 + named.end()
            elif digits:
                refs.append(int(digits.group(0)))
                i += 1 + digits.end()
            else:
                raise ValueError(f"Illegal group reference ('$' without a group) in replacement {replacement!r}")
        else:
            i += 1
    return refs


# --- builder -------------------------------------------------------------------------------------------------------


@dataclass
class Aspect:
    """One rendition or component of an article: patterns recognising its URLs (major aspects only), replacement
    strings deriving its URL from another aspect's match, the roles its URL plays, optionally its MIME types."""

    patterns: list[re.Pattern[str]] = field(default_factory=list)
    replacements: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    mime_types: tuple[str, ...] = ()
    name: str = ""

    @property
    def is_major(self) -> bool:
        return bool(self.patterns)

    def _type_ok(self, cu: CachedUrl) -> bool:
        return not self.mime_types or cu.mime_type in self.mime_types

    def find_cu_among_patterns(self, cu: CachedUrl) -> re.Match[str] | None:
        """The match of the first pattern found in the CU's URL (when the CU has one of the aspect's types)."""
        if not self._type_ok(cu):
            return None
        for pattern in self.patterns:
            match = pattern.search(cu.url)
            if match is not None:
                return match
        return None

    def find_cu_by_replacement(self, match: re.Match[str], au: ArchivalUnit) -> CachedUrl | None:
        """The first URL made by a replacement that has content in the AU (and one of the aspect's types)."""
        for replacement in self.replacements:
            cu = au.make_cached_url(java_replace_first(match, replacement))
            if cu is not None and cu.has_content() and self._type_ok(cu):
                return cu
        return None

    def process_roles(self, af: ArticleFiles, cu: CachedUrl) -> None:
        """Set the aspect's roles to ``cu`` where they are not set yet."""
        for role in self.roles:
            if af.get_role(role) is None:
                af.set_role_cu(role, cu)


class BuildableSubTreeArticleIterator(SubTreeArticleIterator):
    """The iterator a :class:`SubTreeArticleIteratorBuilder` makes (aspect logic in :meth:`create_article_files`)."""

    def __init__(self, au: ArchivalUnit, spec: Spec | None, aspects: Sequence[Aspect],
                 roles_for_full_text: Sequence[str],
                 roles_from_other_roles: dict[str, list[str]], *, functor: ParamFunctor = DEFAULT_FUNCTOR) -> None:
        self.aspects = list(aspects)
        self.roles_for_full_text = list(roles_for_full_text)
        self.roles_from_other_roles = {role: list(others) for role, others in roles_from_other_roles.items()}
        super().__init__(au, spec, functor=functor)

    def _fill_secondary(self) -> bool:
        return self.target is None or not self.target.is_article()

    def create_article_files(self, cu: CachedUrl) -> ArticleFiles | None:
        for index, aspect in enumerate(self.aspects):
            match = aspect.find_cu_among_patterns(cu)
            if match is None:
                continue
            if self._defers_to_higher_aspect(cu, match, index):
                return None
            af = ArticleFiles(cu)
            aspect.process_roles(af, cu)
            if self._fill_secondary():
                self._fill_lower_aspects(af, match, index)
                self._fill_roles_from_other_roles(af)
            self._choose_full_text(af)
            return af
        log.warning("%s in %s did not match any expected pattern", cu.url, self.au)
        return None

    def _defers_to_higher_aspect(self, cu: CachedUrl, match: re.Match[str], index: int) -> bool:
        """Whether an earlier aspect's rendition of the same article exists (the article is emitted from there)."""
        for higher in self.aspects[:index]:
            higher_cu = higher.find_cu_by_replacement(match, self.au)
            if higher_cu is not None:
                log.debug("%s defers to %s", cu.url, higher_cu.url)
                return True
        return False

    def _fill_lower_aspects(self, af: ArticleFiles, match: re.Match[str], index: int) -> None:
        for lower in self.aspects[index + 1:]:
            lower_cu = lower.find_cu_by_replacement(match, self.au)
            if lower_cu is not None:
                lower.process_roles(af, lower_cu)

    def _fill_roles_from_other_roles(self, af: ArticleFiles) -> None:
        for role, others in self.roles_from_other_roles.items():
            for other in others:
                found = af.get_role_cu(other)
                if found is not None:
                    af.set_role_cu(role, found)
                    break

    def _choose_full_text(self, af: ArticleFiles) -> None:
        """Runs after the roles from other roles are filled (LOCKSS' order), so a full-text role list may name a role
        that only another role supplied (an abstracts-only article's landing page)."""
        if not self.roles_for_full_text:
            return
        af.set_full_text_cu(None)
        for role in self.roles_for_full_text:
            found = af.get_role_cu(role)
            if found is not None:
                af.set_full_text_cu(found)
                return


class SubTreeArticleIteratorBuilder:
    """Assembles a :class:`BuildableSubTreeArticleIterator` from a spec and aspects (see the module docstring)."""

    def __init__(self, au: ArchivalUnit | None = None, spec: Spec | None = None, *,
                 functor: ParamFunctor = DEFAULT_FUNCTOR) -> None:
        self.au = au
        self.spec = spec
        self.functor = functor
        self.aspects: list[Aspect] = []
        self.roles_for_full_text: list[str] = []
        self.roles_from_other_roles: dict[str, list[str]] = {}

    def set_archival_unit(self, au: ArchivalUnit) -> SubTreeArticleIteratorBuilder:
        self.au = au
        return self

    def set_spec(self, spec: Spec) -> SubTreeArticleIteratorBuilder:
        self.spec = spec
        return self

    def add_aspect(self, patterns: PatternLike | Sequence[PatternLike] = (), replacements: str | Sequence[str] = (),
                   roles: str | Sequence[str] = (), *, flags: int = 0, mime_types: str | Sequence[str] | None = None,
                   name: str = "") -> Aspect:
        """Add an aspect: patterns (strings are compiled with ``flags``), replacement strings and roles (a single
        string stands for a one-element list). A major aspect needs patterns, a minor one replacements; every aspect
        needs at least one role."""
        pattern_list = [patterns] if isinstance(patterns, str | re.Pattern) else list(patterns)
        replacement_list = [replacements] if isinstance(replacements, str) else list(replacements)
        role_list = [roles] if isinstance(roles, str) else list(roles)
        if not pattern_list and not replacement_list:
            raise ValueError("an aspect needs patterns (major) or replacement strings (minor)")
        if not role_list:
            raise ValueError("Must define at least one role")
        for role in role_list:
            if not isinstance(role, str) or not role:
                raise ValueError(f"a role must be a non-empty string, not {role!r}")
        for replacement in replacement_list:
            check_replacement(replacement)
        compiled = [p if isinstance(p, re.Pattern) else re.compile(p, flags) for p in pattern_list]
        aspect = Aspect(compiled, replacement_list, role_list, _mime_tuple(mime_types, "aspect mime_types"), name)
        self.aspects.append(aspect)
        return aspect

    def set_full_text_from_roles(self, *roles: str) -> SubTreeArticleIteratorBuilder:
        """After the aspects, the full text becomes the CU of the first of ``roles`` present (None if none is)."""
        if not roles:
            raise ValueError("Must define at least one role")
        self.roles_for_full_text = list(roles)
        return self

    def set_role_from_other_roles(self, role: str, *others: str) -> SubTreeArticleIteratorBuilder:
        """After the aspects, ``role`` is set to the CU of the first of ``others`` present (overwriting it)."""
        if not others:
            raise ValueError("Must define at least one other role")
        self.roles_from_other_roles[role] = list(others)
        return self

    def get_sub_tree_article_iterator(self) -> BuildableSubTreeArticleIterator:
        if self.au is None:
            raise RuntimeError("Cannot create a subtree article iterator until the AU is set")
        return BuildableSubTreeArticleIterator(self.au, self.spec, self.aspects, self.roles_for_full_text,
                                               self.roles_from_other_roles, functor=self.functor)

    iterator = get_sub_tree_article_iterator
