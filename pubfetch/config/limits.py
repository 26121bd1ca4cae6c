"""The services' rate limits, declared once as windows: at most ``count`` requests in any ``seconds``.

A service is limited the way its operator documents it, and operators count in different windows: Europe PMC 10
requests a second and 500 a minute, DataCite 1,000 per 5 minutes, Unpaywall 100,000 a day. A service's limits are
therefore a list of ``(count, seconds)`` windows, held together; a key or contact address that the service rewards
with more (NCBI's API key, Crossref's polite pool) selects a second list. The shared limiter
(:mod:`pubfetch.net.ratelimit`) builds its limits from :data:`DOCUMENTED`, docs/configuration.md lists them, and the
``rate_windows`` setting replaces them per service, in the text form of :func:`parse_windows` (``"10/s, 500/min"``).

Only values live here, as in :mod:`pubfetch.config.defaults`; how the windows are held is the limiter's business.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

__all__ = ["DAY", "DOCUMENTED", "MAX_WINDOW_S", "ServiceRates", "Window", "format_windows", "parse_windows"]

#: (count, seconds): at most ``count`` requests in any ``seconds``.
Window = tuple[int, float]

#: A window of a day is a quota per UTC day (counted, and refused beyond), not waited out.
DAY: Final = 86_400.0
#: The longest window waited out; a longer one must be a day's (the limiter never waits longer than an hour).
MAX_WINDOW_S: Final = 3600.0

_UNITS: Final[Mapping[str, float]] = {"s": 1.0, "min": 60.0, "h": 3600.0, "day": DAY}
_WINDOW = re.compile(r"(\d+)\s*/\s*(\d+(?:\.\d+)?)?\s*(s|min|h|day)")
_BURST = re.compile(r"burst\s+(\d+)")


@dataclass(frozen=True)
class ServiceRates:
    """A service's documented windows, and where they are documented.

    Attributes:
        windows: held without a credential.
        source: who says so (docs/configuration.md shows it).
        burst: requests that may go at once before the per-second spacing applies (pubfetch's courtesy limits only).
        credential: the setting (``ncbi_api_key``, ``crossref_mailto``) whose value selects ``with_credential``.
        with_credential: the windows held when that setting is given.
    """

    windows: tuple[Window, ...]
    source: str
    burst: int = 1
    credential: str = ""
    with_credential: tuple[Window, ...] = ()

    def chosen(self, credentials: Mapping[str, str]) -> tuple[Window, ...]:
        """The windows held with these settings' values (by setting name)."""
        if self.credential and str(credentials.get(self.credential, "")).strip():
            return self.with_credential
        return self.windows


#: The services' limits by the limiter's service key. ``host`` is every other host (a publisher's pages, PDFs).
DOCUMENTED: Final[Mapping[str, ServiceRates]] = {
    "ncbi": ServiceRates(((3, 1.0),), "NCBI E-utilities: 3 requests/s per IP, 10 with an API key",
                         credential="ncbi_api_key", with_credential=((10, 1.0),)),
    "europepmc": ServiceRates(((10, 1.0), (500, 60.0)), "Europe PMC's developer forum, February 2026"),
    "europepmc_annotations": ServiceRates(((10, 1.0), (500, 60.0)),
                                          "Europe PMC's limits (its developer forum, February 2026)"),
    "unpaywall": ServiceRates(((10, 1.0), (100_000, DAY)), "Unpaywall: 100,000 calls a day; 10/s is pubfetch's own"),
    "doi": ServiceRates(((20, 1.0),), "none documented; pubfetch's own", burst=4),
    "crossref": ServiceRates(((5, 1.0),), "Crossref: public pool about 5/s, polite pool (a `mailto`) about 10/s",
                             credential="crossref_mailto", with_credential=((10, 1.0),)),
    "openalex": ServiceRates(((100, 1.0), (100_000, DAY)),
                             "OpenAlex: at most 100/s; a free key's 100,000 credits a day (a list page costs 1)"),
    "datacite": ServiceRates(((500, 300.0),), "DataCite: per IP over a rolling 5 minutes, 500 anonymous, 1,000 "
                             "identified by a `mailto`", credential="datacite_mailto",
                             with_credential=((1000, 300.0),)),
    "biorxiv": ServiceRates(((1, 1.0),), "bioRxiv/medRxiv API: none published; 1/s is the convention"),
    "host": ServiceRates(((4, 1.0),), "any other host: pubfetch's own", burst=2),
}


def parse_windows(text: str) -> tuple[tuple[Window, ...], int]:
    """The windows and burst of a ``rate_windows`` value: ``"10/s, 500/min"``, ``"1000/5min"``, ``"100000/day"``,
    ``"20/s burst 4"`` (units ``s``, ``min``, ``h``, ``day``, optionally with a number). Raises ValueError saying what
    is wrong."""
    rest = text
    windows: list[Window] = []
    for m in _WINDOW.finditer(text):
        count, length = int(m.group(1)), float(m.group(2) or 1) * _UNITS[m.group(3)]
        windows.append((count, length))
        rest = rest.replace(m.group(0), " ", 1)
    burst_match = _BURST.search(rest)
    burst = int(burst_match.group(1)) if burst_match else 1
    if burst_match:
        rest = rest.replace(burst_match.group(0), " ", 1)
    if rest.replace(",", " ").strip() or not windows:
        raise ValueError(f"{text!r} is not a list of windows such as \"10/s, 500/min\" or \"1000/5min\" "
                         "(count/unit: s, min, h, day; optionally \"burst N\")")
    for count, length in windows:
        check_window(count, length)
    if burst < 1:
        raise ValueError(f"burst must be at least 1, got {burst}")
    return tuple(windows), burst


def check_window(count: int, seconds: float) -> None:
    """A window the limiter can hold: a count of at least one, over a positive length up to an hour, or a day."""
    if count < 1:
        raise ValueError(f"a window allows at least 1 request, got {count}")
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_WINDOW_S) and seconds != DAY:
        raise ValueError(f"a window of {seconds:g} s is neither up to an hour (waited out) nor a day (a quota per UTC "
                         "day)")


def format_windows(windows: tuple[Window, ...], burst: int = 1) -> str:
    """The text form :func:`parse_windows` reads: ``((10, 1.0), (500, 60.0))`` -> ``"10/s, 500/min"``."""
    parts = []
    for count, seconds in windows:
        unit, size = next(((u, s) for u, s in reversed(list(_UNITS.items())) if seconds % s == 0), ("s", 1.0))
        multiple = seconds / size
        parts.append(f"{count}/{'' if multiple == 1 else f'{multiple:g}'}{unit}")
    text = ", ".join(parts)
    return f"{text}, burst {burst}" if burst > 1 else text
