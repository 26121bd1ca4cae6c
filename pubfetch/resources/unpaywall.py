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
from pubfetch.net.outcome import OutcomeKind
from pubfetch.resources.base import Context, email_address
from pubfetch.resources.pubstate import PubFlag, PubState, entry_policy, mark_unreadable

log = logging.getLogger(__name__)

#: What Unpaywall's 404 (or 410) means: it does not know the DOI (many DOIs are not Crossref's)
UNKNOWN = "Unpaywall does not know this DOI: no open-access copy from Unpaywall"


def fetch_unpaywall(ctx: Context, states: Sequence[PubState]) -> None:
    todo = []
    for state in states:
        if state.has(PubFlag.OADOI) or not state.pub.doi.content:
            continue
        pub = state.pub
        if ctx.is_final(pub, (PartName.title, PartName.theAbstract, PartName.fulltext), oa=True) and (
            ctx.is_final(pub, (PartName.pmid, PartName.pmcid, PartName.doi), oa=True) or not ctx.id_only()
        ):
            continue
        state.set(PubFlag.OADOI)
        todo.append(state)
    ctx.map(lambda state: _one(ctx, state), todo)


def _one(ctx: Context, state: PubState) -> None:
    pub = state.pub
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
    # PubFetcher: a timeout or an unexpected failure is worth a retry, an HTTP error (unknown DOI) is not (and an
    # answer lost on the way says nothing about the DOI either); a 404 is Unpaywall's "no such DOI", not a failure
    policy = entry_policy(ctx.args, [state], publication=False, service=True, answers={OutcomeKind.NOT_FOUND: UNKNOWN})
    result = ctx.client.get(url, params={"email": email} if email else None, publication=True,
                            headers={"Accept": "application/json"}, entry=policy)
    if not result.ok:
        state.fail(result, PubFlag.OADOI)
        return
    try:
        record = parse_unpaywall(result.text or "")
    except ValueError as e:
        log.warning("unreadable Unpaywall answer for %s: %s%s", pub.doi.content, e, mark_unreadable(ctx.args, [state]))
        return
    if record.oa:
        pub.oa = True
    pub.set_journal_title(record.journal_title)
    if record.license and ctx.rich_parts:
        pub.set_rich(RichName.license, record.license, PartType.oadoi, url)
    for link in record.links:
        type_ = PartType.pdf_oadoi if link.kind == "pdf" else PartType.link_oadoi
        state.links.add(link.url, type_, url, pub, ctx.args)
    if ctx.wants(PartName.title) and record.title:
        # the URL without ?email=: addresses are not recorded in the database or the output
        pub.set_title(record.title, PartType.oadoi, url, ctx.args)
