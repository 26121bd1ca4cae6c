"""One-off operations: database maintenance, ID checks and conversions, HTML escaping, and the page operations that
go to the network. They run before the pipeline, in PubFetcher's order, and print their answers on stdout exactly as
PubFetcher does (``true``/``false``, bare values, ``pmid<TAB>pmcid<TAB>doi``).
"""

from __future__ import annotations

import logging
from typing import Literal, TextIO

from pubfetch import ids as idmod
from pubfetch.cli import fetching
from pubfetch.cli.errors import InputError, UsageError
from pubfetch.cli.fetching import Session
from pubfetch.cli.idsource import check_url
from pubfetch.cli.parser import ParsedArgs
from pubfetch.cli.spec import scrape_selector_key
from pubfetch.ids import InvalidId, PublicationIds
from pubfetch.output import html as h
from pubfetch.output.common import Format
from pubfetch.output.text import ids_text, ids_with_urls_text
from pubfetch.output.writer import EntryWriter
from pubfetch.store import copy_store, init_store, open_store

log = logging.getLogger(__name__)

def doi_registrant_as_given(s: str) -> str:
    """PubFetcher's ``extractDoiRegistrant``: the registrant as written (not upper-cased), empty for an invalid DOI."""
    if not idmod.is_doi(s):
        return ""
    begin = s.find("10.")
    end = s.find("/", begin + 3)
    return s[begin + 3:end] if begin >= 0 and end >= 0 else ""


def _tab(ids: PublicationIds) -> str:
    return ids_text(*ids.ids, tab=True)


def _bool(b: bool) -> str:
    return "true" if b else "false"


# --- database ----------------------------------------------------------------------------------------------------


def _database(args: ParsedArgs, out: TextIO, sess: Session) -> None:
    if "db-init" in args:
        path = args.get("db-init")
        log.info("Init database: %s", path)
        init_store(path).close()
    if "job-status" in args:
        from pubfetch.cli.queued import job_status

        report, sess.job_exit = job_status(args.get("job-status"), args.get("queue"))
        out.write(f"{report}\n")
    if "job-cancel" in args:
        from pubfetch.cli.queued import job_cancel

        out.write(f"{job_cancel(args.get('job-cancel'), args.get('queue'))}\n")
    if "db-copy" in args:
        src, dst = args.get("db-copy")
        log.info("Copy database %s to %s", src, dst)
        out.write(f"copied {copy_store(src, dst)}\n")
    for dest, action in (("db-commit", "commit"), ("db-compact", "compact")):
        if dest in args:
            log.info("%s database: %s", action.capitalize(), args.get(dest))
            with open_store(args.get(dest)) as db:
                getattr(db, action)()
    for dest, size in (("db-publications-size", "publications_size"), ("db-webpages-size", "webpages_size"),
                       ("db-docs-size", "docs_size")):
        if dest in args:
            with open_store(args.get(dest), readonly=True) as db:
                out.write(f"{getattr(db, size)()}\n")
    if "db-import-medline" in args or "db-import-jats" in args:
        from pubfetch.cli.bulkimport import run_bulk_imports

        run_bulk_imports(args, sess)
    if "db-publications-map" in args:
        with open_store(args.get("db-publications-map"), readonly=True) as db:
            out.writelines(f"{any_id} -> {primary}\n" for any_id, primary in db.publications_map())
    if "db-publications-map-reverse" in args:
        with open_store(args.get("db-publications-map-reverse"), readonly=True) as db:
            for primary, ids in db.publications_map_reverse():
                urls = (ids.pmid_url, ids.pmcid_url, ids.doi_url)
                out.write(f"{primary} -> {ids_with_urls_text(*ids.ids, *urls)}\n")


# --- network page operations ---------------------------------------------------------------------------------------


def _pages(args: ParsedArgs, out: TextIO, argv: list[str], sess: Session) -> None:
    for mode in ("fetch-document", "fetch-document-javascript"):
        if mode in args:
            text = fetching.fetch_document(sess, args.get(mode), javascript=mode == "fetch-document-javascript")
            out.write(f"{text}\n")
    if "post-document" in args:
        url, *pairs = args.get("post-document")
        out.write(f"{fetching.post_document(sess, url, pairs)}\n")
    if "fetch-webpage-selector" in args:
        url, title, content, javascript = args.get("fetch-webpage-selector")
        page = fetching.fetch_webpage_selector(sess, url, title, content, javascript)
        with EntryWriter(out, args.get("format", Format.text), args=sess.args, plain=args.flag("plain"),
                         argv=argv, kinds=("webpage",)) as writer:
            writer.write_all([page], "webpage")


def _extract_au(args: ParsedArgs, out: TextIO, sess: Session) -> None:
    """Records of an archival unit from a mirror or WARC (the LOCKSS metadata layer)."""
    if "extract-au" not in args:
        return
    from pubfetch.metadata.record_writer import run_plugin_operation

    plugin, source = args.get("extract-au")
    params: dict[str, str] = {}
    for pair in args.get("au-param") or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"option --au-param: '{pair}' is not KEY=VALUE")
        params[key] = value
    formats: dict[str, Literal["json", "jsonl"]] = {"metadata": "json", "json": "json", "metadata-jsonl": "jsonl",
                                                    "jsonl": "jsonl"}
    fmt = formats.get(str(args.get("format", "metadata")))
    if fmt is None:
        raise UsageError("-extract-au writes --format metadata (or json) or metadata-jsonl (or jsonl)")
    try:
        status = run_plugin_operation(plugin, params or None, args.get("tdb"), args.get("au"), source, out, fmt)
    except BrokenPipeError:
        raise
    except (ValueError, OSError) as e:
        raise UsageError(f"-extract-au: {e}") from None
    if status:
        sess.extraction_failures += 1


def _or_null(value: str | None) -> str:
    """A rule look-up's answer as PubFetcher prints it: ``null`` when there is none."""
    return "null" if value is None else value


def _scrape(args: ParsedArgs, out: TextIO, sess: Session) -> None:
    """PubFetcher's rule look-ups: a URL's site, a site's selector, a webpage's rule, whether to use JavaScript; the
    rules are the session's (``journalsYaml``/``webpagesYaml`` from the command line, the config file or the
    environment)."""
    if not any(d in args for d in ("scrape-site", "scrape-selector", "scrape-webpage", "scrape-javascript")):
        return
    from pubfetch.engine.assembly import scraping_rules
    from pubfetch.rules import RuleError

    fa = sess.args
    try:
        rules = scraping_rules(fa)
    except (RuleError, OSError) as e:
        raise UsageError(str(e)) from None
    if "scrape-site" in args:
        out.write(f"{_or_null(rules.site(args.get('scrape-site')))}\n")
    if "scrape-selector" in args:
        url, key = args.get("scrape-selector")
        rule = rules.journal_rule(url)
        out.write(f"{_or_null(rule.text(scrape_selector_key(key, '-scrape-selector')) if rule else None)}\n")
    if "scrape-webpage" in args:
        page_rule = rules.webpage_rule(args.get("scrape-webpage"))
        if page_rule is None:
            out.write("null\n")
        else:
            for key in ("title", "content", "javascript", "license", "language", "wait_until"):
                value = getattr(page_rule, key, None)
                if value is not None:
                    out.write(f"{key}: {getattr(value, 'text', value)}\n")
    if "scrape-javascript" in args:
        out.write(f"{str(rules.javascript(args.get('scrape-javascript'))).lower()}\n")


# --- IDs and miscellaneous -----------------------------------------------------------------------------------------


def _ids(args: ParsedArgs, out: TextIO) -> None:
    answers = (
        ("is-pmid", lambda s: _bool(idmod.is_pmid(s))),
        ("is-pmcid", lambda s: _bool(idmod.is_pmcid(s))),
        ("extract-pmcid", idmod.extract_pmcid_number),
        ("is-doi", lambda s: _bool(idmod.is_doi(s))),
        ("normalise-doi", lambda s: idmod.normalise_doi(s) if s else ""),
        ("extract-doi-registrant", doi_registrant_as_given),
    )
    for dest, answer in answers:
        if dest in args:
            out.write(answer(args.get(dest)) + "\n")
    if "find-ids" in args:
        found = args.get("find-ids")
        rows = ([PublicationIds(pmid=p) for p in idmod.extract_pmids(found)]
                + [PublicationIds(pmcid=p) for p in idmod.extract_pmcids(found)]
                + [PublicationIds(doi=d) for d in idmod.extract_dois(found)])
        out.writelines(_tab(r) + "\n" for r in rows)
    if "url-ids" in args:
        url = args.get("url-ids")
        found_ids = idmod.ids_from_url(url)
        if found_ids is None:
            raise InputError(f"'{url}' is not a PubMed, PMC, Europe PMC or doi.org link to a publication, nor a "
                             "publisher's page with a DOI in its address")
        out.write(_tab(found_ids) + "\n")


def _misc(args: ParsedArgs, out: TextIO) -> None:
    if "escape-html" in args:
        out.write(h.escape_html(args.get("escape-html")) + "\n")
    if "escape-html-attribute" in args:
        out.write(h.escape_html_attribute(args.get("escape-html-attribute")) + "\n")
    try:
        if "check-publication-id" in args:
            out.write(_tab(idmod.classify(args.get("check-publication-id"))) + "\n")
        if "check-publication-ids" in args:
            out.write(_tab(idmod.check_publication_ids(*args.get("check-publication-ids"))) + "\n")
        if "check-url" in args:
            out.write(check_url(args.get("check-url")) + "\n")
    except InvalidId as e:
        raise InputError(str(e)) from None


def _saved_searches(args: ParsedArgs, out: TextIO) -> None:
    if "search-list" in args:
        from pubfetch.cli.searchstep import list_saved

        for saved in list_saved(args.get("search-list")):
            notes = [note for note, on in (("no preprints", not saved.preprints), ("synonyms", saved.synonyms)) if on]
            out.write(f"{saved.name}\t{saved.source}\t{saved.last_run or 'never'}\t{saved.query}"
                      f"{' (' + ', '.join(notes) + ')' if notes else ''}\n")
    if "search-remove" in args:
        from pubfetch.cli.searchstep import remove_saved

        name, path = args.get("search-remove")
        remove_saved(name, path)
        log.info("Removed saved search %s from database %s", name, path)


def run_oneoff(args: ParsedArgs, out: TextIO, argv: list[str], sess: Session) -> None:
    """Run the one-off operations given, in PubFetcher's order (database, pages, scrape rules, IDs, miscellaneous)."""
    _database(args, out, sess)
    _saved_searches(args, out)
    _pages(args, out, argv, sess)
    _scrape(args, out, sess)
    _extract_au(args, out, sess)
    _ids(args, out)
    _misc(args, out)
