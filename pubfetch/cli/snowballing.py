"""The command line's snowball: ``--citations``, ``--expand-references``, ``--depth`` and ``--max-hits`` read into a
:class:`~pubfetch.snowball.SnowballPlan` for the publications' fetch step, and ``-out --format edges``: the edges the
run's databases hold among the publications got."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO

from pubfetch.cli.errors import UsageError
from pubfetch.cli.parser import ParsedArgs
from pubfetch.ids import PublicationIds
from pubfetch.model import Publication
from pubfetch.model.edges import CitationEdge
from pubfetch.output.common import Format
from pubfetch.output.edges import write_edges
from pubfetch.snowball import DEFAULT_MAX_HITS, SnowballPlan
from pubfetch.store import open_store

__all__ = ["EDGE_DATABASES", "FETCH_STEPS", "check_edges_output", "snowball_plan", "write_run_edges"]

#: the pipeline's steps that fetch publications, which a snowball follows the links of
FETCH_STEPS = ("fetch", "fetch-put", "db-fetch", "db-fetch-end")
#: the options naming a database whose edges ``-out --format edges`` prints
EDGE_DATABASES = ("pub-db", "db", "fetch-put", "db-fetch", "db-fetch-end")
#: output operations that print entries or IDs in the ``--format`` chosen, which edges are not
_NOT_EDGES = ("out-ids", "txt-pub", "txt-web", "txt-doc", "txt-ids-pub", "txt-ids-web", "txt-ids-doc")


def snowball_plan(args: ParsedArgs, rich_parts: bool = True) -> SnowballPlan | None:
    """The snowball the options ask for, or None; refused (before any request) where it could not run
    (``rich_parts``: whether the run reads the reference lists that ``--expand-references`` follows)."""
    if not (args.flag("citations") or args.flag("expand-references")):
        if "depth" in args:
            raise UsageError("--depth is how far --citations or --expand-references go: give one of them")
        return None
    if not any(step in args for step in FETCH_STEPS):
        raise UsageError("--citations and --expand-references follow the links of fetched publications: add a fetch "
                         "step (-db-fetch-end DATABASE, -db-fetch, -fetch-put or -fetch)")
    if args.flag("expand-references") and not rich_parts:
        raise UsageError("--expand-references follows the reference lists, a rich part, which --no-rich-parts "
                         "leaves out: give only one of them")
    if "queue" in args:
        raise UsageError("--citations and --expand-references are not sent to a queue's workers: run the snowball "
                         "without --queue")
    return SnowballPlan(citations=args.flag("citations"), expand_references=args.flag("expand-references"),
                        depth=args.get("depth", 1), max_hits=args.get("max-hits", DEFAULT_MAX_HITS))


def check_edges_output(args: ParsedArgs, fmt: Format) -> None:
    """``--format edges`` is what ``-out`` prints of the publications; refused (before any fetching) where the
    entries or IDs of another option would be printed in it."""
    if fmt is not Format.edges:
        return
    others = [f"-{o}" for o in _NOT_EDGES if o in args or args.flag(o)]
    if others:
        raise UsageError(f"--format edges is printed by -out only, not by {', '.join(others)}: give those another "
                         "--format in a command of their own")


def _databases(args: ParsedArgs) -> list[str]:
    named: list[str] = []
    for option in EDGE_DATABASES:
        value = args.get(option) if option in args else None
        for path in value if isinstance(value, list) else [value] if value else []:
            if path not in named:
                named.append(path)
    return named


def _among(edges: Iterator[CitationEdge], forms: set[str]) -> Iterator[CitationEdge]:
    for edge in edges:
        if forms.intersection(edge.citing.non_empty()) or forms.intersection(edge.cited.non_empty()):
            yield edge


def write_run_edges(out: TextIO, args: ParsedArgs, ids: Iterable[PublicationIds],
                    publications: Sequence[Publication]) -> int:
    """``-out --format edges``: the edges of the command's databases that touch one of the publications, given or
    got (by any ID form; ``-pub-db`` gives every publication of the database, so all its edges), each once."""
    forms = {form for i in ids for form in i.non_empty()} | {f for pub in publications for f in pub.ids.non_empty()}
    seen: set[tuple[str, ...]] = set()

    def edges() -> Iterator[CitationEdge]:
        for path in _databases(args):
            with open_store(path, readonly=True) as db:
                for edge in _among(db.citation_edges(), forms):
                    if edge.row() not in seen:
                        seen.add(edge.row())
                        yield edge

    return write_edges(out, edges())
