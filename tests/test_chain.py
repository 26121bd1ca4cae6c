"""The batched chain against counting synthetic services: requests per batch, equality with one-at-a-time fetching,
failures of one service, re-runs after cooldowns, part selection and the database round trip.

The services answer in this process (``support.fetchrun``); the library calls and the check that in-process answers
equal the answers over sockets use the loopback server."""

from __future__ import annotations

import pytest

from pubfetch.config import FetchConfig
from pubfetch.fetcher import BatchSummary, fetch, fetch_many
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.model.rich import RichName
from pubfetch.store import init_db
from support.fetchrun import chain_config, fetch_run, run_context
from support.loopback import Reply
from support.pdfs import make_pdf
from support.synthetic import Article, SyntheticServices, per_publication


def run(services: SyntheticServices, ids: list[str], **changes) -> list[Publication]:
    """Over a socket: the loopback services, with the chain tests' settings."""
    cfg = chain_config(services, **changes)
    with run_context(cfg) as ctx:
        return list(fetch_many(ids, config=cfg, context=ctx))


def comparable(pub: Publication) -> dict:
    d = pub.to_json()
    for key in [k for k in d if "ime" in k or k.startswith("citationsTimestamp")]:
        d.pop(key)
    for part in [*(n.value for n in PartName), *(n.value for n in RichName)]:  # every part, when it was set
        d[part] = {k: v for k, v in d[part].items() if not k.startswith("timestamp")}
    d["visitedSites"] = [{k: v for k, v in s.items() if not k.startswith("timestamp")} for s in d["visitedSites"]]
    return d


def test_two_hundred_pmids_cost_a_handful_of_requests_and_equal_one_at_a_time():
    services = SyntheticServices(200)
    pmids = services.pmids()
    batched = fetch_run(services, batch_size=200).fetch(pmids)
    batch_counts = services.counts.copy()
    batch_asked = services.ids_asked["efetch_pubmed"].copy()
    services.counts.clear()
    single = fetch_run(services, batch_size=1).fetch(pmids[:20])
    single_counts = services.counts.copy()
    assert batch_counts["europepmc_search"] == 1
    # the closed-access half (released together by the search) in one request while the open-access half is still at
    # Europe PMC's full texts; the open-access half after them, in one or two (a full text that had not queued yet
    # when the first ones were done rides alone): never one per publication
    assert batch_counts["efetch_pubmed"] <= 3
    assert batch_asked == {pmid: 1 for pmid in pmids}
    assert batch_counts["annotations"] <= 2  # one for every type for the open-access articles, as they come
    assert batch_counts["europepmc_fulltext"] == 100  # one per open-access PMCID
    assert batch_counts["efetch_pmc"] == 0  # the full texts from Europe PMC are final already
    # one at a time: the per-ID number of each
    assert single_counts["europepmc_search"] == 20
    # one each: the closed-access ones for their parts, the open-access ones (final before PubMed) for MeSH IDs only
    assert single_counts["efetch_pubmed"] == 20
    assert single_counts["annotations"] == 10  # one per open-access article: EFO and GO from one answer
    assert single_counts["europepmc_fulltext"] == 10
    assert [comparable(p) for p in batched[:20]] == [comparable(p) for p in single]


def test_content_of_a_fetched_publication():
    oa, closed = fetch_run(2).fetch(Article(i).pmid for i in range(2))
    a = Article(0)
    assert oa.pmid.content == a.pmid and oa.pmcid.content == a.pmcid and oa.doi.content == a.doi.upper()
    assert oa.title.content == a.title and oa.title.type is PartType.europepmc
    assert oa.keywords.items == a.keywords
    assert [m.term for m in oa.mesh.items] == ["Humans", "Software", "Computational Biology"]
    assert oa.fulltext.type is PartType.europepmc_xml
    assert oa.fulltext.content.startswith(a.title + "\n\n" + a.abstract + "\n\n")
    assert [(t.term, t.count) for t in oa.go.items] == [("signal transduction", 2), ("cell", 1)]
    assert [(t.term, t.uri) for t in oa.efo.items] == [("sequencing", "http://www.ebi.ac.uk/efo/EFO_0004170")]
    assert oa.oa and oa.journal_title == "Journal of Synthetic Biology"
    assert oa.is_final(FetchConfig().fetching)
    # the closed-access one has no full text source: IDs, title, abstract, MeSH, and a fetch that is not final
    assert closed.pmcid.content == "" and not closed.oa
    assert closed.fulltext.is_empty() and not closed.is_final(FetchConfig().fetching)
    # MeSH came final from Europe PMC (which gives no unique IDs), so PubMed's did not replace it; its IDs were filled
    assert [m.term for m in closed.mesh.items][1] == "Software" and closed.mesh.type is PartType.europepmc
    assert [m.unique_id for m in closed.mesh.items] == ["D006801", "D012984", "D019295"]
    assert not closed.state.fetch_exception  # doi.org 404 and Unpaywall 404 are lasting answers


def test_one_service_down_leaves_entries_retryable_and_a_rerun_completes_them(tmp_path):
    db_path = tmp_path / "pubs.db"
    init_db(db_path).close()
    run = fetch_run(4)
    services = run.services
    services.failing.add("europepmc_search")
    first = run.fetch(services.pmids(), db=str(db_path))
    assert all(p.state.fetch_exception for p in first)
    # filled from PubMed meanwhile
    assert all(p.title.type is PartType.pubmed_xml for p in first)
    assert first[0].pmcid.content == Article(0).pmcid  # PubMed knows the PMCID; PMC gave the full text
    services.failing.clear()
    services.counts.clear()
    # within the fetchException cooldown, retryLimit (3) still allows attempts
    second = run.fetch(services.pmids(), db=str(db_path))
    assert services.counts["europepmc_search"] == 1
    assert not any(p.state.fetch_exception for p in second)
    # Europe PMC's facts arrived (a tie between final types keeps the title PubMed gave)
    assert [p.citations_count for p in second] == [0, 1, 2, 3]
    assert [p.oa for p in second] == [True, False, True, False]
    # first run: the fetch and its final retry (counter 1); this run: the second retry
    assert [p.state.retry_counter for p in second] == [2, 2, 2, 2]


def test_final_entries_are_not_fetched_again(tmp_path):
    db_path = tmp_path / "pubs.db"
    init_db(db_path).close()
    run = fetch_run(2)
    run.fetch([Article(0).pmid], db=str(db_path))
    run.services.counts.clear()
    summary = BatchSummary()
    [again] = run.fetch([Article(0).pmid], db=str(db_path), summary=summary)
    assert sum(run.services.counts.values()) == 0
    assert summary.skipped == 1 and summary.final == 1
    assert again.title.content == Article(0).title


def test_fetch_part_limits_what_is_fetched():
    run = fetch_run(2, parts=frozenset({PartName.title, PartName.theAbstract}))
    [pub] = run.fetch([Article(0).pmid])
    assert pub.title.content and pub.abstract.content
    assert pub.keywords.is_empty() and pub.mesh.is_empty() and pub.fulltext.is_empty()
    assert run.services.counts["europepmc_fulltext"] == 0 and run.services.counts["annotations"] == 0


def test_fetch_by_pmcid_and_doi_find_the_same_publication():
    run = fetch_run(2)
    by_pmid, by_pmcid, by_doi = (run.fetch([x])[0] for x in (Article(0).pmid, Article(0).pmcid, Article(0).doi))
    assert by_pmid.ids == by_pmcid.ids == by_doi.ids


def test_library_fetch_with_options():
    with SyntheticServices(1) as services:
        pub = fetch(Article(0).pmid, config=chain_config(services))
    assert pub.title.content == Article(0).title


def test_library_calls_share_the_rate_limits_unless_told_not_to(tmp_path, monkeypatch):
    import sqlite3

    rates = tmp_path / "rates.sqlite"
    monkeypatch.setenv("PUBFETCH_RATE_DB", str(rates))
    with SyntheticServices(2) as services:
        list(fetch_many(services.pmids(), config=chain_config(services, rate_limits=True), rate_limits=False))
        assert not rates.exists()
        list(fetch_many(services.pmids(), config=chain_config(services, rate_limits=True)))
    with sqlite3.connect(rates) as db:
        booked = {key for (key,) in db.execute("SELECT key FROM schedule")}
    # every service the chain asked took its permits from the shared file
    assert booked == {"europepmc", "europepmc_annotations", "ncbi", "doi", "unpaywall"}


def test_bad_id_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown publication ID 'nonsense'"):
        fetch("nonsense", config=FetchConfig())


def test_doi_page_then_its_pdf_link_give_the_full_text():
    closed = Article(1)  # closed access: no full text from Europe PMC or PMC
    sentence = "The synthetic article's text goes on in its PDF, page after page, as a journal's PDF does. " * 5
    pdf = make_pdf([f"{closed.title}. doi:{closed.doi}"] + [sentence] * 50, info={"Title": closed.title.encode()})
    services = SyntheticServices(2)
    page = (f'<html><head><title>{closed.title} | Synthetic Journal</title>'
            f'<meta name="citation_title" content="{closed.title}">'
            f'<meta name="citation_pdf_url" content="{services.base}/files/paper.pdf"></head>'
            f"<body><h1>{closed.title}</h1><p>Short landing page.</p></body></html>")
    services.extra[f"/doi/{closed.doi.upper()}"] = Reply(302, "", "text/plain",
                                                         {"Location": f"{services.base}/article/1"})
    services.extra["/article/1"] = Reply(200, page)
    services.extra["/files/paper.pdf"] = Reply(200, pdf, "application/pdf")
    [pub] = fetch_run(services).fetch([closed.pmid])
    assert services.counts["extra:/article/1"] == 1 and services.counts["extra:/files/paper.pdf"] == 1
    assert pub.fulltext.type is PartType.pdf_citation
    assert len(pub.fulltext.content) > 20_000
    assert [s.url for s in pub.visited_sites] == [f"{services.base}/article/1", f"{services.base}/files/paper.pdf"]
    assert pub.visited_sites[0].type is PartType.doi and pub.visited_sites[1].type is PartType.pdf_citation


def test_update_citations_asks_one_search_for_the_batch():
    from pubfetch.resources.europepmc import update_citations

    run = fetch_run(5)
    pubs = [run.pub_state(p).pub for p in run.services.pmids()]
    with run.context() as ctx:
        assert update_citations(ctx, pubs) == 5
    assert run.services.counts["europepmc_search"] == 1
    assert [p.citations_count for p in pubs] == [0, 1, 2, 3, 4]
    assert all(p.citations_timestamp > 0 for p in pubs)


def test_in_process_services_give_what_the_loopback_services_give():
    with SyntheticServices(6) as services:
        over_sockets = run(services, services.pmids())
        socket_counts, socket_ids = services.counts.copy(), {k: v.copy() for k, v in services.ids_asked.items()}
        services.counts.clear()
        services.ids_asked.clear()
        in_process_pubs = fetch_run(services).fetch(services.pmids())
        assert per_publication(services.counts) == per_publication(socket_counts)
        assert services.ids_asked == socket_ids  # the batched services asked for the same IDs, however grouped
    assert socket_counts["europepmc_search"] == 1 and socket_counts["europepmc_fulltext"] == 3
    assert [comparable(p) for p in in_process_pubs] == [comparable(p) for p in over_sockets]


def test_in_process_failing_service_marks_entries_for_retry():
    run = fetch_run(4)
    run.services.failing.add("europepmc_search")
    pubs = run.fetch(run.services.pmids())
    assert all(p.state.fetch_exception for p in pubs)
    assert [p.title.type for p in pubs] == [PartType.pubmed_xml] * 4
def test_each_publication_asks_the_services_in_the_order_it_would_alone():
    """The flow changes when requests go out and what they are batched with, never which services a publication asks
    nor in which order: the services asked on behalf of each publication, in order, batched and one at a time."""
    import re
    import threading
    from urllib.parse import unquote

    def asked_in_order(batch_size: int) -> dict[int, list[str]]:
        run = fetch_run(12, batch_size=batch_size)
        transport = run.transport
        sent: list[str] = []
        lock = threading.Lock()
        inner = transport.answer_for

        def logging_answer(request):
            data = request.data
            text = unquote(request.url) + " " + (unquote(str(dict(data))) if data else "")
            with lock:
                sent.append(text)
            return inner(request)

        transport.answer_for = logging_answer  # type: ignore[method-assign]
        run.fetch(run.services.pmids())
        order: dict[int, list[str]] = {}
        for i in range(12):
            a = Article(i)
            mine = re.compile(rf"(?<!\d)({a.pmid}|{a.pmcid or 'none'}|{a.pmcid[3:] or 'none'})(?!\d)|"
                              rf"{re.escape(a.doi)}(?!\d)", re.IGNORECASE)
            order[i] = [_service_of(text) for text in sent if mine.search(text)]
        return order

    batched, alone = asked_in_order(12), asked_in_order(1)
    assert batched == alone
    # final after its full text: no publisher, no Unpaywall; PubMed only for the unique IDs of its MeSH terms
    assert batched[0] == ["search", "fulltext", "annotations", "efetch pubmed"]
    assert batched[1] == ["search", "efetch pubmed", "doi", "unpaywall"]


def _service_of(text: str) -> str:
    for marker, name in (("/epmc/rest/search", "search"), ("fullTextXML", "fulltext"),
                         ("/epmc/annotations/", "annotations"), ("db=pubmed", "efetch pubmed"),
                         ("'db': 'pubmed'", "efetch pubmed"), ("db=pmc", "efetch pmc"), ("/pubmed/", "pubmed page"),
                         ("/doi/", "doi"), ("/unpaywall/", "unpaywall")):
        if marker in text:
            return name
    return text
