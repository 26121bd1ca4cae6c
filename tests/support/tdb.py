"""Title databases for the TDB tests: the sample file of tests/data/tdb and one AU parsed from a few lines."""

from __future__ import annotations

from pathlib import Path

from pubfetch.metadata.tdb import TdbAu, parse_tdb

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "tdb" / "sample.tdb"


def one_au(body: str, implicit: str = "implicit < name ; param[base_url] >",
           au: str = "au < An AU ; http://x/ >") -> TdbAu:
    """Parse a publisher/title scope holding ``body`` settings and one au line."""
    tdb = parse_tdb(f"""
{{
  publisher < name = P >
  plugin = org.example.Plugin
  {implicit}
  {{
    title < name = The Title >
    {body}
    {au}
  }}
}}
""")
    assert len(tdb.aus) == 1
    return tdb.aus[0]
