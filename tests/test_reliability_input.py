"""Bad input, as a table: for each, the exact message on stderr and the exit status of ``main([...])``.

Everything a user can fix exits with status 2 and one ``pubfetch: error:`` line naming the file (and line) at fault,
never a traceback; invalid IDs without ``--strict`` are warnings with file:line, skipped and counted. The endpoints point
at a loopback server that counts requests: no bad input may lead to a request.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from pubfetch.store import init_db
from support.cli import Cli
from support.depwords import re_error, selector_error, yaml_problem
from support.synthetic import SyntheticServices

RULE_KEYS = ("pmid, pmcid, doi, title, subtitle, keywords, keywords_split, abstract, fulltext, fulltext_src, "
             "fulltext_dst, fulltext_a, pdf_src, pdf_dst, pdf_a, corresp_author_names, corresp_author_emails, "
             "wait_until, recognise, tests")
ID_EXAMPLES = "expected a PMID (31114920), a PMCID (PMC6198355) or a DOI (10.1093/nar/gkz369)"
BAD_RULE_REGEX = "^https?://(example\\.org/"
TABS = "'^x': example\n---\nexample:\n\ttitle: 'h1'\n"
NOT_SQLITE = ("is not an SQLite database (a PubFetcher MapDB file or some other kind of file?); pubfetch databases are "
              "created with -db-init")


def make_files(d: Path) -> None:
    """Every bad input file of the table, in ``d``."""
    (d / "empty.txt").write_text("")
    (d / "comments.txt").write_text("# pmid\tpmcid\tdoi\n\n   \n")
    (d / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00")
    # the bad byte on line 1: one further down is reported at the first line of its 8 kB read (reported as a bug)
    (d / "latin1.txt").write_bytes(b"10.1000/caf\xe9\n31114920\n")
    (d / "two.txt").write_text("31114920\tPMC6198355\n")
    (d / "four.txt").write_text("31114920\t\t\t\n")
    (d / "pmid0.txt").write_text("01\n")
    (d / "pmid_col.txt").write_text("abc\t\t\n")
    (d / "pmcid_col.txt").write_text("\tPMC6198355x\t\n")
    (d / "pmcid_nopmc.txt").write_text("\t6198355\t\n")
    (d / "doi_col.txt").write_text("\t\tnot-a-doi\n")
    (d / "unknown.txt").write_text("hello world\n")
    (d / "urls.txt").write_text("https://example.org/\nnotaurl\n")
    (d / "ids.txt").write_text("31114920\n")
    (d / "text.db").write_text("not a database at all\n")
    (d / "random.db").write_bytes(bytes(range(256)) * 16)
    (d / "header.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 84)
    (d / "dir.db").mkdir()
    init_db(d / "good.db").close()
    good = (d / "good.db").read_bytes()
    (d / "truncated.db").write_bytes(good[: len(good) // 2])
    (d / "corrupt.db").write_bytes(good[:100] + b"\xff" * (len(good) - 100))
    conn = sqlite3.connect(d / "other.db")
    conn.execute("CREATE TABLE recipes (name TEXT, steps TEXT)")
    conn.commit()
    conn.close()
    (d / "not.json").write_text("hello world\n")
    (d / "bogus_key.yaml").write_text("'^https?://example\\.org/': example\n---\nexample:\n  title: 'h1'\n  bogus: x\n")
    (d / "bad_regex.yaml").write_text(f"'{BAD_RULE_REGEX}': example\n---\nexample:\n  title: 'h1'\n")
    (d / "bad_selector.yaml").write_text("'^https?://example\\.org/': example\n---\nexample:\n  title: 'h1['\n")
    (d / "tagged.yaml").write_text("'^x': !!python/object/apply:os.system ['true']\n")
    (d / "tabs.yaml").write_text(TABS)


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    status: int
    stderr: tuple[str, ...]  # exact lines; {d} is the directory of the files
    stdout: str = ""


def rules_case(name: str, file: str, problem: str) -> Case:
    return Case(name, ("-pub-file", "{d}/ids.txt", "-db-fetch", "{d}/good.db", "--journalsYaml", f"{{d}}/{file}",
                       "--no-rate-limit", "--quiet"), 2, (f"pubfetch: error: scraping rules {{d}}/{file}{problem}",))


CASES = [
    # ID files
    Case("empty ID file", ("-pub-file", "{d}/empty.txt", "-out-ids"), 0, ()),
    Case("ID file of comments and blank lines", ("-pub-file", "{d}/comments.txt", "-out-ids"), 0, ()),
    Case("binary ID file", ("-pub-file", "{d}/binary.txt", "-out-ids"), 2,
         ("pubfetch: error: {d}/binary.txt:1: publication ID file is not UTF-8 text (invalid start byte)",)),
    Case("Latin-1 ID file", ("-pub-file", "{d}/latin1.txt", "-out-ids"), 2,
         ("pubfetch: error: {d}/latin1.txt:1: publication ID file is not UTF-8 text (invalid continuation byte)",)),
    Case("missing ID file", ("-pub-file", "{d}/missing.txt", "-out-ids"), 2,
         ("pubfetch: error: cannot read publication ID file '{d}/missing.txt': No such file or directory",)),
    Case("directory as ID file", ("-pub-file", "{d}/dir.db", "-out-ids"), 2,
         ("pubfetch: error: cannot read publication ID file '{d}/dir.db': Is a directory",)),
    # a file whose every line is invalid was not what was meant: an error before anything is done
    Case("two columns", ("-pub-file", "{d}/two.txt", "-out-ids"), 2,
         (("pubfetch: warning: {d}/two.txt:1: expected 'pmid<TAB>pmcid<TAB>doi' or a single ID, found 2 "
          "tab-separated fields"),
          "pubfetch: error: {d}/two.txt: 1 publication ID line given, none valid (see the warnings above)")),
    Case("four columns, strict", ("-pub-file", "{d}/four.txt", "-out-ids", "--strict"), 2,
         (("pubfetch: error: {d}/four.txt:1: expected 'pmid<TAB>pmcid<TAB>doi' or a single ID, found 4 "
          "tab-separated fields"),)),
    Case("PMID with a leading zero", ("-pub-file", "{d}/pmid0.txt", "-out-ids", "--strict"), 2,
         ("pubfetch: error: {d}/pmid0.txt:1: invalid publication ID '01': a PMID has no leading zeros",)),
    Case("PMID column not a number", ("-pub-file", "{d}/pmid_col.txt", "-out-ids", "--strict"), 2,
         (("pubfetch: error: {d}/pmid_col.txt:1: invalid PMID 'abc': a PMID is a positive whole number such as "
          "31114920"),)),
    Case("PMCID column with junk", ("-pub-file", "{d}/pmcid_col.txt", "-out-ids", "--strict"), 2,
         (("pubfetch: error: {d}/pmcid_col.txt:1: invalid PMCID 'PMC6198355x': a PMCID is PMC followed by digits, "
          "such as PMC6198355"),)),
    Case("PMCID without PMC", ("-pub-file", "{d}/pmcid_nopmc.txt", "-out-ids", "--strict"), 2,
         (("pubfetch: error: {d}/pmcid_nopmc.txt:1: invalid PMCID '6198355': PMCID must start with PMC; '6198355' "
          "looks like a PMID (did you mean PMC6198355?)"),)),
    Case("DOI column not a DOI", ("-pub-file", "{d}/doi_col.txt", "-out-ids", "--strict"), 2,
         (("pubfetch: error: {d}/doi_col.txt:1: invalid DOI 'not-a-doi': a DOI is 10.<registrant>/<suffix>, such as "
          "10.1093/nar/gkz369"),)),
    Case("not an ID at all", ("-pub-file", "{d}/unknown.txt", "-out-ids", "--strict"), 2,
         (f"pubfetch: error: {{d}}/unknown.txt:1: unknown publication ID 'hello world': {ID_EXAMPLES}",)),
    Case("invalid ID on the command line", ("-pub", "01", "PMC5", "-out-ids"), 0,
         ("pubfetch: warning: -pub: invalid publication ID '01': a PMID has no leading zeros",
          "pubfetch: warning: -pub: 1 of 2 publication IDs invalid, 1 skipped"), "[PMC5] (given as input)\n"),
    Case("invalid ID on the command line, strict", ("-pub", "10.1000", "-out-ids", "--strict"), 2,
         (f"pubfetch: error: -pub: unknown publication ID '10.1000': {ID_EXAMPLES}",)),
    Case("invalid URL, strict", ("-web", "notaurl", "-out-ids", "--strict"), 2,
         (("pubfetch: error: -web: malformed URL 'notaurl': no scheme (expected an absolute URL such as "
          "https://example.org/)"),)),
    Case("JSON file that is not JSON", ("-pub-json", "{d}/not.json", "-out"), 2,
         ("pubfetch: error: {d}/not.json: invalid JSON: Expecting value (line 1, column 1)",)),
    Case("binary JSON file", ("-pub-json", "{d}/binary.txt", "-out"), 2,
         ("pubfetch: error: {d}/binary.txt: JSON file is not UTF-8 text (invalid start byte at byte 0)",)),
    # databases
    Case("missing database", ("-pub-db", "{d}/missing.db", "-out-ids"), 2,
         ("pubfetch: error: database file '{d}/missing.db' does not exist (create it with -db-init)",)),
    Case("directory as database", ("-pub", "31114920", "-db-fetch", "{d}/dir.db"), 2,
         ("pubfetch: error: database file '{d}/dir.db' is a directory, not a database file",)),
    Case("text file as database", ("-pub", "31114920", "-db-fetch", "{d}/text.db"), 2,
         (f"pubfetch: error: database file '{{d}}/text.db' {NOT_SQLITE}",)),
    Case("random bytes as database", ("-pub-db", "{d}/random.db", "-out-ids"), 2,
         (f"pubfetch: error: database file '{{d}}/random.db' {NOT_SQLITE}",)),
    Case("truncated database", ("-pub", "31114920", "-db-fetch", "{d}/truncated.db"), 2,
         ("pubfetch: error: database file '{d}/truncated.db' cannot be opened: database disk image is malformed",)),
    Case("corrupt database", ("-pub-db", "{d}/corrupt.db", "-out-ids"), 2,
         ("pubfetch: error: database file '{d}/corrupt.db' cannot be opened: database disk image is malformed",)),
    Case("SQLite header only", ("-pub-db", "{d}/header.db", "-out-ids"), 2,
         ("pubfetch: error: database file '{d}/header.db' cannot be opened: file is not a database",)),
    Case("database of another program", ("-pub", "31114920", "-db-fetch", "{d}/other.db"), 2,
         (("pubfetch: error: database file '{d}/other.db' is an SQLite database of another program, not a pubfetch "
          "database (it has no pubfetch 'meta' table)"),)),
    Case("-db-init over an existing file", ("-db-init", "{d}/text.db"), 2,
         ("pubfetch: error: database file '{d}/text.db' already exists; remove it or use another name",)),
    # regular expressions, times, numbers
    Case("bad regex", ("-pub", "31114920", "-pmid", "(", "-out-ids"), 2,
         (f"pubfetch: error: option -pmid: invalid regular expression '(': {re_error('(')}",)),
    Case("bad character class", ("-pub", "31114920", "-doi", "[a-", "-out-ids"), 2,
         (f"pubfetch: error: option -doi: invalid regular expression '[a-': {re_error('[a-')}",)),
    Case("regex with nothing to repeat", ("-pub", "31114920", "-grep", "*", "-out"), 2,
         (f"pubfetch: error: option -grep: invalid regular expression '*': {re_error('*')}",)),
    Case("bad time", ("-pub", "31114920", "-fetch-time-more", "yesterday", "-out"), 2,
         (("pubfetch: error: option -fetch-time-more: invalid time 'yesterday': expected an ISO-8601 instant such "
          "as 2024-01-31T12:00:00Z"),)),
    Case("impossible date", ("-pub", "31114920", "-pub-date-more", "2024-02-30", "-out"), 2,
         (("pubfetch: error: option -pub-date-more: invalid time '2024-02-30': expected an ISO-8601 instant such as "
          "2024-01-31T12:00:00Z"),)),
    Case("bad duration", ("-pub", "31114920", "--timeout", "soon", "-out-ids"), 2,
         (("pubfetch: error: option --timeout: invalid value 'soon' for parameter timeout: expected a time interval "
          "such as 30s, 5m, 12h, 1d (a plain number is milliseconds)"),)),
    Case("negative count", ("-pub", "31114920", "-head-ids", "-5", "-out-ids"), 2,
         ("pubfetch: error: option -head-ids: invalid value '-5': expected a whole number >= 0",)),
    # rule files, given to a network operation: refused before the first request
    rules_case("rule with an unknown key", "bogus_key.yaml",
               f":5: unknown key (known keys: {RULE_KEYS})"),
    rules_case("rule with a bad regex", "bad_regex.yaml",
               f":1: not a valid regular expression (Python re syntax): {re_error(BAD_RULE_REGEX)}"),
    rules_case("rule with a bad selector", "bad_selector.yaml",
               f":4, key 'title': invalid CSS selector: {selector_error('h1[')}"),
    rules_case("rule file with a Python tag", "tagged.yaml",
               ":1: the site name of a regex must be a string, not a sequence (quote it)"),
    rules_case("rule file indented with a tab", "tabs.yaml",
               f":4: YAML syntax error: {yaml_problem(TABS)}"),
    rules_case("missing rule file", "missing.yaml", ": cannot read the file: No such file or directory"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bad-inputs")
    make_files(d)
    return d


@pytest.mark.services(1, emails=False)  # the services must not even be asked
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case: Case, files: Path, services: SyntheticServices, cli: Cli):
    status, out, err = cli.lines(*(a.replace("{d}", str(files)) for a in case.argv))
    assert (status, err, out) == (
        case.status, [line.replace("{d}", str(files)) for line in case.stderr], case.stdout)
    assert services.server.requests == []
