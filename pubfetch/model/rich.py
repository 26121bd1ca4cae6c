"""The rich parts of a publication beyond PubFetcher's ten: funding, corrections and retractions, references,
sections of the full text, the licence, the paper's other versions (preprint and published), and the full text's
tables, figures, supplementary files and statements (their items in :mod:`pubfetch.model.structure`).

They come from answers the chain already receives (PubMed XML, JATS, Europe PMC's search result, Unpaywall, page
meta tags), so they are kept as parts with provenance (type, URL, time) and offered through the same overwrite rule
as the ten parts: a part that is final is kept; otherwise a better type, or among final types a bigger offer, wins.
They are not :class:`~pubfetch.model.part_type.PartName` members because PubFetcher's part names are a command-line
and JSON contract (``--fetch-part``, ``--out-part``, ``totallyFinal``) that these parts must not change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pubfetch.model.links import TextLink
from pubfetch.model.mined_terms import TypedTerm
from pubfetch.model.part_type import PartType
from pubfetch.model.structure import Figure, Statement, Supplement, Table
from pubfetch.model.timefmt import Clock, instant_human, now_ms

__all__ = ["RELATION_TYPES", "Grant", "Reference", "ReferenceSet", "Relation", "RichList", "RichName", "RichText",
           "Section", "Update", "dedup_grants", "dedup_references", "update_type"]


class RichName(Enum):
    """The rich parts; ``value`` is the JSON name."""

    funding = "funding"
    links = "links"
    mined_terms = "minedTerms"
    updates = "updates"
    references = "references"
    sections = "sections"
    license = "license"
    relations = "relations"
    tables = "tables"
    figures = "figures"
    supplements = "supplements"
    statements = "statements"

    @property
    def is_list(self) -> bool:
        return self is not RichName.license

    @property
    def attribute(self) -> str:
        """The :class:`~pubfetch.model.publication.Publication` attribute holding it (``mined_terms`` for
        ``minedTerms``). Looked up, not derived each time: serialising an entry asks it for every rich part."""
        return _ATTRIBUTES[self]


_ATTRIBUTES = {name: re.sub(r"(?<=[a-z])([A-Z])", r"_\1", name.value).lower() for name in RichName}


def _s(d: dict, key: str) -> str:
    value = d.get(key, "")
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class Grant:
    """One grant: the funding agency, the grant number as written, and the agency's country when the source says."""

    agency: str = ""
    grant_id: str = ""
    country: str = ""

    def to_json(self) -> dict[str, str]:
        return {"agency": self.agency, "grantId": self.grant_id, "country": self.country}

    @classmethod
    def from_json(cls, d: dict) -> Grant:
        return cls(_s(d, "agency"), _s(d, "grantId"), _s(d, "country"))

    def __str__(self) -> str:
        return " ".join(p for p in (self.agency, self.grant_id) if p)


@dataclass(frozen=True)
class Update:
    """A link to a correction, retraction, comment or update: ``type`` is PubMed's CommentsCorrections RefType
    (``RetractionIn``, ``ErratumFor``, ...), ``pmid`` and ``doi`` name the other paper."""

    type: str = ""
    pmid: str = ""
    doi: str = ""

    def to_json(self) -> dict[str, str]:
        return {"type": self.type, "pmid": self.pmid, "doi": self.doi}

    @classmethod
    def from_json(cls, d: dict) -> Update:
        return cls(_s(d, "type"), _s(d, "pmid"), _s(d, "doi"))

    def __str__(self) -> str:
        return f"{self.type} {self.pmid or self.doi}".strip()


@dataclass(frozen=True, slots=True)
class Reference:
    """One entry of the reference list: the cited paper's IDs and title when given, and the citation as written.
    Slotted: a batch holds tens of thousands, each then one object without a dictionary of its own."""

    pmid: str = ""
    pmcid: str = ""
    doi: str = ""
    title: str = ""
    text: str = ""

    @classmethod
    def made(cls, pmid: str, pmcid: str, doi: str, title: str, text: str) -> Reference:
        """The same as ``Reference(pmid, pmcid, doi, title, text)``, without the frozen dataclass's
        ``object.__setattr__`` by name per field: a parser makes one per cited paper, tens of thousands in a batch."""
        made = object.__new__(cls)
        _SET_PMID(made, pmid)
        _SET_PMCID(made, pmcid)
        _SET_DOI(made, doi)
        _SET_TITLE(made, title)
        _SET_TEXT(made, text)
        return made

    def to_json(self) -> dict[str, str]:
        return {"pmid": self.pmid, "pmcid": self.pmcid, "doi": self.doi, "title": self.title, "text": self.text}

    @classmethod
    def from_json(cls, d: dict) -> Reference:
        return cls(_s(d, "pmid"), _s(d, "pmcid"), _s(d, "doi"), _s(d, "title"), _s(d, "text"))

    def __str__(self) -> str:
        return self.title or self.text or self.pmid or self.doi or self.pmcid


#: the slots' own setters, which a frozen dataclass's ``__setattr__`` does not guard
_SET_PMID, _SET_PMCID, _SET_DOI, _SET_TITLE, _SET_TEXT = (
    getattr(Reference, name).__set__ for name in ("pmid", "pmcid", "doi", "title", "text"))


@dataclass(frozen=True)
class Section:
    """One section of the full text: its heading as written, its depth (1 for top-level) and its own text (without
    the text of its subsections, which follow it as sections of their own)."""

    title: str = ""
    level: int = 1
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "level": self.level, "text": self.text}

    @classmethod
    def from_json(cls, d: dict) -> Section:
        level = d.get("level", 1)
        return cls(_s(d, "title"), level if isinstance(level, int) and not isinstance(level, bool) else 1,
                   _s(d, "text"))

    def __str__(self) -> str:
        return self.title


#: The relations kept, as Crossref names them (DataCite's ``IsPreprintOf`` ... and bioRxiv's ``published`` are
#: mapped to these): the other paper is this one's published version, its preprint, or another version of it.
RELATION_TYPES = ("is-preprint-of", "has-preprint", "is-version-of", "has-version")


@dataclass(frozen=True)
class Relation:
    """Another version of the paper: ``type`` is one of :data:`RELATION_TYPES` (read "this paper <type> ``doi``")."""

    type: str = ""
    doi: str = ""

    def to_json(self) -> dict[str, str]:
        return {"type": self.type, "doi": self.doi}

    @classmethod
    def from_json(cls, d: dict) -> Relation:
        return cls(_s(d, "type"), _s(d, "doi"))

    def __str__(self) -> str:
        return f"{self.type} {self.doi}".strip()


_ITEM_TYPES: dict[RichName, Any] = {RichName.funding: Grant, RichName.links: TextLink, RichName.mined_terms: TypedTerm,
                                    RichName.updates: Update, RichName.references: Reference,
                                    RichName.sections: Section, RichName.relations: Relation,
                                    RichName.tables: Table, RichName.figures: Figure,
                                    RichName.supplements: Supplement, RichName.statements: Statement}


class _RichPart:
    """Provenance and the overwrite rule shared by the rich parts."""

    def __init__(self, name: RichName) -> None:
        self.name = name
        self.type = PartType.na
        self.url = ""
        self.timestamp = 0

    @property
    def size(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def is_empty(self) -> bool:
        return self.size == 0

    def is_final(self) -> bool:
        return self.type.is_final and not self.is_empty()

    def accepts(self, size: int, type_: PartType) -> bool:
        """The ten parts' rule (Publication._accepts) with "usable" meaning "not empty"."""
        return (not self.is_final() and size > 0
                and ((type_.is_final and self.size < size) or type_.is_better_than(self.type)))

    def _stamp(self, type_: PartType, url: str, clock: Clock) -> None:
        self.type = type_
        self.url = (url or "").strip()
        self.timestamp = clock()

    def _meta(self, computed: bool) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type.value, "url": self.url, "timestamp": self.timestamp}
        if computed:
            d.update(timestampHuman=instant_human(self.timestamp), size=self.size, empty=self.is_empty(),
                     final=self.is_final())
        return d

    def _load_meta(self, d: dict) -> None:
        try:
            self.type = PartType(d.get("type", "na"))
        except ValueError:
            self.type = PartType.na
        self.url = d.get("url", "") or ""
        self.timestamp = int(d.get("timestamp", 0) or 0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _RichPart) and type(other) is type(self) and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]


class RichList(_RichPart):
    """A list part (funding, updates, references, sections)."""

    def __init__(self, name: RichName, items: list | None = None) -> None:
        # the base's fields set here, not through super(): every Publication made (one per record a bulk import
        # stores) makes eleven rich parts
        self.name = name
        self.type = PartType.na
        self.url = ""
        self.timestamp = 0
        self.items: list = [] if items is None else list(items)

    @property
    def size(self) -> int:
        return len(self.items)

    def offer(self, items: list, type_: PartType, url: str, clock: Clock = now_ms) -> bool:
        if not self.accepts(len(items), type_):
            return False
        self.items = list(items)
        self._stamp(type_, url, clock)
        return True

    def plain(self) -> str:
        return "[" + "; ".join(str(i) for i in self.items) + "]"

    def items_json(self) -> list[dict[str, Any]]:
        return [i.to_json() for i in self.items]

    def to_json(self, computed: bool = True) -> dict[str, Any]:
        if computed:
            return {"list": self.items_json(), **self._meta(computed)}
        # the stored form in one dict display: every entry stored writes eleven of these, most of them empty
        return {"list": [i.to_json() for i in self.items] if self.items else [], "type": self.type._value_,
                "url": self.url, "timestamp": self.timestamp}

    def load_json(self, d: dict) -> None:
        item_type = _ITEM_TYPES[self.name]
        self.items = [item_type.from_json(i) for i in d.get("list", []) or [] if isinstance(i, dict)]
        self._load_meta(d)

    def __repr__(self) -> str:
        return f"RichList({self.name.value}, {len(self.items)} items, {self.type.value})"


class RichText(_RichPart):
    """A text part (the licence)."""

    def __init__(self, name: RichName, content: str = "") -> None:
        super().__init__(name)
        self.content = content

    @property
    def size(self) -> int:
        return len(self.content)

    def offer(self, content: str, type_: PartType, url: str, clock: Clock = now_ms) -> bool:
        content = (content or "").strip()
        if not self.accepts(len(content), type_):
            return False
        self.content = content
        self._stamp(type_, url, clock)
        return True

    def plain(self) -> str:
        return self.content

    def to_json(self, computed: bool = True) -> dict[str, Any]:
        if computed:
            return {"content": self.content, **self._meta(computed)}
        return {"content": self.content, "type": self.type._value_, "url": self.url, "timestamp": self.timestamp}

    def load_json(self, d: dict) -> None:
        content = d.get("content", "")
        self.content = content if isinstance(content, str) else ""
        self._load_meta(d)

    def __repr__(self) -> str:
        return f"RichText({self.name.value}, {self.content!r}, {self.type.value})"


def new_part(name: RichName) -> RichList | RichText:
    return RichList(name) if name.is_list else RichText(name)


# ------------------------------------------------------------------------------------------------ helpers for parsers


def dedup_grants(grants: list[Grant]) -> list[Grant]:
    """Grants without repeats, in order: one entry per grant ID (blanks filled from a later twin); a grant without an
    ID is kept once per agency, and only when no grant with an ID names the same agency."""
    out: list[Grant] = []
    index: dict[str, int] = {}
    for grant in grants:
        if not (grant.agency or grant.grant_id):
            continue
        key = "id:" + grant.grant_id.lower() if grant.grant_id else "agency:" + grant.agency.lower()
        if key not in index:
            index[key] = len(out)
            out.append(grant)
            continue
        kept = out[index[key]]
        out[index[key]] = Grant(kept.agency or grant.agency, kept.grant_id, kept.country or grant.country)
    with_ids = {g.agency.lower() for g in out if g.grant_id}
    return [g for g in out if g.grant_id or g.agency.lower() not in with_ids]


_SPACES = re.compile(r"\s+")


class ReferenceSet:
    """References without repeats, in the order first read: what identifies a reference is its DOI (in any case),
    PMID or PMCID (one in common makes two the same), else, for one with none, its citation text (else its title),
    compared without regard to case and spacing. A repeat fills its twin's blank IDs and title. Built up page by page
    (:meth:`add`) by a source that pages its list."""

    def __init__(self) -> None:
        self.items: list[Reference] = []
        #: references offered that repeated one kept
        self.repeats = 0
        self._index: dict[str, int] = {}

    @staticmethod
    def _keys(ref: Reference) -> list[str]:
        ids = [f"{kind}:{value.lower()}" for kind, value in (("doi", ref.doi), ("pmid", ref.pmid), ("pmcid", ref.pmcid))
               if value]
        if ids:
            return ids
        text = _SPACES.sub(" ", ref.text or ref.title).strip().casefold()
        return [f"text:{text}"] if text else []

    def add(self, ref: Reference) -> bool:
        """Keep ``ref`` unless it repeats one kept (or identifies nothing); whether it was new."""
        keys = self._keys(ref)
        if not keys:
            return False
        seen = next((self._index[k] for k in keys if k in self._index), None)
        if seen is None:
            seen = len(self.items)
            self.items.append(ref)
            new = True
        else:
            kept = self.items[seen]
            self.items[seen] = Reference(kept.pmid or ref.pmid, kept.pmcid or ref.pmcid, kept.doi or ref.doi,
                                         kept.title or ref.title, kept.text)
            new = False
            self.repeats += 1
        for key in self._keys(self.items[seen]):
            self._index.setdefault(key, seen)
        return new

    def __len__(self) -> int:
        return len(self.items)


def dedup_references(refs: list[Reference]) -> list[Reference]:
    """The references without repeats (see :class:`ReferenceSet`)."""
    out = ReferenceSet()
    for ref in refs:
        out.add(ref)
    return out.items


#: PubMed's RefTypes whose words are not simply capitalised ("Corrected and republished in" ->
#: "CorrectedandRepublishedIn"); every other Europe PMC type maps by capitalising its words.
_UPDATE_TYPES = {
    "correctedandrepublishedin": "CorrectedandRepublishedIn",
    "correctedandrepublishedfrom": "CorrectedandRepublishedFrom",
    "retractedandrepublishedin": "RetractedandRepublishedIn",
    "retractedandrepublishedfrom": "RetractedandRepublishedFrom",
}
_WORD = re.compile(r"[A-Za-z0-9]+")


def update_type(text: str) -> str:
    """PubMed's RefType for a CommentsCorrections type as Europe PMC writes it ("Retraction in" -> "RetractionIn",
    "Expression of concern for" -> "ExpressionOfConcernFor"); a PubMed RefType is returned unchanged."""
    words = _WORD.findall(text or "")
    if len(words) == 1:
        return words[0]
    joined = "".join(w.lower() for w in words)
    return _UPDATE_TYPES.get(joined) or "".join(w[:1].upper() + w[1:].lower() for w in words)

