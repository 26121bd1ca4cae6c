"""PubFetcher's fetching parameters (pubfetcher.md section 3): their descriptors and :class:`FetcherArgs`.

Cooldowns, retry limit, minimum lengths that decide finality, timeout, e-mails, user agent and extra scraping rules.
They are described with the typed-parameter machinery of :mod:`pubfetch.params`, so that the command line, library
users and UIs (EDAMmap shows id, label, default, min, max and description) validate values in one place and get the
same error messages as for LOCKSS parameters.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from dataclasses import dataclass
from typing import Any

from pubfetch.params import MINUTE_MS, ParamDescr, ParamType, UnknownParameter

__all__ = ["FETCHER_DESCRIPTORS", "FetcherArgs", "fetcher_descriptor", "parse_fetcher_option"]

_T = ParamType


def _cooldown(key: str, label: str, default: int, what: str) -> ParamDescr:
    return ParamDescr(
        key, _T.TIME_INTERVAL, label, default=default, unit_ms=MINUTE_MS,
        description=f"Minutes after the last fetching attempt of {what} before fetching may be attempted again (which "
        "also resets the retry counter); a suffix gives other units (12h, 1d). 0 means always try again, a negative "
        "value means never refetch for this reason.",
    )


def _min_size(key: str, label: str, default: int, description: str) -> ParamDescr:
    return ParamDescr(key, _T.POS_INT, label, description, default=default, min=0)


def _text(key: str, label: str, default: str, description: str) -> ParamDescr:
    return ParamDescr(key, _T.STRING, label, description, default=default, allow_empty=True)


FETCHER_DESCRIPTORS: dict[str, ParamDescr] = {
    d.key: d
    for d in (
        _cooldown("emptyCooldown", "Empty cooldown", 720, "an empty publication or webpage"),
        _cooldown("nonFinalCooldown", "Non-final cooldown", 10080,
                  "a non-final (but non-empty) publication or webpage"),
        _cooldown("fetchExceptionCooldown", "Fetching exception cooldown", 1440,
                  "a publication or webpage whose fetching had an exception"),
        ParamDescr("retryLimit", _T.INT, "Retry limit", default=3,
                   description="How many times fetching may be retried after the initial attempt while the entry stays "
                   "empty, non-final or has a fetching exception. 0 disables retrying (until a cooldown resets the "
                   "counter), a negative value removes the limit."),
        _min_size("titleMinLength", "Title min. length", 4, "Minimum length of a usable publication title"),
        _min_size("keywordsMinSize", "Keywords min. size", 2,
                  "Minimum size of a usable publication keywords or MeSH list"),
        _min_size("minedTermsMinSize", "Mined terms min. size", 1,
                  "Minimum size of a usable publication EFO or GO terms list"),
        _min_size("abstractMinLength", "Abstract min. length", 200, "Minimum length of a usable publication abstract"),
        _min_size("fulltextMinLength", "Fulltext min. length", 2000, "Minimum length of a usable publication fulltext"),
        _min_size("webpageMinLength", "Webpage min. length", 50,
                  "Minimum length of a usable webpage (title and content together)"),
        _min_size("webpageMinLengthJavascript", "Webpage min. length JS", 200,
                  "If a webpage fetched without JavaScript is shorter than this and no scraping rules match its URL, "
                  "it is fetched again with JavaScript"),
        ParamDescr("timeout", _T.TIME_INTERVAL, "Timeout", default=15000, min=0,
                   description="Connect and read timeout of connections, in milliseconds (or with a suffix: 30s, 1m)"),
        ParamDescr("quick", _T.BOOLEAN, "Quick", default=False,
                   description="Do not retry a request after it timed out (PubFetcher also caps its links loop at "
                   "3 x timeout; pubfetch bounds it by max_links: docs/limits.md)"),
        _text("europepmcEmail", "Europe PMC e-mail", "", "E-mail to send to the Europe PMC API"),
        _text("oadoiEmail", "oaDOI e-mail", "@", "E-mail to send to the Unpaywall (oaDOI) API"),
        _text("userAgent", "User Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0",
              "HTTP User-Agent"),
        _text("journalsYaml", "Journals scrape rules", "",
              "YAML file of extra journal scraping rules, read after the built-in ones"),
        _text("webpagesYaml", "Webpages scrape rules", "",
              "YAML file of extra webpage scraping rules, read after the built-in ones"),
    )
}
"""PubFetcher's fetching parameters, keyed by their PubFetcher (camelCase) id, in PubFetcher's order."""


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


_BY_ATTRIBUTE: dict[str, ParamDescr] = {_snake(d.key): d for d in FETCHER_DESCRIPTORS.values()}
_ATTRIBUTE_BY_KEY: dict[str, str] = {d.key: attr for attr, d in _BY_ATTRIBUTE.items()}


def _attribute_name(name: str) -> str:
    """The FetcherArgs attribute for a camelCase id, a snake_case name or a CLI option (``--emptyCooldown``)."""
    bare = name.lstrip("-")
    if bare in _ATTRIBUTE_BY_KEY:
        return _ATTRIBUTE_BY_KEY[bare]
    snake = bare.replace("-", "_")
    if snake in _BY_ATTRIBUTE:
        return snake
    close = difflib.get_close_matches(bare, [*FETCHER_DESCRIPTORS, *_BY_ATTRIBUTE], n=1, cutoff=0.7)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownParameter(f"unknown fetching parameter {name!r}{hint}; known: {', '.join(FETCHER_DESCRIPTORS)}")


def fetcher_descriptor(name: str) -> ParamDescr:
    """The descriptor of a fetching parameter given in any accepted spelling; :class:`UnknownParameter` otherwise."""
    return _BY_ATTRIBUTE[_attribute_name(name)]


def parse_fetcher_option(name: str, text: str) -> tuple[str, Any]:
    """Parse one fetching option as given on a command line, e.g. ``("--emptyCooldown", "12h")`` -> ``("empty_cooldown",
    720)``. Returns the :class:`FetcherArgs` attribute name and the validated value, ready for
    ``FetcherArgs(**...)``."""
    attribute = _attribute_name(name)
    return attribute, _BY_ATTRIBUTE[attribute].parse(text)


def _default(attribute: str) -> Any:
    """A field's default, as its descriptor declares it (the one place it is written)."""
    return _BY_ATTRIBUTE[attribute].default


@dataclass(frozen=True)
class FetcherArgs:
    """PubFetcher's fetching parameters, validated on construction (also by :func:`dataclasses.replace`).

    Units follow PubFetcher: the three cooldowns are whole minutes, ``timeout`` is milliseconds. Parsed from text
    (:func:`parse_fetcher_option`: the command line, a config file's ``fetching``), a plain number is in that unit,
    and a suffixed time interval (``12h``, ``1d``, ``30s``) is converted to it; a cooldown that is not a whole number
    of minutes (``30s``) is refused rather than rounded, since rounding it down to 0 would mean "always refetch".
    Use :meth:`cooldown_ms` and :attr:`timeout_seconds` where other units are needed. Cooldowns and ``retry_limit``
    may be negative (meaning never / unlimited); lengths, sizes and ``timeout`` may not.
    """

    empty_cooldown: int = _default("empty_cooldown")
    non_final_cooldown: int = _default("non_final_cooldown")
    fetch_exception_cooldown: int = _default("fetch_exception_cooldown")
    retry_limit: int = _default("retry_limit")
    title_min_length: int = _default("title_min_length")
    keywords_min_size: int = _default("keywords_min_size")
    mined_terms_min_size: int = _default("mined_terms_min_size")
    abstract_min_length: int = _default("abstract_min_length")
    fulltext_min_length: int = _default("fulltext_min_length")
    webpage_min_length: int = _default("webpage_min_length")
    webpage_min_length_javascript: int = _default("webpage_min_length_javascript")
    timeout: int = _default("timeout")
    quick: bool = _default("quick")
    europepmc_email: str = _default("europepmc_email")
    oadoi_email: str = _default("oadoi_email")
    user_agent: str = _default("user_agent")
    journals_yaml: str = _default("journals_yaml")
    webpages_yaml: str = _default("webpages_yaml")

    def __post_init__(self) -> None:
        for attribute, descr in _BY_ATTRIBUTE.items():
            descr.validate(getattr(self, attribute))

    @classmethod
    def descriptors(cls) -> tuple[ParamDescr, ...]:
        """The descriptors of all fields, in PubFetcher's order (for help texts and UIs)."""
        return tuple(FETCHER_DESCRIPTORS.values())

    def to_dict(self, camel_case: bool = False) -> dict[str, Any]:
        """All values, keyed by attribute name, or by PubFetcher id when ``camel_case`` (as PubFetcher prints them)."""
        values = dataclasses.asdict(self)
        if camel_case:
            return {_BY_ATTRIBUTE[attribute].key: value for attribute, value in values.items()}
        return values

    def cooldown_ms(self, name: str) -> int:
        """A cooldown in milliseconds; ``name`` is e.g. ``empty_cooldown`` or ``emptyCooldown``."""
        attribute = _attribute_name(name)
        if not attribute.endswith("_cooldown"):
            raise UnknownParameter(f"{name!r} is not a cooldown")
        return getattr(self, attribute) * MINUTE_MS

    @property
    def timeout_seconds(self) -> float:
        """The timeout in seconds, the unit HTTP libraries such as requests expect."""
        return self.timeout / 1000
