"""Who pubfetch says it is, from the command line: the NCBI e-mail and API key reach E-utilities (the key never the
log), a missing or invalid e-mail is one warning, and a timeout given in the wrong unit is refused before any
request."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import Cli
from support.synthetic import SyntheticServices

KEY = "0123456789abcdef0123456789abcdef0123"


pytestmark = pytest.mark.services(2, emails=False)  # the e-mails are what these tests set, each its own way


def _eutils_params(services: SyntheticServices) -> list[dict[str, str]]:
    return [{k: v[0] for k, v in {**r.query, **r.form}.items()} for r in services.server.requests
            if r.path.startswith("/eutils/")]


def test_ncbi_email_and_api_key_options_reach_e_utilities_and_the_key_stays_out_of_the_log(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    log = tmp_path / "run.log"
    code, _, err = cli("-pub", services.pmids()[1], "-fetch", "--allow-private-addresses", "--ncbi-email",
                       "curator@example.org", "--ncbi-api-key", KEY, "--oadoiEmail", "curator@example.org", "-l", log)
    assert code == 0, err  # closed access: partial only in the full text no service had
    params = _eutils_params(services)
    assert params and all(p.get("email") == "curator@example.org" and p.get("api_key") == KEY for p in params)
    assert "without an e-mail" not in err
    assert KEY not in log.read_text() and "--ncbi-api-key ***" in log.read_text()


def test_missing_e_mails_give_one_warning_each_and_unpaywall_never_gets_a_bare_at(
        services: SyntheticServices, cli: Cli) -> None:
    code, _, err = cli.lines("-pub", services.pmids()[1], services.pmids()[0], "-fetch", "--allow-private-addresses")
    assert code == 0  # partial (closed access) and final
    assert err.count("pubfetch: warning: NCBI E-utilities are asked without an e-mail address: set "
                     "PUBFETCH_NCBI_EMAIL, --ncbi-email or ncbi_email") == 1
    assert err.count("pubfetch: warning: Unpaywall is asked without an e-mail address and may refuse: set "
                     "PUBFETCH_UNPAYWALL_EMAIL, --oadoiEmail or oadoi_email") == 1
    unpaywall = [r for r in services.server.requests if r.path.startswith("/unpaywall/")]
    assert unpaywall and all("email" not in r.query for r in unpaywall)
    assert all("email" not in p for p in _eutils_params(services))


def test_an_invalid_unpaywall_address_is_called_invalid_not_missing(
        services: SyntheticServices, cli: Cli) -> None:
    code, _, err = cli.lines("-pub", services.pmids()[1], "-fetch", "--allow-private-addresses", "--oadoiEmail",
                             "notanemail")
    assert code == 0  # partial: closed access
    assert "pubfetch: warning: Unpaywall is asked without an e-mail address and may refuse: 'notanemail' " \
           "(--oadoiEmail, PUBFETCH_UNPAYWALL_EMAIL or oadoi_email) is not a valid address (NAME@DOMAIN)" in err
    assert not any("set PUBFETCH_UNPAYWALL_EMAIL" in line for line in err)
    unpaywall = [r for r in services.server.requests if r.path.startswith("/unpaywall/")]
    assert unpaywall and all("email" not in r.query for r in unpaywall)


def test_a_timeout_too_short_for_any_server_is_refused_as_a_unit_mistake(
        services: SyntheticServices, cli: Cli) -> None:
    """--timeout 15 (milliseconds, meant as seconds) would time every request out and look like a network outage:
    refused before anything is sent, saying the unit."""
    code, _, err = cli("-pub", services.pmids()[1], "-fetch", "--allow-private-addresses", "--timeout", "15")
    assert (code, err) == (2, "pubfetch: error: option --timeout: 15 ms is too short for any server to answer; the "
                              "timeout is in milliseconds (e.g. 15000 for 15 s; 0 for none)\n")
    assert services.server.requests == []
