"""The synthetic scholarly APIs (tests/support/synthetic_apis.py) through a whole fetch of non-PubMed DOIs, in
process: each DOI goes to its agency's service once, Crossref and OpenAlex in batches, and the parts are the
synthetic answers' (the benchmark, benchmarks/scholarly.py, runs the same services on hosts of their own)."""

from __future__ import annotations

from pubfetch.model.part_type import PartType
from pubfetch.model.rich import Update
from support.fetchrun import fetch_run
from support.scholarly_runs import SCHOLARLY_ON
from support.synthetic_apis import PATHS, add_scholarly_apis, dois


def test_a_run_of_non_pubmed_dois():
    run = fetch_run(40, **{**SCHOLARLY_ON, "ask_biorxiv": False, "crossref_batch": 50, "openalex_batch": 50})
    add_scholarly_apis(run.services)
    base = run.services.base
    run.config = run.config.with_changes(**{name: base + path for name, path in PATHS.items()})
    wanted = dois(40)
    pubs = {p.doi.content: p for p in run.fetch(wanted)}
    counts, asked = run.services.counts, run.services.ids_asked
    assert set(pubs) == {d.upper() for d in wanted}
    assert counts["doi_ra"] == 1  # two prefixes, one lookup
    assert counts["crossref"] <= 2 and counts["openalex"] <= 2 and counts["datacite"] <= 1  # batches
    crossref_dois = [d for d in wanted if d.startswith("10.5556")]
    assert all(asked["openalex"][d] == 1 for d in wanted)
    assert all(asked["crossref"][d] == 2 for d in crossref_dois)  # its work, and the notices updating it
    paper, retracted, dataset = pubs["10.5556/API.2"], pubs["10.5556/API.1"], pubs["10.5557/DATA.10"]
    assert (paper.title.type, paper.abstract.type) == (PartType.crossref, PartType.crossref)
    assert paper.citations_count == 2 and [r.doi for r in paper.references.items] == ["10.5556/API.3"]
    assert retracted.retracted and retracted.updates.items == [Update("RetractionIn", doi="10.5556/NOTICE.1")]
    assert dataset.title.type is PartType.datacite and not dataset.retracted
