"""The session's side of the model fallback chain (seed 003, "A model fallback chain moves a
request only where another model could serve it ... The chain belongs to the session";
issue #15).

When the session's provider is (or wraps, through ``inner``) a
:class:`~robota.framework.fallback.FallbackProvider`:

* **One run scope per turn** (:func:`turn_scope`): every round of a turn after a fallback stays
  on the model that answered (moving further down only on another switchable failure), and the
  next turn — in this session or in a resumed one — starts on the primary again ("A run stays
  on the model that accepted it and the next run starts on the primary"). The title and
  compaction calls after a turn are outside it.
* **The chain's rule wins over the agent's retries** (:func:`agent_retry`): the session builds
  its agent with ``retry=None``, so a switchable failure moves to the next model at once rather
  than being retried on the failing one, and an exhausted chain fails the turn (its error notes
  the models tried) rather than having the whole chain replayed with backoff. A host that wants
  an entry retried before the chain moves on wraps that entry in
  :class:`~robota.core.retry.RetryingProvider` itself. Without a chain the agent's default
  retries apply.
* **Compaction uses the chain's compaction rule** (:func:`compact_with_chain`): the summary
  request goes through :meth:`~robota.framework.fallback.FallbackProvider.for_compaction` (the
  primary, then only entries whose context window is known to be at least the primary's), is
  sized for the primary's window, and the model that answered it is reported so its usage is
  charged to it.
* **The session's context window is the primary's** (:func:`session_window`): the next turn
  starts there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Sequence
from pathlib import Path

from robota.core.agent.retries import DEFAULT_RETRY_POLICY
from robota.core.messages import Message
from robota.core.provider import Provider
from robota.core.retry import RetryPolicy
from robota.framework.fallback import FallbackProvider, FallbackRun
from robota.session.compaction import CompactionRecord, compact

__all__ = ["agent_retry", "chain_of", "compact_with_chain", "session_window", "turn_scope"]

_MAX_WRAPPERS = 32


def chain_of(provider: Provider) -> FallbackProvider | None:
    """The fallback chain ``provider`` is or wraps (through a chain of ``inner`` attributes,
    the convention of Robota's provider decorators), or None."""
    current: object = provider
    for _ in range(_MAX_WRAPPERS):
        if isinstance(current, FallbackProvider):
            return current
        current = getattr(current, "inner", None)
        if not isinstance(current, Provider):
            return None
    return None


def agent_retry(provider: Provider) -> RetryPolicy | None:
    """The ``retry`` the session's agent gets: None with a fallback chain (the chain's rule
    wins; see the module docstring), else the agent's default policy."""
    return None if chain_of(provider) is not None else DEFAULT_RETRY_POLICY


@contextlib.contextmanager
def turn_scope(provider: Provider) -> Generator[FallbackRun | None]:
    """Open the chain's run scope for one turn (nothing without a chain).

    The scope lives in a context variable of the current task; the agent's stream task, tool
    calls and in-process subagents started inside it share the run.
    """
    chain = chain_of(provider)
    if chain is None:
        yield None
        return
    run = chain.begin_run()
    try:
        yield run
    finally:
        # a turn whose stream was closed from another context cannot reset the variable
        # there; the next turn opens a new scope anyway
        with contextlib.suppress(ValueError):
            chain.end_run(run)


def session_window(provider: Provider, model: str) -> int | None:
    """The context window (tokens) a turn of the session is sized for: the chain primary's
    with a fallback chain, else ``model``'s; None when unknown."""
    chain = chain_of(provider)
    if chain is not None:
        provider, model = chain, chain.chain_models[0]
    info = provider.model_info(model)
    return info.context_window if info is not None else None


async def compact_with_chain(
    provider: Provider,
    model: str,
    messages: Sequence[Message],
    *,
    reason: str,
    keep_last_turns: int,
    workspace: Path | None,
    on_recover: Callable[[int], None] | None,
) -> tuple[CompactionRecord, str]:
    """:func:`robota.session.compaction.compact` on the session's provider, by the chain's
    compaction rule when there is a chain (see the module docstring).

    Returns:
        The compaction record and the model that answered the summary request (``model``
        without a chain).

    Raises:
        Whatever :func:`~robota.session.compaction.compact` raises (an exhausted compaction
        chain raises the last entry's provider error).
    """
    chain = chain_of(provider)
    if chain is None:
        record = await compact(
            provider,
            model,
            messages,
            reason=reason,
            keep_last_turns=keep_last_turns,
            workspace=workspace,
            on_recover=on_recover,
        )
        return record, model
    primary = chain.chain_models[0]
    compaction = chain.for_compaction()
    with compaction.run_scope() as run:
        record = await compact(
            compaction,
            primary,
            messages,
            reason=reason,
            keep_last_turns=keep_last_turns,
            workspace=workspace,
            context_window=session_window(chain, primary),
            on_recover=on_recover,
        )
    return record, run.model or primary
