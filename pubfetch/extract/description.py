"""Whether a page's meta description may stand as the paper's abstract.

PubFetcher takes the description tags (Dublin Core, Open Graph, Twitter, the plain ``description``) as an abstract of
the part type of their family. That is right where a landing page's description is the abstract, and wrong on the
many pages whose description is something else: a one-sentence impact statement or teaser, the abstract's opening cut
at a character count, a sharing blurb that repeats the title, the journal's own self-description kept in every page's
template, or a description left over from another page of the site (another essay's, on a static site). Each of these
is a shape, not a site: a text shorter than any abstract, a text that stops mid-sentence or with an ellipsis, a text
that opens with the title, a text that names the journal and what it publishes, a text whose words the page's own
article does not use.

``citation_abstract`` and ``eprints.abstract`` are written as abstracts: of those only an ending in an ellipsis (an
abstract cut by the page's template) is judged; every test applies to the description families.
"""

from __future__ import annotations

import re

__all__ = ["DESCRIPTION_FAMILIES", "why_not_an_abstract"]

#: The meta tag families (``parse_meta``'s types) that describe a page rather than give its abstract.
DESCRIPTION_FAMILIES = frozenset(("dc", "meta", "og", "twitter"))
#: The fewest non-space characters of an abstract (as the generic reader's ``MIN_ABSTRACT``): shorter descriptions are
#: impact statements and teasers.
MIN_NONSPACE = 150
#: A page text this large is the article itself, against which a description's vocabulary is compared ...
MIN_PAGE_TEXT = 2_000
#: ... and a description of whose distinct longer words fewer than this share appear in it describes another text.
MIN_SHARED_WORDS = 0.4
_ELLIPSIS = re.compile(r"(?:\.\.\.|\u2026|\[\s*(?:\.\.\.|\u2026)\s*\])\s*$")
#: How a text cut at a character count ends: on a plain lower-case word with nothing after it (a sentence's middle).
#: A complete abstract may end without a full stop, but then on something else: a URL, a registration number, a
#: bracket, a figure reference, a formula.
_ENDS_MID_SENTENCE = re.compile(r"(?:^|\s)[a-z\u00df-\u00ff]+,?$")
#: The words of a journal's description of itself, beside its name.
_SELF_DESCRIPTION = re.compile(r"(?i)\b(?:journals?|publish(?:es|ing)|peer[- ]reviewed|open[- ]access|articles|"
                               r"research\s+in)\b")
_WORD = re.compile(r"[^\W\d_]{5,}")


def _squashed(text: str) -> str:
    return "".join(text.split()).casefold()


def why_not_an_abstract(description: str, *, family: str = "meta", title: str = "", site_names: tuple[str, ...] = (),
                        page_text: str = "") -> str:
    """Why ``description``, the abstract read from a meta tag of ``family`` (``parse_meta``'s type), is not the
    paper's abstract ("" when nothing says it is not). ``title`` is the page's title, ``site_names`` its journal and
    publisher names, ``page_text`` the article text read from the page (its full text when it has one)."""
    text = " ".join(description.split())
    if not text:
        return ""
    if family not in DESCRIPTION_FAMILIES:
        return "cut short (it ends in an ellipsis)" if _ELLIPSIS.search(text) else ""
    if len(text.replace(" ", "")) < MIN_NONSPACE:
        return "shorter than any abstract (a teaser or impact statement)"
    if _ELLIPSIS.search(text) or _ENDS_MID_SENTENCE.search(text):
        return "cut short (it stops in the middle of a sentence)"
    squashed_title = _squashed(title)
    if len(squashed_title) >= 15 and _squashed(text).startswith(squashed_title):
        return "a blurb opening with the title"
    if any(len(name) >= 4 and name in text for name in site_names) and _SELF_DESCRIPTION.search(text):
        return "it names the journal and describes it (the site's description of itself)"
    if len("".join(page_text.split())) >= MIN_PAGE_TEXT:
        words = {w.casefold() for w in _WORD.findall(text)}
        if len(words) >= 5:
            page_words = {w.casefold() for w in _WORD.findall(page_text)}
            if len(words & page_words) < MIN_SHARED_WORDS * len(words):
                return "its words are not the article's (a description of another text)"
    return ""
