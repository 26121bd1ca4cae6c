"""Which of a page's titles is the article's: the rule's, the meta tags' and the visible heading compared.

A page names its article in several places, each with its own failure: a rule's title selector can take the main
title while the subtitle sits in an element beside it; a meta tag can carry a publisher's artefact (a chemical formula
written with spaces, "Ni 12 P 5" for the heading's Ni<sub>12</sub>P<sub>5</sub>, or stray spacing); the visible heading
is what a person reads. So, the texts compared without whitespace and case:

* a rule's title gives way to a complete title (a meta tag's or the heading) that opens with it and goes on with a
  subtitle: what follows starts with a subtitle's separator (":", ".", "?", a dash), and the whole is at most
  :data:`MAX_GROWTH` times as long (a heading's other words, an article type before the title or an access badge
  after it, are not a subtitle; nor is a journal's or site's name after it);
* a meta title that differs from the visible heading only in whitespace gives way to the heading's spacing.
"""

from __future__ import annotations

import re

__all__ = ["MAX_GROWTH", "complete_title", "shown_spacing"]

#: How much longer than a rule's title a complete title containing it may be.
MAX_GROWTH = 3
_SUBTITLE_SEPARATORS = frozenset(":.?!;\u2013\u2014-")
#: A journal's, publisher's or site's name after a title: a few words, one of them these.
_SITE_WORDS = re.compile(r"(?i)\b(?:journals?|press|publishing|publishers?|online|library|society|proceedings|"
                         r"magazine|transactions|annals|bulletin)\b")
_LABEL_WORDS = 6


def _key(text: str) -> str:
    return "".join(text.split()).casefold()


def complete_title(title: str, *others: str, site_names: tuple[str, ...] = ()) -> str:
    """``title``, or the first of ``others`` that completes it with a subtitle (see the module's rule); what follows
    the title is no subtitle when it is the journal's or site's name (``site_names``: "T : Journal")."""
    own = _key(title)
    if not own:
        return title
    names = [_key(n) for n in site_names if _key(n)]
    for other in others:
        key = _key(other)
        if (len(key) > len(own) + 1 and key.startswith(own) and key[len(own)] in _SUBTITLE_SEPARATORS
                and len(key) <= MAX_GROWTH * len(own) and not any(key.endswith(n) for n in names)
                and not _is_site_label(other, len(own))):
            return other
    return title


def _is_site_label(other: str, title_length: int) -> bool:
    """Whether what follows the title in ``other`` is a journal's or site's name ("T : Industrial Psychiatry
    Journal") rather than a subtitle: a few words naming a journal, press or library."""
    seen = 0
    for index, char in enumerate(other):  # the position in ``other`` after the title's non-space characters
        if seen == title_length:
            rest = other[index:].lstrip(" :.?!;\u2013\u2014-")
            return len(rest.split()) <= _LABEL_WORDS and bool(_SITE_WORDS.search(rest))
        seen += not char.isspace()
    return False


def shown_spacing(meta_title: str, heading: str) -> str:
    """The meta title, or the visible heading where the two differ only in whitespace."""
    if heading and meta_title != heading and _key(meta_title) == _key(heading):
        return heading
    return meta_title
