"""Unpaywall: open-access status, journal name, a title, and the open copies of a DOI (one request per DOI).

Unpaywall wants an email with every call and allows 100,000 calls a day, so it is asked last among the resources and
only while title, abstract or full text (or, when only IDs are asked for, the IDs) can still improve.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from urllib.parse import quote

from pubfetch.extract.unpaywall import parse_unpaywall
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.rich import RichName
from pubfetch.resources.base import Context, email_address
from pubfetch.resources.pubrun import SERVICE_GLITCHES, PubRun, RunFlag

log = logging.getLogger(__name__)


def fetch_unpaywall(ctx: Context, runs: Sequence[PubRun]) -> None:
    todo = []
    for run in runs:
        if run.has(RunFlag.OADOI) or not run.pub.doi.content:
            continue
        pub = run.pub
        if ctx.is_final(pub, (PartName.title, PartName.theAbstract, PartName.fulltext), oa=True) and (
            ctx.is_final(pub, (PartName.pmid, PartName.pmcid, PartName.doi), oa=True) or not ctx.id_only()
        ):
            continue
        run.set(RunFlag.OADOI)
        todo.append(run)
    ctx.map(lambda run: _one(ctx, run), todo)


def _one(ctx: Context, run: PubRun) -> None:
    pub = run.pub
    url = ctx.endpoints.unpaywall + quote(pub.doi.content, safe="/")
    email = email_address(ctx.args.oadoi_email)
    given = ctx.args.oadoi_email.strip()
    if not email and given not in ("", "@"):  # "@" is PubFetcher's default, meaning none
        ctx.warn_once("unpaywall-email", f"Unpaywall is asked without an e-mail address and may refuse: "
                      f"'{given}' (--oadoiEmail, PUBFETCH_UNPAYWALL_EMAIL or oadoi_email) is not a valid address "
                      "(NAME@DOMAIN)")
    elif not email:
        ctx.warn_once("unpaywall-email", "Unpaywall is asked without an e-mail address and may refuse: set "
                      "PUBFETCH_UNPAYWALL_EMAIL, --oadoiEmail or oadoi_email")
    result = ctx.client.get(url, params={"email": email} if email else None, publication=True,
                            headers={"Accept": "application/json"})
    if not result.ok:
        # PubFetcher: a timeout or an unexpected failure is worth a retry, an HTTP error (unknown DOI) is not
        # (and an answer lost on the way says nothing about the DOI either)
        if result.transient or result.kind in SERVICE_GLITCHES:
            run.fail_service(result, RunFlag.OADOI)
        return
    try:
        record = parse_unpaywall(result.text or "")
    except ValueError as e:
        log.warning("unreadable Unpaywall answer for %s: %s", pub.doi.content, e)
        run.unreadable()
        return
    if record.oa:
        pub.oa = True
    pub.set_journal_title(record.journal_title)
    if record.license and ctx.rich_parts:
        pub.set_rich(RichName.license, record.license, PartType.oadoi, url)
    for link in record.links:
        type_ = PartType.pdf_oadoi if link.kind == "pdf" else PartType.link_oadoi
        run.links.add(link.url, type_, url, pub, ctx.args)
    if ctx.wants(PartName.title) and record.title:
        # the URL without ?email=: addresses are not recorded in the database or the output
        pub.set_title(record.title, PartType.oadoi, url, ctx.args)
