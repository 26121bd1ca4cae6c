"""Names offered without importing their modules up front (pubfetch/lazy.py): each is imported on first use and kept,
and an unknown name is the AttributeError Python gives for any missing attribute."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from pubfetch.lazy import lazy_names


def test_a_name_is_imported_on_first_use_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("lazy_demo")
    monkeypatch.setitem(sys.modules, "lazy_demo", module)
    getter = lazy_names("lazy_demo", {"dedent": "textwrap"})
    import textwrap

    assert getter("dedent") is textwrap.dedent
    assert module.dedent is textwrap.dedent  # kept: the next use does not come back here
    with pytest.raises(AttributeError, match="module 'lazy_demo' has no attribute 'indent'"):
        getter("indent")


def test_importing_the_package_loads_neither_the_fetcher_nor_the_store() -> None:
    code = ("import sys, pubfetch; heavy = [m for m in ('pubfetch.fetcher', 'pubfetch.store', 'lxml.etree') "
            "if m in sys.modules]; print(heavy); pubfetch.fetch_many; print('pubfetch.fetcher' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split("\n")[:2] == ["[]", "True"]
