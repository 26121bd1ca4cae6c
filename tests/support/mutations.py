"""Mutated real documents for the parsers' property tests: truncations, byte flips, deletions and insertions.

One strategy for every parser test, so each only says which documents it starts from and what must hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import strategies as st

#: A list of (kind, position, value) edits: 0 truncate at, 1 flip the byte at, 2 delete the byte at, 3 insert a byte.
MUTATIONS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4)


def mutate(data: bytes, cuts: Sequence[tuple[int, int, int]]) -> bytes:
    """Apply edits drawn from :data:`MUTATIONS` (positions wrap around the document's length)."""
    out = bytearray(data)
    for kind, pos, value in cuts:
        if not out:
            break
        pos %= len(out)
        if kind == 0:
            del out[pos:]
        elif kind == 1:
            out[pos] ^= value or 1
        elif kind == 2:
            del out[pos]
        else:
            out.insert(pos, value)
    return bytes(out)


def mutated(documents: Callable[[], Sequence[bytes]]) -> st.SearchStrategy[bytes]:
    """One of the documents (read when first drawn), mutated."""
    return st.builds(lambda index, cuts: _pick(documents(), index, cuts), st.integers(0, 10**6), MUTATIONS)


def _pick(docs: Sequence[bytes], index: int, cuts: Sequence[tuple[int, int, int]]) -> bytes:
    return mutate(docs[index % len(docs)], cuts)
