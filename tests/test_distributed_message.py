"""A queue message is input from whoever can write to the queue: checked field by field against a whitelist, refused
whole with one line naming the field, and carrying a job's thresholds and run settings but nothing of the worker's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pubfetch.distributed.message import (
    MAX_IDS_PER_TASK,
    VERSION,
    BatchMessage,
    MessageRefused,
    database_name,
    decode,
    job_args,
)
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds


def message(**fields: Any) -> dict[str, Any]:
    return {"v": VERSION, "ids": [["123", "", ""]], **fields}


def refusal(*args: Any, **kwargs: Any) -> str:
    with pytest.raises(MessageRefused) as info:
        decode(args, kwargs)
    return str(info.value)


def test_only_thresholds_travel_in_a_message() -> None:
    """A job's fetching thresholds go to the workers; its User-Agent, e-mails and rule files do not (the worker's own
    apply)."""
    mine = FetcherArgs(retry_limit=7, timeout=3000, user_agent="submitter", journals_yaml="/etc/shadow",
                       oadoi_email="me@example.org")
    carried = BatchMessage([PublicationIds("123")], None, job_args(mine), ["title"]).encode()
    assert carried["args"] == {"retry_limit": 7, "timeout": 3000}
    got = decode((carried,), {}).fetcher_args(FetcherArgs(user_agent="worker", oadoi_email="ops@example.org"))
    assert (got.retry_limit, got.timeout, got.user_agent, got.oadoi_email, got.journals_yaml) == \
        (7, 3000, "worker", "ops@example.org", "")





def test_an_encoded_message_decodes_to_itself() -> None:
    sent = BatchMessage([PublicationIds("123"), PublicationIds(doi="10.1/A")], "postgresql://h/db", {"quick": True},
                        ["title", "abstract"], 4, {"max_links": 3})
    assert decode((sent.encode(),), {}) == sent
    assert decode((message(),), {}) == BatchMessage([PublicationIds("123")])


@pytest.mark.parametrize(("fields", "problem"), [
    ({"v": 2}, "message format '2' is not 1: submitter and worker run different pubfetch versions"),
    ({"journals_yaml": "/etc/passwd"}, "message field(s) journals_yaml not accepted by workers"),
    ({"ids": []}, "'ids' is not a non-empty list"),
    ({"ids": [["123", ""]]}, "an entry of 'ids' is not [pmid, pmcid, doi] of strings"),
    ({"ids": [["1" * 1001, "", ""]]}, "an entry of 'ids' is not [pmid, pmcid, doi] of strings"),
    ({"ids": [["1", "", ""]] * (MAX_IDS_PER_TASK + 1)},
     f"{MAX_IDS_PER_TASK + 1} IDs in one task, more than the {MAX_IDS_PER_TASK} a task may carry"),
    ({"db": 5}, "'db' is not a database name"),
    ({"args": {"user_agent": "x", "oadoi_email": "y"}},
     "'args' sets oadoi_email, user_agent, which only the worker's own configuration may set"),
    ({"args": {"timeout": -5}}, "'args' has an invalid value ("),
    ({"args": [1]}, "'args' is not a mapping"),
    ({"parts": ["title", "password"]}, "'parts' is not a list of part names"),
    ({"batches": True}, "'batches' is not a number of batches"),
    ({"batches": 0}, "'batches' is not a number of batches"),
    ({"settings": {"endpoints": {}}}, "'settings' sets endpoints, which only the worker's own configuration may set"),
    ({"settings": {"max_links": "many"}}, "'settings' has an invalid value"),
])  # fmt: skip
def test_each_field_is_checked_and_a_refusal_names_it(fields: dict[str, Any], problem: str) -> None:
    assert refusal(message(**fields)).startswith(problem)


@pytest.mark.parametrize("entry", [
    ["", "", ""], [" ", "\t", ""], ["not-a-pmid", "", ""], ["0123", "", ""], ["PMC123", "", ""], ["", "123", ""],
    ["", "pmc123", ""], ["", "", "not-a-doi"], ["123", "", "10.1000/a b"], ["https://example.org/paper", "", ""],
])  # fmt: skip
def test_an_entry_that_is_not_a_publication_id_is_refused(entry: list[str]) -> None:
    assert refusal(message(ids=[["123", "", ""], entry])) == "an entry of 'ids' is not a valid publication ID"


def test_an_entry_is_read_as_a_row_of_an_id_file() -> None:
    got = decode((message(ids=[["https://pubmed.ncbi.nlm.nih.gov/31114920/", "", "doi:10.1093/nar/gkz369"],
                               [" 123 ", "PMC6198355", ""]]),), {}).ids
    assert [i.ids for i in got] == [("31114920", "", "10.1093/NAR/GKZ369"), ("123", "PMC6198355", "")]


def test_a_message_is_one_mapping_and_nothing_else() -> None:
    expected = "not a pubfetch batch message of this version (one mapping expected)"
    assert refusal(message(), message()) == expected
    assert refusal(message=message()) == expected
    assert refusal(["123"]) == expected


def test_a_refusal_quotes_no_more_than_a_cut_field_name() -> None:
    secret = "s3cr3t-" * 20
    text = refusal(message(**{secret: 1}))
    assert secret not in text and secret[:40] in text
    assert "hunter2" not in refusal(message(args={"timeout": "hunter2"}))


def test_job_args_carry_only_the_thresholds_that_differ_from_the_defaults() -> None:
    assert job_args(None) == {}
    assert job_args(FetcherArgs()) == {}
    assert job_args(FetcherArgs(quick=True, title_min_length=9, user_agent="me")) == {"quick": True,
                                                                                      "title_min_length": 9}


def test_database_names_are_comparable_across_machines(tmp_path: Path) -> None:
    assert database_name("postgresql://alice:pw@db.example:5432/pubs?sslmode=require") == "postgresql:pubs"
    assert database_name("postgresql://bob@10.0.0.1/pubs") == "postgresql:pubs"
    os.symlink(tmp_path, tmp_path / "link")
    real = "sqlite:" + os.path.realpath(tmp_path / "p.db")
    assert database_name(str(tmp_path / "link" / "p.db")) == real
    assert database_name(f"sqlite:///{tmp_path}/p.db") == real
