"""Every setting of pubfetch, declared once: name, type, default, bounds, environment variable, command-line option and
one line of doc, as the fields of the value records a :class:`~pubfetch.config.tree.FetchConfig` is made of.

PubFetcher's own fetching parameters (:class:`FetcherArgs`, the ``fetching`` record) are declared the same way, with
PubFetcher's names, labels and units besides (their text forms: :mod:`pubfetch.config.fetching`).
docs/configuration.md is generated from these declarations (``python3 -m
pubfetch.config.docs``), and a test fails when it is stale.

Only values live here. What has state (the shared rate limiter, a WARC recorder, a transport) is passed beside a
configuration, as httpx takes ``transport=``: see :class:`~pubfetch.engine.assembly.FetchRun`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from pubfetch.config.limits import DOCUMENTED, parse_windows
from pubfetch.config.proxies import EnvironmentProxies
from pubfetch.config.values import check_record, declared, setting
from pubfetch.part_names import DEFAULT_ANNOTATIONS, AnnotationType, PartName

__all__ = ["MINUTE_MS", "PROCESS_VARIABLES", "Batching", "BulkImport", "Endpoints", "FetcherArgs", "HttpSettings",
           "RunSettings"]

DEFAULT_MAX_BYTES: Final = 50 * 1024 * 1024
#: How alike (rapidfuzz, 0 to 100) a page's title must be to the paper's to count as its page.
DEFAULT_TITLE_SIMILARITY: Final = 90
#: Cells kept of a table read from a full text (the rest are cut, with a warning).
DEFAULT_MAX_TABLE_CELLS: Final = 100_000
DEFAULT_MAX_ENTRY_BYTES: Final = 20 * 1024 * 1024
#: Hosts PubFetcher never queues behind (the DOI resolver answers every thread at once and only redirects).
DEFAULT_UNLIMITED_HOSTS: Final[frozenset[str]] = frozenset({"doi.org", "dx.doi.org"})

#: The shared rate limits' file in the user's cache when ``rate_db`` names no place.
RATE_DB_FILE: Final = ("pubfetch", "rate-limits.sqlite")

MINUTE_MS: Final = 60_000
#: PubFetcher's numbers are Java ints: cooldowns and the retry limit may be negative (never, no limit).
_INT_LOW: Final = -(2**31)
_INT_HIGH: Final = 2**31 - 1

#: Variables of the environment that are not settings of a run: they choose the config file, or belong to a store or
#: a queue (read through :func:`pubfetch.config.environment.environment_value`).
PROCESS_VARIABLES: Final[Mapping[str, str]] = {
    "PUBFETCH_CONFIG": "the config file (else `~/.config/pubfetch/config.yaml`, under `$XDG_CONFIG_HOME` when set)",
    "XDG_CACHE_HOME": "the cache holding the default rate-limit file `pubfetch/rate-limits.sqlite` (else `~/.cache`)",
    "PUBFETCH_DB_OUTAGE_S": "seconds (default 300) an open PostgreSQL database is tried again through a lost "
                            "connection or an unreachable server before a read or put fails",
    "PUBFETCH_RESULT_BACKEND": "where a queue keeps its jobs' results (a Redis URL) when none is given",
}


def _cooldown(key: str, label: str, default: int, what: str) -> int:
    return setting(default, key=key, label=label, unit="min", low=_INT_LOW, high=_INT_HIGH,
                   doc=f"Minutes after the last fetching attempt of {what} before fetching may be attempted again "
                       "(which also resets the retry counter); a suffix gives other units (12h, 1d). 0 means always "
                       "try again, a negative value means never refetch for this reason.")


def _min_size(key: str, label: str, default: int, doc: str) -> int:
    return setting(default, key=key, label=label, low=0, doc=doc)


def _text(key: str, label: str, default: str, doc: str, env: str = "") -> str:
    return setting(default, key=key, label=label, doc=doc, env=env or ())


@dataclass(frozen=True)
class FetcherArgs:
    """PubFetcher's fetching parameters (pubfetcher.md section 3), in PubFetcher's order, units and names (``key``).

    Units follow PubFetcher: the three cooldowns are whole minutes, ``timeout`` is milliseconds. From text (the
    command line, a config file's ``fetching``: :func:`pubfetch.config.fetching.parse_fetcher_option`) a plain number
    is in that unit and a suffixed interval (``12h``, ``1d``, ``30s``) is converted to it; a cooldown that is not a
    whole number of minutes (``30s``) is refused rather than rounded, since rounding it down to 0 would mean "always
    refetch". Cooldowns and ``retry_limit`` may be negative (never / unlimited); lengths, sizes and ``timeout`` may
    not. Every value is checked on construction (also by :func:`dataclasses.replace`).
    """

    empty_cooldown: int = _cooldown("emptyCooldown", "Empty cooldown", 720, "an empty publication or webpage")
    non_final_cooldown: int = _cooldown("nonFinalCooldown", "Non-final cooldown", 10080,
                                        "a non-final (but non-empty) publication or webpage")
    fetch_exception_cooldown: int = _cooldown("fetchExceptionCooldown", "Fetching exception cooldown", 1440,
                                              "a publication or webpage whose fetching had an exception")
    retry_limit: int = setting(
        3, key="retryLimit", label="Retry limit", low=_INT_LOW, high=_INT_HIGH,
        doc="How many times fetching may be retried after the initial attempt while the entry stays empty, non-final "
            "or has a fetching exception. 0 disables retrying (until a cooldown resets the counter), a negative value "
            "removes the limit.")
    title_min_length: int = _min_size("titleMinLength", "Title min. length", 4,
                                      "Minimum length of a usable publication title")
    keywords_min_size: int = _min_size("keywordsMinSize", "Keywords min. size", 2,
                                       "Minimum size of a usable publication keywords or MeSH list")
    mined_terms_min_size: int = _min_size("minedTermsMinSize", "Mined terms min. size", 1,
                                          "Minimum size of a usable publication EFO or GO terms list")
    abstract_min_length: int = _min_size("abstractMinLength", "Abstract min. length", 200,
                                         "Minimum length of a usable publication abstract")
    fulltext_min_length: int = _min_size("fulltextMinLength", "Fulltext min. length", 2000,
                                         "Minimum length of a usable publication fulltext")
    webpage_min_length: int = _min_size("webpageMinLength", "Webpage min. length", 50,
                                        "Minimum length of a usable webpage (title and content together)")
    webpage_min_length_javascript: int = _min_size(
        "webpageMinLengthJavascript", "Webpage min. length JS", 200,
        "If a webpage fetched without JavaScript is shorter than this and no scraping rules match its URL, it is "
        "fetched again with JavaScript")
    timeout: int = setting(
        15000, key="timeout", label="Timeout", unit="ms", low=0,
        doc="Connect and read timeout of connections, in milliseconds (or with a suffix: 30s, 1m); 0: none. 8 x "
            "timeout bounds a whole exchange (unless total_timeout_ms is set) and, at least 30 s, a browser's page")
    quick: bool = setting(
        False, key="quick", label="Quick",
        doc="Do not retry a request after it timed out (PubFetcher also caps its links loop at 3 x timeout; pubfetch "
            "bounds it by max_links: docs/limits.md)")
    europepmc_email: str = _text("europepmcEmail", "Europe PMC e-mail", "", "E-mail to send to the Europe PMC API",
                                 env="PUBFETCH_EUROPEPMC_EMAIL")
    oadoi_email: str = _text("oadoiEmail", "oaDOI e-mail", "@", "E-mail to send to the Unpaywall (oaDOI) API",
                             env="PUBFETCH_UNPAYWALL_EMAIL")
    user_agent: str = _text("userAgent", "User Agent",
                            "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0", "HTTP User-Agent")
    journals_yaml: str = _text("journalsYaml", "Journals scrape rules", "",
                               "YAML file of extra journal scraping rules, read after the built-in ones")
    webpages_yaml: str = _text("webpagesYaml", "Webpages scrape rules", "",
                               "YAML file of extra webpage scraping rules, read after the built-in ones")

    def __post_init__(self) -> None:
        check_record(self)

    def to_dict(self, camel_case: bool = False) -> dict[str, Any]:
        """All values, keyed by attribute name, or by PubFetcher's name when ``camel_case`` (as PubFetcher prints
        them)."""
        if camel_case:
            return {declared(f).key: getattr(self, f.name) for f in dataclasses.fields(self)}
        return dataclasses.asdict(self)

    def cooldown_ms(self, name: str) -> int:
        """A cooldown in milliseconds; ``name`` is e.g. ``empty_cooldown`` or ``emptyCooldown``."""
        f = next((f for f in dataclasses.fields(self) if name in (f.name, declared(f).key)), None)
        if f is None or declared(f).unit != "min":
            raise ValueError(f"{name!r} is not a cooldown")
        return int(getattr(self, f.name)) * MINUTE_MS


def _env_url(name: str) -> str:
    return f"PUBFETCH_{name.upper()}_URL"


def _url(default: str, doc: str, name: str) -> str:
    return setting(default, doc=doc, env=_env_url(name))


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the remote services (each ends in "/", so that resources build request URLs by concatenation:
    ``endpoints.eutils + "efetch.fcgi"``); mirrors, caches and recorded-response servers of tests replace them."""

    europepmc: str = _url("https://www.ebi.ac.uk/europepmc/webservices/rest/", "Europe PMC's REST API", "europepmc")
    europepmc_annotations: str = _url("https://www.ebi.ac.uk/europepmc/annotations_api/",
                                      "Europe PMC's annotations API (text-mined terms)", "europepmc_annotations")
    eutils: str = _url("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/", "NCBI E-utilities", "eutils")
    pubmed: str = _url("https://pubmed.ncbi.nlm.nih.gov/", "PubMed's web pages", "pubmed")
    doi: str = _url("https://doi.org/", "the DOI resolver", "doi")
    unpaywall: str = _url("https://api.unpaywall.org/v2/", "the Unpaywall API", "unpaywall")
    crossref: str = _url("https://api.crossref.org/", "Crossref's REST API", "crossref")
    openalex: str = _url("https://api.openalex.org/", "the OpenAlex API", "openalex")
    datacite: str = _url("https://api.datacite.org/", "DataCite's REST API", "datacite")
    biorxiv: str = _url("https://api.biorxiv.org/", "the bioRxiv/medRxiv API", "biorxiv")

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            try:
                parts = urlsplit(value.strip()) if isinstance(value, str) else None
                host = parts.hostname if parts is not None else None
            except ValueError:
                parts, host = None, None
            if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
                raise ValueError(f"endpoint {f.name} must be an http(s) URL with a host, got {value!r}")
            if not value.endswith("/"):
                object.__setattr__(self, f.name, value + "/")

    @staticmethod
    def env_var(field_name: str) -> str:
        """The environment variable of an endpoint: ``europepmc`` -> ``PUBFETCH_EUROPEPMC_URL``."""
        return _env_url(field_name)

    def hosts(self) -> frozenset[str]:
        """Host names of all endpoints (e.g. to allow a locally mirrored service past the private-address check)."""
        hosts = (urlsplit(getattr(self, f.name)).hostname for f in dataclasses.fields(self))
        return frozenset(h.rstrip(".").lower() for h in hosts if h)


@dataclass(frozen=True)
class HttpSettings:
    """How the HTTP client treats hosts and answers, besides PubFetcher's ``timeout``, ``userAgent`` and ``quick``."""

    per_host_connections: int = setting(
        1, low=1, high=1024, cli="--connections-per-host",
        doc="requests to any one host at the same time, whatever the number of threads (PubFetcher's develop "
            "branch: 4)")
    host_connections: Mapping[str, int] = setting(
        factory=dict, low=1, high=1024,
        doc="per-host exceptions to `per_host_connections`, by host without `www.` (`{ebi.ac.uk: 4}`)")
    unlimited_hosts: frozenset[str] = setting(
        DEFAULT_UNLIMITED_HOSTS, doc="hosts that take no connection slot at all (they only redirect)")
    allow_private_addresses: bool = setting(
        False, cli="--allow-private-addresses",
        doc="let links and redirects taken from pages point at loopback, private, link-local and cloud-metadata "
            "addresses (intranets, tests)")
    max_bytes: int = setting(DEFAULT_MAX_BYTES, low=1, doc="largest body read; a bigger one is refused as too large")
    max_compression_ratio: float = setting(
        100.0, low=1, doc="decoded/raw size above which a compressed body is a decompression bomb")
    compression_ratio_floor: int = setting(
        1024 * 1024, doc="bytes decoded before `max_compression_ratio` is checked (small bodies compress well)")
    total_timeout_ms: int | None = setting(
        None, doc="longest exchange (connect, headers and body) in ms, so that a server dripping bytes cannot hold a "
                  "thread; empty: 8 x `timeout`")
    max_redirects: int = setting(10, high=100, doc="redirects followed before giving up")
    timeout_retries: int = setting(1, high=100, doc="extra attempts after a timeout (none with `quick`)")
    busy_retries: int = setting(2, high=100, doc="extra attempts after a 503 or 429 before the host counts as busy")
    retry_after_cap_s: float = setting(
        60.0, high=86_400, doc="longest Retry-After waited for; a longer one is recorded as a fetching exception and "
                               "left for the next run")
    busy_backoff_s: float = setting(1.0, high=3600, doc="wait before retrying a 503/429 without Retry-After (doubles "
                                                        "on each retry)")
    proxies: Mapping[str, str] | None = setting(
        None, doc="proxies by scheme (`{https: http://proxy:3128}`), beside the usual proxy variables")
    environment_proxies: EnvironmentProxies | None = setting(
        None, in_file=False,
        doc="the proxies the usual variables name (`https_proxy`, `all_proxy`, `no_proxy` ...), read once by "
            "`FetchConfig.from_env`; empty: read when a client starts")
    ca_bundle: str | None = setting(None, env=("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"),
                                    doc="CA bundle verifying HTTPS servers (else certifi's)")
    extra_headers: Mapping[str, str] = setting(factory=dict, doc="headers sent with every request")

    def __post_init__(self) -> None:
        check_record(self)


@dataclass(frozen=True)
class Batching:
    """How many publications go through the chain together, and how many IDs go in one request of a batched
    service."""

    batch_size: int = setting(
        200, low=1, high=1_000_000, cli="--batch-size",
        doc="publications walked through the resources together; 1 fetches them one at a time as PubFetcher does")
    europepmc_batch: int = setting(
        200, low=1, high=1000, job=True,
        doc="IDs per Europe PMC search request (the service pages at 1000 results)")
    efetch_batch: int = setting(200, low=1, high=10_000, job=True, doc="IDs per E-utilities efetch request")
    elink_batch: int = setting(
        200, low=1, high=10_000,
        doc="PMIDs per E-utilities ELink request of `--citations` (POSTed, one `id` parameter each, so that the answer "
            "says who cites whom)")
    annotations_batch: int = setting(100, low=1, high=1000, job=True,
                                     doc="article IDs per annotations API request (keeps the URL short)")
    crossref_batch: int = setting(
        50, low=1, high=100, job=True,
        doc="DOIs per Crossref `works?filter=doi:...` request (the URL must stay short)")
    openalex_batch: int = setting(
        50, low=1, high=100, job=True, doc="DOIs per OpenAlex `works?filter=doi:a|b` request (OpenAlex takes 100)")
    datacite_batch: int = setting(50, low=1, high=100, job=True, doc="DOIs per DataCite `dois?ids=...` request")
    linger_ms: int = setting(
        1000, job=True,
        doc="longest a batched request waits for publications on their way to it; it goes as soon as its host can "
            "take it")
    hold_margin_ms: int = setting(
        2000, low=-1, high=600_000, job=True,
        doc="a batched request that is not full waits for more IDs while another host has more work before it than "
            "this (docs/throughput.md); it goes when the busiest other host is within this margin of done, when its "
            "own host would need longer, or when nothing else moves; -1: never waits for company")
    carry_batches: int = setting(
        4, low=0, high=1000, job=True,
        doc="batches of the run (`--batch-size` each) a batched request waiting for company may gather from beyond "
            "the two in flight: a batch whose last publications wait only for such a request lets the next batch "
            "start, and is reported when they are done (docs/throughput.md); its publications stay in memory until "
            "then; 0: a batch of the run ends with its last publication")

    def __post_init__(self) -> None:
        check_record(self)


@dataclass(frozen=True)
class RunSettings:
    """What a run does and with what: threads, parts, links, the browser, the shared rate limits, NCBI's credentials."""

    threads: int = setting(8, low=1, high=1024, env="PUBFETCH_THREADS", cli="--threads",
                           doc="worker threads for per-publication requests (DOI pages, Unpaywall, links, full texts)")
    parts: frozenset[PartName] | None = setting(
        None, in_file=False, doc="fetch only these parts (`--fetch-part`); IDs are always kept; empty: all")
    rich_parts: bool = setting(
        True, cli="--no-rich-parts", job=True,
        doc="read and store the rich parts (funding, corrections, references, links, sections, licence, tables, "
            "figures, supplements, statements, relations; docs/output.md) beside the parts asked for; off: answers are "
            "parsed without them and entries keep none, for a run wanting only PubFetcher's parts (PubMed XML parses "
            "about twice as fast, docs/benchmarks.md)")
    max_links: int = setting(10, high=100_000, job=True, doc="links tried per publication after the resources")
    max_table_cells: int = setting(
        DEFAULT_MAX_TABLE_CELLS, low=1, high=100_000_000, job=True, env="PUBFETCH_MAX_TABLE_CELLS",
        doc="cells (rows times columns, spans resolved) a table of the full text keeps; the rows past it are left "
            "out and the table is marked `truncated`")
    javascript: bool = setting(True, cli="--no-javascript", job=True,
                               doc="render pages that need JavaScript (off: they are fetched plainly)")
    chromium: str | None = setting(None, env="PUBFETCH_CHROMIUM", cli="--chromium",
                                   doc="Chromium binary for JavaScript pages (else Playwright's, else a system one)")
    references: bool = setting(
        False, cli="--references", job=True,
        doc="ask Europe PMC's references endpoint for the reference lists the full text and PubMed record do not "
            "give (a request per such paper and page of 1000 references)")
    max_references: int = setting(
        10_000, low=1, high=10_000_000, job=True,
        doc="references kept per publication: a longer list keeps its first ones, with a warning (`--references` "
            "asks no page past them)")
    annotations: frozenset[AnnotationType] = setting(
        DEFAULT_ANNOTATIONS, cli="--annotations", job=True,
        doc="the annotation types asked of Europe PMC's annotations service, by its type names, comma-separated: "
            "Gene_Proteins, Diseases, Chemicals, Organisms, Accession Numbers, Resources, Experimental Methods (the "
            "`efo` part), Gene Ontology (the `go` part); the others are kept in the `minedTerms` part. One request "
            "per batch of articles brings every type")
    max_text_links: int = setting(
        2_000, low=1, high=1_000_000, job=True,
        doc="links and identifiers found in the text kept per publication (the `links` part): more keep their first "
            "ones, with a warning")
    max_entry_bytes: int = setting(
        DEFAULT_MAX_ENTRY_BYTES, low=1024 * 1024, high=1024 ** 3, job=True,
        doc="largest entry (its JSON in UTF-8) a fetch stores: a publication over it loses references from the end "
            "first, then sections, then full text ..., a webpage or doc the end of its content, with a warning naming "
            "it (docs/limits.md)")
    rate_limits: bool = setting(
        True, cli="--no-rate-limit",
        doc="wait for the services' documented rate limits, shared with every pubfetch process of the user")
    rate_db: str | None = setting(
        None, env="PUBFETCH_RATE_DB", cli="--rate-db",
        doc="where the shared rate limits are kept: a SQLite file, or `redis://host:6379/N` to share them across "
            "machines (empty: `~/.cache/pubfetch/rate-limits.sqlite`, under `$XDG_CACHE_HOME` when set)")
    ncbi_api_key: str = setting("", env=("PUBFETCH_NCBI_API_KEY", "NCBI_API_KEY"), cli="--ncbi-api-key",
                                doc="NCBI API key: E-utilities allow 10 instead of 3 requests/s")
    ncbi_tool: str = setting("pubfetch", env="PUBFETCH_NCBI_TOOL", doc="the `tool` name sent to E-utilities")
    ncbi_email: str = setting("", env="PUBFETCH_NCBI_EMAIL", cli="--ncbi-email",
                              doc="the e-mail sent to E-utilities")
    crossref_mailto: str = setting(
        "", env="PUBFETCH_CROSSREF_MAILTO", cli="--crossref-mailto",
        doc="the contact address sent to Crossref (`mailto=`): its polite pool allows about 10 requests/s instead of "
            "the public pool's 5")
    openalex_api_key: str = setting(
        "", env="PUBFETCH_OPENALEX_API_KEY", cli="--openalex-api-key",
        doc="OpenAlex API key (`api_key=`; free keys allow 100,000 credits a day): OpenAlex asks for one since "
            "February 2026")
    datacite_mailto: str = setting(
        "", env="PUBFETCH_DATACITE_MAILTO", cli="--datacite-mailto",
        doc="the contact address sent to DataCite (`mailto=`): identified requests may make 1,000 instead of 500 "
            "requests per 5 minutes")
    rate_windows: Mapping[str, str] = setting(
        factory=dict,
        doc="rate limits replacing the documented ones (\"Shared rate limits\" below) by service: "
            "`{europepmc: \"10/s, 500/min\", host: 2/s, host:example.org: 1/s}`; windows as count/unit (s, min, h, "
            "day, or `5min`), `burst N` for requests that may go at once")
    ask_crossref: bool = setting(
        True, env="PUBFETCH_ASK_CROSSREF", cli="--no-crossref", job=True,
        doc="ask Crossref for every Crossref DOI (content the earlier resources did not finish; updates, retractions, "
            "relations and references always)")
    ask_openalex: bool = setting(True, env="PUBFETCH_ASK_OPENALEX", cli="--no-openalex", job=True,
                                 doc="ask OpenAlex for every DOI (retraction flag, citation count, content not "
                                     "finished)")
    ask_datacite: bool = setting(True, env="PUBFETCH_ASK_DATACITE", cli="--no-datacite", job=True,
                                 doc="ask DataCite for every DataCite DOI")
    ask_biorxiv: bool = setting(True, env="PUBFETCH_ASK_BIORXIV", cli="--no-biorxiv", job=True,
                                doc="ask the bioRxiv/medRxiv API for preprints of those servers (metadata, "
                                    "published version, JATS full text)")
    follow_published: bool = setting(
        False, cli="--follow-published", job=True,
        doc="fetch a preprint's published version too: both are kept, linked by their `relations`")
    page_time_limit: float = setting(
        20.0, low=0.1, high=3600, env="PUBFETCH_PAGE_TIME_LIMIT", cli="--page-time-limit",
        doc="seconds a fetched page (a publication's page, a webpage or doc, a rule test's page) may take to be read "
            "(parsed, its rule, the generic reader or the cleaning applied) in its worker process; a page over it is "
            "abandoned with a warning and counts as a failed request of its URL (a rule test's page fails its test)")
    page_memory_limit: int = setting(
        1024 ** 3, low=0, env="PUBFETCH_PAGE_MEMORY_LIMIT",
        doc="bytes of address space a page-reading worker process may use (0: no cap); a page that needs more is "
            "abandoned as one over its time")
    title_similarity: int = setting(
        DEFAULT_TITLE_SIMILARITY, low=0, high=100, job=True, env="PUBFETCH_TITLE_SIMILARITY", cli="--title-similarity",
        doc="how alike (rapidfuzz similarity) a page's or PDF's title must be to the paper's known title for the page "
            "to be merged, when it carries no identifier to compare (docs/rules.md, \"Whose page is it\")")

    def __post_init__(self) -> None:
        check_record(self)
        if self.references and not self.rich_parts:
            raise ValueError("--references asks Europe PMC for reference lists, a rich part, which --no-rich-parts "
                             "(rich_parts = false) leaves out: give only one of them")
        for service, text in self.rate_windows.items():
            if service not in DOCUMENTED and not service.startswith("host:"):
                raise ValueError(f"rate_windows names {service!r}, which is no service: "
                                 f"{', '.join(DOCUMENTED)} or host:NAME")
            try:
                parse_windows(text)
            except ValueError as e:
                raise ValueError(f"rate_windows.{service}: {e}") from None


@dataclass(frozen=True)
class BulkImport:
    """How ``-db-import-medline`` and ``-db-import-jats`` load bulk files (docs/bulk.md)."""

    import_workers: int = setting(
        0, high=1024, env="PUBFETCH_IMPORT_WORKERS", cli="--workers",
        doc="processes parsing and storing bulk files, one file each at a time; 0: one per core")
    import_chunk: int = setting(
        2000, low=1, high=1_000_000, env="PUBFETCH_IMPORT_CHUNK",
        doc="records of a bulk file merged in one database transaction (the file's last ones record it as imported); "
            "JATS full texts, each holding as much as about twenty records, a twentieth of it")
    import_download_dir: str | None = setting(
        None, env="PUBFETCH_IMPORT_DOWNLOAD_DIR", cli="--download-dir",
        doc="where bulk files given by URL are downloaded (and resumed); empty: `pubfetch-downloads` in the current "
            "directory")
    import_dir: str | None = setting(
        None, env="PUBFETCH_IMPORT_DIR",
        doc="a worker's directory of bulk files: a queued import's file names are read under it, and files given by "
            "URL downloaded into it (`pubfetch worker --import-dir`)")

    def __post_init__(self) -> None:
        check_record(self)
