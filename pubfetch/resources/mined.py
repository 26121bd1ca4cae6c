"""EFO and GO terms text-mined by Europe PMC, from the annotations API, many articles per request.

As in PubFetcher, a publication is asked by PMCID first and, if that gave nothing, by PMID; both only when the search
result said the article has text-mined terms. The annotations API takes a list of ``PMC:<id>`` / ``MED:<id>`` article
IDs, so one request serves up to ``annotations_batch`` publications.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pubfetch.extract.annotations import by_id, parse_annotations
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import MinedTerm
from pubfetch.resources.base import Context, chunks
from pubfetch.resources.pubrun import PubRun, RunFlag

log = logging.getLogger(__name__)

#: part -> (annotation type of the API, record field and name in messages)
KINDS = {
    PartName.efo: ("Experimental Methods", "efo"),
    PartName.go: ("Gene Ontology", "go"),
}

#: part -> (asked by PMCID, asked by PMID, answered)
_FLAGS = {
    PartName.efo: (RunFlag.EFO_PMCID, RunFlag.EFO_PMID, RunFlag.EFO),
    PartName.go: (RunFlag.GO_PMCID, RunFlag.GO_PMID, RunFlag.GO),
}


def _article_id(run: PubRun, part: PartName) -> str | None:
    """PMC:<PMCID> first, MED:<PMID> second, each once per fetch."""
    pub = run.pub
    by_pmcid, by_pmid, _ = _FLAGS[part]
    if pub.pmcid.content and not run.has(by_pmcid):
        run.set(by_pmcid)
        return f"PMC:{pub.pmcid.content}"
    if pub.pmid.content and not run.has(by_pmid):
        run.set(by_pmid)
        return f"MED:{pub.pmid.content}"
    return None


def wants_mined(ctx: Context, run: PubRun, part: PartName) -> bool:
    """Whether the next pass for ``part`` asks for this publication (what :func:`fetch_mined` selects, unmarked)."""
    pub = run.pub
    by_pmcid, by_pmid, answered = _FLAGS[part]
    if run.has(answered) or not run.has(RunFlag.EPMC_HAS_MINED) or ctx.is_final(pub, (part,)):
        return False
    return bool((pub.pmcid.content and not run.has(by_pmcid)) or (pub.pmid.content and not run.has(by_pmid)))


def fetch_mined(ctx: Context, runs: Sequence[PubRun], part: PartName) -> None:
    """One pass of PubFetcher's fetchEuropepmcMinedTerms(Efo|Go) over a batch (the chain makes two)."""
    api_type, prefix = KINDS[part]
    answered = _FLAGS[part][2]
    todo: list[tuple[PubRun, str]] = []
    for run in runs:
        if not wants_mined(ctx, run, part):
            continue
        article = _article_id(run, part)
        if article is not None:
            todo.append((run, article))
    for chunk in chunks(todo, ctx.config.batching.annotations_batch):
        articles = list(dict.fromkeys(article for _, article in chunk))
        params = {"articleIds": ",".join(articles), "type": api_type, "format": "JSON"}
        url = ctx.endpoints.europepmc_annotations + "annotationsByArticleIds"
        result = ctx.client.get(url, params=params, publication=True, headers={"Accept": "application/json"})
        if not result.ok:
            by_pmcid, by_pmid, _ = _FLAGS[part]
            for run, article in chunk:
                run.fail_service(result, by_pmcid if article.startswith("PMC:") else by_pmid)
            continue
        try:
            by_article = by_id(parse_annotations(result.body))
        except ValueError as e:
            log.warning("unreadable annotations from %s: %s", result.url, e)
            for run, _ in chunk:
                run.unreadable()
            continue
        for run, article in chunk:
            record = by_article.get(article.partition(":")[2])
            terms: list[MinedTerm] = list(getattr(record, prefix)) if record is not None else []
            if not terms:
                log.info("no %s terms for %s", prefix.upper(), article)
                continue
            run.set(answered)
            single = f"{url}?articleIds={article.replace(':', '%3A')}&type={api_type.replace(' ', '%20')}&format=JSON"
            setter = run.pub.set_efo if part is PartName.efo else run.pub.set_go
            if ctx.wants(part):
                setter(terms, PartType.europepmc, single, ctx.args)
