"""Every option of the ``pubfetch`` command, grouped as in ``--help`` (PubFetcher's names, arities and groups).

Single-dash options are operations, double-dash options modify them. The groups follow the fixed order in which the
pipeline runs (pipeline.py), so reading ``--help`` top to bottom is reading the order of execution.
Option names are PubFetcher's (spec section 11); the few pubfetch additions are marked "(pubfetch)" in their help.
The options that set settings are made from the settings' declarations (:mod:`pubfetch.cli.setting_options`); this
table only places them.
"""

from __future__ import annotations

from pubfetch.cli import spec
from pubfetch.cli.setting_options import FETCHING, FETCHING_PRIVATE, setting_option
from pubfetch.cli.spec import Converter, Group, Option, fixed, flag, many, one
from pubfetch.cli.spec import option as _opt

# --- general ---------------------------------------------------------------------------------------------------------

GENERAL = Group("General", (
    flag("-h --help", "Print this help and exit", "general"),
    flag("--version", "Print the version and exit", "general"),
    one("--print-completion", "SHELL", "Print the shell completion script for bash or zsh and exit, e.g. "
        "eval \"$(pubfetch --print-completion bash)\" in ~/.bashrc (pubfetch)", role="general"),
    one("-l --log", "FILE", "Append the log (with debug messages) to FILE ('-': standard output); missing parent "
        "directories are created", role="general"),
    flag("--verbose", "Also show informational log messages on stderr, not only warnings and errors (pubfetch)",
         "general"),
))

# --- one-off operations ----------------------------------------------------------------------------------------------

ONEOFF_DATABASE = Group("One-off: database", (
    one("-db-init", "DATABASE", "Create a new, empty database file (refuses an existing file)", role="oneoff"),
    one("-db-commit", "DATABASE", "Fold pending write-ahead-log changes into the database file", role="oneoff"),
    one("-db-compact", "DATABASE", "Reclaim the space of removed and overwritten entries", role="oneoff"),
    one("-db-publications-size", "DATABASE", "Print the number of publications in the database", role="oneoff"),
    one("-db-webpages-size", "DATABASE", "Print the number of webpages in the database", role="oneoff"),
    one("-db-docs-size", "DATABASE", "Print the number of docs in the database", role="oneoff"),
    one("-db-publications-map", "DATABASE", "Print every 'ID -> primary ID' pair of the database", role="oneoff"),
    one("-job-status", "JOB", "Print the state of a job sent with --queue: batches done, running (on which worker, for "
        "how long), waiting, failed, given again after a lost worker (give the same --queue) (pubfetch)",
        role="oneoff"),
    one("-job-cancel", "JOB", "Cancel a job sent with --queue: its waiting batches are refused by the workers, its "
        "running ones finish (give the same --queue) (pubfetch)", role="oneoff"),
    fixed("-db-copy", "FROM TO", "Copy every entry of database FROM into the new database TO, e.g. from a SQLite file "
          "to postgresql://host/db or back (pubfetch)"),
    one("-db-publications-map-reverse", "DATABASE",
        "Print every 'primary ID -> [PMID, PMCID, DOI] (provenance URLs)' line of the database", role="oneoff"),
    many("-db-import-medline", "DATABASE FILE|DIR|URL", "Import PubMed baseline and update files (.xml, .xml.gz; "
         "a directory's, or an HTTPS URL of a file or of a directory listing) into DATABASE, created when missing; "
         "files already imported are skipped; see docs/bulk.md (pubfetch)", role="oneoff", network=True),
    many("-db-import-jats", "DATABASE FILE|DIR|ARCHIVE", "Merge the JATS full texts of open-access packages "
         "(tar.gz of .xml/.nxml, gzip files of many articles) into the entries of their PMID, PMCID or DOI; see "
         "docs/bulk.md (pubfetch)", role="oneoff", network=True),
    one("-search-list", "DATABASE", "Print the saved searches of the database: name, source, last complete run, "
        "query, tab-separated (pubfetch)", role="oneoff"),
    fixed("-search-remove", "NAME DATABASE", "Forget the saved search NAME of the database (pubfetch)"),
))

ONEOFF_WEB = Group("One-off: print a web page (network)", (
    one("-fetch-document", "URL", "Fetch a page without JavaScript and print its raw HTML", role="oneoff",
        network=True),
    one("-fetch-document-javascript", "URL", "Fetch a page with JavaScript and print its raw HTML", role="oneoff",
        network=True),
    many("-post-document", "URL [NAME VALUE ...]",
         "POST the NAME VALUE pairs to URL and print the response", role="oneoff", network=True),
    fixed("-fetch-webpage-selector", "URL TITLE_SELECTOR CONTENT_SELECTOR JAVASCRIPT",
          "Fetch a webpage with the given CSS selectors (empty: page title, cleaned whole text) and JavaScript "
          "true/false/empty (empty: decide automatically); printed as --format and --plain say", network=True),
))

ONEOFF_SCRAPE = Group("One-off: scrape rules", (
    one("-scrape-site", "URL", "Print the journal site whose scraping rules apply to URL (null if none)",
        role="oneoff"),
    fixed("-scrape-selector", "URL KEY", "Print what the site rule for URL gives for KEY (PubFetcher's names: title, "
          "theAbstract, fulltext_src, pdf_dst, wait_until, ...; null if none)"),
    one("-scrape-javascript", "URL", "Print true or false: whether URL is fetched with JavaScript", role="oneoff"),
    one("-scrape-webpage", "URL", "Print the webpage scraping rules that apply to URL (null if none)",
        role="oneoff"),
))

ONEOFF_IDS = Group("One-off: publication IDs", (
    one("-is-pmid", "STRING", "Print true or false: whether STRING is a valid PMID", role="oneoff"),
    one("-is-pmcid", "STRING", "Print true or false: whether STRING is a valid PMCID", role="oneoff"),
    one("-extract-pmcid", "PMCID", "Print the PMCID without its PMC prefix (empty for an invalid PMCID)",
        role="oneoff"),
    one("-is-doi", "STRING", "Print true or false: whether STRING is a valid DOI", role="oneoff"),
    one("-normalise-doi", "DOI", "Print the DOI without a resolver prefix and with ASCII letters upper-cased "
        "(validity is not checked)", role="oneoff"),
    one("-extract-doi-registrant", "DOI", "Print the registrant code of the DOI, between '10.' and the first '/' "
        "(empty for an invalid DOI)", role="oneoff"),
    one("-find-ids", "TEXT", "Print the PMIDs, PMCIDs and DOIs labelled as such in TEXT, one "
        "'pmid<TAB>pmcid<TAB>doi' line each (pubfetch)", role="oneoff"),
    one("-url-ids", "URL", "Print the publication a PubMed, PMC, Europe PMC or doi.org link stands for, as "
        "'pmid<TAB>pmcid<TAB>doi' (pubfetch)", role="oneoff"),
))

ONEOFF_MISC = Group("One-off: miscellaneous", (
    one("-escape-html", "STRING", "Print STRING escaped for use as HTML text", role="oneoff"),
    one("-escape-html-attribute", "STRING", "Print STRING escaped for use as an HTML attribute value",
        role="oneoff"),
    one("-check-publication-id", "ID", "Print a PMID, PMCID or DOI as 'pmid<TAB>pmcid<TAB>doi', or fail if it is "
        "not a valid publication ID", role="oneoff"),
    fixed("-check-publication-ids", "PMID PMCID DOI", "Print the three IDs as 'pmid<TAB>pmcid<TAB>doi', or fail if "
          "one of the non-empty ones is invalid"),
    one("-check-url", "URL", "Print the URL, or fail if it is not a valid webpage URL", role="oneoff"),
))

# --- pipeline --------------------------------------------------------------------------------------------------------

ADD_IDS = Group("Pipeline 1: add IDs", (
    many("-pub", "ID", "Add publication IDs (PMID, PMCID, DOI, or a link to one)"),
    many("-web", "URL", "Add webpage URLs"),
    many("-doc", "URL", "Add doc URLs"),
    many("-pub-file", "FILE", "Add publication IDs from text files of 'pmid<TAB>pmcid<TAB>doi' lines (a line "
         "with a single ID is also accepted); empty lines and lines starting with # are skipped"),
    many("-web-file", "FILE", "Add webpage URLs from text files, one per line"),
    many("-doc-file", "FILE", "Add doc URLs from text files, one per line"),
    many("-pub-db", "DATABASE", "Add the IDs of every publication in the databases"),
    many("-web-db", "DATABASE", "Add the URLs of every webpage in the databases"),
    many("-doc-db", "DATABASE", "Add the URLs of every doc in the databases"),
    many("-pub-json", "FILE", "Add publications from PubFetcher JSON files (a document, an array or JSON Lines); "
         "their IDs join the ID list and their content is got before -db (pubfetch)"),
    many("-web-json", "FILE", "Add webpages from PubFetcher JSON files (pubfetch)"),
    many("-doc-json", "FILE", "Add docs from PubFetcher JSON files (pubfetch)"),
    flag("--strict", "Fail on the first invalid ID or URL (with its file and line) instead of skipping it "
         "(pubfetch)", "modifier"),
    _opt("-search-europepmc", "Add the IDs of every hit of a Europe PMC query (its hit count is said first; with no "
         "later step they are printed, 'pmid<TAB>pmcid<TAB>doi' a line) (pubfetch)", "?", "QUERY", spec.text,
         network=True),
    _opt("-search-pubmed", "Add the IDs of every hit of a PubMed query, beyond 9,999 hits too (split by Entrez "
         "date) (pubfetch)", "?", "QUERY", spec.text, network=True),
    one("--query-file", "FILE", "The query of -search-europepmc or -search-pubmed, read from FILE (lines joined; "
        "lines starting with # skipped) (pubfetch)", role="modifier"),
    one("--max-hits", "N", "Refuse a search of more than N hits, or a snowball depth that would bring the run to "
        "more than N publications, before anything of it is fetched (exit status 2; default 100000) (pubfetch)",
        spec.positive, "modifier"),
    flag("--no-preprints", "Leave Europe PMC's preprints (SRC:PPR) out of -search-europepmc (pubfetch)", "modifier"),
    flag("--synonyms", "Have -search-europepmc expand the query's terms with their synonyms, as Europe PMC's web site "
         "does (pubfetch)", "modifier"),
    one("--save-search", "NAME", "Keep the search in the database of -db-fetch-end/-db-fetch under NAME, for "
        "-search-update (pubfetch)", role="modifier"),
    one("-search-update", "NAME", "Run the saved search NAME again for the records created since its last complete "
        "run (less 2 days); add only the IDs the database of -db-fetch-end/-db-fetch does not know (pubfetch)",
        network=True),
), "Invalid IDs are reported with their file and line, skipped, and counted in a summary line on stderr. A search "
   "that stops short keeps the IDs got by then and ends the command with exit status 3.")


def _regex_pair(name: str, what: str, subject: str = "publication IDs") -> tuple[Option, Option]:
    return (one(f"-{name}", "REGEX", f"Keep {subject} whose {what} matches REGEX", spec.regex),
            one(f"-not-{name}", "REGEX", f"Keep {subject} whose {what} does not match REGEX", spec.regex))


def _id_filters(id_name: str, label: str) -> tuple[Option, ...]:
    return (
        flag(f"-has-{id_name}", f"Keep publication IDs that have a {label}"),
        flag(f"-not-has-{id_name}", f"Keep publication IDs without a {label}"),
        *_regex_pair(id_name, label),
        *_regex_pair(f"{id_name}-url", f"{label} provenance URL"),
    )


FILTER_IDS = Group("Pipeline 2: filter IDs", (
    *_id_filters("pmid", "PMID"),
    *_id_filters("pmcid", "PMCID"),
    *_id_filters("doi", "DOI"),
    many("-doi-registrant", "CODE", "Keep publication IDs whose DOI registrant code (between '10.' and '/') is one "
         "of CODE"),
    many("-not-doi-registrant", "CODE", "Keep publication IDs whose DOI registrant code is none of CODE"),
    *_regex_pair("url", "URL", "webpage and doc URLs"),
    many("-url-host", "HOST", "Keep webpage and doc URLs whose host is one of HOST (case-insensitive, without www.)"),
    many("-not-url-host", "HOST", "Keep webpage and doc URLs whose host is none of HOST"),
    one("-in-db", "DATABASE", "Keep IDs and URLs present in the database (a publication: all of its IDs)"),
    one("-not-in-db", "DATABASE", "Keep IDs and URLs not present in the database"),
), "Regular expressions match anywhere in the text.")

SORT_IDS = Group("Pipeline 3: sort, limit and remove IDs", (
    flag("-asc-ids", "Sort IDs and URLs in ascending order (PMID, then PMCID, then DOI, numerically)"),
    flag("-desc-ids", "Sort IDs and URLs in descending order"),
    one("-head-ids", "N", "Keep only the first N IDs and URLs of each kind", spec.count),
    one("-tail-ids", "N", "Keep only the last N IDs and URLs of each kind", spec.count),
    one("-remove-ids", "DATABASE", "Remove the entries of the IDs and URLs from the database"),
))

OUTPUT_IDS = Group("Pipeline 4: output IDs", (
    flag("-out-ids", "Print the IDs and URLs (as --format and --plain say; --plain text is the -pub-file format)"),
    one("-txt-ids-pub", "FILE", "Write the publication IDs to FILE"),
    one("-txt-ids-web", "FILE", "Write the webpage URLs to FILE"),
    one("-txt-ids-doc", "FILE", "Write the doc URLs to FILE"),
    flag("-count-ids", "Print how many publication IDs, webpage URLs and doc URLs there are"),
))

GET_CONTENT = Group("Pipeline 5: get content", (
    one("-db", "DATABASE", "Get publications, webpages and docs from the database"),
    flag("-fetch", "Fetch them from the Internet (entries with a fetch exception are retried once at the end)",
         network=True),
    one("-fetch-put", "DATABASE", "Fetch them and put each one into the database as soon as it is fetched",
        network=True),
    one("-db-fetch", "DATABASE", "Get each from the database, fetch it if it may be fetched (cooldowns, retry "
        "limit), put it back if it changed; runs --threads at a time", network=True),
    one("-db-fetch-end", "DATABASE", "Like -db-fetch, but keep nothing in memory: no further pipeline steps see "
        "the entries", network=True),
), "Entries are got in this order and duplicates are kept.")

GET_CONTENT_MODIFIERS = Group("Get content modifiers", (
    many("--fetch-part", "PART", "Fetch only these publication parts (IDs are always filled)", spec.part_name,
         "modifier"),
    many("--not-fetch-part", "PART", "Fetch all publication parts except these", spec.part_name, "modifier"),
    flag("--pre-filter", "Apply the content filters while getting content, keeping only passing entries in memory",
         "modifier"),
    one("--limit", "N", "Get at most N entries of each kind (0: no limit)", spec.count, "modifier"),
    setting_option("--threads", "N", pubfetchers=True),
    flag("--progress", "Show fetching progress on stderr even when it is not a terminal (pubfetch)", "modifier"),
    one("--queue", "URL", "Send the publications of -db-fetch/-db-fetch-end as batches to the workers of this queue "
        "(redis://host:6379/N, amqp://host) and wait for them; see pubfetch worker --help (pubfetch)", role="modifier"),
    flag("--detach", "With --queue: print the job id and return at once; -job-status reports on it (pubfetch)",
         "modifier"),
    flag("--quiet", "No progress display (pubfetch)", "modifier"),
    setting_option("--batch-size", "N", note="with --queue, IDs per task: default 50, at most 1000, larger sizes are "
                   "split"),
    setting_option("--connections-per-host", "N"),
    setting_option("--workers", "N", note="for -db-import-medline and -db-import-jats"),
    setting_option("--download-dir", "DIR", note="for -db-import-medline and -db-import-jats given URLs"),
    one("--warc", "FILE", "Record every HTTP exchange into this WARC file (.warc.gz: gzipped; '-': standard output) "
        "(pubfetch)",
        role="modifier"),
    setting_option("--allow-private-addresses"),
    setting_option("--no-javascript"),
    setting_option("--references"),
    setting_option("--no-rich-parts"),
    setting_option("--annotations", "TYPES"),
    setting_option("--follow-published"),
    setting_option("--no-crossref"),
    setting_option("--no-openalex"),
    setting_option("--no-datacite"),
    setting_option("--no-biorxiv"),
    setting_option("--chromium", "PATH"),
    setting_option("--page-time-limit", "SECONDS"),
    setting_option("--title-similarity", "PERCENT"),
    setting_option("--rate-db", "FILE|URL"),
    setting_option("--no-rate-limit"),
    one("--config", "FILE", "YAML config file (default $PUBFETCH_CONFIG or ~/.config/pubfetch/config.yaml) (pubfetch)",
        role="modifier"),
    setting_option("--ncbi-email", "EMAIL"),
    setting_option("--ncbi-api-key", "KEY", note="on the command line it is visible to other users of the machine"),
    setting_option("--crossref-mailto", "EMAIL"),
    setting_option("--datacite-mailto", "EMAIL"),
    setting_option("--openalex-api-key", "KEY",
                   note="on the command line it is visible to other users of the machine"),
))


SNOWBALL = Group("Snowball", (
    flag("--citations", "With a fetch step, also fetch the papers citing each publication (Europe PMC's citations "
         "and PubMed's ELink), then those citing them, to --depth; each paper once, the edges stored in the database "
         "(pubfetch)", "modifier"),
    flag("--expand-references", "With a fetch step, also fetch the papers each publication's reference list names, "
         "then theirs, to --depth (pubfetch)", "modifier"),
    one("--depth", "N", "Steps of links --citations and --expand-references follow (default 1) (pubfetch)",
        spec.positive, "modifier"),
), "The counts a review reports (identified by source and depth, duplicates removed, already in the database, "
   "fetched, final / partial / failed, with full text) end the summary line and fill the -report's flow table.")


def _pair_flags(name: str, yes: str, no: str) -> tuple[Option, Option]:
    return flag(f"-{name}", yes), flag(f"-not-{name}", no)


def _list_pair(name: str, metavar: str, yes: str, no: str, convert: Converter = spec.text) -> tuple[Option, Option]:
    return many(f"-{name}", metavar, yes, convert), many(f"-not-{name}", metavar, no, convert)


def _more_less(name: str, metavar: str, what: str, convert: Converter, strict: bool = True) -> tuple[Option, Option]:
    more, less = ("more than", "less than") if strict else ("at or after", "at or before")
    return (one(f"-{name}-more", metavar, f"Keep {what} {more} {metavar}", convert),
            one(f"-{name}-less", metavar, f"Keep {what} {less} {metavar}", convert))


FILTER_CONTENT = Group("Pipeline 6: filter content", (
    *_more_less("fetch-time", "TIME", "entries fetched", spec.instant, strict=False),
    *_list_pair("retry-counter", "N", "Keep entries whose retry counter is one of N",
                "Keep entries whose retry counter is none of N", spec.count),
    *_more_less("retry-counter", "N", "entries whose retry counter is", spec.count),
    *_pair_flags("fetch-exception", "Keep entries whose last fetch had an exception",
                 "Keep entries whose last fetch had no exception"),
    *_pair_flags("empty", "Keep empty entries", "Keep non-empty entries"),
    *_pair_flags("usable", "Keep usable entries", "Keep non-usable entries"),
    *_pair_flags("final", "Keep final entries", "Keep non-final entries"),
    one("-grep", "REGEX", "Keep entries whose whole plain text (as --plain prints it) matches REGEX", spec.regex),
    one("-not-grep", "REGEX", "Keep entries whose whole plain text does not match REGEX", spec.regex),
), "Times are ISO-8601 instants such as 2024-01-31T12:00:00Z; a bare date means its midnight UTC.")


def _corresp(field: str, label: str) -> tuple[Option, ...]:
    return (
        one(f"-corresp-author-{field}", "REGEX", f"Keep publications with a corresponding author {label} matching "
            "REGEX", spec.regex),
        one(f"-not-corresp-author-{field}", "REGEX", f"Keep publications with no corresponding author {label} "
            "matching REGEX", spec.regex),
        flag(f"-corresp-author-{field}-empty", f"Keep publications whose corresponding authors' {label}s are all "
             "empty"),
        flag(f"-not-corresp-author-{field}-empty", f"Keep publications with a non-empty corresponding author "
             f"{label}"),
    )


FILTER_PUBLICATIONS = Group("Filter publications", (
    *_pair_flags("totally-final", "Keep publications whose every part is final",
                 "Keep publications with a part that is not final"),
    *_pair_flags("oa", "Keep Open Access publications", "Keep publications that are not Open Access"),
    *_pair_flags("preprint", "Keep preprints", "Keep publications that are not preprints"),
    *_pair_flags("retracted", "Keep retracted publications (pubfetch)", "Keep publications that are not retracted "
                 "(pubfetch)"),
    *_regex_pair("journal-title", "journal title", "publications"),
    *_pair_flags("journal-title-empty", "Keep publications without a journal title",
                 "Keep publications with a journal title"),
    *_more_less("pub-date", "TIME", "publications published", spec.instant, strict=False),
    *_list_pair("citations-count", "N", "Keep publications cited exactly one of N times",
                "Keep publications cited none of N times", spec.integer),
    *_more_less("citations-count", "N", "publications whose citations count is", spec.integer),
    *_more_less("citations-timestamp", "TIME", "publications whose citations count was updated", spec.instant,
                strict=False),
    *_corresp("name", "name"),
    *_corresp("orcid", "ORCID iD"),
    *_corresp("email", "e-mail"),
    *_corresp("phone", "telephone"),
    *_corresp("uri", "web page"),
    *_list_pair("corresp-author-size", "N", "Keep publications with one of N corresponding authors",
                "Keep publications with none of N corresponding authors", spec.count),
    *_more_less("corresp-author-size", "N", "publications whose number of corresponding authors is", spec.count),
    one("-visited", "REGEX", "Keep publications with a visited site whose URL matches REGEX", spec.regex),
    one("-not-visited", "REGEX", "Keep publications with no visited site whose URL matches REGEX", spec.regex),
    one("-rejected", "REGEX", "Keep publications with a page or PDF rejected as another paper's whose URL matches "
        "REGEX (`.` for any)", spec.regex),
    one("-not-rejected", "REGEX", "Keep publications with no page or PDF rejected as another paper's whose URL "
        "matches REGEX", spec.regex),
    one("-unverified", "REGEX", "Keep publications with a page or PDF merged unverified (nothing to check it by yet) "
        "whose URL matches REGEX", spec.regex),
    one("-not-unverified", "REGEX", "Keep publications with no page or PDF merged unverified whose URL matches REGEX",
        spec.regex),
    *_list_pair("visited-host", "HOST", "Keep publications with a visited site on one of HOST",
                "Keep publications with no visited site on any of HOST"),
    *_list_pair("visited-type", "TYPE", "Keep publications with a visited site of one of TYPE",
                "Keep publications with no visited site of any of TYPE", spec.part_type),
    one("-visited-type-more", "TYPE", "Keep publications with a visited site of a type better than TYPE",
        spec.part_type),
    one("-visited-type-less", "TYPE", "Keep publications with a visited site of a type worse than TYPE",
        spec.part_type),
    *_pair_flags("visited-type-final", "Keep publications with a visited site of a final type",
                 "Keep publications with no visited site of a final type"),
    *_pair_flags("visited-type-pdf", "Keep publications with a visited site of a PDF type",
                 "Keep publications with no visited site of a PDF type"),
    one("-visited-from", "REGEX", "Keep publications with a visited site reached from a URL matching REGEX",
        spec.regex),
    one("-not-visited-from", "REGEX", "Keep publications with no visited site reached from a URL matching REGEX",
        spec.regex),
    *_list_pair("visited-from-host", "HOST", "Keep publications with a visited site reached from one of HOST",
                "Keep publications with no visited site reached from any of HOST"),
    *_more_less("visited-time", "TIME", "publications with a site visited", spec.instant, strict=False),
    *_list_pair("visited-size", "N", "Keep publications with one of N visited sites",
                "Keep publications with none of N visited sites", spec.count),
    *_more_less("visited-size", "N", "publications whose number of visited sites is", spec.count),
))


def _part_test(name: str, metavar: str, yes: str, convert: Converter | None, no: str | None = None) -> list[Option]:
    """A part filter and its -...-part list of parts to test (both must be given)."""
    out: list[Option] = []
    for prefix, help in (("", yes), ("not-", no)):
        if help is None:
            continue
        opt = f"-{prefix}{name}"
        if convert is None:
            out.append(flag(opt, f"{help} (parts given with {opt}-part)"))
        elif metavar.endswith("..."):
            out.append(many(opt, metavar[:-3].strip(), f"{help} (parts given with {opt}-part)", convert))
        else:
            out.append(one(opt, metavar, f"{help} (parts given with {opt}-part)", convert))
        out.append(many(f"{opt}-part", "PART", f"The parts {opt} tests", spec.part_name))
    return out


FILTER_PARTS = Group("Filter publication parts", (
    *_list_pair("part-empty", "PART", "Keep publications whose given parts are all empty",
                "Keep publications whose given parts are all non-empty", spec.part_name),
    *_list_pair("part-usable", "PART", "Keep publications whose given parts are all usable",
                "Keep publications whose given parts are all not usable", spec.part_name),
    *_list_pair("part-final", "PART", "Keep publications whose given parts are all final",
                "Keep publications whose given parts are all not final", spec.part_name),
    *_part_test("part-content", "REGEX", "Keep publications whose parts' contents all match REGEX", spec.regex,
                "Keep publications whose parts' contents all do not match REGEX"),
    *_part_test("part-size", "N ...", "Keep publications whose parts' sizes are all one of N", spec.count,
                "Keep publications whose parts' sizes are all none of N"),
    *_part_test("part-size-more", "N", "Keep publications whose parts' sizes are all more than N", spec.count),
    *_part_test("part-size-less", "N", "Keep publications whose parts' sizes are all less than N", spec.count),
    *_part_test("part-type", "TYPE ...", "Keep publications whose parts' types are all one of TYPE", spec.part_type,
                "Keep publications whose parts' types are all none of TYPE"),
    *_part_test("part-type-more", "TYPE", "Keep publications whose parts' types are all better than TYPE",
                spec.part_type),
    *_part_test("part-type-less", "TYPE", "Keep publications whose parts' types are all worse than TYPE",
                spec.part_type),
    *_part_test("part-type-final", "", "Keep publications whose parts' types are all final", None,
                "Keep publications whose parts' types are all not final"),
    *_part_test("part-type-pdf", "", "Keep publications whose parts' types are all PDF types", None,
                "Keep publications whose parts' types are all not PDF types"),
    *_part_test("part-url", "REGEX", "Keep publications whose parts' URLs all match REGEX", spec.regex,
                "Keep publications whose parts' URLs all do not match REGEX"),
    *_part_test("part-url-host", "HOST ...", "Keep publications whose parts' URL hosts are all one of HOST",
                spec.text, "Keep publications whose parts' URL hosts are all none of HOST"),
    *_part_test("part-time-more", "TIME", "Keep publications whose parts were all set at or after TIME",
                spec.instant),
    *_part_test("part-time-less", "TIME", "Keep publications whose parts were all set at or before TIME",
                spec.instant),
), "PART is one of pmid pmcid doi title keywords mesh efo go abstract fulltext; TYPE a part type such as "
   "europepmc, doi, pdf_doi, webpage, na.")


def _web_text(name: str, what: str, empty: bool = True) -> tuple[Option, ...]:
    out: tuple[Option, ...] = _regex_pair(name, what, "webpages and docs")
    if empty:
        out += _pair_flags(f"{name}-empty", f"Keep webpages and docs without a {what}",
                           f"Keep webpages and docs with a {what}")
    return out


FILTER_WEBPAGES = Group("Filter webpages and docs", (
    *_pair_flags("broken", "Keep broken webpages and docs (HTTP failure)",
                 "Keep webpages and docs that are not broken"),
    *_web_text("start-url", "start URL", empty=False),
    *_list_pair("start-url-host", "HOST", "Keep webpages and docs whose start URL host is one of HOST",
                "Keep webpages and docs whose start URL host is none of HOST"),
    *_web_text("final-url", "final URL", empty=False),
    *_list_pair("final-url-host", "HOST", "Keep webpages and docs whose final URL host is one of HOST",
                "Keep webpages and docs whose final URL host is none of HOST"),
    *_pair_flags("final-url-empty", "Keep webpages and docs without a final URL",
                 "Keep webpages and docs with a final URL"),
    *_web_text("content-type", "content type"),
    *_list_pair("status-code", "CODE", "Keep webpages and docs whose HTTP status is one of CODE",
                "Keep webpages and docs whose HTTP status is none of CODE", spec.integer),
    *_more_less("status-code", "CODE", "webpages and docs whose HTTP status is", spec.integer),
    *_web_text("title", "title", empty=False),
    *_list_pair("title-size", "N", "Keep webpages and docs whose title length is one of N",
                "Keep webpages and docs whose title length is none of N", spec.count),
    *_more_less("title-size", "N", "webpages and docs whose title length is", spec.count),
    *_web_text("content", "content", empty=False),
    *_list_pair("content-size", "N", "Keep webpages and docs whose content length is one of N",
                "Keep webpages and docs whose content length is none of N", spec.count),
    *_more_less("content-size", "N", "webpages and docs whose content length is", spec.count),
    *_more_less("content-time", "TIME", "webpages and docs whose content was read", spec.instant, strict=False),
    *_web_text("license", "software license"),
    *_web_text("language", "programming language"),
    *_pair_flags("has-scrape", "Keep webpages and docs whose final URL has scraping rules",
                 "Keep webpages and docs whose final URL has no scraping rules"),
))

SORT_CONTENT = Group("Pipeline 7: sort and limit content", (
    flag("-asc", "Sort entries by ID or URL in ascending order"),
    flag("-desc", "Sort entries by ID or URL in descending order"),
    flag("-asc-time", "Sort entries by fetch time, oldest first"),
    flag("-desc-time", "Sort entries by fetch time, newest first"),
    one("-head", "N", "Keep only the first N entries of each kind (and top hosts)", spec.count),
    one("-tail", "N", "Keep only the last N entries of each kind (and top hosts)", spec.count),
))

STORE = Group("Pipeline 8: update, put and remove", (
    one("-update-citations-count", "DATABASE", "Fetch the citations count of the publications and put the updated "
        "ones into the database", network=True),
    one("-put", "DATABASE", "Put the entries into the database, replacing entries with the same IDs or URLs"),
    one("-remove", "DATABASE", "Remove the entries' IDs and URLs from the database"),
))

OUTPUT = Group("Pipeline 9: output", (
    flag("-out", "Print the publications (or their --out-part parts), webpages and docs"),
    one("-txt-pub", "FILE", "Write the publications to FILE"),
    one("-txt-web", "FILE", "Write the webpages to FILE"),
    one("-txt-doc", "FILE", "Write the docs to FILE"),
    one("-out-tables", "DIR", "Write each table of the publications as DIR/<id>/table_000.csv (header rows, then body "
        "rows) with table_000_info.json (caption, header rows, footnotes), as pubget lays them out (pubfetch)"),
    flag("-count", "Print how many publications, webpages and docs there are"),
    flag("-out-top-hosts", "Print the hosts of publications' visited sites and of webpage and doc final URLs, "
         "most frequent first, with counts"),
    one("-txt-top-hosts-pub", "FILE", "Write the top hosts of the publications to FILE"),
    one("-txt-top-hosts-web", "FILE", "Write the top hosts of the webpages to FILE"),
    one("-txt-top-hosts-doc", "FILE", "Write the top hosts of the docs to FILE"),
    flag("-count-top-hosts", "Print how many different hosts there are"),
    flag("-part-table", "Print a CSV table counting publications by part and part type"),
    one("-report", "FILE", "Write an HTML report to FILE: parts final, partial and missing and their sources, full "
        "text by publisher host, and for a fetching run its requests, failures and 429s per host; on the whole "
        "database when one is named, else on the publications got ('-': standard output) (pubfetch; needs "
        "pubfetch[report])"),
))

OUTPUT_MODIFIERS = Group("Output modifiers", (
    flag("--plain", "Leave out metadata: only the content of entries, only the IDs without provenance", "modifier"),
    one("--format", "FORMAT",
        "text (default), html, json, jsonl (one JSON entry per line for pipelines), metadata (LOCKSS-style "
        "ArticleMetadata records in the JSON document), metadata-jsonl (one record per line), chunks (passages for "
        "retrieval, one JSON line each: a paragraph of at most 2,000 characters with its IDs and section path), "
        "citations of the publications for reference managers: csljson, bibtex, ris (bibtex and ris need "
        "pubfetch[citations]), markdown (each entry a Markdown document: headings, tables, figures, statements, "
        "references; whole entries whatever --out-part and --plain say), or edges: the citation edges a snowball "
        "stored among the publications, as CSV (-out only)",
        spec.output_format, "modifier"),
    many("--out-part", "PART", "Output only these publication parts (webpages and docs are not affected)",
         spec.part_name, "modifier"),
    one("--supplements", "DIR", "Download the supplementary files of the publications got to DIR/<id>/<file name> "
        "(<id>: PMCID, else PMID, else DOI), through the same address guard, size cap and time limits as PDFs "
        "(pubfetch)", role="modifier", network=True),
))

# Europe PMC's and PMC's HTML pages are not offered (PubFetcher's -print-europepmc-html and -print-pmc-html): their
# terms forbid automated download, so those operations could never work.
TESTS = Group("Test operations (network)", tuple(
    one(f"-print-{name}", metavar, f"Fetch the publication from {what} alone and print it", role="test",
        network=True)
    for name, metavar, what in (
        ("europepmc-xml", "PMCID", "the Europe PMC full text XML"),
        ("pmc-xml", "PMCID", "the PubMed Central XML"),
        ("pubmed-xml", "PMID", "the PubMed XML"),
        ("pubmed-html", "PMID", "the PubMed HTML page"),
        ("europepmc", "PMID", "the Europe PMC search"),
        ("europepmc-mined", "PMID", "the Europe PMC text-mined terms"),
        ("oadoi", "DOI", "Unpaywall"),
        ("site", "URL", "the article page at URL (scraping rules)"),
    )
) + (one("-print-webpage", "URL", "Fetch the webpage at URL with the scraping rules and print it", role="test",
         network=True),))

RULE_AND_RESOURCE_TESTS = Group("Test operations: rule tests and resource tests", (
    flag("-test-site", "Check every journal rule's test entries (live, or --replay DIR); print a table per rule",
         role="test", network=True),
    one("-test-site-regex", "REGEX", "As -test-site, for the sites whose name or test URL REGEX finds", role="test",
        network=True),
    flag("-test-webpage", "Check every webpage rule's test entries (live, or --replay DIR); print a table per rule",
         role="test", network=True),
    one("-test-webpage-regex", "REGEX", "As -test-webpage, for the rules whose regex or test URL REGEX finds",
        role="test", network=True),
    one("--replay", "DIR", "Run the rule tests offline on the pages recorded in DIR (manifest.jsonl/pages.jsonl)",
        role="modifier"),
    *(flag(f"-test-{name}", f"Fetch each test ID from {what} alone and print a table of what it gave",
           role="test", network=True)
      for name, what in (("europepmc", "the Europe PMC search"), ("europepmc-mined", "Europe PMC's mined terms"),
                         ("europepmc-xml", "the Europe PMC full text XML"), ("pmc-xml", "the PMC XML"),
                         ("pubmed-xml", "the PubMed XML"), ("pubmed-html", "the PubMed page"),
                         ("oadoi", "Unpaywall"))),
    flag("-test-europepmc-html", "Not offered (Europe PMC's terms forbid automated download of its pages)",
         role="test"),
    flag("-test-pmc-html", "Not offered (PMC's terms forbid automated download of its pages)", role="test"),
    many("--test-ids", "ID", "The IDs the resource test operations use instead of their built-in ones",
         role="modifier"),
))

ONEOFF_METADATA = Group("One-off: metadata records (pubfetch)", (
    fixed("-extract-au", "PLUGIN SOURCE", "Extract the ArticleMetadata records of an archival unit: PLUGIN is a plugin "
          "file or a shipped plugin (highwire, ojs, jats_delivery), SOURCE a wget mirror directory or a WARC file; "
          "written as --format metadata (JSON, the default here) or metadata-jsonl"),
    many("--au-param", "KEY=VALUE", "A parameter of the archival unit (base_url=https://..., journal_id=...)",
         role="modifier"),
    one("--tdb", "FILE", "Take the archival unit from a LOCKSS title database (.tdb)", role="modifier"),
    one("--au", "NAME", "The name of the archival unit in the title database", role="modifier"),
))

GROUPS: tuple[Group, ...] = (
    GENERAL, FETCHING, FETCHING_PRIVATE,
    ONEOFF_DATABASE, ONEOFF_WEB, ONEOFF_SCRAPE, ONEOFF_IDS, ONEOFF_MISC, ONEOFF_METADATA,
    ADD_IDS, FILTER_IDS, SORT_IDS, OUTPUT_IDS, GET_CONTENT, GET_CONTENT_MODIFIERS, SNOWBALL,
    FILTER_CONTENT, FILTER_PUBLICATIONS, FILTER_PARTS, FILTER_WEBPAGES,
    SORT_CONTENT, STORE, OUTPUT, OUTPUT_MODIFIERS, TESTS, RULE_AND_RESOURCE_TESTS,
)

BY_NAME: dict[str, Option] = {}
for _group in GROUPS:
    for _option in _group.options:
        for _name in _option.names:
            if _name in BY_NAME:
                raise AssertionError(f"option {_name} defined twice")
            BY_NAME[_name] = _option

PART_TESTS: tuple[str, ...] = tuple(
    o.dest for o in FILTER_PARTS.options if f"-{o.dest}-part" in BY_NAME
)
"""Part filters that need their ``-...-part`` list of parts (PubFetcher's checkPartArg pairs)."""
