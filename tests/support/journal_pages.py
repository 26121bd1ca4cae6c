"""The hand-made journal pages of tests/data/pages/journals, scraped by the built-in rule their URL leads to: one
helper for the rule tests of the current publisher layouts and of the older layout generations."""

from __future__ import annotations

from pathlib import Path

from pubfetch.engine.assembly import builtin_rules
from pubfetch.extract.scrape import scrape_journal
from pubfetch.model.record import ArticleRecord

PAGES = Path(__file__).resolve().parent.parent / "data" / "pages" / "journals"
RULES = builtin_rules()


def scrape(name: str, url: str, rule_name: str) -> ArticleRecord:
    """The page ``name`` scraped as if fetched from ``url``, whose built-in rule must be ``rule_name``."""
    rule = RULES.journal_rule(url)
    assert rule is not None and rule.site == rule_name, url
    return scrape_journal((PAGES / name).read_bytes(), url, rule)
