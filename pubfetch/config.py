"""Everything a fetch run is configured with, gathered in one object built from code, environment or CLI.

PubFetcher spreads this over FetcherArgs, FetcherPrivateArgs and constants in Fetcher.java. Here the PubFetcher
parameters stay in :class:`~pubfetch.fetcher_args.FetcherArgs` (they are stored in JSON output and drive finality); the
rest (service credentials, endpoints, HTTP knobs, batching) lives in :class:`FetchConfig`, so that a pipeline can set
it from ``PUBFETCH_*`` / ``NCBI_API_KEY`` environment variables without touching the parameters of the entries.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import os
import stat
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartName
from pubfetch.net.config import HttpConfig, HttpOverrides
from pubfetch.net.endpoints import Endpoints

__all__ = ["ConfigChanges", "FetchConfig", "FetchOptions", "HttpOverrides"]

#: IDs per Europe PMC search request (the service pages at most 1000 results; a query of a few hundred IDs stays short).
EUROPEPMC_BATCH = 200
#: IDs per E-utilities efetch request (NCBI accepts thousands; 200 is where Biopython switches to POST).
EFETCH_BATCH = 200
#: Article IDs per annotations API request (~150 keeps the URL short; the issue asks for <= 1 request per 100 IDs).
ANNOTATIONS_BATCH = 100

#: Largest value of each whole-number setting: far above any useful value, far below what breaks ``islice`` or a
#: thread pool (``batch_size: 10**30`` used to end in a ValueError deep inside the run).
INT_LIMITS: dict[str, tuple[int, int]] = {
    "threads": (1, 1024),
    "batch_size": (1, 1_000_000),
    "per_host_connections": (1, 1024),
    "europepmc_batch": (1, 1000),
    "efetch_batch": (1, 10_000),
    "annotations_batch": (1, 1000),
    "max_links": (0, 100_000),
}


def setting_value(key: str, value: object, expected: object) -> object:
    """``value`` checked against the type ``expected`` of setting ``key`` (the one place where settings from a config
    file or the command line are typed): a boolean must be a YAML boolean (the string ``"false"`` is NOT false: it is
    an error, since truthiness would turn a guard off), a whole number an integer within :data:`INT_LIMITS`, text a
    string. Raises ValueError naming the key."""
    union = typing.get_origin(expected) in (typing.Union, types.UnionType)
    if union and type(None) in typing.get_args(expected):
        if value is None:
            return None
        expected = next(a for a in typing.get_args(expected) if a is not type(None))
    if expected is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false, got {value!r}")
        return value
    if expected is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{key} must be a whole number, got {value!r}")
        low, high = INT_LIMITS.get(key, (0, 2**31 - 1))
        if not low <= value <= high:
            raise ValueError(f"{key} must be between {low} and {high}, got {value}")
        return value
    if expected is str:
        if not isinstance(value, str):
            raise ValueError(f"{key} must be a string, got {value!r}")
        return value
    raise ValueError(f"{key} cannot be set here")



@dataclass(frozen=True)
class FetchConfig:
    """How to reach the services and how hard to push them.

    Attributes:
        args: PubFetcher's fetching parameters (finality thresholds, cooldowns, timeout, emails, user agent).
        endpoints: base URLs of the services (tests and mirrors override them).
        ncbi_api_key, ncbi_tool, ncbi_email: sent to E-utilities (``api_key`` raises NCBI's limit from 3 to 10 req/s).
        threads: worker threads for per-publication requests (DOI pages, Unpaywall, links, full texts).
        batch_size: publications walked through the chain together; 1 reproduces PubFetcher's one-at-a-time fetching.
        parts: when given, only these parts are fetched (``--fetch-part``); IDs are always kept.
        allow_private_addresses: let links taken from pages point at loopback/private addresses (tests, intranets).
        per_host_connections: concurrent connections to any one host (``--connections-per-host``; the seed's 1 by
            default, where PubFetcher's develop branch lets 4 through).
        chromium: path of a Chromium binary for JavaScript pages (else Playwright's own or a system one).
        javascript: allow JavaScript rendering at all (off: pages that need it are fetched plainly).
        europepmc_batch, efetch_batch, annotations_batch: IDs per request to each batched service.
        max_links: links tried per publication after the resources (PubFetcher: 10).
        linger_ms: the longest a batched service's request (Europe PMC search, annotations, efetch) waits for
            publications on their way to it (engine/batcher.py; they normally arrive within milliseconds); it goes
            as soon as its host can take it, with every publication gathered by then.
        rate_limits: library calls (``fetch``, ``fetch_many``) wait for the services' documented rate limits, shared
            with every other pubfetch process of the user (``$PUBFETCH_RATE_DB``, else a small SQLite file in the
            user's cache), as the command line does (see :meth:`with_shared_rate_limits`).
        rate_db: where those shared rate limits are kept: a SQLite file, or ``redis://host:6379/N`` for the processes
            of several machines (``None``: ``$PUBFETCH_RATE_DB``, else a file in the user's cache).
        references: ask Europe PMC's references endpoint for the reference lists the full text and PubMed record
            do not give (``--references``; off by default: it costs a request per such paper).
        http_overrides: HTTP client settings (:class:`~pubfetch.net.config.HttpConfig` fields: size caps, retries,
            proxies, the shared rate limiter, the WARC recorder) over those derived from the fields above.
    """

    args: FetcherArgs = field(default_factory=FetcherArgs)
    endpoints: Endpoints = field(default_factory=Endpoints)
    ncbi_api_key: str = ""
    ncbi_tool: str = "pubfetch"
    ncbi_email: str = ""
    threads: int = 8
    batch_size: int = 200
    parts: frozenset[PartName] | None = None
    allow_private_addresses: bool = False
    per_host_connections: int = 1
    chromium: str | None = None
    javascript: bool = True
    europepmc_batch: int = EUROPEPMC_BATCH
    efetch_batch: int = EFETCH_BATCH
    annotations_batch: int = ANNOTATIONS_BATCH
    max_links: int = 10
    linger_ms: int = 1000
    rate_limits: bool = True
    rate_db: str | None = None
    references: bool = False
    http_overrides: HttpOverrides = field(default_factory=HttpOverrides)

    def __post_init__(self) -> None:
        hints = _hints()
        for name in INT_LIMITS:
            setting_value(name, getattr(self, name), hints[name])
        setting_value("allow_private_addresses", self.allow_private_addresses, bool)
        setting_value("javascript", self.javascript, bool)
        setting_value("references", self.references, bool)

    def http_config(self) -> HttpConfig:
        """The HTTP client settings these fetch settings imply (the CA bundle, unless given, from the environment
        as requests programs take it: ``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``)."""
        values = HttpOverrides(
            timeout_ms=self.args.timeout,
            user_agent=self.args.user_agent,
            quick=self.args.quick,
            allow_private_addresses=self.allow_private_addresses,
            per_host_connections=self.per_host_connections,
        )
        bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
        if bundle:
            values["ca_bundle"] = bundle
        values.update(self.http_overrides)
        return HttpConfig(**values)

    def with_shared_rate_limits(self, target: str | None = None) -> FetchConfig:
        """This configuration with the cross-process rate limiter of the services' documented limits in its HTTP
        settings (``target``: a SQLite file or a ``redis://`` URL; else ``$PUBFETCH_RATE_DB``, else the user's cache),
        unless they already have one."""
        if self.http_overrides.get("rate_limiter") is not None:
            return self
        from pubfetch.net.ratelimit import ServiceMap, default_limits
        from pubfetch.net.ratelimit_redis import shared_limiter

        overrides = HttpOverrides(**self.http_overrides)
        where = target or self.rate_db or rate_db_default()
        overrides["rate_limiter"] = shared_limiter(where, default_limits(bool(self.ncbi_api_key)))
        overrides["rate_key"] = ServiceMap.for_endpoints(self.endpoints).key
        return dataclasses.replace(self, http_overrides=overrides)

    def replace(self, **changes: Unpack[ConfigChanges]) -> FetchConfig:
        """A copy with some settings changed."""
        return self.with_options(changes, "FetchConfig.replace")

    def with_options(self, options: Mapping[str, object], caller: str) -> FetchConfig:
        """A copy with the keyword ``options`` of a library call (``fetch_many(ids, threads=4)``) applied: each names
        a field; ``None`` leaves the field as it is; an unknown name is a TypeError naming ``caller``."""
        known = _FIELD_NAMES
        for name in options:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise TypeError(f"{caller}() got an unknown option {name!r}{hint}; options are the settings of "
                                f"FetchConfig: {', '.join(known)}")
        changes: dict[str, Any] = {name: value for name, value in options.items() if value is not None}
        return dataclasses.replace(self, **changes) if changes else self

    def job_settings(self) -> dict[str, Any]:
        """The run settings a queued job carries to the workers (:data:`JOB_SETTINGS`: batching and links), as JSON;
        the message carries the fetching thresholds and the parts in fields of their own, and everything else is each
        worker's own."""
        return {name: getattr(self, name) for name in JOB_SETTINGS}

    def with_job_settings(self, values: Mapping[str, Any]) -> FetchConfig:
        """This (a worker's) configuration with a job's settings (from :meth:`job_settings`) applied, each checked as
        a config file's setting is; a setting not of a job is a ValueError."""
        unknown = set(values) - set(JOB_SETTINGS)
        if unknown:
            raise ValueError(f"a job names settings a worker does not take from a job: {', '.join(sorted(unknown))}")
        hints = _hints()
        changes: dict[str, Any] = {name: setting_value(name, value, hints[name]) for name, value in values.items()}
        return dataclasses.replace(self, **changes) if changes else self

    @classmethod
    def settings_from_file(cls, path: str | os.PathLike[str]) -> dict[str, object]:
        """The settings of a YAML config file, checked: FetchConfig fields (``threads``, ``ncbi_api_key``, ...), an
        ``endpoints`` mapping, and a ``fetching`` mapping of PubFetcher's parameters (``emptyCooldown: 12h``)."""
        return cls._file_settings(_read_yaml(path), path)

    @classmethod
    def _file_settings(cls, data: object, path: str | os.PathLike[str]) -> dict[str, object]:
        """The checked settings of a config file's YAML document (``path`` names the file in errors)."""
        if not isinstance(data, dict):
            raise ValueError(f"config file {path} must be a mapping of settings")  # noqa: TRY004 - user input
        fields = {f.name for f in dataclasses.fields(cls)} - {"args", "endpoints", "parts", "http_overrides"}
        values: dict[str, object] = {}
        for key, value in data.items():
            if key == "fetching":
                if not isinstance(value, dict):
                    raise ValueError(f"config file {path}: 'fetching' must be a mapping of PubFetcher parameters")
                try:
                    values["args"] = FetcherArgs.from_mapping(value)
                except ValueError as e:
                    raise ValueError(f"config file {path}: {e}") from None
            elif key == "endpoints":
                if not isinstance(value, dict):
                    raise ValueError(f"config file {path}: 'endpoints' must be a mapping of service to URL")
                try:
                    values["endpoints"] = Endpoints(**{str(k): str(v) for k, v in value.items()})
                except (TypeError, ValueError) as e:
                    raise ValueError(f"config file {path}: endpoints: {e}") from None
            elif key in fields:
                try:
                    values[key] = setting_value(key, value, _hints()[key])
                except ValueError as e:
                    raise ValueError(f"config file {path}: {e}") from None
            else:
                raise ValueError(f"config file {path}: unknown setting '{key}' (known: fetching, endpoints, "
                                 f"{', '.join(sorted(fields))})")
        return values

    @classmethod
    def default_file(cls, environ: Mapping[str, str] | None = None) -> str | None:
        """``$PUBFETCH_CONFIG``, else ``$XDG_CONFIG_HOME/pubfetch/config.yaml`` (``~/.config``) when it exists."""
        env = os.environ if environ is None else environ
        if env.get("PUBFETCH_CONFIG"):
            return env["PUBFETCH_CONFIG"]
        base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        path = os.path.join(base, "pubfetch", "config.yaml")
        return path if os.path.exists(path) else None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, config_file: str | os.PathLike[str] | None = None,
                 **overrides: object) -> FetchConfig:
        """Defaults, then environment variables, then the config file (``config_file``, else :meth:`default_file`),
        then keyword arguments: the more deliberate the choice, the later it applies. A setting the file leaves out
        keeps its value from the environment.

        Variables: ``NCBI_API_KEY`` (or ``PUBFETCH_NCBI_API_KEY``), ``PUBFETCH_NCBI_EMAIL``, ``PUBFETCH_NCBI_TOOL``,
        ``PUBFETCH_EUROPEPMC_EMAIL``, ``PUBFETCH_UNPAYWALL_EMAIL``, ``PUBFETCH_THREADS``, ``PUBFETCH_CHROMIUM``, and the
        endpoint variables of :class:`~pubfetch.net.endpoints.Endpoints`.
        """
        env = os.environ if environ is None else environ
        path = config_file if config_file is not None else cls.default_file(env)
        values = _environment_values(env)
        if path:
            data = _read_yaml(path)  # read once: the checked settings and the names the file gives come from it
            _apply_file(values, cls._file_settings(data, path), data)
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]


def rate_db_default(environ: Mapping[str, str] | None = None) -> str:
    """Where the shared rate limits are kept when the configuration names no place: ``$PUBFETCH_RATE_DB``, else
    ``rate-limits.sqlite`` in the user's cache (``$XDG_CACHE_HOME``, else ``~/.cache``)."""
    from pubfetch.net.ratelimit import default_path

    env = os.environ if environ is None else environ
    return env.get("PUBFETCH_RATE_DB") or str(default_path(env.get("XDG_CACHE_HOME") or None))


def environment_value(name: str) -> str:
    """A process setting of the environment that has no place in :class:`FetchConfig` (a store's or a queue's own),
    read here so that the environment is read in this module only; "" when unset."""
    return os.environ.get(name, "")


def result_backend_default(environ: Mapping[str, str] | None = None) -> str | None:
    """Where a queue keeps its jobs' results when none is given: ``$PUBFETCH_RESULT_BACKEND`` (a Redis URL)."""
    env = os.environ if environ is None else environ
    return env.get("PUBFETCH_RESULT_BACKEND") or None


def _environment_values(env: Mapping[str, str]) -> dict[str, object]:
    """The settings the environment variables give (endpoints and PubFetcher's e-mails as whole objects)."""
    values: dict[str, object] = {}
    values["endpoints"] = Endpoints.from_env(env)
    key = env.get("PUBFETCH_NCBI_API_KEY") or env.get("NCBI_API_KEY")
    if key:
        values["ncbi_api_key"] = key.strip()
    for var, name in (("PUBFETCH_NCBI_EMAIL", "ncbi_email"), ("PUBFETCH_NCBI_TOOL", "ncbi_tool"),
                      ("PUBFETCH_CHROMIUM", "chromium")):
        if env.get(var):
            values[name] = env[var].strip()
    if env.get("PUBFETCH_THREADS"):
        try:
            values["threads"] = int(env["PUBFETCH_THREADS"])
        except ValueError:
            raise ValueError(f"PUBFETCH_THREADS must be an integer, got {env['PUBFETCH_THREADS']!r}") from None
    args = FetcherArgs()
    if env.get("PUBFETCH_EUROPEPMC_EMAIL"):
        args = dataclasses.replace(args, europepmc_email=env["PUBFETCH_EUROPEPMC_EMAIL"].strip())
    if env.get("PUBFETCH_UNPAYWALL_EMAIL"):
        args = dataclasses.replace(args, oadoi_email=env["PUBFETCH_UNPAYWALL_EMAIL"].strip())
    values["args"] = args
    return values


#: PubFetcher parameters the environment can set, by attribute, with the names a config file may give them under.
_ENV_ARGS = {"europepmc_email": ("europepmcEmail", "europepmc_email"), "oadoi_email": ("oadoiEmail", "oadoi_email")}


def _apply_file(values: dict[str, object], from_file: dict[str, object], raw: object) -> None:
    """Lay the config file's settings over the environment's: only what the file names replaces a value."""
    raw_map = raw if isinstance(raw, dict) else {}
    file_endpoints = from_file.pop("endpoints", None)
    if isinstance(file_endpoints, Endpoints):
        named = {str(k) for k in (raw_map.get("endpoints") or {})}
        env_endpoints = values["endpoints"]
        assert isinstance(env_endpoints, Endpoints)
        values["endpoints"] = dataclasses.replace(
            env_endpoints, **{name: getattr(file_endpoints, name) for name in named})
    file_args = from_file.pop("args", None)
    if isinstance(file_args, FetcherArgs):
        env_args = values["args"]
        assert isinstance(env_args, FetcherArgs)
        named_args = {str(k) for k in (raw_map.get("fetching") or {})}
        kept = {attr: getattr(env_args, attr) for attr, names in _ENV_ARGS.items()
                if not named_args & set(names) and getattr(env_args, attr) != getattr(FetcherArgs(), attr)}
        values["args"] = dataclasses.replace(file_args, **kept) if kept else file_args
    values.update(from_file)


class FetchOptions(TypedDict, total=False):
    """The settings of :class:`FetchConfig` by name, as keyword options of the library calls (whose ``args`` and
    ``parts`` are parameters of their own)."""

    endpoints: Endpoints
    ncbi_api_key: str
    ncbi_tool: str
    ncbi_email: str
    threads: int
    batch_size: int
    allow_private_addresses: bool
    per_host_connections: int
    chromium: str | None
    javascript: bool
    europepmc_batch: int
    efetch_batch: int
    annotations_batch: int
    max_links: int
    linger_ms: int
    rate_limits: bool
    rate_db: str | None
    references: bool
    http_overrides: HttpOverrides


class ConfigChanges(FetchOptions, total=False):
    """Every setting of :class:`FetchConfig` by name, for :meth:`FetchConfig.replace`."""

    args: FetcherArgs
    parts: frozenset[PartName] | None


_FIELD_NAMES = [f.name for f in dataclasses.fields(FetchConfig)]
#: The settings of a queued job that the workers take from it (besides the fetching thresholds and ``parts``, which
#: the message carries in fields of their own): how to batch and how far to follow links. The others (endpoints,
#: credentials and contact e-mails, threads, connections, rate limits, the address guard, the browser, HTTP overrides)
#: belong to each worker: its options and its own configuration.
JOB_SETTINGS = ("javascript", "europepmc_batch", "efetch_batch", "annotations_batch", "max_links", "linger_ms",
                "references")
#: The settings of a library call that a queued job cannot carry (see :data:`JOB_SETTINGS`).
WORKER_SETTINGS = tuple(name for name in _FIELD_NAMES if name not in JOB_SETTINGS + ("args", "parts", "batch_size"))
#: A config file is a few settings; anything bigger is not one (``/dev/zero`` as a config file).
MAX_CONFIG_BYTES = 1024 * 1024


@functools.cache
def _hints() -> dict[str, object]:
    return typing.get_type_hints(FetchConfig)


def _read_config_text(path: str | os.PathLike[str]) -> str:
    """The text of a config file: a regular file (a FIFO or a device would block or never end) of at most
    :data:`MAX_CONFIG_BYTES` (a longer one is refused, not cut: a setting past the cut would be lost unseen)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once, and is then refused
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"config file {path} is not a regular file")
        data = f.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"config file {path} is over {MAX_CONFIG_BYTES // 1024} kB: a config file is a few settings")
    return data.decode("utf-8")


def _read_yaml(path: str | os.PathLike[str]) -> object:
    """The YAML document of a config file (empty: ``{}``); every problem a ValueError of one line."""
    import yaml

    from pubfetch import yamlsafe

    try:
        return yamlsafe.load(_read_config_text(path)) or {}
    except OSError as e:
        raise ValueError(f"cannot read config file {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"config file {path} is not UTF-8 text: {e.reason}") from None
    except yaml.YAMLError as e:
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ValueError(f"config file {path} is not valid YAML{where}: {problem}") from None
