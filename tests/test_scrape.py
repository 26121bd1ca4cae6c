"""Applying scraping rules: the built-in rules on real publisher pages (corpus) and on pages shaped like the real sites
(tests/data/pages/), and the extraction details (IDs, keywords, corresponding authors, links, formatting)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubfetch.engine.assembly import builtin_rules
from pubfetch.extract.article_abstract import find_abstract
from pubfetch.extract.clean import parse_html
from pubfetch.extract.scrape import (
    WebpageContent,
    absolute_url,
    scrape_doi,
    scrape_journal,
    scrape_pmcid,
    scrape_pmid,
    scrape_webpage,
    select_first_text,
    select_text,
)
from pubfetch.model.parts import CorrespAuthor
from pubfetch.model.record import ArticleRecord, Link
from pubfetch.rules import ScrapingRules

PAGES = Path(__file__).resolve().parent / "data" / "pages"


def page(kind: str, name: str) -> bytes:
    return (PAGES / kind / name).read_bytes()


def journal_rules(text: str) -> ScrapingRules:
    rules = ScrapingRules()
    rules.add_journals(text, "test-journals.yaml")
    return rules


def webpage_rules(text: str) -> ScrapingRules:
    rules = ScrapingRules()
    rules.add_webpages(text, "test-webpages.yaml")
    return rules


# ------------------------------------------------------------------------------------------- webpage rules


WEBPAGES = [
    ("github_repo.html", "https://github.com/seqtools/seqkit-lite",
     "seqkit-lite",
     ("seqkit-lite\n\nseqkit-lite reads FASTA and FASTQ files, plain or gzipped, and prints statistics, subsequences and "
     "reverse complements.\n\nInstallation\n\npip install seqkit-lite\n\nPython 3.9 or newer\nno other dependencies\n\n"
     "A small toolkit for FASTA and FASTQ files"),
     "MIT license", "Python, Shell"),  # every language the page lists, joined as PubFetcher does
    ("gitlab_project.html", "https://gitlab.com/ezlab/busco-lite",
     "Busco lite",
     ("Assess genome assembly completeness with single-copy orthologs.\n\nUsage\n\nRun busco-lite on a genome assembly "
     "and choose the lineage dataset.\n\nbusco-lite -i genome.fa -l bacteria"),
     "", ""),
    ("bitbucket_repo.html", "https://bitbucket.org/genepi/resfind-lite",
     "resfind-lite",
     ("Identify acquired antimicrobial resistance genes in assembled genomes.\n\nresfind-lite\n\nresfind-lite blasts "
     "contigs against a curated database of resistance genes and reports hits above the identity and coverage "
     "thresholds.\n\nLicense\n\nApache License 2.0"),
     "", ""),
    ("sourceforge_project.html", "https://sourceforge.net/projects/alignview/",
     "AlignView",
     ("Interactive viewer for multiple sequence alignments\n\nAlignView opens alignments in FASTA, Clustal and Stockholm "
     "formats, colours residues by conservation and exports figures as SVG.\n\nZoom from whole alignment to single "
     "residues\nConservation and consensus tracks"),
     "GNU General Public License version 3.0 (GPLv3)", "Java"),
    ("readthedocs_page.html", "https://flowtrim.readthedocs.io/en/latest/installation.html",
     "Installation — flowtrim 2.1 documentation",
     "Installation¶\n\nflowtrim needs Python 3.8 or later.\n\nWith conda¶\n\nconda install -c bioconda flowtrim",
     "", ""),
    ("pypi_project.html", "https://pypi.org/project/pyfaidx-lite/",
     "pyfaidx-lite 0.8.1",
     ("Random access to FASTA subsequences\n\npyfaidx-lite\n\nIndex a FASTA file once with samtools faidx style indexes "
     "and then fetch any region without reading the whole file.\n\nfrom pyfaidx_lite import Fasta\n"
     'genome = Fasta("hg38.fa")'),
     "License: BSD License (BSD-3-Clause)", "Python"),
    ("cran_package.html", "https://cran.r-project.org/web/packages/seqtrimr/index.html",
     "seqtrimr: Trimming of Sequencing Reads",
     ("Quality and adapter trimming of short reads stored in 'FASTQ' files, with summary plots of the read length "
     "distribution before and after trimming.\n\nOmics"),
     "GPL-3", ""),
    ("bioconductor_package.html", "https://bioconductor.org/packages/release/bioc/html/countdiff.html",
     "countdiff",
     ("Differential analysis of count data with shrunken fold changes\n\nFits negative binomial models to count tables "
     "from RNA-seq experiments and shrinks the log fold changes of genes with low counts."),
     "LGPL (>= 3)", ""),
    ("bioconda_package.html", "https://anaconda.org/bioconda/bamstat",
     "bamstat",
     ("Summary statistics for BAM files\n\nbamstat walks a coordinate-sorted BAM file once and reports mapping rates, "
     "insert sizes and coverage per chromosome."),
     "License: MIT", ""),
    ("biotools_tool.html", "https://bio.tools/readmapper",
     "readmapper (biotools:readmapper) ID Verified",
     "Fast alignment of short reads to large reference genomes using a compressed suffix array.",
     "GPL-3.0", "C++"),
    ("toolshed_repository.html", "https://toolshed.g2.bx.psu.edu/view/devteam/bowtie_lite/",
     "bowtie_lite",
     ("Galaxy wrapper for mapping short reads with Bowtie\n\nMaps reads in FASTQ format against a prebuilt index\n"
     "and writes sorted BAM output."),
     "", ""),
    ("zenodo_record.html", "https://zenodo.org/records/7654321",
     "PeakCaller benchmark data set",
     ("ChIP-seq reads of three transcription factors together with manually curated reference peaks.\n\nThe files are "
     "meant for comparing the sensitivity of peak callers."),
     "Creative Commons Attribution 4.0 International", ""),
]  # fmt: skip


@pytest.mark.parametrize(("name", "url", "title", "content", "license_", "language"), WEBPAGES,
                         ids=[w[0].removesuffix(".html") for w in WEBPAGES])
def test_builtin_webpage_rules_on_site_shaped_pages(name: str, url: str, title: str, content: str, license_: str,
                                                    language: str) -> None:
    rule = builtin_rules().webpage_rule(url)
    assert rule is not None
    got = scrape_webpage(page("webpages", name), url, rule)
    assert got == WebpageContent(title=title, content=content, license=license_, language=language)


def test_webpage_rules_without_a_site_shaped_page_are_marked_untested() -> None:
    tested = {builtin_rules().webpage_rule(url).regex for _, url, *_ in WEBPAGES}
    without_page = [r for r in builtin_rules().webpage_rules if r.regex not in tested]
    assert len(without_page) < len(builtin_rules().webpage_rules) - 10
    # the others say so in their test entries (docs/rules.md counts them); test_rule_entries checks the flag
    assert [r.regex for r in without_page if not r.tests or not all(t.untested for t in r.tests)] == []


def test_github_readme_view_uses_the_markdown_only() -> None:
    url = "https://github.com/seqtools/seqkit-lite/blob/main/README.md"
    got = scrape_webpage(page("webpages", "github_repo.html"), url, builtin_rules().webpage_rule(url))
    assert got.title == "seqkit-lite"
    assert got.content.startswith("seqkit-lite\n\nseqkit-lite reads FASTA")
    assert got.content.endswith("no other dependencies")


NO_RULE_PAGE = b"""<html><head><title>Lab tools | Example lab</title>
<meta name="description" content="Software from the example lab."></head>
<body><nav><a href="/">Home</a></nav><main><h1>Our tools</h1><p>We write aligners.</p></main>
<footer>Contact us</footer></body></html>"""


def test_webpage_without_rule_is_cleaned_automatically() -> None:
    got = scrape_webpage(NO_RULE_PAGE, "https://lab.example/tools", None)
    assert got == WebpageContent(title="Lab tools | Example lab",
                                 content="Software from the example lab.\n\nOur tools\n\nWe write aligners.")


def test_webpage_rule_missing_and_empty_keys() -> None:
    rules = webpage_rules("""\
'a\\.example/':
  license: main p
'b\\.example/':
  title: ''
  content: ''
'c\\.example/':
  title: h1
  content: 'main > *'
  language: 'html > head > title'
""")
    a = scrape_webpage(NO_RULE_PAGE, "https://a.example/", rules.webpage_rule("https://a.example/"))
    assert a == WebpageContent(title="Lab tools | Example lab",
                               content="Software from the example lab.\n\nOur tools\n\nWe write aligners.",
                               license="We write aligners.")
    b = scrape_webpage(NO_RULE_PAGE, "https://b.example/", rules.webpage_rule("https://b.example/"))
    assert b == WebpageContent()
    c = scrape_webpage(NO_RULE_PAGE.decode(), "https://c.example/", rules.webpage_rule("https://c.example/"))
    assert c == WebpageContent(title="Our tools", content="Our tools\n\nWe write aligners.",
                               language="Lab tools | Example lab")


def test_ad_hoc_selectors() -> None:
    assert select_first_text(NO_RULE_PAGE, "https://x.example/", "main h1") == "Our tools"
    assert select_first_text(NO_RULE_PAGE, "https://x.example/", "article") == ""
    assert select_text(NO_RULE_PAGE, "https://x.example/", "main > *, nav") == "Home\n\nOur tools\n\nWe write aligners."
    assert select_text(NO_RULE_PAGE, "https://x.example/", "p:containsOwn(aligners)") == "We write aligners."
    with pytest.raises(ValueError, match="invalid CSS selector"):
        select_text(NO_RULE_PAGE, "https://x.example/", "main >")


# ------------------------------------------------------------------------------------------- journal rules


def _links(record: ArticleRecord) -> list[tuple[str, str, str]]:
    return [(link.url, link.kind, link.source) for link in record.links]


JOURNAL_PAGES = {
    "oup_nar.html": "https://academic.oup.com/nar/article/48/D1/D100/5600001",
    "bmc_article.html": "https://bmcbioinformatics.biomedcentral.com/articles/10.1186/s12859-020-01234-5",
    "nature_research.html": "https://www.nature.com/articles/s41467-021-99999-1",
    "wiley_article.html": "https://onlinelibrary.wiley.com/doi/full/10.1002/pro.4172",
    "sciencedirect_article.html": "https://www.sciencedirect.com/science/article/pii/S1532046421001064",
    "frontiers_article.html": "https://www.frontiersin.org/articles/10.3389/fmicb.2020.570000/full",
    "mdpi_article.html": "https://www.mdpi.com/1422-0067/22/4/1234",
    "biorxiv_article.html": "https://www.biorxiv.org/content/10.1101/2021.03.01.433300v1",
}


def scrape_page(name: str) -> ArticleRecord:
    url = JOURNAL_PAGES[name]
    rule = builtin_rules().journal_rule(url)
    assert rule is not None, url
    return scrape_journal(page("journals", name), url, rule)


def test_oxford_academic_nucleic_acids_research() -> None:
    r = scrape_page("oup_nar.html")
    assert r.doi == "10.1093/NAR/GKZ999"
    assert r.title == "GeneAtlas: an integrated resource of gene expression maps"
    assert r.keywords == ["gene expression", "atlas"]
    abstract = ("GeneAtlas collects expression maps of 20 000 genes in 40 tissues and makes them searchable by gene, "
                "tissue and developmental stage.\n\nThe web server is free and open to all users at "
                "https://geneatlas.example.org.")
    assert r.abstract == abstract
    assert r.fulltext == (
        f"{r.title}\n\n{abstract}\n\nINTRODUCTION\n\nExpression maps show where a gene is active. Many have been "
        "published, but they are scattered over journals and laboratory pages (1).\n\nMATERIALS AND METHODS\n\n"
        "Data collection\n\nImages and annotations were taken from 312 publications and harmonised to one ontology of "
        "tissues.\n\nFigure 1.\n\nOverview of the GeneAtlas data flow.")
    assert r.corresp_author == [CorrespAuthor(name="Peter Lind", email="peter.lind@example.se")]
    assert _links(r) == [("https://academic.oup.com/nar/article-pdf/48/D1/D100/5600001/gkz999.pdf", "pdf", "pdf_a")]


def test_biomed_central() -> None:
    r = scrape_page("bmc_article.html")
    assert r.doi == "10.1186/S12859-020-01234-5"
    assert r.title == "Fast k-mer counting on compressed reads"
    assert r.keywords == ["k-mer counting", "BWT"]
    abstract = ("Background\n\nCounting k-mers is the first step of many assemblers and error correctors.\n\nResults\n\n"
                "We count k-mers directly on reads compressed with a BWT, four times faster than on plain reads.")
    assert r.abstract == abstract
    assert r.fulltext == (f"{r.title}\n\n{abstract}\n\n1 Background\n\nSequencing output grows faster than storage 1."
                          "\n\n2 Implementation\n\nThe counter walks the BWT with a stack of intervals.")
    assert r.corresp_author == [CorrespAuthor(name="Tom Okafor", email="tom.okafor@example.ac.uk")]
    assert _links(r) == [("https://bmcbioinformatics.biomedcentral.com/counter/pdf/10.1186/s12859-020-01234-5",
                          "pdf", "pdf_a")]


def test_springer_link_uses_the_same_rule_as_bmc() -> None:
    url = "https://link.springer.com/article/10.1186/s12859-020-01234-5"
    r = scrape_journal(page("journals", "bmc_article.html"), url, builtin_rules().journal_rule(url))
    assert r.title == "Fast k-mer counting on compressed reads"
    assert r.doi == "10.1186/S12859-020-01234-5"


def test_nature_research_article() -> None:
    r = scrape_page("nature_research.html")
    assert r.doi == "10.1038/S41467-021-99999-1"
    assert r.title == "A cell atlas of the ageing fly brain"
    assert r.keywords == ["Ageing", "Neuroscience"]
    assert r.abstract == ("We profiled 150,000 single nuclei from fly brains at six ages and describe how each cell "
                          "type changes with age.")
    assert r.fulltext == (f"{r.title}\n\n{r.abstract}\n\nIntroduction\n\nAgeing changes the brain at every level.\n\n"
                          "Results\n\nAtlas construction\n\nNuclei were clustered into 86 cell types.")
    assert r.corresp_author == [CorrespAuthor(name="Jan Novak", email="jan.novak@example.cz"),
                                CorrespAuthor(name="Sara Lee", email="sara.lee@example.edu")]
    assert _links(r) == [("https://www.nature.com/articles/s41467-021-99999-1.pdf", "pdf", "pdf_a")]


def test_wiley() -> None:
    r = scrape_page("wiley_article.html")
    assert r.doi == "10.1002/PRO.4172"
    assert r.title == "Predicting protein stability changes with language models"
    assert r.keywords == ["protein stability", "language model"]
    assert r.abstract == ("Mutations that destabilise proteins cause disease. We fine-tune a protein language model "
                          "to predict stability changes of single mutations and reach a correlation of 0.71 on "
                          "held-out proteins.")
    assert r.fulltext == (f"{r.title}\n\n{r.abstract}\n\n1 INTRODUCTION\n\nStability is central to protein function.1"
                          "\n\n2 RESULTS\n\n2.1 Benchmark\n\nWe used 4000 mutations from 120 proteins.")
    assert r.corresp_author == [CorrespAuthor(name="Wei Chen", email="wei.chen@example.ca")]
    assert _links(r) == [("https://onlinelibrary.wiley.com/doi/pdfdirect/10.1002/pro.4172", "pdf", "pdf_src")]


def test_sciencedirect() -> None:
    r = scrape_page("sciencedirect_article.html")
    assert r.doi == "10.1016/J.JBI.2021.103777"
    assert r.title == "Graph neural networks for drug–target interaction prediction"
    assert r.keywords == ["Drug–target interaction", "Graph neural network"]
    assert r.abstract == ("Predicting which drugs bind which targets narrows the search for new medicines. We encode "
                          "both as graphs and train a neural network that outperforms sequence-based baselines on "
                          "three benchmarks.")
    assert r.fulltext == (f"{r.title}\n\n{r.abstract}\n\n1. Introduction\n\nDrug discovery is slow and expensive [1]."
                          "\n\n2. Methods\n\nEach molecule is a graph of atoms and bonds.")
    assert r.corresp_author == [CorrespAuthor(name="Luca Bianchi")]
    assert _links(r) == [(("https://www.sciencedirect.com/science/article/pii/S1532046421001064/pdfft?md5=0123456789ab"
                          "cdef&pid=1-s2.0-S1532046421001064-main.pdf"), "pdf", "pdf_a")]


def test_frontiers() -> None:
    r = scrape_page("frontiers_article.html")
    assert r.doi == "10.3389/FMICB.2020.570000"
    assert r.title == "Soil microbiome shifts after wildfire"
    assert r.keywords == ["wildfire", "soil microbiome", "fungal diversity", "16S rRNA"]
    assert r.abstract == ("Wildfires change the physical and chemical state of soil. We sequenced soil bacteria and "
                          "fungi at 30 sites before and after a fire and found that fungal diversity recovered more "
                          "slowly than bacterial diversity.\n\nFire-tolerant taxa dominated the first year after the "
                          "fire.")
    assert r.fulltext == (f"{r.title}\n\n{r.abstract}\n\nIntroduction\n\nFire frequency is rising across the western "
                          "United States (Abatzoglou, 2016).\n\nMaterials and Methods\n\nSampling\n\nCores were taken "
                          "from the top 10 cm of soil.")
    assert r.corresp_author == [CorrespAuthor(name="Nora Alvarez", email="nalvarez@example.edu")]
    assert _links(r) == [("https://www.frontiersin.org/articles/10.3389/fmicb.2020.570000/pdf", "pdf", "pdf_a")]


def test_mdpi() -> None:
    r = scrape_page("mdpi_article.html")
    assert r.doi == "10.3390/IJMS22041234"
    assert r.title == "Epigenetic Clocks in Cattle"
    assert r.keywords == ["DNA methylation", "ageing", "cattle"]
    assert r.abstract == ("DNA methylation changes with age in a predictable way. We built an epigenetic clock for "
                          "cattle from 800 blood samples that predicts age with a median error of 6 months.")
    assert r.fulltext == (f"{r.title}\n\n{r.abstract}\n\n1. Introduction\n\nChronological age is a key covariate in "
                          "livestock breeding.\n\n2. Results\n\nThe clock used 412 CpG sites.")
    assert r.corresp_author == []  # MDPI hides e-mails behind a captcha
    assert _links(r) == [("https://www.mdpi.com/1422-0067/22/4/1234/htm", "html", "fulltext_src"),
                         ("https://www.mdpi.com/1422-0067/22/4/1234/pdf?version=1613000000", "pdf", "pdf_a")]


def test_mdpi_full_text_page_links_to_nothing_new() -> None:
    url = "https://www.mdpi.com/1422-0067/22/4/1234/htm"
    r = scrape_journal(page("journals", "mdpi_article.html"), url, builtin_rules().journal_rule(url))
    assert [link.source for link in r.links] == ["pdf_a"]


def test_biorxiv() -> None:
    r = scrape_page("biorxiv_article.html")
    assert r.doi == "10.1101/2021.03.01.433300"
    assert r.title == "Long-read assembly of a polyploid wheat genome"
    assert r.keywords == []
    assert r.abstract == ("Bread wheat has a large hexaploid genome. We assembled it from long reads into 21 "
                          "chromosome-scale scaffolds.")
    assert r.fulltext == (f"{r.title}\n\n{r.abstract}\n\nIntroduction\n\nWheat feeds a fifth of humanity.\n\n"
                          "Results\n\nAssembly\n\nContig N50 was 12 Mb.")
    assert r.corresp_author == [CorrespAuthor(name="Kofi Mensah", email="kmensah@example.edu.gh")]
    assert _links(r) == [
        ("https://www.biorxiv.org/content/10.1101/2021.03.01.433300v1.full-text", "html", "fulltext_src"),
        ("https://www.biorxiv.org/content/10.1101/2021.03.01.433300v1.full.pdf", "pdf", "pdf_src"),
    ]


def test_ojs_galley_rule() -> None:
    url = "https://journals.example.edu/index.php/jbi/article/view/55/101"
    html = b"<html><head><title>Methods for X</title></head><body><h2>Introduction</h2><p>Text.</p></body></html>"
    r = scrape_journal(html, url, builtin_rules().journal_rule(url))
    assert r.title == "Methods for X"
    assert r.fulltext == "Methods for X\n\nIntroduction\n\nText."
    assert _links(r) == [("https://journals.example.edu/index.php/jbi/article/download/55/101", "html",
                          "fulltext_src")]


# ------------------------------------------------------------------------------------------- corpus pages


def corpus_page(corpus_dir: Path, name: str) -> tuple[str, bytes]:
    with open(corpus_dir / "manifest.jsonl", encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if entry["name"] == name:
                return entry["url"], (corpus_dir / entry["body"]).read_bytes()
    raise AssertionError(f"{name} not in the corpus manifest")


def scrape_corpus(corpus_dir: Path, name: str, site: str) -> ArticleRecord:
    url, body = corpus_page(corpus_dir, name)
    rule = builtin_rules().journal_rule(url)
    assert rule is not None and rule.site == site
    return scrape_journal(body, url, rule)


def test_corpus_plos(corpus_dir: Path) -> None:
    r = scrape_corpus(corpus_dir, "page-plos-one-article", "plos")
    assert r.doi == "10.1371/JOURNAL.PONE.0213978"
    assert r.title == ("Assessment on reticuloendotheliosis virus infection in specific-pathogen-free chickens based "
                       "on detection of yolk antibody")
    assert r.keywords == ["Chickens", "Antibodies", "Livestock", "Attenuated vaccines", "Enzyme-linked immunoassays",
                          "Poultry", "Animal sexual behavior", "Vaccines"]
    assert r.abstract.startswith("Reticuloendotheliosis virus (REV) is the most frequent exogenous virus that "
                                 "contaminates attenuated vaccines.")
    assert r.abstract.endswith("by sampling yolk antibody titers.")
    assert len(r.abstract) == 1379
    assert r.fulltext.startswith(f"{r.title}\n\n{r.abstract}\n\nIntroduction\n\nAvian reticuloendotheliosis virus")
    assert "\n\nMaterials and methods\n\n" in r.fulltext
    assert "Acknowledgments" not in r.fulltext and "References" not in r.fulltext
    assert len(r.fulltext) > 10000
    # three corresponding authors, but each lists all three e-mails: the names cannot be paired, the e-mails are kept
    assert r.corresp_author == [CorrespAuthor(email="suntaosdciq@163.com"), CorrespAuthor(email="619334017@qq.com"),
                                CorrespAuthor(email="yxhui1030@126.com")]
    assert _links(r) == [(("https://journals.plos.org/plosone/article/file?id=10.1371/journal.pone.0213978&type="
                          "printable"), "pdf", "pdf_a")]


def test_corpus_peerj(corpus_dir: Path) -> None:
    r = scrape_corpus(corpus_dir, "page-peerj-oa-article", "peerj")
    assert r.doi == "10.7717/PEERJ.4375"
    assert r.title == "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles"
    assert r.keywords == ["Open access", "Open science", "Scientometrics", "Publishing", "Libraries",
                          "Scholarly communication", "Bibliometrics", "Science policy"]
    assert r.abstract.startswith("Despite growing interest in Open Access (OA) to scholarly literature, there is an "
                                 "unmet need")
    assert r.fulltext.startswith(f"{r.title}\n\n{r.abstract}\n\nIntroduction\n\n")
    assert "\n\nDiscussion and Conclusion\n\n" in r.fulltext
    assert "The authors would like to thank" not in r.fulltext  # acknowledgements are back matter
    assert len(r.fulltext) > 50000
    assert r.corresp_author == [CorrespAuthor(name="Heather Piwowar", email="heather@impactstory.org"),
                                CorrespAuthor(name="Jason Priem", email="jason@impactstory.org")]
    assert _links(r) == [("https://peerj.com/articles/4375.pdf", "pdf", "pdf_a")]


def test_corpus_elife(corpus_dir: Path) -> None:
    r = scrape_corpus(corpus_dir, "page-elife-article", "elife")
    assert r.doi == "10.7554/ELIFE.44753"
    assert r.title == "Parallel visual circuitry in a basal chordate"
    assert r.keywords == ["connectome", "visuomotor", "behavior", "C. intestinalis"]
    assert r.abstract == ""  # the recorded page has an empty abstract section
    assert r.fulltext.startswith(f"{r.title}\n\nResults\n\nGlutamatergic and GABAergic photoreceptors\n\n")
    assert "Decision letter" not in r.fulltext and "Author response" not in r.fulltext
    assert len(r.fulltext) > 20000
    assert r.corresp_author == [CorrespAuthor(name="William C Smith", email="w_smith@ucsb.edu")]
    assert len(r.links) == 1 and r.links[0].kind == "pdf"
    assert r.links[0].url.startswith("https://elifesciences.org/download/")
    assert r.links[0].url.split("?")[0].endswith("/elife-44753-v2.pdf")


def test_corpus_nature_news(corpus_dir: Path) -> None:
    r = scrape_corpus(corpus_dir, "page-nature-article", "nature")
    assert r.doi == "10.1038/D41586-020-02610-Z"
    assert r.title == "More than 100 scientific journals have disappeared from the Internet"
    assert r.keywords == ["Publishing"]
    assert r.abstract == ("Researchers have identified dozens of open-access journals that went offline between 2000 "
                          "and 2019, and hundreds more that could be at risk.")
    assert r.fulltext.startswith(f"{r.title}\n\n{r.abstract}\n\nScholarly journals are supposed to provide a lasting "
                                 "record of science.")
    assert "\n\nVanishing journals\n\n" in r.fulltext
    assert "Investigating journals: The dark side of publishing" not in r.fulltext  # "related" boxes left out
    assert r.corresp_author == [] and r.links == []


def test_corpus_ojs_landing_page(corpus_dir: Path) -> None:
    r = scrape_corpus(corpus_dir, "page-first-monday-ojs3-landingpage", "ojs")
    assert r.doi == "10.5210/FM.V25I10.10274"
    assert r.title == "Surveillance, stigma & sociotechnical design for HIV"
    assert r.keywords == ["HIV", "online dating", "design", "policy", "surveillance", "intimacy", "social computing",
                          "social justice"]
    assert r.abstract.startswith("Online dating and hookup platforms have fundamentally changed people’s day-to-day "
                                 "practices of sex and love")
    assert r.fulltext == ""  # the landing page only links to the galley
    assert _links(r) == [("https://firstmonday.org/ojs/index.php/fm/article/view/10274/9729", "html", "fulltext_a")]


def test_corpus_first_monday_galley(corpus_dir: Path) -> None:
    r = scrape_corpus(corpus_dir, "page-first-monday-ojs3-fulltext", "firstmonday_galley")
    assert r.doi == ""
    assert r.title == "Surveillance, stigma and sociotechnical design for HIV"
    assert r.abstract.startswith("Online dating and hookup platforms have fundamentally changed people’s day-to-day")
    assert r.fulltext.startswith(f"{r.title}\n\n{r.abstract}\n\nIntroduction\n\n")
    assert "\n\nConclusion\n\n" in r.fulltext
    assert "Contents" not in r.fulltext
    assert "About the authors" not in r.fulltext and "Zuboff" not in r.fulltext.split("Conclusion")[-1]
    assert len(r.fulltext) > 40000


def test_corpus_dlib(corpus_dir: Path) -> None:
    r = scrape_corpus(corpus_dir, "page-dlib-05vanhyning", "dlib")
    assert r.doi == "10.1045/MAY2017-VANHYNING"
    assert r.title == "Transforming Libraries and Archives through Crowdsourcing"
    assert r.keywords == ["Crowdsourcing", "Citizen Humanities", "GLAM", "Transcription", "IMLS"]
    assert r.abstract.startswith("This article will showcase the aims and research goals of the project entitled "
                                 '"Transforming Libraries and Archives through Crowdsourcing"')
    assert r.fulltext.startswith(f"{r.title}\n\n{r.abstract}\n\n1 Overview1\n\nAs libraries, museums")
    assert "\n\n3 Future Steps: Community Engagement, Output & How to Get Involved\n\n" in r.fulltext
    assert "Clay Shirky, \" How Cognitive" not in r.fulltext  # references
    assert "Junior Research Fellow" not in r.fulltext  # about the authors


# ------------------------------------------------------------------------------------------ extraction details


@pytest.mark.parametrize(("text", "doi"), [
    ("10.1000/abc", "10.1000/ABC"),
    ("  https://doi.org/10.1000/abc ", "10.1000/ABC"),
    ("doi.org/10.1000/abc", "10.1000/ABC"),
    ("DOI: 10.1000/abc.", "10.1000/ABC"),
    ("doi: https://doi.org/10.1101/2021.03.01.433300 ", "10.1101/2021.03.01.433300"),
    ("Cite as https://dx.doi.org/10.1000/x1, 2020", "10.1000/X1"),
    ("10.1000/a b", ""),
    ("no identifier here", ""),
    ("", ""),
])  # fmt: skip
def test_scrape_doi(text: str, doi: str) -> None:
    assert scrape_doi(text) == doi


def test_scrape_pmid_and_pmcid() -> None:
    assert scrape_pmid(" 31114920 ") == "31114920"
    assert scrape_pmid("PMID: 31114920") == "31114920"
    assert scrape_pmid("031114920") == ""
    assert scrape_pmcid("PMC6198355") == "PMC6198355"
    assert scrape_pmcid("PMCID: pmc6198355") == "PMC6198355"
    assert scrape_pmcid("6198355") == ""


ARTICLE = """<html><head><base href="https://cdn.example.org/journal/"></head><body>
<div class="ids"><span class="pmid">PMID: 123</span><span class="pmcid">PMC456</span></div>
<h1>Main title</h1><h2 class="sub">The subtitle</h2>
<p class="kw">Keywords: alpha, beta; gamma | alpha</p><p class="kw">delta</p>
<div class="abs"><div class="abs"><p>Inner abstract.</p></div><p>Outer abstract.</p></div>
<div class="body"><h2>Intro</h2><p>First<br>line.</p><ul><li>one</li><li>two</li></ul></div>
<div class="body"></div>
<div class="authors"><a class="corr">Ann One,</a><a class="corr">Bob Two *</a>
<a class="mail" href="mailto:ann@example.org?subject=paper">x</a><a class="mail" href="MAILTO:bob%40example.org">y</a>
<span class="mail">carol@example.org</span></div>
<a class="pdf" href="files/paper.pdf">PDF</a><a class="pdf" href="javascript:void(0)">PDF</a>
<a class="pdf" href="mailto:x@example.org">mail</a><a class="pdf" href="#top">top</a>
<a class="full" href="https://journal.example.org/a/1#full">same page</a><a class="full" href="/a/1/full">full</a>
<a class="full" href="/a/1/full">again</a><a class="full">no href</a>
</body></html>"""

ARTICLE_RULES = """\
'journal\\.example\\.org/+a/': demo
---
demo:
  pmid: .pmid
  pmcid: .pmcid
  doi: .doi
  title: h1
  subtitle: h2.sub
  keywords_split: p.kw
  abstract: .abs
  fulltext: .body
  fulltext_a: a.full
  pdf_src: '/a/([0-9]+)$'
  pdf_dst: '/pdf/$1.pdf'
  pdf_a: a.pdf
  corresp_author_names: a.corr
  corresp_author_emails: .mail
"""


def test_all_journal_keys_on_one_page() -> None:
    url = "https://journal.example.org/a/1"
    rule = journal_rules(ARTICLE_RULES).journal_rule(url)
    r = scrape_journal(ARTICLE, url, rule)
    assert (r.pmid, r.pmcid, r.doi) == ("123", "PMC456", "")
    assert r.title == "Main title : The subtitle"
    assert r.keywords == ["alpha", "beta", "gamma", "delta"]
    assert r.abstract == "Inner abstract.\n\nOuter abstract."  # the nested match is not repeated
    assert r.fulltext == ("Main title : The subtitle\n\nInner abstract.\n\nOuter abstract.\n\nIntro\n\nFirst\nline."
                          "\n\none\ntwo")
    # three e-mails for two names: the names are dropped
    assert r.corresp_author == [CorrespAuthor(email="ann@example.org"), CorrespAuthor(email="bob@example.org"),
                                CorrespAuthor(email="carol@example.org")]
    assert r.links == [
        Link("https://journal.example.org/pdf/1.pdf", "pdf", "pdf_src"),
        Link("https://cdn.example.org/a/1/full", "html", "fulltext_a"),
        Link("https://cdn.example.org/journal/files/paper.pdf", "pdf", "pdf_a"),
    ]


def test_corresponding_authors_pair_when_counts_match() -> None:
    url = "https://journal.example.org/a/1"
    rule = journal_rules(ARTICLE_RULES.replace("corresp_author_emails: .mail", "corresp_author_emails: a.mail"))
    r = scrape_journal(ARTICLE, url, rule.journal_rule(url))
    assert r.corresp_author == [CorrespAuthor(name="Ann One", email="ann@example.org"),
                                CorrespAuthor(name="Bob Two", email="bob@example.org")]
    names_only = journal_rules(ARTICLE_RULES.replace("  corresp_author_emails: .mail\n", ""))
    r = scrape_journal(ARTICLE, url, names_only.journal_rule(url))
    assert r.corresp_author == [CorrespAuthor(name="Ann One"), CorrespAuthor(name="Bob Two")]


def test_keywords_selector_wins_over_keywords_split() -> None:
    url = "https://journal.example.org/a/1"
    rules = journal_rules(ARTICLE_RULES.replace("  keywords_split: p.kw\n", "  keywords: p.kw\n  keywords_split: h1\n"))
    r = scrape_journal(ARTICLE, url, rules.journal_rule(url))
    assert r.keywords == ["Keywords: alpha, beta; gamma | alpha", "delta"]


def test_fulltext_needs_a_body() -> None:
    url = "https://journal.example.org/a/1"
    rules = journal_rules(ARTICLE_RULES.replace("  fulltext: .body\n", "  fulltext: .missing\n"))
    r = scrape_journal(ARTICLE, url, rules.journal_rule(url))
    assert r.fulltext == ""
    assert r.abstract == "Inner abstract.\n\nOuter abstract."


def test_scrape_accepts_str_bytes_and_soup() -> None:
    from pubfetch.extract.clean import parse_html

    url = "https://journal.example.org/a/1"
    rule = journal_rules(ARTICLE_RULES).journal_rule(url)
    expected = scrape_journal(ARTICLE, url, rule)
    assert scrape_journal(ARTICLE.encode(), url, rule) == expected
    assert scrape_journal(parse_html(ARTICLE), url, rule) == expected


def test_empty_and_garbage_pages_give_empty_records() -> None:
    url = "https://journal.example.org/a/1"
    rule = journal_rules(ARTICLE_RULES).journal_rule(url)
    record = scrape_journal(b"", url, rule)
    assert record.is_empty()
    assert record.links == [Link("https://journal.example.org/pdf/1.pdf", "pdf", "pdf_src")]
    assert scrape_journal(b"\x00\xff<<<>>>", url, rule).is_empty()
    assert scrape_webpage("", "https://x.example/", None) == WebpageContent()


@pytest.mark.parametrize(("href", "base", "expected"), [
    ("paper.pdf", "https://a.org/x/y", "https://a.org/x/paper.pdf"),
    ("//cdn.a.org/p.pdf", "https://a.org/", "https://cdn.a.org/p.pdf"),
    ("ftp://ftp.a.org/p.pdf", "https://a.org/", "ftp://ftp.a.org/p.pdf"),
    ("  ", "https://a.org/", None),
    ("#sec1", "https://a.org/", None),
    ("javascript:void(0)", "https://a.org/", None),
    ("mailto:a@b.org", "https://a.org/", None),
    ("http://[::1", "https://a.org/", None),
])  # fmt: skip
def test_absolute_url(href: str, base: str, expected: str | None) -> None:
    assert absolute_url(href, base) == expected


ABSTRACT_RULE = """\
'example\\.org/': boxed
---
boxed:
  title: h1
  abstract: div.abstract
"""
ABSTRACT_TEXT = ("Salt marshes keep pace with rising seas by trapping sediment and building organic soil. We measured "
                 "surface elevation change at forty marsh sites along three estuaries between 2015 and 2021.")


def test_a_rules_abstract_leaves_out_the_parts_that_are_not_the_abstract() -> None:
    """Highlights, a visual abstract box and a keywords line inside the rule's abstract element are not taken."""
    url = "https://example.org/a/1"
    html = ('<html><body><h1>Marsh resilience</h1><div class="abstract"><div class="highlights"><ul><li>Sediment '
            'decides the fate of marshes.</li></ul></div><div class="visual-abstract"><img src="/v.png"><p>Visual '
            f"abstract</p></div><h2>Abstract</h2><p>{ABSTRACT_TEXT}</p><p>Keywords: marsh; sediment</p></div>"
            "</body></html>")
    assert scrape_journal(html, url, journal_rules(ABSTRACT_RULE).journal_rule(url)).abstract == ABSTRACT_TEXT


def test_a_rules_abstract_that_is_a_reference_list_is_none() -> None:
    url = "https://example.org/a/2"
    entries = "".join(f"<li>Smith J, et al. ({2000 + i}) Marshes. Coastal Journal {i}:{i}0-{i}9.</li>" for i in range(6))
    html = f'<html><body><h1>Marsh resilience</h1><div class="abstract"><ol>{entries}</ol></div></body></html>'
    assert scrape_journal(html, url, journal_rules(ABSTRACT_RULE).journal_rule(url)).abstract == ""


def test_a_screen_reader_abstract_heading_stays_for_the_reader_after_a_rule_misses_the_abstract() -> None:
    """A standfirst under a visually hidden "Abstract" heading: the rule's selector finds no abstract, and the generic
    reader, reading the same tree after the rule, follows the heading to the standfirst."""
    url = "https://example.org/a/3"
    soup = parse_html(f'<html><body><h1>Marsh resilience</h1><section><h2 class="u-visually-hidden">Abstract</h2>'
                      f'</section><div class="standfirst"><p>{ABSTRACT_TEXT}</p></div><div class="sr-only">Opens in a '
                      "new window</div></body></html>")
    assert scrape_journal(soup, url, journal_rules(ABSTRACT_RULE).journal_rule(url)).abstract == ""
    assert find_abstract(soup) == ABSTRACT_TEXT
    assert "new window" not in soup.get_text()  # other screen-reader text is still dropped


def test_a_rule_selecting_the_abstracts_children_skips_those_that_are_not_the_abstract() -> None:
    url = "https://example.org/a/4"
    rule = journal_rules(ABSTRACT_RULE.replace("abstract: div.abstract", "abstract: 'div.abstract > *'"))
    html = ('<html><body><h1>Marsh resilience</h1><div class="abstract"><div class="author-highlights"><ul><li>'
            'Sediment decides the fate of marshes.</li></ul></div><p>' + ABSTRACT_TEXT + '</p><div class="keywords">'
            "marsh; sediment</div></div></body></html>")
    assert scrape_journal(html, url, rule.journal_rule(url)).abstract == ABSTRACT_TEXT


def test_an_author_summary_the_rules_selector_also_matches_is_not_appended() -> None:
    """PLOS's markup: the abstract and the author summary are both ``div.abstract``; the rule's selector takes the
    paragraphs of both."""
    url = "https://example.org/a/5"
    rule = journal_rules(ABSTRACT_RULE.replace("abstract: div.abstract", "abstract: '#artText > .abstract > :not(h2)'"))
    html = ('<html><body><h1>Marsh resilience</h1><div id="artText"><div class="abstract toc-section"><h2>Abstract</h2>'
            f'<p>{ABSTRACT_TEXT}</p></div><div class="abstract toc-section abstract-type-summary"><h2>Author summary'
            "</h2><p>Marshes protect coasts, and the mud rivers carry decides whether they keep up.</p></div></div>"
            "</body></html>")
    assert scrape_journal(html, url, rule.journal_rule(url)).abstract == ABSTRACT_TEXT


def test_a_rules_abstract_keeps_the_rest_a_read_more_link_hides() -> None:
    url = "https://example.org/a/6"
    html = ('<html><body><h1>Marsh resilience</h1><div class="abstract"><p>' + ABSTRACT_TEXT[:80] +
            '<span style="display:none">' + ABSTRACT_TEXT[80:] + '</span> <a href="#">Read more</a></p></div>'
            "</body></html>")
    abstract = scrape_journal(html, url, journal_rules(ABSTRACT_RULE).journal_rule(url)).abstract
    assert "".join(abstract.split()).startswith("".join(ABSTRACT_TEXT.split()))


def test_a_rules_abstract_takes_a_hidden_copy_of_the_shown_one_once() -> None:
    """A hidden copy of the abstract beside the shown one (mobile and desktop layouts) is left out; a hidden whole
    beside a shown truncation is taken instead of it."""
    url = "https://example.org/a/7"
    rule = journal_rules(ABSTRACT_RULE).journal_rule(url)
    copies = (f'<html><body><h1>Marsh resilience</h1><div class="abstract" aria-hidden="true"><p>{ABSTRACT_TEXT}</p>'
              f'</div><div class="abstract"><p>{ABSTRACT_TEXT}</p></div></body></html>')
    assert scrape_journal(copies, url, rule).abstract == ABSTRACT_TEXT
    truncated = (f'<html><body><h1>Marsh resilience</h1><div class="abstract"><p>{ABSTRACT_TEXT[:120]}</p></div>'
                 f'<div class="abstract" style="display:none"><p>{ABSTRACT_TEXT}</p></div></body></html>')
    assert scrape_journal(truncated, url, rule).abstract == ABSTRACT_TEXT
