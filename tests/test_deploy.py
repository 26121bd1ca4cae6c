"""deploy/ as shipped: there is no container engine here, so the compose file, the Dockerfile and the systemd unit are
checked against what pubfetch reads: each worker command parses with ``pubfetch worker``'s own options and points at
the services the file defines, with the passwords they are started with; every environment variable given to a
worker changes its configuration; Redis and PostgreSQL are never published without a password."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from pubfetch.config import FetchConfig
from pubfetch.distributed.worker import parser as worker_parser

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
VALUES = {"REDIS_PASSWORD": "redis-secret", "POSTGRES_PASSWORD": "pg-secret"}
_VAR = re.compile(r"\$\{(\w+)(?::?([-?])([^}]*))?\}")


def interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?message}`` (a missing required one fails the test)."""
    def one(m: re.Match[str]) -> str:
        name, kind, rest = m.group(1), m.group(2), m.group(3)
        if name in env:
            return env[name]
        if kind == "?":
            pytest.fail(f"{name} is required: {rest}")
        return rest or ""
    return _VAR.sub(one, text)


@pytest.fixture(scope="module")
def compose() -> dict:
    import yaml

    return yaml.safe_load(interpolate((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"), VALUES))


def test_every_password_is_required() -> None:
    """Started without the passwords, compose refuses (``${VAR:?}``) instead of publishing open services."""
    text = (DEPLOY / "docker-compose.yml").read_text(encoding="utf-8")
    for name in VALUES:
        with pytest.raises(pytest.fail.Exception):
            interpolate(text, {k: v for k, v in VALUES.items() if k != name})


def test_published_services_need_their_passwords(compose: dict) -> None:
    redis, postgres = compose["services"]["redis"], compose["services"]["postgres"]
    command = redis["command"]
    assert command[command.index("--requirepass") + 1] == VALUES["REDIS_PASSWORD"]
    assert "protected-mode" not in " ".join(command)
    env = postgres["environment"]
    assert env["POSTGRES_PASSWORD"] == VALUES["POSTGRES_PASSWORD"]
    assert env.get("POSTGRES_HOST_AUTH_METHOD", "scram-sha-256") not in ("trust", "password", "md5")


def test_worker_command_reaches_the_services_the_file_defines(compose: dict) -> None:
    from urllib.parse import urlsplit

    services = compose["services"]
    worker = services["worker"]
    opts = worker_parser().parse_args(worker["command"][1:])
    assert worker["command"][0] == "worker"
    broker, db = urlsplit(opts.broker), urlsplit(opts.db)
    assert (broker.scheme, broker.hostname, broker.port, broker.password) == \
        ("redis", "redis", 6379, VALUES["REDIS_PASSWORD"])
    pg = services["postgres"]["environment"]
    assert (db.scheme, db.hostname, db.username, db.password, db.path.lstrip("/")) == \
        ("postgresql", "postgres", pg["POSTGRES_USER"], VALUES["POSTGRES_PASSWORD"], pg["POSTGRES_DB"])
    assert set(worker["depends_on"]) == {"redis", "postgres"}
    assert opts.name is None  # scaled containers keep the unique default names
    assert worker["build"]["dockerfile"] == "deploy/Dockerfile"


def test_the_worker_runs_under_an_init_that_reaps_orphans(compose: dict) -> None:
    """The worker's pool processes render pages; what Chromium leaves orphaned goes to PID 1, which must reap it."""
    assert compose["services"]["worker"]["init"] is True


def test_worker_environment_is_read_by_pubfetch(compose: dict) -> None:
    """Each variable given to the workers changes their configuration (a misspelt one would be silently ignored)."""
    plausible = {"EMAIL": "ops@example.org", "KEY": "0123456789abcdef", "TOOL": "pubfetch-lab"}
    base = FetchConfig.from_env({})
    for name in compose["services"]["worker"]["environment"]:
        value = next(v for suffix, v in plausible.items() if name.endswith(suffix))
        assert FetchConfig.from_env({name: value}) != base, name


def test_dockerfile_runs_pubfetch() -> None:
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["pubfetch"]' in text and '"/src[cluster]"' in text


def test_systemd_unit_command_parses() -> None:
    unit = (DEPLOY / "pubfetch-worker.service").read_text(encoding="utf-8")
    exec_start = next(line.split("=", 1)[1] for line in unit.splitlines() if line.startswith("ExecStart="))
    argv = shlex.split(exec_start.replace("${PUBFETCH_BROKER}", "redis://:x@q:6379/0")
                       .replace("${PUBFETCH_DB}", "postgresql://pubfetch:x@db/pubfetch"))
    assert argv[0].endswith("/pubfetch") and argv[1] == "worker"
    opts = worker_parser().parse_args(argv[2:])
    assert opts.db.startswith("postgresql://") and opts.grace_period == 60
    assert "EnvironmentFile=" in unit and "KillMode=mixed" in unit


def test_systemd_units_example_environment_is_read() -> None:
    """Each variable of the example environment file is either put into the unit's command or read by pubfetch."""
    from pubfetch.config import result_backend_default

    unit = (DEPLOY / "pubfetch-worker.service").read_text(encoding="utf-8")
    exec_start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    names = re.findall(r"^#   ([A-Z_]+)=", unit, flags=re.MULTILINE)
    assert {"PUBFETCH_BROKER", "PUBFETCH_DB", "PUBFETCH_RESULT_BACKEND", "NCBI_API_KEY"} <= set(names)
    plausible = {"EMAIL": "ops@example.org", "KEY": "0123456789abcdef"}
    base = FetchConfig.from_env({})
    for name in names:
        if "${" + name + "}" in exec_start:
            continue
        if name == "PUBFETCH_RESULT_BACKEND":
            assert result_backend_default({name: "redis://r:6379/1"}) == "redis://r:6379/1"
            continue
        value = next(v for suffix, v in plausible.items() if name.endswith(suffix))
        assert FetchConfig.from_env({name: value}) != base, name
