"""PubFetcher's pipeline, always run in this order whatever the order of the options on the command line:

1. add IDs (command line, ID files, databases, JSON files)     6. filter content
2. filter IDs                                                  7. sort content, top hosts, limit content
3. sort, limit, and remove IDs from a database                 8. update citations count, put, remove
4. output IDs                                                  9. output content, counts, top hosts, part table
5. get content (JSON files, -db, then the network steps)

Each step works on all three kinds (publications, webpages, docs). Network steps call the fetch functions of
:mod:`pubfetch.cli.fetching` within the command's session; entries are written to databases by :mod:`pubfetch.fetcher`
(publications) and :mod:`pubfetch.webfetch` (pages); everything else is done here, offline.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from typing import Any, Literal, NamedTuple, TextIO

from pubfetch import fetcher, webfetch
from pubfetch.cli import fetching
from pubfetch.cli.emit import Emitter, write_file
from pubfetch.cli.fetching import Session
from pubfetch.cli.filters import Filter, accepts, apply, content_filters, id_filters
from pubfetch.cli.idsource import (
    IdSets,
    check_pub_file,
    iter_pub_file,
    pub_ids_from_args,
    pub_ids_from_db,
    read_pub_file,
    read_url_file,
    urls_from_args,
    urls_from_db,
)
from pubfetch.cli.jsonsource import read_json_entries
from pubfetch.cli.parser import ParsedArgs
from pubfetch.cli.preflight import check_outputs
from pubfetch.cli.progress import CountedIds, count_id_lines
from pubfetch.cli.report import check_report, write_report
from pubfetch.cli.searchstep import SearchStep
from pubfetch.cli.snowballing import check_edges_output, snowball_plan, write_run_edges
from pubfetch.engine.command_summary import CommandSummary
from pubfetch.ids import PublicationIds
from pubfetch.model import PartName, Publication, Webpage
from pubfetch.output.common import Format
from pubfetch.output.summary import format_counts, part_table, top_hosts
from pubfetch.output.table_files import write_tables
from pubfetch.output.text import ids_text
from pubfetch.resources.supplements import download_supplements
from pubfetch.snowball import SnowballPlan
from pubfetch.store import Store, open_or_init_store, open_store
from pubfetch.textutil import counted

log = logging.getLogger(__name__)

EntryKind = Literal["publications", "webpages", "docs"]
Entry = Publication | Webpage

KINDS: tuple[EntryKind, ...] = ("publications", "webpages", "docs")
_WHAT = {"publications": "publication", "webpages": "webpage", "docs": "doc"}


class _FetchStep(NamedTuple):
    """How one of PubFetcher's fetch options uses its database."""

    database: bool  # the option names a database
    use_stored: bool  # entries are read from it first (else fetched afresh and written to it)
    keep_entries: bool  # the entries are kept for the later steps (-db-fetch-end keeps none in memory)


_FETCH_STEPS = {
    "fetch": _FetchStep(database=False, use_stored=False, keep_entries=True),
    "fetch-put": _FetchStep(database=True, use_stored=False, keep_entries=True),
    "db-fetch": _FetchStep(database=True, use_stored=True, keep_entries=True),
    "db-fetch-end": _FetchStep(database=True, use_stored=True, keep_entries=False),
}


class Pipeline:
    """One run of the pipeline over the options given."""

    def __init__(self, args: ParsedArgs, argv: Sequence[str], out: TextIO, sess: Session) -> None:
        self.args = args
        self.sess = sess
        self.fetcher_args = sess.args
        self.strict = args.flag("strict")
        self.emit = Emitter(out, args, self.fetcher_args, argv)
        self.out = out
        self.ids = IdSets()
        self.json_publications: dict[str, Publication] = {}
        self.json_pages: dict[str, dict[str, Webpage]] = {"webpages": {}, "docs": {}}
        self.given: dict[str, bool] = dict.fromkeys(KINDS, False)
        self.content: dict[str, list[Any]] = {k: [] for k in KINDS}
        self.filters: list[Filter] = content_filters(args, self.fetcher_args)
        self.hosts: dict[str, dict[str, int]] | None = None
        self.snowball: SnowballPlan | None = None
        self.searches = SearchStep(args, sess)
        if sum(step in args for step in _FETCH_STEPS) > 1:
            # each step reports every paper it gets: the command's summary counts each paper once (the streaming
            # command of one step keeps no memory of the papers it counted)
            sess.summary = CommandSummary()

    def run(self) -> None:
        check_report(self.args)
        check_outputs(self.args)
        check_edges_output(self.args, self.emit.fmt)
        self.snowball = snowball_plan(self.args, rich_parts=self.sess.config.run.rich_parts)
        if self._streaming():
            self._stream()
            return
        self.add_ids()
        self.filter_ids()
        self.sort_limit_remove_ids()
        self.output_ids()
        self.get_content()
        if not self.args.flag("pre-filter"):
            for kind in KINDS:
                self.content[kind] = apply(self.filters, self.content[kind], kind, kind)
        self.sort_content()
        self.top_hosts()
        self.limit_content()
        self.update_put_remove()
        self.output()
        self.searches.finish()

    # --- streaming: ID files straight into the database ---------------------------------------------------------------

    _STREAM_OPTIONS = frozenset({"pub-file", "db-fetch-end"})
    #: options that may come with them and still stream (the report reads the database afterwards)
    _STREAM_EXTRAS = frozenset({"report"})

    def _streaming(self) -> bool:
        """``-pub-file FILE... -db-fetch-end DB`` and nothing else of the pipeline (but ``-report``): no step needs the
        whole ID list (no ID filter, sort, limit or content output), so the files are read lazily and fetched batch
        by batch, with memory flat whatever their length. A duplicate ID is found complete in the database and not
        fetched again. Any other pipeline option gives PubFetcher's pipeline, which holds the IDs in memory."""
        pipeline = {o.dest for o in self.args.order if o.role == "pipeline"}
        return pipeline - self._STREAM_EXTRAS == self._STREAM_OPTIONS

    def _stream(self) -> None:
        from itertools import chain

        a = self.args
        files = a.get("pub-file", [])
        for path in files:  # before the database is created: nothing is made for input that cannot be used
            check_pub_file(path, self.strict)
        ids = CountedIds(chain.from_iterable(iter_pub_file(path, self.strict) for path in files),
                         count_id_lines(files))
        if "queue" in a:
            self._queued(ids, "db-fetch-end")
            return
        path = a.get("db-fetch-end")
        with open_or_init_store(path) as store, store.fetch_run(lambda: _waiting_for(path)):
            fetching.get_publications(self.sess, ids, store, keep_entries=False, progress=a.flag("progress"),
                                      parts=self._fetch_parts(), snowball=self.snowball)
        self._report()

    # --- 1. add IDs ------------------------------------------------------------------------------------------------

    def add_ids(self) -> None:
        a, ids = self.args, self.ids
        if "pub" in a:
            ids.add("publications", pub_ids_from_args(a.get("pub"), self.strict), "the command line")
        for kind, option in (("webpages", "web"), ("docs", "doc")):
            if option in a:
                ids.add(kind, urls_from_args(f"-{option}", a.get(option), self.strict), "the command line")
        for path in a.get("pub-file", []):
            ids.add("publications", read_pub_file(path, self.strict), f"file {path}")
        for found, where in self.searches.run():
            ids.add("publications", found, where)
        for kind, option in (("webpages", "web-file"), ("docs", "doc-file")):
            for path in a.get(option, []):
                ids.add(kind, read_url_file(path, _WHAT[kind], self.strict), f"file {path}")
        for path in a.get("pub-db", []):
            ids.add("publications", pub_ids_from_db(path), f"database {path}")
        for kind, option in (("webpages", "web-db"), ("docs", "doc-db")):
            for path in a.get(option, []):
                ids.add(kind, urls_from_db(path, kind), f"database {path}")
        self._add_json()
        for kind in KINDS:
            self.given[kind] = bool(getattr(ids, kind))

    def _add_json(self) -> None:
        for path in self.args.get("pub-json", []):
            pubs = read_json_entries(path, "publications", self.strict)
            for pub in pubs:
                for any_id in pub.ids.non_empty():
                    self.json_publications.setdefault(any_id, pub)
            self.ids.add("publications", [p.ids for p in pubs], f"JSON file {path}")
        page_options: tuple[tuple[Literal["webpages", "docs"], str], ...] = (("webpages", "web-json"),
                                                                            ("docs", "doc-json"))
        for kind, option in page_options:
            for path in self.args.get(option, []):
                pages = read_json_entries(path, kind, self.strict)
                for page in pages:
                    self.json_pages[kind].setdefault(page.start_url, page)
                self.ids.add(kind, [p.start_url for p in pages], f"JSON file {path}")

    # --- 2. filter IDs ---------------------------------------------------------------------------------------------

    def filter_ids(self) -> None:
        with ExitStack() as stack:
            filters = id_filters(self.args, stack)
            if not filters:
                return
            for kind in KINDS:
                items = apply(filters, list(getattr(self.ids, kind)), kind, f"{_WHAT[kind]} IDs")
                self.ids.replace(kind, items)

    # --- 3. sort, limit, remove IDs -----------------------------------------------------------------------------------

    def sort_limit_remove_ids(self) -> None:
        a = self.args
        for flag, reverse in (("asc-ids", False), ("desc-ids", True)):
            if a.flag(flag):
                self.ids.replace("publications", sorted(self.ids.publications, key=PublicationIds.sort_key,
                                                        reverse=reverse))
                for kind in ("webpages", "docs"):
                    self.ids.replace(kind, sorted(getattr(self.ids, kind), reverse=reverse))
        for option, take in (("head-ids", _head), ("tail-ids", _tail)):
            n = a.get(option)
            if n is not None:
                for kind in KINDS:
                    self.ids.replace(kind, take(list(getattr(self.ids, kind)), n))
        path = a.get("remove-ids")
        if path is not None and any(getattr(self.ids, k) for k in KINDS):
            with open_store(path) as db:
                _remove_all(db, "publications", list(self.ids.publications), path)
                for kind in ("webpages", "docs"):
                    _remove_all(db, kind, list(getattr(self.ids, kind)), path)

    # --- 4. output IDs ---------------------------------------------------------------------------------------------

    def output_ids(self) -> None:
        a, ids = self.args, self.ids
        if a.searches_alone():
            self.out.writelines(ids_text(*p.ids, tab=True) + "\n" for p in ids.publications)
        if a.flag("out-ids"):
            self.emit.ids(list(ids.publications), list(ids.webpages), list(ids.docs))
        for kind, option in zip(KINDS, ("txt-ids-pub", "txt-ids-web", "txt-ids-doc"), strict=True):
            if option in a:
                self.emit.ids_file(a.get(option), kind, list(getattr(ids, kind)))
        if a.flag("count-ids"):
            self.out.write(format_counts(*self._counts([len(getattr(ids, k)) for k in KINDS]), what="ids"))

    def _counts(self, numbers: list[int]) -> tuple[int | None, int | None, int | None]:
        """Counts of the kinds whose IDs were given; PubFetcher prints no line for the others."""
        publications, webpages, docs = (n if self.given[k] else None for k, n in zip(KINDS, numbers, strict=True))
        return publications, webpages, docs

    # --- 5. get content ---------------------------------------------------------------------------------------------

    def _remaining(self, kind: str) -> int:
        """How many more entries of ``kind`` may be got (``--limit``; PubFetcher's "limit - got so far")."""
        limit = self.args.get("limit", 0)
        return len(getattr(self.ids, kind)) if limit <= 0 else limit - len(self.content[kind])

    def _keep(self, kind: str) -> Callable[[Entry], bool] | None:
        if not self.args.flag("pre-filter"):
            return None
        return lambda entry: accepts(self.filters, entry, kind)

    def _collect(self, kind: str, source: str, lookup: Callable[[Any], Entry | None]) -> None:
        """Get entries of ``kind`` for the IDs, in ID order, up to the limit, through the pre-filter."""
        room = self._remaining(kind)
        ids = getattr(self.ids, kind)
        if not ids or room <= 0:
            return
        keep = self._keep(kind)
        got: list[Entry] = []
        missing = 0
        for key in ids:
            entry = lookup(key)
            if entry is None:
                missing += 1
                continue
            if keep is None or keep(entry):
                got.append(entry)
                if len(got) >= room:
                    break
        self.content[kind].extend(got)
        log.log(logging.WARNING if missing and source.startswith("database") else logging.INFO,
                "Got %s from %s%s", counted(len(got), _WHAT[kind]), source, f", {missing} not found" if missing else "")

    def _json_publication(self, ids: PublicationIds) -> Publication | None:
        for any_id in ids.non_empty():
            pub = self.json_publications.get(any_id)
            if pub is not None:
                return pub
        return None

    def get_content(self) -> None:
        a = self.args
        if self.json_publications:
            self._collect("publications", "JSON files", self._json_publication)
        for kind in ("webpages", "docs"):
            if self.json_pages[kind]:
                self._collect(kind, "JSON files", self.json_pages[kind].get)
        path = a.get("db")
        if path is not None and any(getattr(self.ids, k) for k in KINDS):
            with open_store(path, readonly=True) as db:
                self._collect("publications", f"database {path}", db.get_publication)
                self._collect("webpages", f"database {path}", db.get_webpage)
                self._collect("docs", f"database {path}", db.get_doc)
        for step in _FETCH_STEPS:
            if step in a:
                self._fetch(step)

    def _fetch_parts(self) -> frozenset[PartName] | None:
        if "fetch-part" in self.args:
            return frozenset(self.args.get("fetch-part"))
        if "not-fetch-part" in self.args:
            return frozenset(PartName) - frozenset(self.args.get("not-fetch-part"))
        return None

    def _fetch(self, option: str) -> None:
        a, step = self.args, _FETCH_STEPS[option]
        kinds = [k for k in KINDS if getattr(self.ids, k) and self._remaining(k) > 0]
        if not kinds:
            return
        with ExitStack() as stack:
            store = stack.enter_context(open_or_init_store(a.get(option))) if step.database else None
            if store is not None and "queue" not in a:
                stack.enter_context(store.fetch_run(lambda: _waiting_for(a.get(option))))
            for kind in kinds:
                if "queue" in a and kind == "publications" and store is not None:
                    self._queued(list(self.ids.publications), option, store)
                    continue
                ids = list(getattr(self.ids, kind))
                limit = self._remaining(kind)
                if kind == "publications" and a.get("limit", 0) <= 0 and self.sess.config.run.follow_published:
                    limit = 0  # every entry the fetch gives: the journal versions of the preprints too
                progress, keep = a.flag("progress"), self._keep(kind)
                if kind == "publications":
                    self.content[kind].extend(fetching.get_publications(
                        self.sess, ids, store, use_stored=step.use_stored, keep_entries=step.keep_entries,
                        limit=limit, progress=progress, keep=keep, parts=self._fetch_parts(), snowball=self.snowball))
                else:
                    self.content[kind].extend(fetching.get_pages(
                        self.sess, kind, ids, store, use_stored=step.use_stored, keep_entries=step.keep_entries,
                        limit=limit, progress=progress, keep=keep))

    def _queued(self, ids: Iterable[PublicationIds], step: str, store: Store | None = None) -> None:
        """``--queue``: the workers fetch into the database; -db-fetch then reads the entries back from it."""
        from pubfetch.cli.queued import fetch_step

        a = self.args
        wanted = list(ids) if store is not None and step == "db-fetch" else ids
        fetch_step(wanted, a.get(step), a.get("queue"), self.sess, batch_size=a.get("batch-size"),
                   parts=self._fetch_parts(), detach=a.flag("detach"), progress=a.flag("progress"),
                   quiet=a.flag("quiet"))
        if store is not None and step == "db-fetch" and not a.flag("detach"):
            # read back through a connection of its own: the one held while the workers fetched may have been ended
            # by the server meanwhile (a restart, an idle timeout), which says nothing about the job
            with open_store(a.get(step), readonly=True) as fresh:
                got = (fresh.get_publication(i) for i in wanted)
                self.content["publications"].extend(p for p in got if p is not None)

    # --- 7. sort, top hosts, limit ----------------------------------------------------------------------------------

    def sort_content(self) -> None:
        keys: dict[str, Callable[[Any], Any]] = {
            "publications": lambda p: p.ids.sort_key(),
            "webpages": lambda w: w.start_url,
            "docs": lambda w: w.start_url,
        }
        for flag, by_time, reverse in (("asc", False, False), ("desc", False, True), ("asc-time", True, False),
                                       ("desc-time", True, True)):
            if self.args.flag(flag):
                for kind in KINDS:
                    key = (lambda e: e.state.fetch_time) if by_time else keys[kind]
                    self.content[kind].sort(key=key, reverse=reverse)

    def top_hosts(self) -> None:
        a = self.args
        wanted = a.flag("out-top-hosts") or a.flag("count-top-hosts") or any(
            o in a for o in ("txt-top-hosts-pub", "txt-top-hosts-web", "txt-top-hosts-doc"))
        if wanted:
            self.hosts = {k: top_hosts(self.content[k]) for k in KINDS}

    def limit_content(self) -> None:
        for option, take in (("head", _head), ("tail", _tail)):
            n = self.args.get(option)
            if n is None:
                continue
            for kind in KINDS:
                self.content[kind] = take(self.content[kind], n)
                if self.hosts is not None:
                    self.hosts[kind] = dict(take(list(self.hosts[kind].items()), n))

    # --- 8. update, put, remove --------------------------------------------------------------------------------------

    def update_put_remove(self) -> None:
        a, content = self.args, self.content
        if "update-citations-count" in a and content["publications"]:
            with open_store(a.get("update-citations-count")) as db:
                fetching.update_citations_count(self.sess, content["publications"], db)
        if "put" in a and any(content[k] for k in KINDS):
            with open_store(a.get("put")) as db:
                for kind in KINDS:
                    _put_all(db, kind, content[kind])
        if "remove" in a and any(content[k] for k in KINDS):
            path = a.get("remove")
            with open_store(path) as db:
                _remove_all(db, "publications", content["publications"], path)
                for kind in ("webpages", "docs"):
                    _remove_all(db, kind, [p.start_url for p in content[kind]], path)

    # --- 9. output ---------------------------------------------------------------------------------------------------

    def output(self) -> None:
        a, c = self.args, self.content
        if a.flag("out") and self.emit.fmt is Format.edges:
            write_run_edges(self.out, a, self.ids.publications, c["publications"])
        elif a.flag("out"):
            self.emit.entries(c["publications"], c["webpages"], c["docs"], tag_kind=sum(self.given.values()) > 1)
        for kind, option in zip(KINDS, ("txt-pub", "txt-web", "txt-doc"), strict=True):
            if option in a:
                self.emit.entries_file(a.get(option), kind, c[kind])
        if a.flag("count"):
            self.out.write(format_counts(*self._counts([len(c[k]) for k in KINDS])))
        if self.hosts is not None:
            self._top_hosts(self.hosts)
        if a.flag("part-table"):
            self.out.write(part_table(c["publications"]))
        if "out-tables" in a:
            write_tables(a.get("out-tables"), c["publications"], write_file)
        if "supplements" in a:
            self._supplements(a.get("supplements"))
        self._report()

    def _top_hosts(self, hosts: dict[str, dict[str, int]]) -> None:
        a = self.args
        if a.flag("out-top-hosts"):
            self.emit.top_hosts(hosts)
        for kind, option in zip(KINDS, ("txt-top-hosts-pub", "txt-top-hosts-web", "txt-top-hosts-doc"), strict=True):
            if option in a:
                self.emit.top_hosts_file(a.get(option), kind, hosts[kind])
        if a.flag("count-top-hosts"):
            self.out.write(format_counts(*self._counts([len(hosts[k]) for k in KINDS]), what="top_hosts"))

    def _supplements(self, directory: str) -> None:
        done = download_supplements(self.sess.context(), self.content["publications"], directory)
        log.info("supplementary files: %d written to %s, %d failed", done.written, directory, done.failed)

    def _report(self) -> None:
        sess = self.sess
        write_report(self.args, self.content["publications"], sess.summary if sess.fetched_publications else None,
                     self.fetcher_args)


def _waiting_for(database: str) -> None:
    log.warning("another fetching run is using database %s: waiting for it to end (what it stores is then not "
                "fetched again; Ctrl-C stops)", database)


def _head(items: list, n: int) -> list:
    return items[:n]


def _tail(items: list, n: int) -> list:
    return items[len(items) - n:] if n < len(items) else items


def _put_all(db: Store, kind: str, entries: list) -> None:
    if not entries:
        return
    failed = (fetcher.put_publications(db, entries) if kind == "publications"
              else webfetch.put_pages(db, kind, entries))
    if failed:
        log.warning("Failed to put %s into database %s", counted(failed, _WHAT[kind]), getattr(db, "path", ""))
    log.info("Put %s", counted(len(entries) - failed, _WHAT[kind]))


def _remove_all(db: Store, kind: str, keys: list, path: str) -> None:
    if not keys:
        return
    missing = (fetcher.remove_publications(db, keys) if kind == "publications"
               else webfetch.remove_pages(db, kind, keys))
    for key in missing:
        log.info("Could not remove %s %s from database %s (not there)", _WHAT[kind], key, path)
    failed = len(missing)
    if failed:
        log.warning("Could not remove %d of %s from database %s (not there)", failed, counted(len(keys), _WHAT[kind]),
                    path)
    log.info("Removed %s from database %s", counted(len(keys) - failed, _WHAT[kind]), path)
