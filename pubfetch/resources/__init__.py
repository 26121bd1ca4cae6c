"""One module per resource of the chain: which publications it can still help, how to ask for a batch of them,
which parser reads the answer and which part type its parts get; the order and the loop are in
:mod:`pubfetch.engine.chain`.

What every resource shares is exported: the run's :class:`Context` and one publication's state in the fetch
(:class:`PubState`, :class:`PubFlag`). The names are imported on first use: :mod:`pubfetch.engine.chain` imports the
resource modules it walks.
"""

import typing as _typing

from pubfetch.lazy import lazy_names as _lazy_names

_LAZY = {
    "Context": "pubfetch.resources.base",
    "PubState": "pubfetch.resources.pubstate",
    "PubFlag": "pubfetch.resources.pubstate",
}

__all__ = [*_LAZY]  # noqa: PLE0604 - the lazy table is the one list of public names

if _typing.TYPE_CHECKING:  # pragma: no cover - what type checkers read instead (``as``: re-exported)
    from pubfetch.resources.base import Context as Context
    from pubfetch.resources.pubstate import PubFlag as PubFlag
    from pubfetch.resources.pubstate import PubState as PubState


def __getattr__(name: str) -> object:
    return _lazy(name)


_lazy = _lazy_names(__name__, _LAZY)
