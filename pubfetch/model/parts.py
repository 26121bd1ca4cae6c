"""The parts of a publication and the small records they hold (MeSH terms, mined terms, authors, visited sites).

A part remembers where its content came from (type, URL, time) because that provenance is what the merge rules rank.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pubfetch.model.names import split_name
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.timefmt import Clock, instant_human, now_ms

if TYPE_CHECKING:
    from pubfetch.fetcher_args import FetcherArgs


@dataclass(frozen=True)
class MeshTerm:
    term: str
    major_topic: bool = False
    unique_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"term": self.term, "majorTopic": self.major_topic, "uniqueId": self.unique_id}

    @classmethod
    def from_json(cls, d: dict) -> MeshTerm:
        return cls(d.get("term", ""), bool(d.get("majorTopic", False)), d.get("uniqueId", "") or "")

    def __str__(self) -> str:
        return self.term


@dataclass(frozen=True)
class MinedTerm:
    """An EFO or GO term text-mined by Europe PMC: the most frequent spelling, the summed count, the ontology URI."""

    term: str
    count: int = 1
    uri: str = ""

    def frequency(self, word_count: int) -> float:
        """Occurrences per full-text word, clamped to [0, 1] (EDAMmap weighs terms by it)."""
        if word_count <= 0:
            return 0.0
        return max(0.0, min(1.0, self.count / word_count))

    def to_json(self) -> dict[str, Any]:
        return {"term": self.term, "count": self.count, "uri": self.uri}

    @classmethod
    def from_json(cls, d: dict) -> MinedTerm:
        return cls(d.get("term", ""), int(d.get("count", 1)), d.get("uri", "") or "")

    def __str__(self) -> str:
        return self.term


@dataclass
class CorrespAuthor:
    name: str = ""
    orcid: str = ""
    email: str = ""
    phone: str = ""
    uri: str = ""

    def is_empty(self) -> bool:
        return not (self.name or self.orcid or self.email or self.phone or self.uri)

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "orcid": self.orcid, "email": self.email, "phone": self.phone, "uri": self.uri}

    @classmethod
    def from_json(cls, d: dict) -> CorrespAuthor:
        return cls(**{k: d.get(k, "") or "" for k in ("name", "orcid", "email", "phone", "uri")})


@dataclass
class Author:
    """One author of the full author list (beyond PubFetcher, which keeps only corresponding authors): a person by
    family and given names, or by ``literal`` alone when the name is a collective's (a consortium, an organisation) or
    could not be split. The fields are CSL's name variables, which every source and export maps onto."""

    family: str = ""
    given: str = ""
    literal: str = ""
    orcid: str = ""
    affiliations: list[str] = field(default_factory=list)

    @classmethod
    def from_name(cls, name: str, orcid: str = "", affiliations: list[str] | None = None) -> Author:
        """An author known by one string only ("Matthew J. Kourakis", "Kourakis, Matthew J.", "WHO Working
        Group"): split by :func:`pubfetch.model.names.split_name`."""
        family, given, literal = split_name(name)
        return cls(family, given, literal, orcid, list(affiliations or []))

    @property
    def full_name(self) -> str:
        """The name as written in running text: "Given Family", or the literal."""
        return self.literal or " ".join(p for p in (self.given, self.family) if p)

    @property
    def sort_name(self) -> str:
        """The name as listed in a bibliography: "Family, Given", or the literal."""
        return self.literal or ", ".join(p for p in (self.family, self.given) if p)

    def is_empty(self) -> bool:
        return not (self.family or self.given or self.literal)

    def to_json(self) -> dict[str, Any]:
        return {"family": self.family, "given": self.given, "literal": self.literal, "orcid": self.orcid,
                "affiliations": list(self.affiliations)}

    @classmethod
    def from_json(cls, d: dict) -> Author:
        """Also reads the records of earlier versions, which held the whole name in ``name`` beside ``family`` and
        ``given``: a name without a family name is split as a publisher page's would be now."""
        orcid, affiliations = d.get("orcid", "") or "", list(d.get("affiliations", []) or [])
        family, given, literal = (d.get(k, "") or "" for k in ("family", "given", "literal"))
        if not (family or literal) and (name := d.get("name", "") or ""):
            return cls.from_name(name, orcid, affiliations)
        return cls(family, given, literal, orcid, affiliations)


def link_identity(url: str) -> str:
    """What tells two links apart in PubFetcher (Link equality: Java's URL authority + file): the host with user
    info and port as written, the path and the query; the scheme and the fragment do not count."""
    text = url.strip().split("#", 1)[0]
    scheme_end = text.find("://")
    return text[scheme_end + 3:] if scheme_end >= 0 else text


@dataclass(frozen=True)
class VisitedSite:
    """A page the fetcher read for a publication: its URL, the part type it was read as, and the page that led to it.

    Equal when :func:`link_identity` is: the same page reached over http and https, or with another fragment, is
    one site (PubFetcher's Link)."""

    url: str
    type: PartType
    from_url: str = ""
    timestamp: int = 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VisitedSite) and link_identity(self.url) == link_identity(other.url)

    def __hash__(self) -> int:
        return hash(link_identity(self.url))

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "type": self.type.value, "from": self.from_url, "timestamp": self.timestamp,
                "timestampHuman": instant_human(self.timestamp)}

    @classmethod
    def from_json(cls, d: dict) -> VisitedSite:
        return cls(d.get("url", ""), PartType(d.get("type", "na")), d.get("from", "") or "", int(d.get("timestamp", 0)))


T = TypeVar("T")


@dataclass
class _Part:
    name: PartName
    type: PartType = PartType.na
    url: str = ""
    timestamp: int = 0

    @property
    def timestamp_human(self) -> str:
        return instant_human(self.timestamp)

    def _stamp(self, type_: PartType, url: str, clock: Clock) -> None:
        self.type = type_
        self.url = (url or "").strip()
        self.timestamp = clock()

    def is_final(self, args: FetcherArgs) -> bool:
        return self.type.is_final and self.is_usable(args)

    def is_usable(self, args: FetcherArgs) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def is_empty(self) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def status(self, args: FetcherArgs) -> str:
        if self.is_empty() and not self.is_usable(args):
            return "empty"
        if not self.is_usable(args):
            return "non-usable"
        return "final" if self.is_final(args) else "non-final"

    def meta_json(self, args: FetcherArgs) -> dict[str, Any]:
        return {"type": self.type.value, "url": self.url, "timestamp": self.timestamp,
                "timestampHuman": self.timestamp_human, "size": self.size, "empty": self.is_empty(),
                "usable": self.is_usable(args), "final": self.is_final(args)}

    @property
    def size(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass
class StringPart(_Part):
    content: str = ""

    @property
    def size(self) -> int:
        return len(self.content)

    def is_empty(self) -> bool:
        return not self.content

    def is_usable(self, args: FetcherArgs) -> bool:
        n = self.name
        if n.is_id:
            return bool(self.content)
        if n is PartName.title:
            return len(self.content) >= args.title_min_length
        if n is PartName.theAbstract:
            return len(self.content) >= args.abstract_min_length
        if n is PartName.fulltext:
            return len(self.content) >= args.fulltext_min_length and self.type.is_better_than(PartType.webpage)
        return bool(self.content)

    def set(self, content: str, type_: PartType, url: str, clock: Clock = now_ms) -> None:
        self.content = content
        self._stamp(type_, url, clock)

    def plain(self) -> str:
        return self.content

    def to_json(self, args: FetcherArgs | None, computed: bool = True) -> dict[str, Any]:
        if computed and args is not None:
            return {"content": self.content, **self.meta_json(args)}
        # the stored form, one dict display (``_value_`` is the member's value without the descriptor call)
        return {"content": self.content, "type": self.type._value_, "url": self.url, "timestamp": self.timestamp}

    def load_json(self, d: dict) -> None:
        self.content = d.get("content", "") or ""
        self.type = PartType(d.get("type", "na"))
        self.url = d.get("url", "") or ""
        self.timestamp = int(d.get("timestamp", 0))


@dataclass
class ListPart(_Part, Generic[T]):
    items: list = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.items)

    def is_empty(self) -> bool:
        return not self.items

    def is_usable(self, args: FetcherArgs) -> bool:
        if self.name in (PartName.keywords, PartName.mesh):
            return len(self.items) >= args.keywords_min_size
        return len(self.items) >= args.mined_terms_min_size

    def set(self, items: list, type_: PartType, url: str, clock: Clock = now_ms) -> None:
        self.items = list(items)
        self._stamp(type_, url, clock)

    def plain(self) -> str:
        return "[" + "; ".join(str(i) for i in self.items) + "]"

    def items_json(self) -> list:
        return [i if isinstance(i, str) else i.to_json() for i in self.items]

    def to_json(self, args: FetcherArgs | None, computed: bool = True) -> dict[str, Any]:
        if computed and args is not None:
            return {"list": self.items_json(), **self.meta_json(args)}
        return {"list": self.items_json(), "type": self.type._value_, "url": self.url, "timestamp": self.timestamp}

    def load_json(self, d: dict) -> None:
        raw = d.get("list", []) or []
        if self.name is PartName.keywords:
            self.items = [str(k) for k in raw]
        elif self.name is PartName.mesh:
            self.items = [MeshTerm.from_json(k) for k in raw]
        else:
            self.items = [MinedTerm.from_json(k) for k in raw]
        self.type = PartType(d.get("type", "na"))
        self.url = d.get("url", "") or ""
        self.timestamp = int(d.get("timestamp", 0))
