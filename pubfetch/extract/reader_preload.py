"""Imported by the page and PDF workers' fork server before it forks the first of them (:data:`PRELOAD` of
:mod:`pubfetch.extract.reader_workers`): what each worker would build again for its first page is built here once.

A worker is a fork of the server and starts with the server's memory, so what the server holds costs a worker nothing:
the built-in rule files parsed (a worker's :meth:`~pubfetch.rules.ScrapingRules.from_sources` finds them parsed, see
``pubfetch/rules/ruleset.py``), and what reading a first page compiles on the way, soupsieve's own patterns, the block
page markers' and the platforms' fingerprint selectors, the readers' regular expressions. Without it a worker spent
about 0.4 CPU-seconds on its first page, small or not, and a run starts a worker for each page worker slot it uses.
"""

from __future__ import annotations

from pubfetch.extract.page_read import read_page
from pubfetch.extract.webpage_read import read_webpage
from pubfetch.rules import RuleError, ScrapingRules

#: A page that goes through every step of a first reading: not a block page, no rule by its URL, so every platform's
#: fingerprint is looked for, then the generic reader and the webpage cleaner.
_PAGE = ("<html><head><title>A study of warming up | Example</title><meta name=\"citation_title\" content=\"A study "
         "of warming up\"></head><body><nav><a href=\"/\">Home</a></nav><article><h1>A study of warming up</h1>"
         "<section><h2>Abstract</h2><p>" + "Words of an abstract that says what the study found. " * 20 +
         "</p></section><section><h2>Introduction</h2><p>" + "The body of the article, in sentences. " * 40 +
         "</p></section></article></body></html>")


def _warm() -> None:
    try:
        rules = ScrapingRules.load()
    except RuleError:
        return  # the run that starts the workers loads the same files and says what is wrong with them
    read_page(_PAGE, "https://warm-up.invalid/article/1", rules, meta=True)
    read_webpage(_PAGE, "https://warm-up.invalid/tool", rules)


_warm()
