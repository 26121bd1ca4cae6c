"""The one line a user gets for a slip of the command line, its configuration or its environment: what is wrong, in
the words the user wrote it (the option as given, the key as spelt), and what to do; with the exit status."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from support.cli import Cli, usage_error
from support.synthetic import HOSTS, SyntheticServices

#: The exit status of a run stopped because the network (here: its proxy) does not answer.
NETWORK_DOWN = 75


def test_an_ncbi_address_that_is_not_one_is_called_so(services: SyntheticServices, cli: Cli) -> None:
    code, _, lines = cli.lines("-pub", services.pmids()[0], "-fetch", "--allow-private-addresses", "--ncbi-email",
                               "me")
    assert code == 0  # an open-access paper: every part final, the address only missing
    assert [line for line in lines if "warning" in line] == [
        "pubfetch: warning: 'me' (--ncbi-email, PUBFETCH_NCBI_EMAIL or ncbi_email) is not an e-mail address "
        "(NAME@DOMAIN): NCBI E-utilities are asked without one"]
    eutils = [r for r in services.server.requests if r.path.startswith("/eutils/")]
    assert eutils and all("email" not in r.query and "email" not in r.form for r in eutils)


@contextmanager
def _read_only(directory: Path) -> Iterator[None]:
    """``directory`` no one may create files in while inside: its permissions for a user, its immutable flag for
    root (whom permissions do not stop)."""
    if os.geteuid() != 0:
        mode = directory.stat().st_mode
        directory.chmod(stat.S_IRUSR | stat.S_IXUSR)
        try:
            yield
        finally:
            directory.chmod(mode)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(directory)], capture_output=True,
                                        check=False).returncode != 0:
        pytest.skip("running as root, and the directory cannot be made immutable (chattr +i) to stop root writing")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(directory)], check=True)


def test_a_database_in_a_directory_that_is_not_writable_names_the_directory(cli: Cli, env: Path) -> None:
    directory = env / "shared"
    directory.mkdir()
    db = directory / "pubs.db"
    assert cli("-db-init", db).code == 0
    with _read_only(directory):
        assert usage_error(cli, "-pub", "31114920", "-db-fetch", db) == (
            f"pubfetch: error: database file '{db}' cannot be written: its directory '{directory}' is not writable, "
            "and SQLite keeps its -wal and -shm files beside the database; make the directory writable, or copy the "
            "database to a writable directory (opened read-only, as -db opens it, it is read where it is)")
        assert cli("-pub", "31114920", "-db", db, "-out-ids", "--plain").code == 0  # reading it works


@pytest.mark.parametrize(("text", "hint"), [
    ("thread: 4\n", "unknown setting 'thread' (did you mean 'threads'?); the settings are listed in "
                    "docs/configuration.md"),
    ("ncbi-email: curator@example.org\n", "unknown setting 'ncbi-email' (did you mean 'ncbi_email'?); the settings "
                                          "are listed in docs/configuration.md"),
    ("http:\n  busy_retry: 1\n", "http has no setting 'busy_retry' (did you mean 'busy_retries'?); see "
                                 "docs/configuration.md"),
    ("http:\n  threads: 1\n", "http has no setting 'threads' (it is a setting of 'run', or given alone); see "
                              "docs/configuration.md"),
])
def test_a_misspelt_config_key_gets_a_did_you_mean(text: str, hint: str, cli: Cli, env: Path) -> None:
    config = env / "config.yaml"
    config.write_text(text, encoding="utf-8")
    assert usage_error(cli, "--config", config, "-pub", "1", "-out-ids") == (
        f"pubfetch: error: config file {config}: {hint}")


def test_a_misspelt_fetching_parameter_in_a_config_file_gets_a_did_you_mean(cli: Cli, env: Path) -> None:
    config = env / "config.yaml"
    config.write_text("fetching:\n  emptyCooldwn: 5\n", encoding="utf-8")
    assert usage_error(cli, "--config", config, "-pub", "1", "-out-ids").startswith(
        f"pubfetch: error: config file {config}: unknown fetching parameter 'emptyCooldwn' (did you mean "
        "'emptyCooldown'?); known: emptyCooldown, ")


@pytest.mark.parametrize(("argv", "line"), [
    (("--batch-size", "five"), "option --batch-size must be a whole number, got 'five'"),
    (("--batch-size=0",), "option --batch-size must be between 1 and 1000000, got 0"),
    (("--connections-per-host", "many"), "option --connections-per-host must be a whole number, got 'many'"),
])
def test_a_bad_option_value_names_the_option_as_written(argv: tuple[str, ...], line: str, cli: Cli) -> None:
    assert usage_error(cli, "-pub", "1", "-out-ids", *argv) == "pubfetch: error: " + line


def test_edammaps_fetcher_threads_points_at_threads(cli: Cli) -> None:
    assert usage_error(cli, "-pub", "1", "-fetch", "--fetcher-threads", "4") == (
        "pubfetch: error: unknown option '--fetcher-threads': pubfetch's is --threads (EDAMmap's --fetcher-threads); "
        "see pubfetch --help")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dead_proxy(env: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The URL of a proxy that does not answer, for services each on a host of its own (reached only through a
    proxy: the names do not resolve), in an environment without any proxy variable yet."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    for service, url in HOSTS.items():
        monkeypatch.setenv(f"PUBFETCH_{service.upper()}_URL", url)
    return f"http://127.0.0.1:{_closed_port()}"


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY"])
def test_an_unreachable_proxy_is_named_with_its_variable(variable: str, dead_proxy: str, cli: Cli,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = dead_proxy
    monkeypatch.setenv(variable, proxy)
    code, out, lines = cli.lines("-pub", "31114920", "-fetch", "--allow-private-addresses")
    assert (code, out) == (NETWORK_DOWN, "")
    assert lines[-1] == (
        "pubfetch: error: network unreachable: ebi.test, eutils.test did not answer through the proxy "
        f"{proxy} ({variable}) (could not connect); check that the proxy is running, or correct or unset {variable}")
    assert f"could not connect through the proxy {proxy} ({variable}); a later run retries it" in lines[0]


def test_an_unreachable_proxy_of_the_config_file_is_named_as_the_setting(dead_proxy: str, cli: Cli,
                                                                          env: Path) -> None:
    proxy = dead_proxy
    config = env / "config.yaml"
    config.write_text(f"http:\n  proxies:\n    http: {proxy}\n", encoding="utf-8")
    code, _, lines = cli.lines("--config", config, "-pub", "31114920", "-fetch", "--allow-private-addresses")
    assert code == NETWORK_DOWN
    assert lines[-1].endswith(f"did not answer through the proxy {proxy} (the proxies setting) (could not connect); "
                              "check that the proxy is running, or correct or unset the proxies setting")
