"""Whose page is it: the decision whether a page or PDF is the paper a publication names, from what it claims to be.

A page's parts are merged into a publication only when they describe the paper asked for: a doi.org redirect to the
wrong article, a "related article" page, a repository copy of another paper or another paper's PDF would otherwise
put that paper's title and text under the ID the user asked for. :func:`decide` compares what a page or PDF claims
(:class:`Claims`: the identifiers it carries and the titles it shows, gathered by
:mod:`pubfetch.extract.identity_claims`) with the publication's known IDs, and, when no ID can be compared, its
titles with a known title; it is pure so that the same answer comes wherever the page is read.

The rules (docs/rules.md, "Whose page is it"):

* identifiers first: one claimed PMID, PMCID or DOI equal to the publication's is the same paper; claimed IDs of a
  kind the publication has, none equal, are another paper. A DOI merely written in a PDF (its Subject, its first
  page) only confirms: one equal is the same paper, none equal leaves the decision to the title. DOIs compare
  case-insensitively without a ``doi:`` or resolver prefix, and a version DOI is its base where the registrant's
  scheme says so (:data:`VERSION_SCHEMES`); an erratum's, a chapter's or a book's DOI is another DOI, so another paper;
* a page of a preprint server for a publication whose DOI is not a preprint's is the preprint of the paper, not the
  paper: not merged, recorded as a relation candidate;
* no comparable ID: the page's titles are compared with a known title (similarity of at least the run's
  ``title_similarity``, see :func:`title_similarity`); a page refutes it only with a title-like one (four words
  beside the site's names); with no known title (or no article title on the page) the page is
  unverified: merged and marked so, to be confirmed or dropped by a later source's title.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from rapidfuzz import fuzz

from pubfetch import ids as idmod
from pubfetch.config.defaults import DEFAULT_TITLE_SIMILARITY

__all__ = ["DEFAULT_TITLE_SIMILARITY", "PREPRINT_HOSTS", "VERSION_SCHEMES", "Claims", "Decision", "Reason",
           "Verdict", "decide", "doi_base", "is_preprint_doi", "is_preprint_host", "same_doi", "title_similarity"]

#: The similarity (0-100) a page's title must reach against a known title to be the same paper, when the page carries
#: no identifier to compare (the ``title_similarity`` setting's default).

#: Registrants whose DOIs name versions of one work: (pattern of a version DOI, normalised, upper case; its group 1 is
#: the base DOI). F1000Research and its sister platforms, eLife's reviewed-preprint versions (``.1``, ``.2``; a
#: zero-padded ``.003`` is a figure or another component, not the paper), bioRxiv/medRxiv ``v1`` URLs, arXiv,
#: Research Square, Preprints.org and figshare.
VERSION_SCHEMES: tuple[re.Pattern[str], ...] = tuple(re.compile(p) for p in (
    r"^(10\.12688/[A-Z0-9-]+\.\d+)\.\d+$",
    r"^(10\.7554/ELIFE\.\d+)\.[1-9]\d?$",
    r"^(10\.1101/(?:\d{4}\.\d{2}\.\d{2}\.)?\d{6,})V\d+$",
    r"^(10\.48550/ARXIV\..+?)V\d+$",
    r"^(10\.21203/RS\.\d+\.RS-\d+)/V\d+$",
    r"^(10\.20944/PREPRINTS\d{6}\.\d{4})\.V\d+$",
    r"^(10\.6084/M9\.FIGSHARE\.\d+)\.V\d+$",
))
#: Zenodo: a concept DOI resolves to the record of its newest version, which carries the version's own DOI (the two
#: numbers are unrelated), so two Zenodo DOIs on zenodo.org are taken as one work, as PubFetcher does.
_ZENODO_DOI = re.compile(r"^10\.5281/ZENODO\.\d+$")
_ZENODO_HOST = "zenodo.org"

#: Hosts of preprint servers (a host or any of its subdomains).
PREPRINT_HOSTS = frozenset({
    "biorxiv.org", "medrxiv.org", "arxiv.org", "researchsquare.com", "ssrn.com", "preprints.org", "chemrxiv.org",
    "psyarxiv.com", "authorea.com", "techrxiv.org", "qeios.com", "preprints.scielo.org", "eartharxiv.org",
    "engrxiv.org", "socarxiv.org",
})  # fmt: skip
#: DOIs of preprints (normalised, upper case): bioRxiv/medRxiv (dated or six-digit numbers, not the Cold Spring
#: Harbor journals' ``10.1101/gad.…``), arXiv, Research Square, SSRN, Preprints.org, ChemRxiv, OSF's servers,
#: Authorea, TechRxiv, Qeios, SciELO Preprints.
_PREPRINT_DOI = re.compile(
    r"^(?:10\.1101/(?:\d{4}\.\d{2}\.\d{2}\.)?\d{6,}(?:V\d+)?"
    r"|10\.48550/ARXIV\.|10\.21203/RS\.|10\.2139/SSRN\.|10\.20944/PREPRINTS|10\.26434/CHEMRXIV"
    r"|10\.3121[0-9]/OSF\.IO/|10\.22541/AU\.|10\.36227/TECHRXIV|10\.32388/|10\.1590/SCIELOPREPRINTS)"
)
#: Titles of notices about a paper (not the paper): one title with such an opening and one without are two papers.
_NOTICE = re.compile(r"^(?:correction|corrigendum|erratum|retraction|retracted|expression of concern|addendum"
                     r"|comment on|reply to|response to|author correction|publisher correction)\b")
_NOT_WORD = re.compile(r"[\W_]+")
#: Words a page's title must have, beside the site's names, to refute a known title (a "Loading..." placeholder, a
#: journal's name in the ``<title>`` and ``<h1>`` of a page showing the article's title elsewhere are no titles)
_MIN_TITLE_WORDS = 4
#: A title shorter than this (normalised characters) is compared only as a whole: a short title is found inside too
#: many longer ones.
_MIN_PARTIAL = 20


class Verdict(enum.Enum):
    """Whether a page is the publication's paper."""

    SAME = "same"
    OTHER = "other"
    UNVERIFIED = "unverified"


class Reason(enum.Enum):
    """Why a page is another paper's (the ``reason`` of a rejected site)."""

    ID = "id"
    """it carries another paper's identifier"""
    TITLE = "title"
    """it carries no identifier and its title is not the paper's"""
    PREPRINT = "preprint"
    """it is a preprint server's page and the paper's DOI is not a preprint's: a relation candidate"""


@dataclass(frozen=True)
class Claims:
    """What a page or PDF says it is: its URL, the identifiers it carries (best source first) and the titles it
    shows; ``first_page`` is a PDF's first page text (a PDF without a title in its metadata still shows it there);
    ``weak_dois`` DOIs merely written in it (a PDF's Subject or first page: its own, or a data set's, a cited
    paper's), which make it the same paper when one matches and are passed over when none does."""

    url: str = ""
    dois: tuple[str, ...] = ()
    pmids: tuple[str, ...] = ()
    pmcids: tuple[str, ...] = ()
    titles: tuple[str, ...] = ()
    first_page: str = ""
    weak_dois: tuple[str, ...] = ()
    #: the journal's, publisher's and site's names it gives (a title that is only one of them is no article title)
    site_names: tuple[str, ...] = ()

    @property
    def has_ids(self) -> bool:
        return bool(self.dois or self.pmids or self.pmcids)

    @property
    def title(self) -> str:
        """The title it shows first (what a rejection or an unverified page records)."""
        return self.titles[0] if self.titles else ""

    @property
    def article_titles(self) -> tuple[str, ...]:
        """The titles it shows that can be an article's (not a placeholder, not only the site's or journal's name):
        those that can refute a known title."""
        return tuple(t for t in self.titles if _title_like(t, self.site_names))


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: Reason | None = None
    #: a sentence for the log: what was compared with what
    detail: str = ""
    claims: Claims = field(default_factory=Claims)


def _norm_doi(doi: str) -> str:
    return idmod.normalise_doi(idmod.doi_in_value(doi) or doi.strip()) if doi else ""


def doi_base(doi: str) -> str:
    """The DOI of the work a version DOI is a version of (itself when its registrant has no version scheme here)."""
    norm = _norm_doi(doi)
    for scheme in VERSION_SCHEMES:
        if match := scheme.match(norm):
            return match.group(1)
    return norm


def same_doi(a: str, b: str, url: str = "") -> bool:
    """Whether two DOIs name the same paper: equal after normalisation, versions of one work, or (read on ``url`` at
    zenodo.org) a Zenodo concept DOI and one of its versions."""
    if not a or not b:
        return False
    if doi_base(a) == doi_base(b):
        return True
    return _host_in(url, {_ZENODO_HOST}) and bool(_ZENODO_DOI.match(_norm_doi(a))) and bool(
        _ZENODO_DOI.match(_norm_doi(b)))


def is_preprint_doi(doi: str) -> bool:
    return bool(_PREPRINT_DOI.match(_norm_doi(doi)))


def _host_in(url: str, hosts: Iterable[str]) -> bool:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return any(host == h or host.endswith("." + h) for h in hosts)


def is_preprint_host(url: str) -> bool:
    """Whether a URL is on a preprint server (:data:`PREPRINT_HOSTS`)."""
    return _host_in(url, PREPRINT_HOSTS)


def _norm_title(title: str) -> str:
    return " ".join(_NOT_WORD.sub(" ", unicodedata.normalize("NFKC", title).casefold()).split())


def title_similarity(known: str, shown: str) -> float:
    """How alike two titles are, 0 to 100: compared without case, punctuation and markup spacing; a complete title
    found within the other (a page title with the journal's name after it, a title without its subtitle) counts when
    it is long enough and at least half as long as the other; a notice's title ("Correction: ...", "Reply to ...")
    is 0 against a title that is not a notice."""
    a, b = _norm_title(known), _norm_title(shown)
    if not a or not b:
        return 0.0
    if bool(_NOTICE.match(a)) != bool(_NOTICE.match(b)):
        return 0.0
    score = fuzz.ratio(a, b)
    shorter, longer = sorted((a, b), key=len)
    if len(shorter) >= max(_MIN_PARTIAL, len(longer) / 2):
        score = max(score, fuzz.partial_ratio(shorter, longer))
    return float(score)


def _title_like(title: str, site_names: tuple[str, ...]) -> bool:
    """Whether a title a page shows can be an article's: :data:`_MIN_TITLE_WORDS` words beside the site's names."""
    norm = f" {_norm_title(title)} "
    for name in site_names:
        if shown := _norm_title(name):
            norm = norm.replace(f" {shown} ", " ")
    return len(norm.split()) >= _MIN_TITLE_WORDS


def _first_page_similarity(known: str, first_page: str) -> float:
    """How well a known title is found in a PDF's first page (where a PDF without metadata shows it)."""
    a, page = _norm_title(known), _norm_title(first_page[:4000])
    if len(a) < _MIN_PARTIAL or not page:
        return 0.0
    return float(fuzz.partial_ratio(a, page))


def _compare_ids(claims: Claims, pmid: str, pmcid: str, doi: str) -> tuple[bool, list[str]]:
    """(some claimed ID equals the publication's, the claimed IDs of kinds the publication has that differ)."""
    differ: list[str] = []
    if pmid and claims.pmids:
        if pmid in claims.pmids:
            return True, []
        differ += [f"PMID {p}" for p in claims.pmids]
    if pmcid and claims.pmcids:
        if pmcid.upper() in (p.upper() for p in claims.pmcids):
            return True, []
        differ += list(claims.pmcids)
    if doi and claims.dois:
        if any(same_doi(doi, d, claims.url) for d in claims.dois):
            return True, []
        differ += [f"DOI {d}" for d in claims.dois]
    return False, differ


def decide(claims: Claims, pmid: str = "", pmcid: str = "", doi: str = "", known_title: str = "",
           threshold: float = DEFAULT_TITLE_SIMILARITY) -> Decision:
    """Whether the page or PDF of ``claims`` is the paper of the known IDs (and title, from a source already trusted).

    ``threshold``: the title similarity (0-100) that makes a page without comparable IDs the same paper."""
    if doi and not is_preprint_doi(doi) and (is_preprint_host(claims.url) or (
            claims.dois and all(is_preprint_doi(d) for d in claims.dois))):
        return Decision(Verdict.OTHER, Reason.PREPRINT, f"a preprint page for the published DOI {doi}", claims)
    matched, differ = _compare_ids(claims, pmid, pmcid, doi)
    if matched:
        return Decision(Verdict.SAME, None, "an identifier matches", claims)
    if differ:
        return Decision(Verdict.OTHER, Reason.ID, "it carries " + ", ".join(differ), claims)
    if doi and any(same_doi(doi, d, claims.url) for d in claims.weak_dois):
        return Decision(Verdict.SAME, None, "a DOI written in it matches", claims)
    if known_title and (claims.titles or claims.first_page):
        scores = [title_similarity(known_title, t) for t in claims.titles]
        if claims.first_page:
            scores.append(_first_page_similarity(known_title, claims.first_page))
        score = max(scores)
        if score >= threshold:
            return Decision(Verdict.SAME, None, f"no identifier; its title matches ({score:.0f})", claims)
        if not claims.first_page and not claims.article_titles:
            return Decision(Verdict.UNVERIFIED, None, f"no identifier and no article title among {claims.titles}",
                            claims)
        return Decision(Verdict.OTHER, Reason.TITLE,
                        f"no identifier; its title {claims.title!r} is not {known_title!r} ({score:.0f})", claims)
    return Decision(Verdict.UNVERIFIED, None, "no identifier and no title to compare", claims)
