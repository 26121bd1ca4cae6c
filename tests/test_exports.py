"""The public names are explicit and pinned (as httpx does): adding or removing one is a decision this test records."""

from __future__ import annotations

import importlib

import pytest

import pubfetch

#: The library API of ``import pubfetch``. Change it deliberately: update this set, the README and ARCHITECTURE.md.
PUBLIC = {
    "__version__",
    "fetch",
    "fetch_many",
    "BatchSummary",
    "FetchError",
    "PubfetchWarning",
    "fetch_webpage",
    "fetch_doc",
    "FetchConfig",
    "FetcherArgs",
    "Publication",
    "Webpage",
    "PublicationIds",
    "open_store",
    "init_store",
    "to_dataframe",
    "report",
}

SUBPACKAGES = ["cli", "extract", "metadata", "model", "net", "output", "resources", "store"]


def test_the_package_exports_exactly_the_public_api() -> None:
    assert set(pubfetch.__all__) == PUBLIC
    assert len(pubfetch.__all__) == len(PUBLIC), "a name is listed twice in pubfetch.__all__"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(pubfetch, name) is not None


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'fetch_everything'"):
        pubfetch.fetch_everything  # noqa: B018


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_subpackage_lists_what_it_exports(name: str) -> None:
    module = importlib.import_module(f"pubfetch.{name}")
    exported = module.__all__
    assert len(set(exported)) == len(exported)
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"pubfetch.{name}.__all__ names what the package does not define: {missing}"


def test_star_import_gives_the_public_api() -> None:
    namespace: dict[str, object] = {}
    exec("from pubfetch import *", namespace)  # noqa: S102 - the star import a user would write
    assert set(namespace) - {"__builtins__"} == PUBLIC
