"""Names a module offers without importing their modules up front (PEP 562 module ``__getattr__``).

The package root uses it so that ``import pubfetch`` stays cheap: the fetcher, the store and their dependencies load
when a program first names them, not when a tool only wants the IDs.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(module: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A ``__getattr__`` for ``module`` that imports each name of ``where`` (name -> module defining it) on first use
    and keeps it in ``module``'s namespace; any other name is an AttributeError."""

    def __getattr__(name: str) -> Any:
        source = where.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        setattr(sys.modules[module], name, value)
        return value

    return __getattr__
