"""An author name written as one string (publisher pages, Unpaywall, records of earlier pubfetch versions) split into
family and given names, or kept whole as a literal name when it names a collective.

Citation styles abbreviate given names and sort by family names, and BibTeX keys start with the family name, so a name
left undivided ("Matthew J. Kourakis") is cited wrongly everywhere. The splitting itself is nameparser's (particles
such as "van der" stay with the family name, titles and degrees are dropped, "Family, Given" is read family first);
what is decided here is what nameparser cannot know: which names are organisations, and that PubMed's short form
"Kourakis MJ" puts the family name first.
"""

from __future__ import annotations

import re

__all__ = ["is_collective", "split_name"]

#: Words that make a name an organisation's, not a person's (compared case-insensitively, whole words).
_COLLECTIVE_WORDS = frozenset((
    "academy", "agency", "alliance", "association", "authority", "board", "bureau", "center", "centre", "coalition",
    "college", "collaboration", "collaborative", "collaborators", "commission", "committee", "company",
    "consortium", "corporation", "council", "department", "division", "faculty", "federation", "forum",
    "foundation", "group", "hospital", "inc", "initiative", "institute", "institution", "investigators",
    "laboratory", "laboratories", "league", "llc", "ltd", "ministry", "network", "office", "organisation",
    "organization", "panel", "partnership", "program", "programme", "project", "registry", "research", "service",
    "services", "society", "study", "survey", "taskforce", "team", "trial", "trialists", "union", "university",
    "unit", "working", "gmbh",
))

#: Lower-case words that join an organisation's name ("... for the ...", "... of ...") but never a person's.
_JOINERS = frozenset(("and", "&", "for", "of", "the", "on", "in", "with"))

_WORD = re.compile(r"[\w&]+")
#: PubMed's short author form: the family name, then up to three capital initials without periods.
_FAMILY_INITIALS = re.compile(r"^(?P<family>[^,]+?)\s+(?P<initials>[A-Z]{1,3})$")


def is_collective(name: str) -> bool:
    """Whether a name is an organisation's (a consortium, a working group, a ministry) rather than a person's."""
    words = _WORD.findall(name)
    if any(w.lower() in _COLLECTIVE_WORDS or w.isdigit() for w in words):
        return True
    return any(w in _JOINERS for w in words[1:-1])


def _generational(suffix: str) -> bool:
    from nameparser.config import CONSTANTS

    return suffix.lower().rstrip(".") in CONSTANTS.suffix_not_acronyms


def split_name(name: str) -> tuple[str, str, str]:
    """``(family, given, literal)`` of one name: a person's family and given names, or the whole name as the literal
    of a collective or of a name nameparser finds no family name in.

    A generational suffix (Jr., III) stays at the end of the family name ("King Jr."), where the citation exports
    find it again; degrees and titles (PhD, Dr) are dropped. A name of one word is a family name."""
    text = " ".join(name.split()).strip(" ,;")
    if not text:
        return "", "", ""
    if is_collective(text):
        return "", "", text
    if match := _FAMILY_INITIALS.match(text):
        return match["family"], match["initials"], ""
    if " " not in text and "," not in text:
        return text, "", ""
    from nameparser import HumanName

    parsed = HumanName(text)
    given = " ".join(p for p in (parsed.first, parsed.middle) if p)
    suffixes = [s for s in parsed.suffix_list if _generational(s)]
    family = " ".join([parsed.last, *suffixes]) if parsed.last else ""
    if not family:
        return "", "", text
    return family, given, ""
