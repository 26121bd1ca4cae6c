"""The LOCKSS built-in plugin parameter descriptors (``base_url``, ``year``, ``volume``, ``pub_down``, ...).

They describe the values every plugin may use without declaring them (spec lockss.md section 7 and the seed page on
plugin configuration parameters); plugins (:mod:`pubfetch.metadata.plugin`) and AU configurations
(:mod:`pubfetch.metadata.au`) resolve their parameters against them. The types and parsing rules are the shared ones
of :mod:`pubfetch.metadata.params`.
"""

from __future__ import annotations

from pubfetch.metadata.params import ParamDescr, ParamType

__all__ = ["BUILTIN_DESCRIPTORS"]


def _builtin(key: str, type: ParamType, display_name: str, description: str, size: int, *, definitional: bool = True,
             default_only: bool = False) -> ParamDescr:
    return ParamDescr(key, type, display_name, description, size, definitional=definitional, default_only=default_only)


_T = ParamType
BUILTIN_DESCRIPTORS: dict[str, ParamDescr] = {
    d.key: d
    for d in (
        # Definitional: together they are the identity of an AU.
        _builtin("base_url", _T.URL, "Base URL", "Usually of the form http://<journal-name>.com/", 40),
        _builtin("base_url2", _T.URL, "Second Base URL", "Use if AU spans two hosts", 40),
        _builtin("year", _T.YEAR, "Year", "Four digit year (e.g., 2004)", 4),
        _builtin("volume", _T.POS_INT, "Volume No.", "Numeric volume number, e.g. 7", 8),
        _builtin("volume_name", _T.STRING, "Volume Name", "Volume name, e.g. 23A", 20),
        _builtin("issue_range", _T.RANGE, "Issue Range", "A Range of issues in the form: aaa-zzz", 20),
        _builtin("num_issue_range", _T.NUM_RANGE, "Numeric Issue Range", "A Range of issues in the form: min-max", 20),
        _builtin("issue_set", _T.SET, "Issue Set", "A comma delimited list of issues. (eg issue1, issue2)", 20),
        _builtin("journal_dir", _T.STRING, "Journal Directory",
                 "Directory name for journal content (i.e. 'american_imago').", 40),
        _builtin("journal_abbr", _T.STRING, "Journal Abbreviation",
                 "Abbreviation for journal (often used as part of file names).", 10),
        _builtin("journal_id", _T.STRING, "Journal Identifier",
                 "Identifier for journal (often used as part of file names).", 40),
        _builtin("journal_issn", _T.STRING, "Journal ISSN", "International Standard Serial Number.", 20),
        _builtin("publisher_name", _T.STRING, "Publisher Name", "Publisher Name for Archival Unit", 40),
        _builtin("oai_request_url", _T.URL, "OAI Request URL", "Usually of the form http://<journal-name>.com/", 40),
        _builtin("oai_spec", _T.STRING, "OAI Spec", "Spec for journal in the OAI crawl", 40),
        # Non-definitional: needed by rules and the AU lifecycle, but changing them does not make another AU.
        _builtin("user_pass", _T.USER_PASSWD, "Username:Password",
                 "Colon-separated username and password string, e.g. myuser:mypass", 30, definitional=False),
        _builtin("pub_down", _T.BOOLEAN, "Pub Down", "If true, AU is no longer available from the publisher", 4,
                 definitional=False, default_only=True),
        _builtin("pub_never", _T.BOOLEAN, "Pub Never", "If true, don't try to access any content from publisher", 4,
                 definitional=False, default_only=True),
        _builtin("au_closed", _T.BOOLEAN, "AU Closed", "If true, AU is complete, no more content will be added", 4,
                 definitional=False, default_only=True),
        _builtin("crawl_proxy", _T.STRING, "Crawl Proxy",
                 "If set to host:port, crawls of this AU will be proxied. "
                 "If set to DIRECT, crawls will not be proxied, "
                 "even if the LOCKSS node has been configured with a default crawl proxy.", 40,
                 definitional=False, default_only=True),
        _builtin("nc_interval", _T.TIME_INTERVAL, "Crawl Interval",
                 "The interval at which the AU should crawl the publisher site.", 10,
                 definitional=False, default_only=True),
        _builtin("crawl_test_substance_threshold", _T.STRING, "Crawl Test Substance Threshold",
                 "Minimum number of substance URLs necessary for successful abbreviated crawl test.", 20,
                 definitional=False, default_only=True),
    )
}
"""The LOCKSS built-in parameter descriptors, in their canonical forms from the seed page, keyed by key."""
