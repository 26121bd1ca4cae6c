"""The declarations of the settings (pubfetch/config/defaults.py): every setting has a line of doc, a default its own
type and bounds accept, and environment variables of its own; the endpoints are http(s) URLs ending in "/"."""

from __future__ import annotations

import dataclasses

import pytest

from pubfetch.config.defaults import (
    PROCESS_VARIABLES,
    Batching,
    Endpoints,
    FetcherArgs,
    HttpSettings,
    RunSettings,
)
from pubfetch.config.registry import GROUPS
from pubfetch.config.values import declared, field_type, setting_value

RECORDS = (FetcherArgs, Endpoints, HttpSettings, Batching, RunSettings)
#: Variables other tools read too, which a setting takes after (or instead of) its own PUBFETCH_ one.
SHARED_VARIABLES = {"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NCBI_API_KEY"}


def _default(f: dataclasses.Field[object]) -> object:
    return f.default_factory() if f.default is dataclasses.MISSING else f.default  # type: ignore[misc]


def test_every_default_satisfies_its_own_type_and_bounds() -> None:
    for record in RECORDS:
        for f in dataclasses.fields(record):
            default = _default(f)
            decl = declared(f)
            assert setting_value(f.name, default, field_type(record, f.name), decl) == default, f.name
            if isinstance(default, int | float) and not isinstance(default, bool):
                assert (decl.low is None or decl.low <= default) and (decl.high is None or default <= decl.high), (
                    f.name)


def test_every_record_is_made_from_its_defaults() -> None:
    for record in RECORDS:
        made = record()
        assert all(getattr(made, f.name) == _default(f) for f in dataclasses.fields(record)), record.__name__


def test_the_bounds_of_a_setting_are_in_order() -> None:
    for record in RECORDS:
        for f in dataclasses.fields(record):
            decl = declared(f)
            assert decl.low is None or decl.high is None or decl.low <= decl.high, f.name


def test_environment_variables_are_pubfetch_s_own_and_unique() -> None:
    """A variable names one setting; pubfetch's own start with PUBFETCH_, and the only others are the standard ones
    other tools read too (CA bundles, NCBI's key), which the setting's PUBFETCH_ variable, where it has one, precedes."""
    seen: list[str] = []
    for record in RECORDS:
        for f in dataclasses.fields(record):
            envs = declared(f).env
            seen += envs
            assert all(v.startswith("PUBFETCH_") or v in SHARED_VARIABLES for v in envs), f.name
            assert not envs or envs[0].startswith("PUBFETCH_") or set(envs) <= SHARED_VARIABLES, f.name
    assert len(seen) == len(set(seen))
    assert not set(seen) & set(PROCESS_VARIABLES), "a process variable is also a setting's"


def test_pubfetcher_s_parameters_are_declared_with_its_names_labels_and_variables() -> None:
    """One declaration style: the fetching record's fields carry PubFetcher's name and label, and the variables of
    the two e-mails, as the other records' fields carry theirs."""
    keys = [declared(f).key for f in dataclasses.fields(FetcherArgs)]
    assert keys[:4] == ["emptyCooldown", "nonFinalCooldown", "fetchExceptionCooldown", "retryLimit"]
    assert all(declared(f).label for f in dataclasses.fields(FetcherArgs))
    assert {f.name: declared(f).env for f in dataclasses.fields(FetcherArgs) if declared(f).env} == {
        "europepmc_email": ("PUBFETCH_EUROPEPMC_EMAIL",), "oadoi_email": ("PUBFETCH_UNPAYWALL_EMAIL",)}
    assert all(not declared(f).key for record in RECORDS[1:] for f in dataclasses.fields(record))


def test_every_endpoint_has_its_variable() -> None:
    for f in dataclasses.fields(Endpoints):
        assert declared(f).env == (Endpoints.env_var(f.name),)
    assert Endpoints.env_var("eutils") == "PUBFETCH_EUTILS_URL"


def test_command_line_options_are_long_options_named_once() -> None:
    options = [declared(f).cli for record in RECORDS for f in dataclasses.fields(record) if declared(f).cli]
    assert options and all(o is not None and o.startswith("--") for o in options)
    assert len(options) == len(set(options))


def test_an_endpoint_gets_its_slash_and_a_non_http_one_is_refused() -> None:
    endpoints = Endpoints(eutils="http://127.0.0.1:8080/eutils")
    assert endpoints.eutils == "http://127.0.0.1:8080/eutils/"
    assert "127.0.0.1" in endpoints.hosts() and "doi.org" in endpoints.hosts()
    for bad in ("ftp://mirror.example.org/", "http:///no-host/", "eutils"):
        with pytest.raises(ValueError, match="^endpoint eutils must be an http\\(s\\) URL with a host, got "):
            Endpoints(eutils=bad)


def test_the_hosts_of_the_endpoints_are_lower_case_without_a_final_dot() -> None:
    assert "mirror.example.org" in Endpoints(pubmed="https://Mirror.Example.ORG./pubmed/").hosts()


def test_every_setting_is_declared_with_a_line_of_doc() -> None:
    undeclared = []
    for group, record in GROUPS.items():
        for f in dataclasses.fields(record):
            declaration = f.metadata.get("setting")
            doc = declaration.doc if declaration is not None else ""
            if not doc.strip():
                undeclared.append(f"{group}.{f.name}")
    assert not undeclared, f"settings without a line of doc: {', '.join(undeclared)}"
