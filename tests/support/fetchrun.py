"""The product's fetch run (:class:`pubfetch.engine.assembly.FetchRun`) for the tests, in one line.

``fetch_run(4)`` is what Scrapy's ``get_crawler`` is to a spider: the production run, assembled as the command line and
the library assemble theirs (the client's every layer and its answer memory, the rules, the workers), over the
synthetic services of 4 publications answering in this process (``synthetic.in_process``), with the settings a test of
the chain wants and the ways in (a whole fetch, a context for calling one resource, a publication's state). No
socket is opened and nothing waits for a server, so these tests are fast and their requests are exactly the ones the
chain made. A test whose services listen on a socket (loopback servers, the corpus's replay proxy) gets the run's
context with :func:`run_context`. The transport and network layers keep their loopback servers
(tests/support/loopback.py): what they test is what happens on a socket.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pubfetch.config import FetchConfig
from pubfetch.engine.assembly import FetchRun
from pubfetch.fetcher import BatchSummary, fetch_many, init_publication
from pubfetch.ids import classify
from pubfetch.model.publication import Publication
from pubfetch.net.mapping_transport import Answer, MappingTransport
from pubfetch.net.transport import Transport
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubState
from pubfetch.rules import ScrapingRules
from support.synthetic import SCHOLARLY_OFF, SyntheticServices, in_process


def chain_config(services: SyntheticServices, **changes: Any) -> FetchConfig:
    """Settings for a test of the chain against ``services``: private addresses allowed, no JavaScript, 4 threads,
    no second try of a busy service within one request, the scholarly APIs off (no synthetic service), no waiting for
    the real services' rate limits, and a batched service's request sent when every publication of the batch waits,
    never after a linger (so what a batch asks does not depend on the machine's speed)."""
    values: dict[str, Any] = {"endpoints": services.endpoints(), "allow_private_addresses": True,
                              "javascript": False, "threads": 4, "linger_ms": 600_000, "rate_limits": False,
                              "busy_retries": 0, "timeout": 5000, **SCHOLARLY_OFF}
    values.update(changes)
    return FetchConfig().with_changes(**values)


@contextmanager
def run_context(config: FetchConfig, *, transport: Transport | None = None,
                rules: ScrapingRules | None = None) -> Iterator[Context]:
    """The context of the product's run of ``config`` (closed after), for a test calling the chain or one resource
    against services it serves itself: the real services' rate limits are not waited for (``rate_limits=False``).
    ``transport``: the network under the client (default: the sockets); ``rules``: instead of the configuration's."""
    with FetchRun(config.with_changes(rate_limits=False), transport=transport, rules=rules) as run:
        yield run.context


@dataclass
class InProcessRun:
    """The pieces of one in-process fetch run, each of which may be changed before the run is assembled
    (:meth:`run`)."""

    #: the services answering (their ``counts``, ``ids_asked`` and ``failing`` are the tests' handles)
    services: SyntheticServices
    #: the transport under the client: ``answers`` maps URL prefixes to answers, ``sent`` keeps every request
    transport: MappingTransport
    config: FetchConfig

    def run(self, *, rules: ScrapingRules | None = None) -> FetchRun:
        """The product's run of :attr:`config` over :attr:`transport` (``rules``: instead of the configuration's);
        the caller closes it."""
        return FetchRun(self.config, transport=self.transport, rules=rules)

    @contextmanager
    def context(self, *, rules: ScrapingRules | None = None) -> Iterator[Context]:
        """The run's context, for calling the chain or one resource directly; closed with the run after."""
        with self.run(rules=rules) as run:
            yield run.context

    def fetch(self, ids: Iterable[str], *, db: object = None, summary: BatchSummary | None = None,
              **options: Any) -> list[Publication]:
        """``fetch_many`` of ``ids`` through the run (``options``: keyword options of ``fetch_many``)."""
        with self.context() as ctx:
            return list(fetch_many(ids, db=db, config=self.config, context=ctx, summary=summary, **options))

    def pub_state(self, publication_id: str) -> PubState:
        """A publication's state as the chain starts it: the ID (PMID, PMCID or DOI) as an external part."""
        return PubState(init_publication(classify(publication_id), self.config.fetching))


def fetch_run(services: SyntheticServices | int = 3, *, answers: Mapping[str, Answer] | None = None,
              **changes: Any) -> InProcessRun:
    """The pieces of the product's run over the in-process transport: ``fetch_run(4).fetch(ids)``.

    ``services``: the synthetic services, or how many publications they have (they are never started: their handler
    answers in this process). ``answers``: more URLs (or ``prefix*``) the transport answers, e.g. publisher pages.
    ``changes``: :class:`FetchConfig` settings over :func:`chain_config`'s.
    """
    if isinstance(services, int):
        services = SyntheticServices(services)
    transport = in_process(services)
    transport.answers.update(answers or {})
    return InProcessRun(services, transport, chain_config(services, **changes))
