"""One module per resource of the chain: which publications it can still help, how to ask for a batch of them,
which parser reads the answer and which part type its parts get; the order and the loop are in
:mod:`pubfetch.engine.chain`.

Nothing is imported here: :mod:`pubfetch.engine.chain` imports the resource modules it walks.
"""

__all__: list[str] = []
