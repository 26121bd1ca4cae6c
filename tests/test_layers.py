"""The import contract of ../shared/DESIGN.md: each layer imports only the layers listed before it.

Every import counts, also those inside functions (lazy imports) and under ``TYPE_CHECKING``: a lazy upward import is
still a dependency that makes the lower layer impossible to understand, test or reuse without the upper one.
Modules of one layer may import each other. A new top-level module or package must be placed in ``LAYERS`` (the test
says so), which is the point: its place in the order is a design decision.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pubfetch"

#: Bottom to top, as in DESIGN.md. The settings (``config``, PubFetcher's fetching parameters among them, which
#: ``fetcher_args`` names as the code imports them) sit below the model, which is judged by their thresholds; the
#: LOCKSS parameter machinery lives in ``metadata``.
#: ``_version`` (the version string), ``textutil`` (string helpers of the model), ``yamlsafe`` (YAML without aliases,
#: for config and rule files), ``pasted`` (IDs as pasted, made bare for ``ids``), ``console`` (the library's log
#: lines in a program without logging, and their words), ``logforward`` (worker processes' log records handled by
#: the parent's logging) and ``interrupts`` (whether Ctrl-C came) and ``outfiles`` (an output file written whole, through links, in place on devices) sit with ``ids`` at
#: the bottom; ``tables`` (publications as a data frame) belongs to the
#: output; ``pubfetch`` is the package's lazy public facade, which no module of the package imports; ``ruletest``
#: (checking the rules' test entries on pages) applies rules with the extractors, and fetches nothing.
LAYERS: tuple[frozenset[str], ...] = tuple(frozenset(names.split()) for names in (
    "_version ids pasted console logforward textutil yamlsafe lazy perthread interrupts part_names outfiles",
    "config fetcher_args",
    "model",
    "rules",
    "extract",
    "ruletest",
    "net",
    "store",
    "resources",
    "engine",
    "snowball",
    "searching",
    "bulk",
    "distributed",
    "fetcher",
    "webfetch",
    "metadata",
    "output tables",
    "pubfetch",
    "cli __main__",
))

def layer_of(component: str) -> int:
    for i, names in enumerate(LAYERS):
        if component in names:
            return i
    raise KeyError(component)


def component_of(path: Path) -> str:
    """``pubfetch/net/client.py`` -> ``net``; ``pubfetch/ids.py`` -> ``ids``; ``pubfetch/__init__.py`` -> ``pubfetch``."""
    rel = path.relative_to(PACKAGE)
    if rel.parts == ("__init__.py",):
        return "pubfetch"
    return rel.parts[0].removesuffix(".py")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def is_module(dotted: str) -> bool:
    rel = Path(*dotted.split(".")[1:]) if "." in dotted else Path()
    return (PACKAGE / rel).with_suffix(".py").is_file() or (PACKAGE / rel / "__init__.py").is_file()


def imported(tree: ast.AST, here: str) -> list[tuple[int, str, str]]:
    """(line, imported module, component) for every pubfetch import in a module, relative ones resolved."""
    found: list[tuple[int, str, str]] = []

    def add(line: int, dotted: str, name: str | None = None) -> None:
        if dotted != "pubfetch" and not dotted.startswith("pubfetch."):
            return
        if name is not None and is_module(f"{dotted}.{name}"):
            dotted = f"{dotted}.{name}"
        parts = dotted.split(".")
        component = "pubfetch" if len(parts) == 1 else parts[1]
        found.append((line, dotted if name is None else f"{dotted} ({name})", component))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = here.split(".")[: len(here.split(".")) - node.level]
                base = ".".join([*package, *([base] if base else [])])
            for alias in node.names:
                add(node.lineno, base, alias.name)
    return found


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once for the tests of this file (which only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_every_module_has_a_layer() -> None:
    unplaced = sorted({component_of(p) for p in sources()} - set().union(*LAYERS))
    assert not unplaced, f"place these in LAYERS of {Path(__file__).name} (and in DESIGN/ARCHITECTURE): {unplaced}"


def test_no_upward_imports() -> None:
    upward = []
    for path in sources():
        here = component_of(path)
        level = layer_of(here)
        tree = parsed(path)
        for line, target, component in imported(tree, module_name(path)):
            if component != here and layer_of(component) > level:
                upward.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {here} imports {target} ({component})")
    assert not upward, "imports against the layer order of DESIGN.md:\n" + "\n".join(upward)


@pytest.mark.parametrize("source, expected", [
    ("from pubfetch.net.client import HttpClient", "net"),
    ("from pubfetch import ids as idmod", "ids"),
    ("from pubfetch.cli import fetching", "cli"),
    ("def f():\n    from pubfetch.store import open_store", "store"),
    ("from . import client", "net"),
    ("from ..config import FetchConfig", "config"),
    ("from pubfetch import fetch", "pubfetch"),
    ("import pubfetch", "pubfetch"),
    ("from pubfetch import __version__", "pubfetch"),
    ("from pubfetch._version import __version__", "_version"),
])
def test_imports_are_resolved_to_their_layer(source: str, expected: str) -> None:
    """The checker itself: absolute, relative, lazy and root imports all land on the right component."""
    [(_, _, component)] = imported(ast.parse(source), "pubfetch.net.browser")
    assert component == expected


def test_an_upward_import_is_caught() -> None:
    tree = ast.parse("from pubfetch.fetcher import fetch_many")
    [(_, _, component)] = imported(tree, "pubfetch.model.publication")
    assert layer_of(component) > layer_of("model")


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (every import, as for the layers)."""
    graph: dict[str, set[str]] = {}
    for path in sources():
        here = module_name(path)
        tree = parsed(path)
        graph[here] = {target.split(" ")[0] for _, target, _ in imported(tree, here)} - {here}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted: every import circle is in one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles() -> None:
    """Modules within a layer may import each other, but never in a circle: a module on a circle cannot be read, tested
    or reused without the others, and lazy imports that break one at run time still leave it in the design."""
    found = circles(import_graph())
    assert not found, "modules importing each other in a circle:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_a_circle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


#: Store methods that change entries, and the one module allowed to call each (store/ implements them).
WRITERS = {
    "put_publication": ("engine", "fetcher"),
    "remove_publication": ("fetcher",),
    "put_page": ("webfetch",),
    "put_edges": ("snowball",),
    "remove_page": ("webfetch",),
}


def test_one_writer_per_kind_of_entry() -> None:
    """The engine (fetched publications, as they complete) and fetcher.py (put and remove as they are) are the only
    modules that write publications to a database, webfetch.py the only one for pages."""
    strays = []
    for path in sources():
        here = component_of(path)
        if here == "store":
            continue
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Attribute) and node.attr in WRITERS and here not in WRITERS[node.attr]:
                strays.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.attr} (only in "
                              f"{WRITERS[node.attr]}.py)")
    assert not strays, "entries written outside their writer module:\n" + "\n".join(strays)


def test_only_the_configuration_module_reads_the_environment() -> None:
    """Settings come from one place: ``config/environment.py`` reads the environment; everything else gets a
    configuration (a worker's task included: its settings travel in the message and in the app, never through the
    environment); the proxy variables too (config/proxies.py reads what environment.py hands it)."""
    strays = []
    for path in sources():
        if path.relative_to(PACKAGE).as_posix() == "config/environment.py":
            continue
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv", "environb"):
                strays.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: os.{node.attr}")
            elif (isinstance(node, ast.Attribute) and node.attr in ("getproxies", "proxy_bypass")
                  and not path.relative_to(PACKAGE).as_posix().startswith("config/")):
                strays.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: urllib.request.{node.attr}")
    assert not strays, "the environment used outside config/environment.py:\n" + "\n".join(strays)
