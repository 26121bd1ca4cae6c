"""What a user can fix ends in one ``pubfetch: error:`` line and exit status 2, never a traceback:
typed config settings, YAML aliases, a log or WARC file on a full disk (``/dev/full``), a rate-limit file
that is not SQLite, absurd numbers, endless or deeply nested input, damaged database rows and files, regexes that
backtrack for ever, terminal escapes in fetched values, and temporary files of killed runs."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.cli import spec
from pubfetch.cli.emit import remove_stale_temporaries
from pubfetch.cli.main import main
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import PartType, Publication, Webpage
from pubfetch.store import init_db, open_store

FULL = "/dev/full"
needs_dev_full = pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full on this system")


pytestmark = pytest.mark.services(3, emails=False)


# ------------------------------------------------------------------------------------------------ config settings


@pytest.mark.parametrize(("text", "message"), [
    ('allow_private_addresses: "false"\n', "allow_private_addresses must be true or false, got 'false'"),
    ("javascript: 'no'\n", "javascript must be true or false, got 'no'"),
    ("threads: many\n", "threads must be a whole number, got 'many'"),
    ("threads: [1, 2]\n", "threads must be a whole number, got [1, 2]"),
    ("batch_size: 2.5\n", "batch_size must be a whole number, got 2.5"),
    ("batch_size: 1000000000000000000000000000000\n",
     "batch_size must be between 1 and 1000000, got 1000000000000000000000000000000"),
    ("ncbi_email: 42\n", "ncbi_email must be a string, got 42"),
    ("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nncbi_email: [*b, *b, *b]\n",
     "is not valid YAML (line 2): aliases (*a) are not accepted in this file"),
    ("endpoints:\n  doi: &d http://x/\n  unpaywall: *d\n",
     "is not valid YAML (line 3): aliases (*d) are not accepted in this file"),
    ("fetching:\n  userAgent: &u agent\n  timeout: *u\n",
     "is not valid YAML (line 3): aliases (*u) are not accepted in this file"),
], ids=["string-false", "string-no", "threads-word", "threads-list", "batch-float", "batch-huge", "email-number",
        "alias-bomb", "alias-endpoints", "alias-fetching"])
def test_bad_config_values_are_one_line_errors_naming_the_key(text, message, tmp_path, services, cli):
    config = tmp_path / "config.yaml"
    config.write_text(text)
    status, out, err = cli.lines("-pub", services.pmids(1)[0], "-fetch", "--config", str(config), "--quiet")
    separator = " " if message.startswith("is not") else ": "
    assert (status, out, err) == (2, "", [f"pubfetch: error: config file {config}{separator}{message}"])
    assert services.server.requests == []


def test_string_false_no_longer_switches_the_address_guard_off_in_the_library(tmp_path):
    from pubfetch.config import FetchConfig

    config = tmp_path / "config.yaml"
    config.write_text("allow_private_addresses: 'false'\n")
    with pytest.raises(ValueError, match="allow_private_addresses must be true or false, got 'false'"):
        FetchConfig.from_env({}, config_file=config)
    with pytest.raises(ValueError, match="allow_private_addresses must be true or false, got 'false'"):
        FetchConfig().with_changes(allow_private_addresses="false")  # type: ignore[arg-type]


def test_batch_size_option_of_ten_to_the_thirty(services, cli):
    status, out, err = cli.lines("-pub", services.pmids(1)[0], "-fetch", "--batch-size", str(10**30), "--quiet")
    assert (status, out, err) == (2, "", ["pubfetch: error: option --batch-size must be between 1 and "
                                          f"1000000, got {10**30}"])


def test_alias_in_a_scraping_rule_file_is_refused(tmp_path, services, cli):
    rules = tmp_path / "journals.yaml"
    rules.write_text("'^https?://example\\.org/': example\n---\nexample:\n  title: &t h1\n  abstract: *t\n")
    status, out, err = cli.lines("-pub", services.pmids(1)[0], "-fetch", "--journalsYaml", str(rules), "--quiet")
    assert status == 2 and out == ""
    assert err == [f"pubfetch: error: scraping rules {rules}:5: YAML syntax error: aliases (*t) are not accepted in "
                   "this file"]


# ------------------------------------------------------------------------------------------------ files and disks


@needs_dev_full
def test_log_file_on_a_full_disk_is_one_line_and_the_output_still_comes(tmp_path, cli):
    entries = tmp_path / "one.json"
    pub = Publication()
    pub.set_pmid("123", PartType.external, "test", FetcherArgs())
    entries.write_text(json.dumps([pub.to_json()]))
    status, out, err = cli.lines("-pub-json", str(entries), "-out-ids", "-l", FULL, "--verbose")
    assert status == 2
    assert out.split() == ["[123]", "(test)"]
    assert err[0] == f"pubfetch: error: cannot write log file '{FULL}': No space left on device; no more is written to it"
    assert all("Logging error" not in line for line in err)


@needs_dev_full
def test_warc_on_a_full_disk_is_a_usage_error_before_any_request(services, cli):
    status, out, err = cli.lines("-pub", services.pmids(1)[0], "-fetch", "--warc", FULL, "--allow-private-addresses",
                           "--no-javascript", "--quiet")
    assert (status, out, err) == (2, "", [f"pubfetch: error: cannot write WARC file '{FULL}': No space left on device"])
    assert services.server.requests == []


def test_warc_into_a_missing_directory_creates_it(tmp_path, services, cli):
    warc = tmp_path / "new" / "dir" / "run.warc"
    status, out, err = cli.lines("-pub", services.pmids(1)[0], "-fetch", "-out-ids", "--warc", str(warc),
                           "--allow-private-addresses", "--no-javascript", "--quiet")
    assert status in (0, 1), err
    assert b"WARC-Type: response" in warc.read_bytes()


def test_rate_db_that_is_not_sqlite_is_a_usage_error(tmp_path, services, cli):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("this is not a database\n" * 200)
    status, out, err = cli.lines("-pub", services.pmids(1)[0], "-fetch", "--rate-db", str(bogus), "--quiet")
    assert (status, out) == (2, "")
    assert err == [f"pubfetch: error: cannot use rate-limit database '{bogus}': file is not a database; give --rate-db "
                   "a new file or one written by pubfetch"]
    assert services.server.requests == []


def test_pub_file_dev_zero_and_deeply_nested_pub_json(tmp_path, cli):
    status, out, err = cli.lines("-pub-file", "/dev/zero", "-out-ids")
    assert (status, out, err) == (2, "", ["pubfetch: error: /dev/zero:1: line longer than 100000 characters; not a "
                                          "publication ID file?"])
    for depth, doc in ((200_000, "[" * 200_000 + "]" * 200_000),
                       (300_000, '{"publications": [' + '{"a": ' * 300_000 + "1" + "}" * 300_000 + "]}")):
        deep = tmp_path / f"deep{depth}.json"
        deep.write_text(doc)
        status, out, err = cli.lines("-pub-json", str(deep), "-out")
        assert (status, out, err) == (2, "", [f"pubfetch: error: {deep}: JSON nested too deeply"])


# ------------------------------------------------------------------------------------------------ database rows


def damaged_database(path: Path) -> None:
    """Publications 1-5 and a webpage, then rows 2-4 and the webpage damaged as a disk error or a hand edit would."""
    init_db(path).close()
    args = FetcherArgs()
    with open_store(path) as store:
        for i in range(1, 6):
            pub = Publication()
            pub.set_pmid(str(i), PartType.external, "test", args)
            pub.set_title(f"Title {i}", PartType.europepmc, "https://europepmc.org/", args)
            store.put_publication(pub)
        store.put_page("webpages", Webpage(start_url="https://tool.example/", title="Tool"))
        store.commit()
    conn = sqlite3.connect(path)
    row = json.loads(conn.execute("SELECT json FROM publications WHERE primary_id = '4'").fetchone()[0])
    row["title"]["content"] = 5
    for primary, doc in (("2", "{not json"), ("3", "[1, 2]"), ("4", json.dumps(row))):
        conn.execute("UPDATE publications SET json = ? WHERE primary_id = ?", (doc, primary))
    conn.execute("UPDATE webpages SET json = '\"a string\"'")
    conn.commit()
    conn.close()


def test_damaged_rows_are_reported_by_id_and_skipped(tmp_path, cli):
    db = tmp_path / "damaged.db"
    damaged_database(db)
    status, out, err = cli.lines("-pub-db", str(db), "-db", str(db), "-out", "--format", "jsonl", "--plain")
    assert status == 0
    assert [json.loads(line)["title"] for line in out.splitlines()] == ["Title 1", "Title 5"]
    assert err == [
        "pubfetch: error: database row of publication 2 is damaged (JSONDecodeError: Expecting property name enclosed "
        "in double quotes: line 1 column 2 (char 1)); skipped",
        "pubfetch: error: database row of publication 3 is damaged (the row is not an object); skipped",
        "pubfetch: error: database row of publication 4 is damaged (title.content is not text); skipped",
        f"pubfetch: warning: Got 2 publications from database {db}, 3 not found",
    ]
    status, out, err = cli.lines("-web", "https://tool.example/", "-db", str(db), "-out")
    assert (status, out) == (0, "")
    assert err[0] == ("pubfetch: error: database row of webpage https://tool.example/ is damaged (the row is not an "
                      "object); skipped")


def test_damaged_rows_are_fetched_again_by_db_fetch_and_replaced(cli, tmp_path, services, capsys):
    db = tmp_path / "damaged.db"
    init_db(db).close()
    pmids = services.pmids(2)
    assert main(["-pub", *pmids, "-db-fetch", str(db), "--allow-private-addresses", "--no-javascript",
                 "--quiet"]) in (0, 1)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE publications SET json = '[]' WHERE primary_id = ?", (pmids[0],))
    conn.commit()
    conn.close()
    capsys.readouterr()
    status, out, err = cli.lines("-pub", *pmids, "-db-fetch", str(db), "-out-ids", "--allow-private-addresses",
                           "--no-javascript", "--quiet")
    assert status in (0, 1)
    assert f"pubfetch: error: database row of publication {pmids[0]} is damaged (the row is not an object); skipped" \
        in err
    with open_store(db, readonly=True) as store:
        repaired = store.get_publication(pmids[0])
    assert repaired is not None and repaired.title.content


def test_negative_schema_version_is_a_usage_error(tmp_path, cli):
    db = tmp_path / "minus.db"
    init_db(db).close()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value = '-1' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    status, out, err = cli.lines("-db-publications-size", str(db))
    assert (status, out, err) == (2, "", [f"pubfetch: error: database file '{db}' has an impossible schema version -1; "
                                          "it is damaged or was not written by pubfetch"])


def can_mount_read_only() -> bool:
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.skipif(not can_mount_read_only(), reason="needs `unshare -rm` (user and mount namespaces)")
def test_database_on_a_read_only_mount_can_be_read(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    db = ro / "pubs.db"
    init_db(db).close()
    with open_store(db) as store:
        pub = Publication()
        pub.set_pmid("42", PartType.external, "test", FetcherArgs())
        store.put_publication(pub)
        store.commit()
    script = f"mount --bind -o ro {ro} {ro} && exec {sys.executable} -m pubfetch -pub-db {db} -db {db} -out-ids"
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
    assert (done.returncode, done.stdout.split(), done.stderr) == (0, ["[42]", "(test)"], "")


# ------------------------------------------------------------------------------------------------ output


def test_grep_that_backtracks_for_ever_stops_at_the_time_limit(tmp_path, monkeypatch, cli):
    monkeypatch.setattr(spec, "REGEX_TIME_LIMIT_S", 0.3)
    entries = tmp_path / "pubs.json"
    pub = Publication()
    pub.set_pmid("7", PartType.external, "test", FetcherArgs())
    pub.set_title("a" * 40 + "!", PartType.europepmc, "https://europepmc.org/", FetcherArgs())
    entries.write_text(json.dumps([pub.to_json()]))
    status, out, err = cli.lines("-pub-json", str(entries), "-grep", "(a|aa)+$", "-out", "--plain")
    assert (status, out, err) == (2, "", [
        "pubfetch: error: option -grep: regular expression '(a|aa)+$' took over 0.3 s on one entry (nested repetition "
        "such as (a|aa)+ backtracks exponentially); simplify it"])
    status, out, err = cli.lines("-pub-json", str(entries), "-grep", "(a+)+$", "-out", "--plain")  # nested, yet fast here
    assert (status, out, err) == (0, "", [])
    status, out, err = cli.lines("-pub-json", str(entries), "-grep", "(a+)+!", "-out", "--plain")
    assert (status, err) == (0, [])
    assert "a" * 40 + "!" in out


def test_text_output_strips_terminal_control_sequences_from_fetched_values(tmp_path, cli):
    entries = tmp_path / "pubs.json"
    pub = Publication()
    pub.set_pmid("8", PartType.external, "test", FetcherArgs())
    pub.set_title("Safe \x1b]0;PWNED\x07title\x1b[2J\x1b[31m red\x1b[0m\x9b1m\rend", PartType.europepmc,
                  "https://europepmc.org/", FetcherArgs())
    entries.write_text(json.dumps([pub.to_json()]))
    status, out, err = cli.lines("-pub-json", str(entries), "-out", "--plain")
    assert status == 0
    assert "Safe title red" + "end" in out
    assert not any(ch in out for ch in "\x1b\x07\x9b\r")
    status, out, err = cli.lines("-pub-json", str(entries), "-out", "--format", "json", "--plain")
    assert "\\u001b]0;PWNED\\u0007" in out  # JSON keeps the value, escaped


def test_temporary_files_of_killed_runs_are_removed_by_the_next_run(tmp_path, cli):
    out_file = tmp_path / "out.json"
    kill_mid_write = (f"import os, signal\nfrom pubfetch.cli.emit import write_file\nwrite_file({str(out_file)!r}, "
                      "lambda f: (f.write('{\"partial'), f.flush(), os.kill(os.getpid(), signal.SIGKILL)))\n")
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", kill_mid_write], capture_output=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
        assert done.returncode == -9
    left = sorted(p.name for p in tmp_path.glob(".out.json.*.tmp"))
    assert len(left) == 1  # each killed run already removed the file of the one before
    # alive until killed at the end (a process that ended by itself meanwhile would make its file stale)
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"]) as alive:
        try:
            live_tmp = tmp_path / f".out.json.{alive.pid}.abcd1234.tmp"
            live_tmp.write_text("another run writing now")
            entries = tmp_path / "pubs.json"
            pub = Publication()
            pub.set_pmid("9", PartType.external, "test", FetcherArgs())
            entries.write_text(json.dumps([pub.to_json()]))
            status, out, err = cli.lines("-pub-json", str(entries), "-txt-pub", str(out_file), "--format", "json")
            assert (status, err) == (0, [])
            assert sorted(p.name for p in tmp_path.glob(".out.json.*.tmp")) == [live_tmp.name]
        finally:
            alive.kill()
    assert json.loads(out_file.read_text())["publications"][0]["pmid"]["content"] == "9"
    assert remove_stale_temporaries(str(out_file)) == [live_tmp.name]
