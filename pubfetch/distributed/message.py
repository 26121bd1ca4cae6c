"""What a queue message may carry to a worker, and nothing more.

Anyone who can write to the queue can send a task, so a message is input from outside, checked field by field against
a whitelist before any work. It carries the batch's IDs, the fetching thresholds of the job (cooldowns, retry limit,
minimum lengths, timeout, quick), the parts to fetch and the job's run settings (batch sizes of the batched
services, the links followed, the linger: :data:`pubfetch.config.JOB_SETTINGS`). It never chooses what belongs to
the worker's operator: the database (the worker writes only to its own ``--db``; the job's database name travels
only so that a job sent to the wrong cluster is refused instead of written elsewhere), files to read (rule files),
the User-Agent and contact e-mails, endpoints, rate limits, or address policy. A message with anything else is
refused whole, with one line saying which field.

A later field (such as a carried run configuration) is added by giving it a checker in :data:`FIELDS`; what a checker
does not name stays refused.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Collection, Sequence
from typing import Any

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds, check_publication_ids

#: Message format; a worker refuses the formats it does not know.
VERSION = 1
#: IDs one task may carry: a task of more would hold its whole batch in memory for long, and past the grace period of
#: a busy machine risk being given to a second worker too. Larger ``--batch-size`` values are split into tasks of this.
MAX_IDS_PER_TASK = 1000
#: The longest ID text accepted (a DOI is at most a few hundred characters).
MAX_ID_CHARS = 1000
#: The fetching parameters a job may set for its batches: thresholds of when and how much to fetch. The User-Agent,
#: contact e-mails and rule files (``journals_yaml``, ``webpages_yaml``) are the worker's own.
ALLOWED_ARGS = frozenset({
    "empty_cooldown", "non_final_cooldown", "fetch_exception_cooldown", "retry_limit", "title_min_length",
    "keywords_min_size", "mined_terms_min_size", "abstract_min_length", "fulltext_min_length", "webpage_min_length",
    "webpage_min_length_javascript", "timeout", "quick",
})


class MessageRefused(Exception):
    """A task message a worker will not run; the text is one line for the worker's log and the job's status, and never
    quotes more of the message than a field's name."""


@dataclasses.dataclass(frozen=True)
class BatchMessage:
    """A checked task message."""

    ids: list[PublicationIds]
    db: str | None = None
    args: dict[str, Any] = dataclasses.field(default_factory=dict)
    parts: list[str] | None = None
    #: the number of batches of the job (the last one to finish retries the job's failures, :mod:`.jobretry`)
    batches: int | None = None
    #: the job's run settings (:data:`pubfetch.config.JOB_SETTINGS`: batching and links), over the worker's
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)

    def fetcher_args(self, base: FetcherArgs) -> FetcherArgs:
        """The worker's own fetching parameters with the job's thresholds over them."""
        return dataclasses.replace(base, **self.args) if self.args else base

    def encode(self) -> dict[str, Any]:
        return {"v": VERSION, "ids": [list(i.ids) for i in self.ids], "db": self.db, "args": self.args,
                "parts": self.parts, "batches": self.batches, "settings": self.settings}


def job_args(args: FetcherArgs | None) -> dict[str, Any]:
    """The thresholds of ``args`` a message carries: those that differ from the defaults (the rest are the worker's)."""
    if args is None:
        return {}
    default = FetcherArgs()
    return {k: getattr(args, k) for k in sorted(ALLOWED_ARGS) if getattr(args, k) != getattr(default, k)}


def _ids(value: Any) -> list[PublicationIds]:
    """Each entry checked as an ID file's row is (:func:`~pubfetch.ids.check_publication_ids`): a submitter sends only
    IDs it has checked, so an entry that is empty or not an ID was not written by one, and is refused here rather than
    failing as a batch later."""
    if not isinstance(value, list) or not value:
        raise MessageRefused("'ids' is not a non-empty list")
    if len(value) > MAX_IDS_PER_TASK:
        raise MessageRefused(f"{len(value)} IDs in one task, more than the {MAX_IDS_PER_TASK} a task may carry")
    out = []
    for item in value:
        if (not isinstance(item, list) or len(item) != 3
                or not all(isinstance(x, str) and len(x) <= MAX_ID_CHARS for x in item)):
            raise MessageRefused("an entry of 'ids' is not [pmid, pmcid, doi] of strings")
        try:
            out.append(check_publication_ids(*item))
        except ValueError:
            raise MessageRefused("an entry of 'ids' is not a valid publication ID") from None
    return out


def _db(value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or len(value) > 4096):
        raise MessageRefused("'db' is not a database name")
    return value


def _whitelisted(field: str, value: Any, allowed: Collection[str], check: Callable[[dict[str, Any]], object]
                 ) -> dict[str, Any]:
    """A mapping field whose keys are all in ``allowed`` and whose values ``check`` accepts; the refusal names the keys
    (cut short) and the kind of error, never the values, which may come from anyone who can write to the queue."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MessageRefused(f"'{field}' is not a mapping")
    refused = sorted(str(k)[:40] for k in value if k not in allowed)
    if refused:
        raise MessageRefused(f"'{field}' sets {', '.join(refused)}, which only the worker's own configuration may set")
    try:
        check(value)
    except (TypeError, ValueError) as e:
        raise MessageRefused(f"'{field}' has an invalid value ({type(e).__name__})") from None
    return dict(value)


def _args(value: Any) -> dict[str, Any]:
    return _whitelisted("args", value, ALLOWED_ARGS, lambda v: FetcherArgs(**v))


def _parts(value: Any) -> list[str] | None:
    from pubfetch.model import PartName

    if value is None:
        return None
    names = {p.value for p in PartName}
    if not isinstance(value, list) or not all(isinstance(p, str) and p in names for p in value):
        raise MessageRefused("'parts' is not a list of part names")
    return list(value)


def _batches(value: Any) -> int | None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= 10_000_000):
        raise MessageRefused("'batches' is not a number of batches")
    return value


def _settings(value: Any) -> dict[str, Any]:
    from pubfetch.config import JOB_SETTINGS, FetchConfig

    return _whitelisted("settings", value, JOB_SETTINGS, FetchConfig().with_job_settings)


#: Each field a message may have and its checker; "v" is checked first.
FIELDS: dict[str, Callable[[Any], Any]] = {"ids": _ids, "db": _db, "args": _args, "parts": _parts,
                                           "batches": _batches, "settings": _settings}


def decode(args: Sequence[Any], kwargs: dict[str, Any]) -> BatchMessage:
    """The checked message of a task called with ``args``/``kwargs``; :class:`MessageRefused` for anything else."""
    if kwargs or len(args) != 1 or not isinstance(args[0], dict):
        raise MessageRefused("not a pubfetch batch message of this version (one mapping expected)")
    message = args[0]
    if message.get("v") != VERSION:
        raise MessageRefused(f"message format {str(message.get('v'))[:20]!r} is not {VERSION}: submitter and worker "
                             "run different pubfetch versions")
    unknown = sorted(str(k)[:40] for k in message if k != "v" and k not in FIELDS)
    if unknown:
        raise MessageRefused(f"message field(s) {', '.join(unknown)} not accepted by workers")
    return BatchMessage(**{k: check(message.get(k)) for k, check in FIELDS.items()})


def database_name(target: str) -> str:
    """What identifies a database across machines: a PostgreSQL database's name (hosts and users differ by where one
    connects from), a SQLite file's absolute path."""
    from pubfetch.store import is_postgres

    if is_postgres(target):
        from urllib.parse import urlsplit

        return "postgresql:" + urlsplit(target).path.lstrip("/").split("?")[0]
    path = target[len("sqlite:///") - 1:] if target.startswith("sqlite:///") else target
    return "sqlite:" + os.path.realpath(path)
