"""Terms text-mined by Europe PMC, from the annotations API, many articles per request: EFO and GO (PubFetcher's
parts) and the other annotation types asked for (``--annotations``, the ``minedTerms`` part).

As in PubFetcher, a publication is asked by PMCID first and, if that gave nothing, by PMID; both only when the search
result said the article has text-mined terms. The annotations API takes a list of ``PMC:<id>`` / ``MED:<id>`` article
IDs, so one request serves up to ``annotations_batch`` publications. It is asked without a type: the answer then holds
every type, which is filtered here, so the GO passes take their terms from the answers the EFO passes received
(:attr:`PubState.annotations`) and an article ID is asked once per fetch, where PubFetcher asked once per type. An
answer that holds the article names its PMID and PMCID: asking by the other ID would bring the same annotations, so
the PMID is asked only when the PMCID's answer left the article out.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pubfetch.extract.annotations import by_id, parse_annotations
from pubfetch.model.mined_terms import OWN_PARTS, AnnotationType
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import MinedTerm
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import RichName
from pubfetch.resources.base import Context, chunks
from pubfetch.resources.pubstate import PubFlag, PubState, entry_policy, mark_unreadable

log = logging.getLogger(__name__)

#: part -> (annotation type of the API, record field and name in messages)
KINDS = {
    PartName.efo: (AnnotationType.experimental_methods, "efo"),
    PartName.go: (AnnotationType.gene_ontology, "go"),
}

#: part -> (asked by PMCID, asked by PMID, answered)
_FLAGS = {
    PartName.efo: (PubFlag.EFO_PMCID, PubFlag.EFO_PMID, PubFlag.EFO),
    PartName.go: (PubFlag.GO_PMCID, PubFlag.GO_PMID, PubFlag.GO),
}


def _article_id(state: PubState, part: PartName) -> str | None:
    """PMC:<PMCID> first, MED:<PMID> second, each once per fetch."""
    pub = state.pub
    by_pmcid, by_pmid, _ = _FLAGS[part]
    if pub.pmcid.content and not state.has(by_pmcid):
        state.set(by_pmcid)
        return f"PMC:{pub.pmcid.content}"
    if pub.pmid.content and not state.has(by_pmid):
        state.set(by_pmid)
        return f"MED:{pub.pmid.content}"
    return None


def _other_types(ctx: Context) -> frozenset[AnnotationType]:
    return ctx.config.run.annotations - OWN_PARTS


def _needs(ctx: Context, state: PubState, part: PartName) -> bool:
    """Whether the publication still needs what a pass for ``part`` brings: the part itself (its type asked for, not
    final, not answered), or the other types asked for (not yet taken)."""
    pub = state.pub
    own = (KINDS[part][0] in ctx.config.run.annotations and not state.has(_FLAGS[part][2])
           and not ctx.is_final(pub, (part,)))
    others = bool(_other_types(ctx)) and not state.has(PubFlag.MINED_TERMS) and pub.mined_terms.is_empty()
    return own or others


def wants_mined(ctx: Context, state: PubState, part: PartName) -> bool:
    """Whether the next pass for ``part`` asks for this publication (what :func:`fetch_mined` selects, unmarked)."""
    pub = state.pub
    by_pmcid, by_pmid, _ = _FLAGS[part]
    if not state.has(PubFlag.EPMC_HAS_MINED) or not _needs(ctx, state, part):
        return False
    return bool((pub.pmcid.content and not state.has(by_pmcid)) or (pub.pmid.content and not state.has(by_pmid)))


def _take(ctx: Context, state: PubState, part: PartName, article: str, record: ArticleRecord | None, url: str) -> None:
    """What the answer for ``article`` gives the publication: the part's terms, the other types asked for, and the
    other part's terms when that part is not answered yet (the answer holds every type: the other part's own request
    would bring the same, or failed, unreadable or busy, and its terms would be missing from a final entry)."""
    single = f"{url}?articleIds={article.replace(':', '%3A')}&format=JSON"
    others = _other_types(ctx)
    typed = [t for t in (record.mined_terms if record is not None else []) if t.type in others]
    if typed and not state.has(PubFlag.MINED_TERMS) and state.pub.set_rich(RichName.mined_terms, typed,
                                                                      PartType.europepmc, single):
        state.set(PubFlag.MINED_TERMS)
    _take_terms(ctx, state, part, record, single, article)
    other = PartName.go if part is PartName.efo else PartName.efo
    if record is not None and not state.has(_FLAGS[other][2]) and not ctx.is_final(state.pub, (other,)):
        _take_terms(ctx, state, other, record, single, None)


def _take_terms(ctx: Context, state: PubState, part: PartName, record: ArticleRecord | None, single: str,
                article: str | None) -> None:
    """The part's terms from an answer, when its type is asked for; ``article``: the ID its own pass asked, named in
    the line that says it has none."""
    api_type, prefix = KINDS[part]
    if api_type not in ctx.config.run.annotations:
        return
    terms: list[MinedTerm] = list(getattr(record, prefix)) if record is not None else []
    if not terms:
        if article is not None:
            log.info("no %s terms for %s", prefix.upper(), article)
        return
    state.set(_FLAGS[part][2])
    setter = state.pub.set_efo if part is PartName.efo else state.pub.set_go
    if ctx.wants(part):
        setter(terms, PartType.europepmc, single, ctx.args)


def fetch_mined(ctx: Context, states: Sequence[PubState], part: PartName) -> None:
    """One pass of PubFetcher's fetchEuropepmcMinedTerms(Efo|Go) over a batch (the chain makes two of each); an
    article ID answered in an earlier pass of this fetch is not asked again."""
    url = ctx.endpoints.europepmc_annotations + "annotationsByArticleIds"
    todo: list[tuple[PubState, str]] = []
    for state in states:
        if not wants_mined(ctx, state, part):
            continue
        article = _article_id(state, part)
        if article is None:
            continue
        if article in state.annotations:
            _take(ctx, state, part, article, state.annotations[article], url)
        else:
            todo.append((state, article))
    for chunk in chunks(todo, ctx.config.batching.annotations_batch):
        articles = list(dict.fromkeys(article for _, article in chunk))
        params = {"articleIds": ",".join(articles), "format": "JSON"}
        policy = entry_policy(ctx.args, [state for state, _ in chunk], service=True)
        result = ctx.client.get(url, params=params, publication=True, headers={"Accept": "application/json"},
                                entry=policy)
        if not result.ok:
            by_pmcid, by_pmid, _ = _FLAGS[part]
            for state, article in chunk:
                state.fail(result, by_pmcid if article.startswith("PMC:") else by_pmid)
            continue
        try:
            by_article = by_id(parse_annotations(result.body))
        except ValueError as e:
            log.warning("unreadable annotations from %s: %s%s", result.url, e,
                        mark_unreadable(ctx.args, [state for state, _ in chunk]))
            continue
        for state, article in chunk:
            record = by_article.get(article.partition(":")[2])
            state.annotations[article] = record
            if record is not None:  # the article's answer, whichever of its IDs asks for it
                state.annotations.update({f"MED:{record.pmid}": record} if record.pmid else {})
                state.annotations.update({f"PMC:{record.pmcid}": record} if record.pmcid else {})
            _take(ctx, state, part, article, record, url)
