"""Metadata fields: the keys of cooked article metadata, with their cardinality, validators, splitters and extractors.

A :class:`MetadataField` says how a value is stored in an :class:`~pubfetch.metadata.article_metadata.ArticleMetadata`:
under which key, whether the key holds one value (:attr:`Cardinality.SINGLE`) or many (:attr:`Cardinality.MULTI`), how a
value is checked and normalised (the validator), and optionally how a raw value is first cut into several values (a
splitter, Multi fields only) or how the interesting part is pulled out of it (an extractor). The keys and semantics are
those of LOCKSS' ``org.lockss.extractor.MetadataField`` (spec lockss.md section 1), so records stay interchangeable.

Public API (everything here is immutable and safe to share between threads):

* ``Cardinality`` (``SINGLE``, ``MULTI``) and ``MetadataField(key, cardinality=SINGLE, validator=None, splitter=None,
  extractor=None)`` with ``validate(value) -> str`` (raises :class:`ValidationError`), ``split(value) -> list[str]``,
  ``extract(value) -> str | None``, ``is_multi``, ``has_splitter``, ``has_extractor``, and the variant builders
  ``with_splitter(splitter)`` / ``with_extractor(extractor)`` (same key, so variants fill the same cooked slot).
* Exceptions: ``MetadataError`` (``field``, ``raw_value``, ``normalized_value``, ``raw_key``), its subclasses
  ``ValidationError`` (a value the validator refused) and ``CardinalityError`` (a second, different value for a Single
  field).
* Validator, splitter and extractor types: a validator is ``Callable[[str], str]``, a splitter ``Callable[[str],
  list[str]]``, an extractor ``Callable[[str], str | None]``. Factories: ``split_at(separator, delimiter1=None,
  delimiter2=None)``, ``group_extractor(pattern, group)``, ``html_text_extractor()``; ready-made validators:
  ``validate_doi``, ``validate_issn``, ``validate_eissn``, ``validate_isbn``, ``validate_eisbn``, ``validate_author``,
  ``non_empty(what)`` (the classes ``NonEmpty`` and ``PrefixedIdValidator`` behind them are picklable, so records
  holding fields can cross process boundaries); predicates ``sanitize_doi``, ``is_issn``, ``is_isbn``, ``is_author``.
* Built-in fields ``FIELD_*`` (``FIELD_DOI``, ``FIELD_ISSN``, ``FIELD_AUTHOR``, ...) with their ``KEY_*`` strings,
Dublin
  Core fields ``DC_FIELD_*`` / ``DC_KEY_*``, the registry ``BUILTIN_FIELDS`` (key -> field) and ``find_field(key)``;
  value constants ``PUBLICATION_TYPE_*`` and ``ARTICLE_TYPE_*``.

Deliberate differences from LOCKSS (its behaviour there is accidental):

* ``find_field`` knows every built-in field; LOCKSS' lookup table forgot language, format, DOI, ISSN, ISBN, provider,
  publication and article type, issue and series title.
* A group extractor whose group number does not exist in its pattern is refused when it is made, instead of failing
  (as a cardinality error) on the first value.
"""

from __future__ import annotations

import enum
import html
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

# Java's String.trim() removes every char <= U+0020; str.strip() would also remove Unicode spaces.
_JAVA_TRIM = "".join(chr(c) for c in range(0x21))


# --- errors --------------------------------------------------------------------------------------------------------


class MetadataError(Exception):
    """A value that could not be stored in a cooked slot.

    Carries what a caller needs to report or repair it: the ``field`` being stored, the ``raw_value`` as given, the
    ``normalized_value`` when validation got that far, and the ``raw_key`` when the value came from cooking a raw key.
    """

    def __init__(self, message: str, *, field: MetadataField | None = None, raw_value: str | None = None,
                 normalized_value: str | None = None, raw_key: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.raw_value = raw_value
        self.normalized_value = normalized_value
        self.raw_key = raw_key

    def __str__(self) -> str:
        return self.message


class ValidationError(MetadataError):
    """A value the field's validator refused (or an extractor found nothing in)."""


class CardinalityError(MetadataError):
    """A second, different value for a Single field: the first valid value wins and the new one is refused."""


# --- types of the pluggable parts ----------------------------------------------------------------------------------

Validator = Callable[[str], str]
"""Checks a value and returns it (possibly normalised), or raises :class:`ValidationError`."""

Splitter = Callable[[str], list[str]]
"""Cuts one raw value into several values for a Multi field."""

Extractor = Callable[[str], "str | None"]
"""Pulls the interesting part out of a raw value; None when there is none."""


class Cardinality(enum.Enum):
    """Whether a cooked key holds one value or a list; the values are LOCKSS' enum names."""

    SINGLE = "Single"
    MULTI = "Multi"


@dataclass(frozen=True)
class MetadataField:
    """The description of one cooked metadata key (see the module docstring).

    A Single field with a splitter, or a field with both a splitter and an extractor, is a programming error and raises
    ``ValueError`` at construction, as it would otherwise silently lose values.
    """

    key: str
    cardinality: Cardinality = Cardinality.SINGLE
    validator: Validator | None = None
    splitter: Splitter | None = None
    extractor: Extractor | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise ValueError(f"a metadata field needs a non-empty key, not {self.key!r}")
        if not isinstance(self.cardinality, Cardinality):
            raise TypeError(f"field {self.key}: cardinality must be a Cardinality, not {self.cardinality!r}")
        if self.splitter is not None and self.cardinality is not Cardinality.MULTI:
            raise ValueError(f"field {self.key}: a splitter is legal only with Cardinality.MULTI")
        if self.splitter is not None and self.extractor is not None:
            raise ValueError(f"field {self.key}: a field may have a splitter or an extractor, not both")

    @property
    def is_multi(self) -> bool:
        return self.cardinality is Cardinality.MULTI

    @property
    def has_splitter(self) -> bool:
        return self.splitter is not None

    @property
    def has_extractor(self) -> bool:
        return self.extractor is not None

    def validate(self, value: str) -> str:
        """The value, checked and possibly normalised by the validator (unchanged without one)."""
        if self.validator is None:
            return value
        return self.validator(value)

    def split(self, value: str) -> list[str]:
        """The values the splitter cuts ``value`` into; ``[value]`` without a splitter."""
        if self.splitter is None:
            return [value]
        return list(self.splitter(value))

    def extract(self, value: str) -> str | None:
        """What the extractor pulls out of ``value`` (None when nothing); ``value`` itself without an extractor."""
        if self.extractor is None:
            return value
        return self.extractor(value)

    def with_splitter(self, splitter: Splitter) -> MetadataField:
        """A variant of this field that splits values first; it writes into the same cooked slot."""
        return replace(self, splitter=splitter, extractor=None)

    def with_extractor(self, extractor: Extractor) -> MetadataField:
        """A variant of this field that extracts from values first; it writes into the same cooked slot."""
        return replace(self, extractor=extractor, splitter=None)

    def __repr__(self) -> str:
        parts = [repr(self.key), self.cardinality.value]
        for name in ("validator", "splitter", "extractor"):
            part = getattr(self, name)
            if part is not None:
                parts.append(f"{name}={getattr(part, '__name__', None) or part!r}")
        return f"MetadataField({', '.join(parts)})"


# --- splitters and extractors --------------------------------------------------------------------------------------


def _remove_start_ignore_case(text: str, prefix: str) -> str:
    return text[len(prefix):] if prefix and text[: len(prefix)].lower() == prefix.lower() else text


def _remove_end_ignore_case(text: str, suffix: str) -> str:
    if suffix and len(text) >= len(suffix) and text[len(text) - len(suffix):].lower() == suffix.lower():
        return text[: len(text) - len(suffix)]
    return text


@dataclass(frozen=True)
class SplitAt:
    """Splits at ``separator`` after trimming and removing ``delimiter1`` in front and ``delimiter2`` at the end
    (ignoring case; ``delimiter2`` defaults to ``delimiter1``); parts are trimmed and empty parts dropped."""

    separator: str
    delimiter1: str | None = None
    delimiter2: str | None = None

    def __post_init__(self) -> None:
        if not self.separator:
            raise ValueError("split_at needs a non-empty separator")
        if self.delimiter2 is not None and self.delimiter1 is None:
            raise ValueError("split_at: an end delimiter needs a start delimiter")

    def __call__(self, value: str) -> list[str]:
        text = value.strip(_JAVA_TRIM)
        if self.delimiter1 is not None:
            end = self.delimiter2 if self.delimiter2 is not None else self.delimiter1
            text = _remove_end_ignore_case(_remove_start_ignore_case(text, self.delimiter1), end)
        parts = (part.strip(_JAVA_TRIM) for part in text.split(self.separator))
        return [part for part in parts if part]


def split_at(separator: str, delimiter1: str | None = None, delimiter2: str | None = None) -> SplitAt:
    """LOCKSS' ``splitAt``: ``split_at(";")("  one;two  ;  four  ") == ["one", "two", "four"]``."""
    return SplitAt(separator, delimiter1, delimiter2)


@dataclass(frozen=True)
class GroupExtractor:
    """Finds ``pattern`` anywhere in the value (``re.search``) and returns group ``group``, or None when the pattern
    does not occur or the group did not take part in the match."""

    pattern: re.Pattern[str]
    group: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.group <= self.pattern.groups:
            raise ValueError(f"group_extractor: pattern {self.pattern.pattern!r} has no group {self.group}")

    def __call__(self, value: str) -> str | None:
        match = self.pattern.search(value)
        return match.group(self.group) if match else None


def group_extractor(pattern: str | re.Pattern[str], group: int = 0) -> GroupExtractor:
    """LOCKSS' ``groupExtractor``: ``group_extractor("([^-]+)(-(.+))?", 3)("23-45") == "45"``."""
    return GroupExtractor(re.compile(pattern) if isinstance(pattern, str) else pattern, group)


_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class HtmlTextExtractor:
    """Strips tags (``<[^>]*>``) and unescapes HTML entities: ``"Ag<sup>&reg;</sup>)"`` -> ``"Ag®)"``."""

    def __call__(self, value: str) -> str | None:
        if not value:
            return value
        return html.unescape(_TAG.sub("", value))


def html_text_extractor() -> HtmlTextExtractor:
    """LOCKSS' ``htmlTextExtractor``."""
    return HtmlTextExtractor()


# --- validators ----------------------------------------------------------------------------------------------------

_DECORATED_DOI = re.compile(
    r"(doi:|doi/|doi\.org:|doi\.org/|https?://dx\.doi\.org/|https?://doi\.org/)?(10[.][0-9a-z]{4,6}/.*)",
    re.IGNORECASE,
)


def sanitize_doi(value: str) -> str | None:
    """The bare DOI in a possibly decorated one (``doi:``, ``doi/``, ``doi.org:``, ``doi.org/``, ``http(s)://dx.doi.org/``,
    ``http(s)://doi.org/``, any case, anchored at the start), or None. The DOI is not trimmed."""
    match = _DECORATED_DOI.match(value)
    return match.group(2) if match else None


def validate_doi(value: str) -> str:
    doi = sanitize_doi(value) if isinstance(value, str) else None
    if doi is None:
        raise ValidationError(f"Not recognized as a (possibly-decorated) DOI: {value}")
    return doi


_DIGITS = frozenset("0123456789")


def is_issn(value: str | None) -> bool:
    """Form check only (the check digit is not verified, since real journals carry wrong ones): after trimming, 8
    characters, or 9 with ``-`` at index 4; seven digits then a digit or X (either case)."""
    if value is None:
        return False
    text = value.strip(_JAVA_TRIM)
    if len(text) == 9 and text[4] == "-":
        text = text[:4] + text[5:]
    elif len(text) != 8:
        return False
    return all(c in _DIGITS for c in text[:7]) and (text[7] in _DIGITS or text[7] in "Xx")


def is_isbn(value: str | None) -> bool:
    """Form check only (no checksum): after trimming and removing hyphens, 9 digits and a digit or X, or 13 digits."""
    if value is None:
        return False
    text = value.strip(_JAVA_TRIM).replace("-", "")
    if len(text) == 10:
        return all(c in _DIGITS for c in text[:9]) and (text[9] in _DIGITS or text[9] == "X")
    return len(text) == 13 and all(c in _DIGITS for c in text)


# Java's '.' (no DOTALL) does not match these line terminators, so LOCKSS' ".*\p{L}.*" refuses values containing them.
_LINE_TERMINATORS = frozenset("\n\r\u0085\u2028\u2029")


def is_author(value: str | None) -> bool:
    """LOCKSS' ``.*\\p{L}.*`` (whole value, no DOTALL): at least one letter and no line terminator."""
    if value is None:
        return False
    return any(c.isalpha() for c in value) and not any(c in _LINE_TERMINATORS for c in value)


@dataclass(frozen=True)
class PrefixedIdValidator:
    """Strips a leading ``prefix`` (any case) and checks the form of the identifier; the stripped value is returned
    unchanged (no reformatting). A class rather than a closure so that fields (and records) can be pickled."""

    prefix: str
    label: str
    check: Callable[[str | None], bool]

    def __call__(self, value: str) -> str:
        if not isinstance(value, str):
            raise ValidationError(f"Illegal {self.label}: {value}")
        stripped = _remove_start_ignore_case(value, self.prefix)
        if not self.check(stripped):
            raise ValidationError(f"Illegal {self.label}: {value}")
        return stripped


validate_issn = PrefixedIdValidator("issn:", "ISSN", is_issn)
validate_eissn = PrefixedIdValidator("eissn:", "EISSN", is_issn)
validate_isbn = PrefixedIdValidator("isbn:", "ISBN", is_isbn)
validate_eisbn = PrefixedIdValidator("eisbn:", "EISBN", is_isbn)


def validate_author(value: str) -> str:
    """Refuse author values without any letter (``", "``, ``", , : /"``); authors are not split here."""
    if not is_author(value):
        raise ValidationError(f"Illegal Author: {value}")
    return value


@dataclass(frozen=True)
class NonEmpty:
    """Refuses None and "" with LOCKSS' message ``Illegal <what>: empty string``."""

    what: str

    def __call__(self, value: str) -> str:
        if value is None or value == "":
            raise ValidationError(f"Illegal {self.what}: empty string")
        return value


def non_empty(what: str) -> NonEmpty:
    """A validator refusing None and "" (see :class:`NonEmpty`)."""
    return NonEmpty(what)


# --- built-in fields -----------------------------------------------------------------------------------------------

_S, _M = Cardinality.SINGLE, Cardinality.MULTI

PUBLICATION_TYPE_BOOK = "book"
PUBLICATION_TYPE_BOOKSERIES = "bookSeries"
PUBLICATION_TYPE_JOURNAL = "journal"
PUBLICATION_TYPE_PROCEEDINGS = "proceedings"
PUBLICATION_TYPE_FILE = "file"
PUBLICATION_TYPE_UNKNOWN_PUBLICATION = "unknown_publication"

ARTICLE_TYPE_JOURNALARTICLE = "journal_article"
ARTICLE_TYPE_BOOKCHAPTER = "book_chapter"
ARTICLE_TYPE_BOOKVOLUME = "book_volume"
ARTICLE_TYPE_PROCEEDINGSARTICLE = "proceedings_article"
ARTICLE_TYPE_FILE = "file"
ARTICLE_TYPE_UNKNOWNARTICLE = "unknown_article"

PROTOCOL_DOI = "doi:"
PROTOCOL_ISSN = "issn:"
PROTOCOL_EISSN = "eissn:"
PROTOCOL_ISBN = "isbn:"
PROTOCOL_EISBN = "eisbn:"

KEY_LANGUAGE = "language"
KEY_FORMAT = "format"
KEY_DOI = "doi"
KEY_ISSN = "issn"
KEY_EISSN = "eissn"
KEY_ISBN = "isbn"
KEY_EISBN = "eisbn"
KEY_PROVIDER = "provider"
KEY_PUBLISHER = "publisher"
KEY_PUBLICATION_TYPE = "pubtype"
KEY_ARTICLE_TYPE = "articletype"
KEY_VOLUME = "volume"
KEY_ISSUE = "issue"
KEY_START_PAGE = "startpage"
KEY_END_PAGE = "endpage"
KEY_DATE = "date"
KEY_ARTICLE_TITLE = "article.title"
KEY_PUBLICATION_TITLE = "publication.title"
KEY_JOURNAL_TITLE = KEY_PUBLICATION_TITLE
KEY_SERIES_TITLE = "series.title"
KEY_PROPRIETARY_SERIES_IDENTIFIER = "proprietary_series_identifier"
KEY_AUTHOR = "author"
KEY_ACCESS_URL = "access.url"
KEY_FEATURED_URL_MAP = "featured.url.map"
KEY_KEYWORDS = "keywords"
KEY_COVERAGE = "coverage"
KEY_ITEM_NUMBER = "item_number"
KEY_PROPRIETARY_IDENTIFIER = "proprietary_identifier"
KEY_FETCH_TIME = "fetch.time"
KEY_ABSTRACT = "abstract"
KEY_MD_MAP = "md.map"

FIELD_LANGUAGE = MetadataField(KEY_LANGUAGE, _S)
FIELD_FORMAT = MetadataField(KEY_FORMAT, _S)
FIELD_DOI = MetadataField(KEY_DOI, _S, validate_doi)
FIELD_ISSN = MetadataField(KEY_ISSN, _S, validate_issn)
FIELD_EISSN = MetadataField(KEY_EISSN, _S, validate_eissn)
FIELD_ISBN = MetadataField(KEY_ISBN, _S, validate_isbn)
FIELD_EISBN = MetadataField(KEY_EISBN, _S, validate_eisbn)
FIELD_PROVIDER = MetadataField(KEY_PROVIDER, _S, non_empty("provider"))
FIELD_PUBLISHER = MetadataField(KEY_PUBLISHER, _S, non_empty("publisher"))
_non_empty_pubtype = non_empty("publication type")
FIELD_PUBLICATION_TYPE = MetadataField(KEY_PUBLICATION_TYPE, _S, _non_empty_pubtype)
FIELD_ARTICLE_TYPE = MetadataField(KEY_ARTICLE_TYPE, _S, _non_empty_pubtype)
FIELD_VOLUME = MetadataField(KEY_VOLUME, _S)
FIELD_ISSUE = MetadataField(KEY_ISSUE, _S)
FIELD_START_PAGE = MetadataField(KEY_START_PAGE, _S)
FIELD_END_PAGE = MetadataField(KEY_END_PAGE, _S)
FIELD_DATE = MetadataField(KEY_DATE, _S)
FIELD_ARTICLE_TITLE = MetadataField(KEY_ARTICLE_TITLE, _S)
FIELD_PUBLICATION_TITLE = MetadataField(KEY_PUBLICATION_TITLE, _S, non_empty("publication title"))
FIELD_JOURNAL_TITLE = FIELD_PUBLICATION_TITLE
FIELD_SERIES_TITLE = MetadataField(KEY_SERIES_TITLE, _S, non_empty("series title"))
FIELD_PROPRIETARY_SERIES_IDENTIFIER = MetadataField(KEY_PROPRIETARY_SERIES_IDENTIFIER, _S)
FIELD_AUTHOR = MetadataField(KEY_AUTHOR, _M, validate_author)
FIELD_ACCESS_URL = MetadataField(KEY_ACCESS_URL, _S)
FIELD_FEATURED_URL_MAP = MetadataField(KEY_FEATURED_URL_MAP, _S)
FIELD_KEYWORDS = MetadataField(KEY_KEYWORDS, _M)
FIELD_COVERAGE = MetadataField(KEY_COVERAGE, _S)
FIELD_ITEM_NUMBER = MetadataField(KEY_ITEM_NUMBER, _S)
FIELD_PROPRIETARY_IDENTIFIER = MetadataField(KEY_PROPRIETARY_IDENTIFIER, _S)
FIELD_FETCH_TIME = MetadataField(KEY_FETCH_TIME, _S)
FIELD_ABSTRACT = MetadataField(KEY_ABSTRACT, _S)
FIELD_MD_MAP = MetadataField(KEY_MD_MAP, _S)

# Dublin Core (spelling as in LOCKSS: some keys use '_', some '.').
DC_KEY_CITATION_CHAPTER = "dc.citation.chapter"
DC_KEY_CITATION_EPAGE = "dc.citation_epage"
DC_KEY_CITATION_ISSUE = "dc.citation.issue"
DC_KEY_CITATION_SPAGE = "dc.citation_spage"
DC_KEY_CITATION_VOLUME = "dc.citation_volume"
DC_KEY_CONTRIBUTOR = "dc.contributor"
DC_KEY_COVERAGE = "dc.coverage"
DC_KEY_CREATOR = "dc.creator"
DC_KEY_DATE = "dc.date"
DC_KEY_DESCRIPTION = "dc.description"
DC_KEY_FORMAT = "dc.format"
DC_KEY_IDENTIFIER = "dc.identifier"
DC_KEY_IDENTIFIER_ISSN = "dc.identifier.issn"
DC_KEY_IDENTIFIER_EISSN = "dc.identifier.eissn"
DC_KEY_IDENTIFIER_ISSNL = "dc.identifier.issnl"
DC_KEY_IDENTIFIER_ISSNM = "dc.identifier.issnm"
DC_KEY_IDENTIFIER_ISBN = "dc.identifier.isbn"
DC_KEY_IDENTIFIER_EISBN = "dc.identifier.eisbn"
DC_KEY_ISSUED = "dc.issued"
DC_KEY_LANGUAGE = "dc.language"
DC_KEY_PUBLISHER = "dc.publisher"
DC_KEY_RELATION = "dc.relation"
DC_KEY_RELATION_ISPARTOF = "dc.relation.ispartof"
DC_KEY_RIGHTS = "dc.rights"
DC_KEY_SOURCE = "dc.source"
DC_KEY_SUBJECT = "dc.subject"
DC_KEY_TITLE = "dc.title"
DC_KEY_TYPE = "dc.type"

DC_FIELD_CITATION_CHAPTER = MetadataField(DC_KEY_CITATION_CHAPTER, _S)
DC_FIELD_CITATION_EPAGE = MetadataField(DC_KEY_CITATION_EPAGE, _S)
DC_FIELD_CITATION_ISSUE = MetadataField(DC_KEY_CITATION_ISSUE, _S)
DC_FIELD_CITATION_SPAGE = MetadataField(DC_KEY_CITATION_SPAGE, _S)
DC_FIELD_CITATION_VOLUME = MetadataField(DC_KEY_CITATION_VOLUME, _S)
DC_FIELD_CONTRIBUTOR = MetadataField(DC_KEY_CONTRIBUTOR, _M)
DC_FIELD_COVERAGE = MetadataField(DC_KEY_COVERAGE, _S)
DC_FIELD_CREATOR = MetadataField(DC_KEY_CREATOR, _M)
DC_FIELD_DATE = MetadataField(DC_KEY_DATE, _S)
DC_FIELD_DESCRIPTION = MetadataField(DC_KEY_DESCRIPTION, _S)
DC_FIELD_FORMAT = MetadataField(DC_KEY_FORMAT, _S)
DC_FIELD_IDENTIFIER = MetadataField(DC_KEY_IDENTIFIER, _M)
DC_FIELD_IDENTIFIER_ISSN = MetadataField(DC_KEY_IDENTIFIER_ISSN, _S)
DC_FIELD_IDENTIFIER_EISSN = MetadataField(DC_KEY_IDENTIFIER_EISSN, _S)
DC_FIELD_IDENTIFIER_ISSNL = MetadataField(DC_KEY_IDENTIFIER_ISSNL, _S)
DC_FIELD_IDENTIFIER_ISSNM = MetadataField(DC_KEY_IDENTIFIER_ISSNM, _M)
DC_FIELD_IDENTIFIER_ISBN = MetadataField(DC_KEY_IDENTIFIER_ISBN, _S)
DC_FIELD_IDENTIFIER_EISBN = MetadataField(DC_KEY_IDENTIFIER_EISBN, _S)
DC_FIELD_ISSUED = MetadataField(DC_KEY_ISSUED, _S)
DC_FIELD_LANGUAGE = MetadataField(DC_KEY_LANGUAGE, _S)
DC_FIELD_PUBLISHER = MetadataField(DC_KEY_PUBLISHER, _S)
DC_FIELD_RELATION = MetadataField(DC_KEY_RELATION, _M)
DC_FIELD_RELATION_ISPARTOF = MetadataField(DC_KEY_RELATION_ISPARTOF, _S)
DC_FIELD_RIGHTS = MetadataField(DC_KEY_RIGHTS, _S)
DC_FIELD_SOURCE = MetadataField(DC_KEY_SOURCE, _S)
DC_FIELD_SUBJECT = MetadataField(DC_KEY_SUBJECT, _S)
DC_FIELD_TITLE = MetadataField(DC_KEY_TITLE, _S)
DC_FIELD_TYPE = MetadataField(DC_KEY_TYPE, _S)


def _collect_builtin_fields() -> dict[str, MetadataField]:
    found: dict[str, MetadataField] = {}
    for name, value in globals().items():
        if name.startswith(("FIELD_", "DC_FIELD_")) and isinstance(value, MetadataField):
            found.setdefault(value.key, value)
    return dict(sorted(found.items()))


BUILTIN_FIELDS: dict[str, MetadataField] = _collect_builtin_fields()
"""Every built-in field (``FIELD_*`` and ``DC_FIELD_*``) keyed by its key, in key order."""


def find_field(key: str) -> MetadataField | None:
    """The built-in field with this key (ignoring case), or None."""
    return BUILTIN_FIELDS.get(key.lower())
