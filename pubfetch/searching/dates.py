"""Day ranges for PubMed's date splitting: inclusive ranges of whole days, split into equal parts.

E-utilities take dates as ``YYYY/MM/DD`` and ``mindate``/``maxdate`` are both inclusive, so ranges split here never
share a day and together cover exactly the range they came from: a hit is in exactly one of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

__all__ = ["DayRange", "eutils_date"]


def eutils_date(day: date) -> str:
    """``2024/03/01``, the form E-utilities read."""
    return f"{day.year:04d}/{day.month:02d}/{day.day:02d}"


@dataclass(frozen=True)
class DayRange:
    """The days ``first`` to ``last``, both included."""

    first: date
    last: date

    def __post_init__(self) -> None:
        if self.last < self.first:
            raise ValueError(f"a day range ends ({self.last}) before it starts ({self.first})")

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1

    def split(self, parts: int) -> list[DayRange]:
        """At most ``parts`` consecutive ranges of (nearly) equal length covering this one, oldest first; a single day
        cannot be split and comes back whole."""
        parts = max(1, min(parts, self.days))
        out, start = [], self.first
        for k in range(parts):
            length = self.days * (k + 1) // parts - self.days * k // parts
            end = start + timedelta(days=length - 1)
            out.append(DayRange(start, end))
            start = end + timedelta(days=1)
        return out

    def __str__(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first} to {self.last}"
