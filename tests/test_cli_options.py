"""The option table: PubFetcher's option names, each defined once; single-dash operations and double-dash modifiers;
arities as the metavars say; every part test paired with its list of parts; the settings' options among the modifiers
of getting content, in their places."""

from __future__ import annotations

from pubfetch.cli import spec
from pubfetch.cli.options import BY_NAME, GET_CONTENT_MODIFIERS, GROUPS, PART_TESTS
from pubfetch.cli.parser import parse_args
from pubfetch.config import cli_options

OPTIONS = [option for group in GROUPS for option in group.options]


def test_option_names_are_pubfetchers() -> None:
    for name in ("-db-init", "-db-commit", "-db-compact", "-db-publications-size", "-db-webpages-size", "-db-docs-size",
                 "-db-publications-map", "-db-publications-map-reverse", "-fetch-document",
                 "-fetch-document-javascript", "-post-document", "-fetch-webpage-selector", "-scrape-site",
                 "-scrape-selector", "-scrape-javascript", "-scrape-webpage", "-is-pmid", "-is-pmcid",
                 "-extract-pmcid", "-is-doi", "-normalise-doi", "-extract-doi-registrant", "-escape-html",
                 "-escape-html-attribute", "-check-publication-id", "-check-publication-ids", "-check-url",
                 "-pub", "-web", "-doc", "-pub-file", "-web-file", "-doc-file", "-pub-db", "-web-db", "-doc-db",
                 "-has-pmid", "-not-has-pmid", "-pmid", "-not-pmid", "-pmid-url", "-doi-registrant", "-url",
                 "-url-host", "-in-db", "-not-in-db", "-asc-ids", "-desc-ids", "-head-ids", "-tail-ids",
                 "-remove-ids", "-out-ids", "-txt-ids-pub", "-txt-ids-web", "-txt-ids-doc", "-count-ids", "-db",
                 "-fetch", "-fetch-put", "-db-fetch", "-db-fetch-end", "--fetch-part", "--not-fetch-part",
                 "--pre-filter", "--limit", "--threads", "-fetch-time-more", "-retry-counter", "-fetch-exception",
                 "-empty", "-usable", "-final", "-grep", "-not-grep", "-totally-final", "-oa", "-preprint",
                 "-journal-title", "-pub-date-more", "-citations-count", "-corresp-author-name", "-visited",
                 "-part-empty", "-part-usable", "-part-final", "-part-content", "-part-content-part", "-part-size",
                 "-part-type", "-part-url", "-part-time-more", "-broken", "-start-url", "-final-url",
                 "-content-type", "-status-code", "-title", "-content", "-license", "-language", "-has-scrape",
                 "-asc", "-desc", "-asc-time", "-desc-time", "-head", "-tail", "-update-citations-count", "-put",
                 "-remove", "-out", "-txt-pub", "-txt-web", "-txt-doc", "-count", "-out-top-hosts",
                 "-txt-top-hosts-pub", "-txt-top-hosts-web", "-txt-top-hosts-doc", "-count-top-hosts",
                 "-part-table", "--plain", "--format", "--out-part", "-print-europepmc-xml", "-print-pmc-xml",
                 "-print-pubmed-xml", "-print-europepmc", "-print-europepmc-mined", "-print-oadoi", "-print-site",
                 "-print-webpage", "-l", "--log", "--emptyCooldown", "--timeout", "--userAgent", "--quick"):
        assert name in BY_NAME, name


def test_every_name_is_defined_once_and_finds_its_option() -> None:
    names = [name for option in OPTIONS for name in option.names]
    assert len(names) == len(set(names)) == len(BY_NAME)
    assert all(BY_NAME[name] is option for option in OPTIONS for name in option.names)


def test_single_dash_options_are_operations_and_double_dash_ones_modify_them() -> None:
    for option in OPTIONS:
        modifies = option.name.startswith("--")
        assert modifies == (option.role in ("general", "modifier", "fetcher")), option.name


def test_a_fixed_option_takes_as_many_words_as_its_metavar_names() -> None:
    assert parse_args(["-check-publication-ids", "1", "PMC2", "10.1/x"]).get("check-publication-ids") == (
        "1", "PMC2", "10.1/x")
    for name, words in (("-db-copy", 2), ("-scrape-selector", 2), ("-check-publication-ids", 3),
                        ("-fetch-webpage-selector", 4), ("-extract-au", 2)):
        assert BY_NAME[name].arity == words == len(BY_NAME[name].metavar.split())


def test_every_part_test_has_its_list_of_parts() -> None:
    assert {"part-content", "not-part-content", "part-size-more", "part-type-final"} <= set(PART_TESTS)
    for dest in PART_TESTS:
        parts = BY_NAME[f"-{dest}-part"]
        assert parts.arity == "+" and parts.convert is spec.part_name


def test_more_and_less_filters_come_in_pairs_with_one_converter() -> None:
    for name, convert in (("-fetch-time", spec.instant), ("-citations-count", spec.integer),
                          ("-retry-counter", spec.count), ("-status-code", spec.integer)):
        assert BY_NAME[f"{name}-more"].convert is BY_NAME[f"{name}-less"].convert is convert


def test_the_operations_that_fetch_are_marked_as_needing_the_network() -> None:
    for name in ("-fetch", "-fetch-put", "-db-fetch", "-db-fetch-end", "-fetch-document", "-post-document",
                 "-update-citations-count", "-print-pubmed-xml", "-test-site"):
        assert BY_NAME[name].network, name
    for name in ("-db", "-out", "-put", "-pub-file", "-scrape-site", "--threads", "-test-pmc-html"):
        assert not BY_NAME[name].network, name


def test_the_settings_options_sit_among_the_modifiers_of_getting_content() -> None:
    names = [option.name for option in GET_CONTENT_MODIFIERS.options]
    assert names == ["--fetch-part", "--not-fetch-part", "--pre-filter", "--limit", "--threads", "--progress",
                     "--queue", "--detach", "--quiet", "--batch-size", "--connections-per-host", "--workers",
                     "--download-dir", "--warc",
                     "--allow-private-addresses", "--no-javascript", "--references", "--no-rich-parts", "--annotations",
                     "--follow-published", "--no-crossref", "--no-openalex", "--no-datacite", "--no-biorxiv",
                     "--chromium",
                     "--page-time-limit",
                     "--title-similarity", "--rate-db",
                     "--no-rate-limit", "--config", "--ncbi-email", "--ncbi-api-key", "--crossref-mailto",
                     "--datacite-mailto", "--openalex-api-key"]
    assert {option for _, option, _ in cli_options()} <= set(names)



def test_annotations_takes_the_services_type_names_comma_separated(cli) -> None:
    from pubfetch.config.registry import from_text
    from pubfetch.model.mined_terms import AnnotationType

    assert from_text("annotations", "Diseases, Gene_Proteins") == {AnnotationType.diseases,
                                                                   AnnotationType.gene_proteins}
    from pubfetch.cli.setting_options import setting_option

    assert "(default Experimental Methods,Gene Ontology)" in setting_option("--annotations", "TYPES").help
    code, _, err = cli("-pub", "1", "--annotations", "Diseases,Genes", "-out")
    assert code != 0 and "--annotations" in err and "Gene_Proteins" in err and "Traceback" not in err
