"""What extracted metadata is for: LOCKSS' MetadataTarget (a purpose, optionally a format and a time)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["MetadataTarget", "Purpose"]


class Purpose(enum.Enum):
    """What metadata is extracted for; the values are LOCKSS' purpose names."""

    ANY = "Any"
    DOI = "DOI"
    OPENURL = "OpenURL"
    ARTICLE = "Article"


@dataclass(frozen=True)
class MetadataTarget:
    """What the records are for (LOCKSS' MetadataTarget). ``purpose`` is one of the :class:`Purpose` names, which
    become the enum member, or any other string, kept as given (LOCKSS takes any purpose string; only ``Article``
    changes what iterators do). ``format`` (a MIME type) overrides the article iterator's MIME type;
    ``include_files_changed_after`` (epoch ms, 0 = all) limits iteration to files fetched after it. An ``Article``
    target only counts articles, so iterators skip filling secondary roles."""

    purpose: Purpose | str = Purpose.ANY
    format: str | None = None
    include_files_changed_after: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.purpose, Purpose | str) or not self.purpose:
            raise ValueError(f"a metadata target purpose is a non-empty string, not {self.purpose!r}")
        known = {p.value: p for p in Purpose}
        object.__setattr__(self, "purpose", known.get(str(getattr(self.purpose, "value", self.purpose)),
                                                      self.purpose))
        if self.include_files_changed_after < 0:
            raise ValueError("include_files_changed_after must be >= 0 (epoch milliseconds)")

    def is_article(self) -> bool:
        return self.purpose is Purpose.ARTICLE

    @property
    def purpose_name(self) -> str:
        """The purpose as LOCKSS writes it (``Article``, or the custom string)."""
        return self.purpose.value if isinstance(self.purpose, Purpose) else self.purpose

    @classmethod
    def any(cls) -> MetadataTarget:
        return cls(Purpose.ANY)

    @classmethod
    def doi(cls) -> MetadataTarget:
        return cls(Purpose.DOI)

    @classmethod
    def open_url(cls) -> MetadataTarget:
        return cls(Purpose.OPENURL)

    @classmethod
    def article(cls) -> MetadataTarget:
        return cls(Purpose.ARTICLE)
