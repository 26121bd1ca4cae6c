"""NCBI's resource (pubfetch/resources/ncbi.py) called directly, over the in-process services: efetch ID lists for a
batch (split at ``efetch_batch``, POSTed when long or when an API key is sent), MeSH unique IDs filled without
replacing a final part, PMC's JATS by PMCID number, and the PubMed page read, or refused when it is a bot gate."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

from pubfetch.model.part_type import PartType
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import europepmc, ncbi
from pubfetch.resources.pubstate import PubFlag
from support.fetchrun import fetch_run
from support.synthetic import Article

PUBMED_PAGE = Path(__file__).parent / "data" / "documents" / "pubmed" / "article_page.html"


def test_pubmed_xml_of_a_batch_is_one_efetch_and_each_part_names_its_own_url() -> None:
    run = fetch_run(3)
    states = [run.pub_state(Article(i).pmid) for i in range(3)]
    with run.context() as ctx:
        ncbi.fetch_pubmed_xml(ctx, states)
    assert run.services.counts["efetch_pubmed"] == 1
    assert run.services.ids_asked["efetch_pubmed"] == {Article(i).pmid: 1 for i in range(3)}
    assert [r.pub.title.content for r in states] == [Article(i).title for i in range(3)]
    assert all(r.pub.title.type is PartType.pubmed_xml for r in states)
    assert states[2].pub.title.url.endswith(f"efetch.fcgi?retmode=xml&db=pubmed&id={Article(2).pmid}")
    assert [t.unique_id for t in states[0].pub.mesh.items] == ["D006801", "D012984", "D019295"]
    assert states[0].pub.pmcid.content == Article(0).pmcid  # PubMed knows the open-access one's PMCID


def test_id_lists_are_split_at_the_efetch_batch_size() -> None:
    run = fetch_run(5, efetch_batch=2)
    states = [run.pub_state(Article(i).pmid) for i in range(5)]
    with run.context() as ctx:
        ncbi.fetch_pubmed_xml(ctx, states)
    assert [len(parse_qs(r.url.split("?", 1)[1])["id"][0].split(",")) for r in run.transport.sent] == [2, 2, 1]
    assert all(r.pub.title.content for r in states)


def test_short_lists_go_in_the_url_long_lists_and_api_keys_in_a_post_body() -> None:
    short = fetch_run(2)
    with short.context() as ctx:
        ncbi.efetch(ctx, "pubmed", short.services.pmids())
    assert [r.method for r in short.transport.sent] == ["GET"]
    long = fetch_run(ncbi.POST_FROM)
    with long.context() as ctx:
        ncbi.efetch(ctx, "pubmed", long.services.pmids())
    assert [r.method for r in long.transport.sent] == ["POST"]
    keyed = fetch_run(1, ncbi_api_key="secret-key")
    with keyed.context() as ctx:
        assert ncbi.efetch(ctx, "pubmed", keyed.services.pmids()).ok
    [sent] = keyed.transport.sent
    assert sent.method == "POST" and "secret-key" not in sent.url
    assert dict(sent.data)["api_key"] == "secret-key"


def test_mesh_terms_without_unique_ids_get_them_and_keep_their_source() -> None:
    run = fetch_run(2)
    states = [run.pub_state(Article(i).pmid) for i in range(2)]
    with run.context() as ctx:
        europepmc.fetch_search(ctx, states)  # MeSH names, final, without unique IDs
        assert all(ncbi.wants_pubmed_xml(ctx, r) for r in states)
        ncbi.fetch_pubmed_xml(ctx, states)
        assert not any(ncbi.wants_pubmed_xml(ctx, r) for r in states)
    oa = states[0]  # final after the search: PubMed is asked for the unique IDs only
    assert oa.pub.mesh.type is PartType.europepmc and oa.pub.title.type is PartType.europepmc
    assert [t.unique_id for t in oa.pub.mesh.items] == ["D006801", "D012984", "D019295"]
    assert oa.has(PubFlag.MESH_IDS) and not oa.has(PubFlag.PUBMED_XML)


def test_a_failed_efetch_for_unique_ids_only_is_no_fetch_exception() -> None:
    run = fetch_run(2)
    states = [run.pub_state(Article(i).pmid) for i in range(2)]
    with run.context() as ctx:
        europepmc.fetch_search(ctx, states)
        run.services.failing.add("ncbi")
        ncbi.fetch_pubmed_xml(ctx, states)
    oa, closed = states
    assert not oa.pub.state.fetch_exception  # it only wanted a detail
    assert closed.pub.state.fetch_exception and closed.again_flags == {PubFlag.PUBMED_XML_PMID}


def test_pmc_xml_is_asked_by_pmcid_number_and_gives_the_full_text() -> None:
    run = fetch_run(4)
    states = [run.pub_state(Article(i).pmcid) for i in (0, 2)]
    with run.context() as ctx:
        ncbi.fetch_pmc_xml(ctx, states)
        assert not any(ncbi.wants_pmc_xml(ctx, r) for r in states)
    assert set(run.services.ids_asked["efetch_pmc"]) == {Article(0).pmcid[3:], Article(2).pmcid[3:]}
    assert all(r.pub.fulltext.type is PartType.pmc_xml and r.has(PubFlag.PMC_XML) for r in states)


def test_the_pubmed_page_gives_title_and_abstract() -> None:
    run = fetch_run(1)
    run.transport.answers[run.services.base + "/pubmed/*"] = Canned(200, PUBMED_PAGE.read_bytes())
    page = run.pub_state("33300001")
    with run.context() as ctx:
        ncbi.fetch_pubmed_html(ctx, [page])
        ncbi.fetch_pubmed_html(ctx, [page])  # asked once
    assert len(run.transport.sent) == 1
    assert page.pub.title.content == "Tracing tool mentions in abstracts with a rule-based tagger"
    assert page.pub.title.type is PartType.pubmed_html and page.pub.abstract.content


def test_a_bot_gate_instead_of_the_pubmed_page_is_a_failure_not_content() -> None:
    run = fetch_run(1)
    gate = ('<html><head><title>pubmed.ncbi.nlm.nih.gov</title></head><body><div id="cookie-required">'
            "Cookies must be enabled</div></body></html>")
    run.transport.answers[run.services.base + "/pubmed/*"] = Canned(200, gate)
    page = run.pub_state(Article(0).pmid)
    with run.context() as ctx:
        ncbi.fetch_pubmed_html(ctx, [page])
    assert page.pub.title.is_empty()
    assert page.pub.state.fetch_exception
