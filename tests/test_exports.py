"""The public boundary, computed rather than pinned (as httpx's ``tests/test_exported_members.py`` does it).

Every package's ``__all__`` must be exactly the public names the package binds, eagerly (imported or defined in its
``__init__``) or lazily (its ``_LAZY`` table of name -> module, resolved on first use), so that nothing is exported
by accident and nothing is listed that is not there. A lazy table must match the ``TYPE_CHECKING`` imports that type
checkers read in its place. Public signatures use public types only.
"""

from __future__ import annotations
import __future__

import ast
import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

import pubfetch

PACKAGE_DIR = Path(pubfetch.__file__).parent
#: Packages of data files, whose surface is their files (the shipped plugin definitions).
DATA_PACKAGES = frozenset({"pubfetch.metadata.plugins"})
#: Underscored names a package may export (as httpx exports ``__version__``).
EXPORTED_DUNDERS = frozenset({"__version__"})
#: A name such as ``_Settings`` (not ``a._b`` nor ``__x``): a private type.
PRIVATE_NAME = re.compile(r"(?<![\w.])_[A-Za-z]\w*")


def package_names() -> list[str]:
    return sorted(".".join(init.relative_to(PACKAGE_DIR.parent).parts[:-1]) for init in PACKAGE_DIR.rglob("__init__.py"))


def lazy_table(module: ModuleType) -> dict[str, str]:
    return dict(getattr(module, "_LAZY", {}))


def surface(module: ModuleType) -> set[str]:
    """The public names a package binds: what its ``__init__`` imports or defines (submodules and ``from __future__``
    features aside), and the names of its lazy table."""
    eager = {name for name, value in vars(module).items()
             if (not name.startswith("_") or name in EXPORTED_DUNDERS)
             and not inspect.ismodule(value) and not isinstance(value, __future__._Feature)}
    return eager | set(lazy_table(module))


def listed_submodules(module: ModuleType) -> set[str]:
    """Names in ``__all__`` that are the package's own submodules (``pubfetch.metadata.fields``)."""
    return {name for name in module.__all__
            if inspect.ismodule(value := getattr(module, name, None)) and value.__name__ == f"{module.__name__}.{name}"}


def type_checking_imports(module: ModuleType) -> dict[str, str]:
    """Name -> module of the imports under ``if TYPE_CHECKING`` (or ``typing.TYPE_CHECKING``) of a package."""
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if test is None or ast.unparse(test) not in ("TYPE_CHECKING", "_typing.TYPE_CHECKING", "typing.TYPE_CHECKING"):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module.startswith("pubfetch"):
                for alias in stmt.names:
                    found[alias.asname or alias.name] = stmt.module
    return found


PACKAGES = [name for name in package_names() if name not in DATA_PACKAGES]


def test_the_packages_are_found() -> None:
    assert {"pubfetch", "pubfetch.net", "pubfetch.metadata", "pubfetch.metadata.tdb"} <= set(PACKAGES)


@pytest.mark.parametrize("name", PACKAGES)
def test_every_package_has_a_real_all(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} declares no public names (__all__ missing or empty)"
    assert len(set(exported)) == len(exported), f"{name}.__all__ lists a name twice"


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_exactly_what_the_package_binds(name: str) -> None:
    module = importlib.import_module(name)
    listed = set(module.__all__) - listed_submodules(module)
    bound = surface(module)
    assert not bound - listed, (f"{name} binds public names its __all__ does not list (export them, or import them "
                                f"under a _private name): {sorted(bound - listed)}")
    assert not listed - bound, f"{name}.__all__ lists names the package does not bind: {sorted(listed - bound)}"


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_resolves(name: str) -> None:
    module = importlib.import_module(name)
    for exported in module.__all__:
        assert getattr(module, exported) is not None, f"{name}.{exported}"


@pytest.mark.parametrize("name", [n for n in PACKAGES if lazy_table(importlib.import_module(n))])
def test_a_lazy_table_matches_what_type_checkers_read(name: str) -> None:
    module = importlib.import_module(name)
    assert type_checking_imports(module) == lazy_table(module)
    for exported, source in lazy_table(module).items():
        assert getattr(importlib.import_module(source), exported) is getattr(module, exported)


def annotations_of(obj: object) -> list[str]:
    """The parameter names and annotations (as written) of a callable, and of a class's public methods."""
    found: list[str] = []

    def add(function: object, where: str) -> None:
        try:
            signature = inspect.signature(function)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return
        for parameter in signature.parameters.values():
            found.append(f"{where}parameter {parameter.name}: {parameter.annotation}")
        found.append(f"{where}return: {signature.return_annotation}")

    add(obj, "")
    if inspect.isclass(obj):
        for method_name, method in vars(obj).items():
            if not method_name.startswith("_") and callable(method):
                add(method, f"{method_name}: ")
    return found


@pytest.mark.parametrize("name", PACKAGES)
def test_public_signatures_use_no_private_types(name: str) -> None:
    module = importlib.import_module(name)
    leaks = [f"{name}.{exported}: {text}" for exported in module.__all__
             for text in annotations_of(getattr(module, exported)) if PRIVATE_NAME.search(text)]
    assert not leaks, "private names in public signatures:\n" + "\n".join(leaks)


def test_the_root_exports_its_version_and_its_lazy_names() -> None:
    assert pubfetch.__all__[0] == "__version__"
    assert set(pubfetch.__all__) == {"__version__", *lazy_table(pubfetch)}


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'fetch_everything'"):
        pubfetch.fetch_everything  # noqa: B018


def test_star_import_gives_the_public_api() -> None:
    namespace: dict[str, object] = {}
    exec("from pubfetch import *", namespace)  # noqa: S102 - the star import a user would write
    assert set(namespace) - {"__builtins__"} == set(pubfetch.__all__)
