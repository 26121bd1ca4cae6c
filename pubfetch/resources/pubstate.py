"""One publication's state in a fetch run, on its pass through the resources: what was asked for it (PubFetcher's
FetcherPublicationState), what failed in a way worth asking once more in the run, and the words a failure is told in.

The flags of :class:`PubState` make each resource ask for a publication at most once per ID kind within one fetch,
whatever the batch around it; its failures record what the end-of-run retry asks again, and only that. Its instances
are named ``state`` (``states``); "run" is the whole fetch run (:class:`~pubfetch.engine.assembly.FetchRun`) only.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from pubfetch.console import retry_note
from pubfetch.ids import PublicationIds
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord
from pubfetch.net.outcome import SERVICE_GLITCHES, EntryPolicy, FetchResult, OutcomeKind
from pubfetch.resources.links import Links, QueuedLink

if TYPE_CHECKING:
    from pubfetch.fetcher_args import FetcherArgs

log = logging.getLogger(__name__)

__all__ = ["SERVICE_GLITCHES", "PubFlag", "PubState", "entry_policy", "failure_word", "mark_unreadable",
           "worth_asking_again"]

class PubFlag(StrEnum):
    """What happened to a publication in this fetch (PubFetcher's FetcherPublicationState): a resource sets its flag
    when it asks, and skips a publication whose flag is set, so nothing is asked twice for the same ID kind."""

    #: Europe PMC search asked by PMID / PMCID / DOI, and answered (any ID)
    EPMC_PMID = "epmc_pmid"
    EPMC_PMCID = "epmc_pmcid"
    EPMC_DOI = "epmc_doi"
    EUROPEPMC = "europepmc"
    #: what the Europe PMC search answer says is available
    EPMC_HAS_FULLTEXT_XML = "epmc_has_fulltext_xml"
    EPMC_HAS_FULLTEXT_HTML = "epmc_has_fulltext_html"
    EPMC_HAS_PDF = "epmc_has_pdf"
    EPMC_HAS_MINED = "epmc_has_mined"
    EPMC_HAS_REFERENCES = "epmc_has_references"
    #: Europe PMC fullTextXML asked by PMCID, and answered
    EPMC_FULLTEXT_PMCID = "epmc_fulltext_pmcid"
    EPMC_FULLTEXT_XML = "epmc_fulltext_xml"
    #: text-mined EFO / GO terms asked by PMCID, by PMID, and answered
    EFO_PMCID = "efo_pmcid"
    EFO_PMID = "efo_pmid"
    EFO = "efo"
    GO_PMCID = "go_pmcid"
    GO_PMID = "go_pmid"
    GO = "go"
    #: text-mined terms of the other annotation types asked for (``--annotations``) taken
    MINED_TERMS = "mined_terms"
    #: PubMed XML (efetch) asked by PMID, and answered; the PubMed page asked by PMID
    PUBMED_XML_PMID = "pubmed_xml_pmid"
    PUBMED_XML = "pubmed_xml"
    PUBMED_HTML_PMID = "pubmed_html_pmid"
    #: PMC XML (efetch) asked by PMCID, and answered
    PMC_XML_PMCID = "pmc_xml_pmcid"
    PMC_XML = "pmc_xml"
    #: PubMed XML asked only for the unique IDs of MeSH terms taken from Europe PMC (which gives names only)
    MESH_IDS = "mesh_ids"
    #: the DOI resolved to the publisher's page; Unpaywall asked
    DOI = "doi"
    OADOI = "oadoi"
    #: Europe PMC's references endpoint asked (``--references`` only)
    EPMC_REFERENCES = "epmc_references"
    #: the DOI's registration agency looked up (doi.org), asked of Crossref, OpenAlex, DataCite, bioRxiv/medRxiv (by
    #: DOI), and answered; the bioRxiv JATS full text asked
    DOI_AGENCY = "doi_agency"
    CROSSREF_DOI = "crossref_doi"
    CROSSREF = "crossref"
    OPENALEX_DOI = "openalex_doi"
    OPENALEX = "openalex"
    DATACITE_DOI = "datacite_doi"
    DATACITE = "datacite"
    BIORXIV_DOI = "biorxiv_doi"
    BIORXIV = "biorxiv"
    BIORXIV_JATS = "biorxiv_jats"


@dataclass(frozen=True)
class AnsweredAhead:
    """What a request a publication rode with (before it came to the request's step) said of it: its record, the
    request's failure, or neither (it was not in the answer; ``unreadable``: the answer could not be read). Its ID was
    asked, so the step takes the answer as its own, whichever it is, and does not ask again."""

    record: ArticleRecord | None = None
    failure: FetchResult | None = None
    unreadable: bool = False
    url: str = ""


@dataclass
class PubState:
    """One publication being fetched, with the flags that stop a resource from asking twice."""

    pub: Publication
    links: Links = field(default_factory=Links)
    flags: set[PubFlag] = field(default_factory=set)
    id_count: int = 0
    #: False once the chain must stop with it: an ID changed under it (it starts again) or another publication of the
    #: batch holds its paper
    keep_going: bool = True
    start_ids: PublicationIds | None = None
    #: the publication of the batch this one turned out to be (its PMID, PMCID or DOI is the same): fetched only there
    same_as: Publication | None = None
    #: what failed in a way worth asking once more in this run (flags of the resources that asked, links followed),
    #: and when it may be asked again (epoch seconds; the servers' Retry-After)
    again_flags: set[PubFlag] = field(default_factory=set)
    again_links: list[QueuedLink] = field(default_factory=list)
    not_before: float = 0.0
    #: pages abandoned by their reader process in this run (asked and final URLs): not asked again, they would be read
    #: as slowly
    abandoned: set[str] = field(default_factory=set)
    #: the annotations service's answers for this publication by article ID (``PMC:...``, ``MED:...``; None: the
    #: answer left it out): one request brings every type, so the EFO and GO passes ask once per ID between them
    annotations: dict[str, ArticleRecord | None] = field(default_factory=dict)
    #: What PubMed's efetch answered for this publication before it came to the step, by PMID: it rode with other
    #: publications' request (:func:`pubfetch.resources.ncbi.may_ride`); taken, record or failure, when it comes
    pubmed_ahead: dict[str, AnsweredAhead] = field(default_factory=dict)
    #: the failures that marked the entry (fetchException) and that this run does not ask again, in words: an answer
    #: a minute cannot change, an unreadable answer, a block page, an abandoned page. The end-of-run retry asks only
    #: what failed otherwise, so it must keep these marks whatever it gets: cleared, a final entry would keep their
    #: holes for good (no later run fetches it)
    lasting: list[str] = field(default_factory=list)

    def restart(self) -> None:
        """Start the publication again from nothing but its IDs (an ID changed under it)."""
        self.pub.reset()
        self.links = Links()
        self.flags = set()
        self.id_count = 0
        self.keep_going = True
        self.start_ids = None
        self.again_flags = set()
        self.again_links = []
        self.not_before = 0.0
        self.annotations = {}
        self.lasting = []

    def has(self, flag: PubFlag | str) -> bool:
        return PubFlag(flag) in self.flags

    def set(self, *flags: PubFlag | str) -> None:
        """Set flags; a string must be a flag's value (a misspelt one raises ValueError instead of never matching)."""
        self.flags.update(PubFlag(flag) for flag in flags)

    def fail(self, result: FetchResult, again: PubFlag | QueuedLink) -> None:
        """Record a failed request: the entry is marked for a later fetch (fetchException) exactly when the request's
        :class:`~pubfetch.net.outcome.EntryPolicy` said so (``result.fetch_exception``), which is also when the
        request's line promised it (the policy comes from :func:`entry_policy`).

        ``again`` is what asked: the flag the resource set when it asked, or the link it followed. When the failure
        may pass within minutes (:func:`worth_asking_again`), the end-of-run retry asks it, and only it, once more;
        otherwise the mark is lasting (:meth:`mark_lasting`).
        """
        if not result.fetch_exception:
            return
        if not worth_asking_again(result):
            self.mark_lasting(failure_word(result.kind))
            return
        self.pub.state.failed(failure_word(result.kind))
        if isinstance(again, PubFlag):
            self.again_flags.add(again)
        else:
            self.again_links.append(again)
        if result.retry_after:
            self.not_before = max(self.not_before, time.time() + result.retry_after)

    def mark_lasting(self, word: str) -> None:
        """Mark the entry for a later fetch (fetchException) for a failure of the kind ``word`` that this run does
        not ask again: the end-of-run retry keeps the mark (:attr:`lasting`), since only a later run asks it again
        and can tell whether it recurs."""
        self.pub.state.failed(word)
        self.lasting.append(word)

    def blocked(self, url: str, reason: str, args: FetcherArgs) -> None:
        """A bot gate, browser challenge or refusal came back instead of the page: nothing is taken from it, and the
        entry is marked for a later fetch (fetchException), as for any transient failure; the warning says what the
        retry rules make of that."""
        self.mark_lasting("blocked")
        log.warning("%s instead of the page at %s: nothing taken from it; %s", reason, url,
                    self.pub.state.retry_words(args))

    def unreadable(self) -> None:
        """A configured service answered with a body that is not what it serves (cut short, an error page with status
        200): a glitch of the service, so the entry is retried later (not asked again in this run: a lasting mark).
        Its line says so: :func:`mark_unreadable`."""
        self.mark_lasting("transient")


def mark_unreadable(args: FetcherArgs, states: Iterable[PubState]) -> str:
    """Mark the entries ``states`` asked for with an answer that could not be read (:meth:`PubState.unreadable`) and
    return the end of the warning that says so: the promise of a later fetch (:func:`~pubfetch.console.retry_note`,
    for a batch whether any of them is fetched again), or nothing when no entry was marked. The line and the mark
    come from here together, as a failed request's do from its :class:`~pubfetch.net.outcome.EntryPolicy`."""
    chosen = list(states)
    for state in chosen:
        state.unreadable()
    if not chosen:
        return ""
    return "; " + retry_note(any(state.pub.state.retried_later(args) for state in chosen))


def entry_policy(args: FetcherArgs, states: Iterable[PubState], *, publication: bool = True, service: bool = False,
                 answers: Mapping[OutcomeKind | int, str] | None = None, marks: bool = True) -> EntryPolicy:
    """The :class:`~pubfetch.net.outcome.EntryPolicy` of a request asked for ``states`` (one, or a batch's): what a
    failure means for their entries, and whether a later run fetches a marked one again (PubFetcher's retry rules;
    for a batch, whether any of them is)."""
    chosen = list(states)
    return EntryPolicy(publication=publication, service=service, answers=dict(answers or {}),
                       marks=marks and bool(chosen),
                       later=any(state.pub.state.retried_later(args) for state in chosen))


#: The words a failure is told in (FetchError, the run's problems): what the user can act on, not the mechanism.
_FAILURE_WORDS: Final = {
    OutcomeKind.NOT_FOUND: "not found",
    OutcomeKind.HTTP_ERROR: "refused",
    OutcomeKind.TIMEOUT: "timed out",
    OutcomeKind.FORBIDDEN_ADDRESS: "blocked",
    OutcomeKind.BAD_URL: "blocked",
    OutcomeKind.BAD_SCHEME: "blocked",
}


#: A page abandoned by its reader process, by how it ended (``reader_workers.Abandoned.kind``): a page too slow to read
#: or too large is a failure of that page (it marks the entry for a later fetch, perhaps with a larger budget); a
#: reader that raised is pubfetch's bug, and a run that was closing says nothing about the page.
ABANDONED_WORDS: Final = {"timeout": "page too slow to read", "memory": "page too large to read",
                          "died": "page too large to read"}


def failure_word(kind: OutcomeKind) -> str:
    """A failure in the words of :data:`_FAILURE_WORDS`; any other (busy, no connection, cut short) is transient."""
    return _FAILURE_WORDS.get(kind, "transient")


def worth_asking_again(result: FetchResult) -> bool:
    """Whether a failed request may well succeed if asked again in a minute: no answer came (timeout, connection,
    the server busy, an answer cut short) or the server failed (5xx). An answer that says something about the record
    (404 "no such record", 4xx refusals, oversized or unsupported bodies, redirect loops) is not asked again in the
    same run, whatever it means for fetchException."""
    if result.kind.transient or result.kind is OutcomeKind.IO_ERROR:
        return True
    return result.kind is OutcomeKind.HTTP_ERROR and (result.status or 0) >= 500
