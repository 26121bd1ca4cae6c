"""What the resources of the scholarly APIs (Crossref, OpenAlex, DataCite, bioRxiv/medRxiv) share: asking one list of
DOIs in as few requests as the service takes, handing each publication the record of its DOI, and merging it.

Their answers carry two kinds of thing. Content (title, abstract, authors, the bibliographic fields, funding, licence,
references) is taken only for a publication whose title and abstract the earlier resources did not finish; what no other
resource says as well (updates, relations, the source's retraction verdict, a citation count where Europe PMC gave none)
is taken for every DOI. Updates and relations are joined to what other sources said (a Crossref correction beside
PubMed's retraction), not offered as a replacement. One request serves both kinds: the answer is the same. """

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence

from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import RichName
from pubfetch.net.outcome import EntryPolicy, FetchResult, OutcomeKind
from pubfetch.resources.base import Context, chunks, email_address
from pubfetch.resources.pubstate import PubFlag, PubState, entry_policy, mark_unreadable

log = logging.getLogger(__name__)

#: the parts that, once final, leave nothing for a scholarly API's content to improve
FINISHED_PARTS = (PartName.title, PartName.theAbstract)


def contact(ctx: Context, setting: str, service: str, cost: str) -> str:
    """The contact address of ``setting`` to send to ``service``, or "" after saying once what its absence costs (an
    address that is not one is said to be so)."""
    given = str(getattr(ctx.config.run, setting)).strip()
    address = email_address(given)
    if not address:
        why = f"'{given}' ({setting}) is not an address (NAME@DOMAIN)" if given else "none is set"
        ctx.warn_once(f"{service}-contact", f"{service} is asked without a contact address, {cost}: {why}; set "
                      f"PUBFETCH_{setting.upper()} or --{setting.replace('_', '-')}")
    return address


def take(ctx: Context, states: Sequence[PubState], wants: Callable[[Context, PubState], bool],
         asked: PubFlag) -> list[tuple[PubState, str]]:
    """The publications a service's step asks for (``wants``), each with its DOI, marked ``asked`` so that no later
    pass of the run asks the service again for them."""
    todo = []
    for state in states:
        if wants(ctx, state):
            state.set(asked)
            todo.append((state, state.pub.doi.content))
    return todo


def doi_key(doi: str) -> str:
    """DOIs compared as the services return them (case does not matter)."""
    return doi.strip().lower()


def finished(ctx: Context, state: PubState) -> bool:
    return ctx.is_final(state.pub, FINISHED_PARTS)


def ask_in_batches(ctx: Context, todo: Sequence[tuple[PubState, str]], size: int,
                   request: Callable[[list[str], EntryPolicy], FetchResult],
                   parse: Callable[[bytes], list[ArticleRecord]],
                   asked: PubFlag, apply: Callable[[PubState, ArticleRecord, str], None], what: str) -> None:
    """Ask the DOIs of ``todo`` in requests of at most ``size`` DOIs and apply each DOI's record to its publication; a
    failed request is each of its publications' failure (``asked`` is what the end-of-run retry asks again)."""
    for chunk in chunks(todo, size):
        dois = list(dict.fromkeys(doi for _, doi in chunk))
        # a 404: the one DOI of a work request is unknown there, nothing to retry; a 400 for a list: one DOI the
        # service refuses costs only its own answer
        answers: dict[OutcomeKind | int, str] = {404: f"{what} does not know this DOI"}
        if len(chunk) > 1:
            answers[400] = f"{what} refused the list of {len(dois)} DOIs: each is asked alone"
        result = request(dois, entry_policy(ctx.args, [state for state, _ in chunk], service=True, answers=answers))
        if not result.ok:
            if result.status == 400 and len(chunk) > 1:
                ask_in_batches(ctx, chunk, 1, request, parse, asked, apply, what)
                continue
            for state, _ in chunk:
                state.fail(result, asked)
            continue
        try:
            records = parse(result.body)
        except ValueError as e:
            log.warning("unreadable %s answer from %s: %s%s", what, result.url, e,
                        mark_unreadable(ctx.args, [state for state, _ in chunk]))
            continue
        found: dict[str, ArticleRecord] = {}
        for record in records:
            found.setdefault(doi_key(record.doi), record)
        for state, doi in chunk:
            mine = found.get(doi_key(doi))
            if mine is not None:
                apply(state, mine, result.url)


def merge(ctx: Context, state: PubState, record: ArticleRecord, type_: PartType, url: str) -> None:
    """Merge a scholarly API's record: content only when the earlier resources left it unfinished, the rest always;
    updates and relations joined to the other sources'."""
    pub = state.pub
    content = not finished(ctx, state)
    joined: dict[RichName, list] = {RichName.updates: record.updates, RichName.relations: record.relations}
    # for a paper in PubMed, Europe PMC's citation count is kept: the two count different sets of citing papers
    outside = pub.citations_count < 0 or not (pub.pmid.content or pub.pmcid.content)
    count = record.citations_count if outside else None
    rest = dataclasses.replace(record, citations_count=count, updates=[], relations=[])
    types: dict[PartName | RichName, PartType] = {name: type_ for name in (*PartName, *RichName)}
    apply_record(pub, rest, types, url, ctx.args, parts=ctx.parts if content else frozenset(), rich=ctx.rich_parts)
    for name, items in joined.items() if ctx.rich_parts else ():
        pub.join_rich(name, items, type_, url)
