"""Command-line settings a newcomer needs: NCBI e-mail and API key options, warnings for missing e-mails, the
environment at the end of --help, and shell completion."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pubfetch.cli.completion import completion_script
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
    assert code == 1, err  # closed access: no full text
    params = _eutils_params(services)
    assert params and all(p.get("email") == "curator@example.org" and p.get("api_key") == KEY for p in params)
    assert "without an e-mail" not in err
    assert KEY not in log.read_text() and "--ncbi-api-key ***" in log.read_text()


def test_missing_e_mails_give_one_warning_each_and_unpaywall_never_gets_a_bare_at(
        services: SyntheticServices, cli: Cli) -> None:
    code, _, err = cli.lines("-pub", services.pmids()[1], services.pmids()[0], "-fetch", "--allow-private-addresses")
    assert code == 1
    assert err.count("pubfetch: warning: NCBI E-utilities are asked without an e-mail address: set "
                     "PUBFETCH_NCBI_EMAIL or --ncbi-email") == 1
    assert err.count("pubfetch: warning: Unpaywall is asked without an e-mail address and may refuse: set "
                     "PUBFETCH_UNPAYWALL_EMAIL or --oadoiEmail") == 1
    unpaywall = [r for r in services.server.requests if r.path.startswith("/unpaywall/")]
    assert unpaywall and all("email" not in r.query for r in unpaywall)
    assert all("email" not in p for p in _eutils_params(services))


def test_an_invalid_unpaywall_address_is_called_invalid_not_missing(
        services: SyntheticServices, cli: Cli) -> None:
    code, _, err = cli.lines("-pub", services.pmids()[1], "-fetch", "--allow-private-addresses", "--oadoiEmail",
                             "notanemail")
    assert code == 1
    assert "pubfetch: warning: Unpaywall is asked without an e-mail address and may refuse: 'notanemail' " \
           "(--oadoiEmail or PUBFETCH_UNPAYWALL_EMAIL) is not a valid address (NAME@DOMAIN)" in err
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


def test_help_ends_with_the_environment_and_the_config_file(
        services: SyntheticServices, cli: Cli) -> None:
    code, out, _ = cli("--help")
    assert code == 0
    tail = out[out.index("\nEnvironment"):]
    for name in ("NCBI_API_KEY", "PUBFETCH_NCBI_EMAIL", "PUBFETCH_UNPAYWALL_EMAIL", "PUBFETCH_EUROPEPMC_EMAIL",
                 "HTTPS_PROXY"):
        assert name in tail
    assert out.rstrip().splitlines()[-1] == ("Config file: $PUBFETCH_CONFIG, else ~/.config/pubfetch/config.yaml "
                                             "(none found)")
    assert "--ncbi-api-key KEY" in out and "--ncbi-email EMAIL" in out
    assert "-print-europepmc-html" not in out and "-print-pmc-html" not in out


def _bash_complete(script: Path, line: str) -> list[str]:
    words = line.split(" ")
    command = (f'source "{script}"; COMP_WORDS=({" ".join(words)}); COMP_CWORD={len(words) - 1}; '
               f'COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}; _shtab_pubfetch pubfetch "{words[-1]}"; '
               'printf "%s\\n" "${COMPREPLY[@]}"')
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30, check=True)
    return sorted(done.stdout.split())


def test_bash_completion_completes_operations_and_modifiers(tmp_path: Path) -> None:
    script = tmp_path / "pubfetch.bash"
    script.write_text(completion_script("bash"))
    assert _bash_complete(script, "pubfetch -db-fetch") == ["-db-fetch", "-db-fetch-end"]
    assert _bash_complete(script, "pubfetch --ncbi") == ["--ncbi-api-key", "--ncbi-email"]
    assert "#compdef pubfetch" in completion_script("zsh")


def test_completion_for_an_unknown_shell_is_a_usage_error(cli: Cli) -> None:
    assert cli("--print-completion", "fish") == (2, "", "pubfetch: error: option --print-completion: unknown shell "
                                                        "'fish': expected one of bash, zsh\n")
