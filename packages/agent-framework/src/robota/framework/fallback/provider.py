"""The model fallback chain as a provider decorator (seed 003, "A model fallback chain moves a
request only where another model could serve it, and only before anything was shown").

:class:`FallbackProvider` sits in front of a session's one provider. Each stream call goes to
the current chain entry with ``ModelRequest.model`` rewritten to that entry's model; the
provider-neutral messages, tool calls, tool results and tool schemas are delegated unchanged.

Rules (and where each comes from):

* It moves to the next entry only for a switchable failure (:func:`is_switchable`), and only
  while nothing was shown: once a :class:`~robota.core.provider.TextDelta` or
  :class:`~robota.core.provider.ThinkingDelta` was yielded, the failure is raised as it is
  (seed 003: "never once text has streamed, since text the user saw cannot be withdrawn").
  Tool-call deltas are not "shown": the seed treats tool calls as arriving whole with the reply,
  so this decorator holds an entry's :class:`~robota.core.provider.ToolCallDelta` events back
  until the entry either streams text/thinking or completes, and discards them when the entry
  fails first. A consumer therefore sees tool-call deltas of exactly one model.
* An entry that cannot be built (a factory that raises) is passed over and remembered as
  skipped for the life of the decorator (seed 003: "An entry that cannot be built is passed
  over rather than ending the turn").
* A run stays on the model that accepted it; the next run starts on the primary. A host marks a
  run with :meth:`FallbackProvider.run_scope` (or :meth:`begin_run` / :meth:`end_run`): inside
  it, the first entry that completes a response pins the run, and later rounds start at that
  entry (moving further down the chain only on another switchable failure, never back up).
  Outside a run scope every call starts on the primary. The pin lives in a
  :class:`contextvars.ContextVar`, so concurrent sessions sharing one decorator keep separate
  pins, and in-process subagents started inside a run share it (seed 003: "In-process subagents
  share the decorated provider and so the chain").
* The response names the model that actually answered (``ModelResponse.model`` and the
  message's ``model``; the message's ``provider`` is the answering entry's provider name when
  the entry left it empty), and usage is tallied per model (seed 003: "a turn that ran on more than
  one model is charged to each model for its own calls").
* Compaction moves only to a model whose context window is known to be at least the
  primary's: :meth:`FallbackProvider.for_compaction`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Generator, Mapping, Sequence
from contextvars import ContextVar, Token
from dataclasses import dataclass, field, replace

from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.errors import ConfigurationError, ProviderError
from robota.core.events import EventSink, emit_all
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    Provider,
    ResponseCompleted,
    StreamEvent,
    ToolCallDelta,
)
from robota.core.usage import Usage
from robota.framework.fallback.events import FallbackEntrySkipped, FallbackSwitched
from robota.framework.fallback.switchable import is_switchable

__all__ = ["ChainEntry", "FallbackProvider", "FallbackRun", "ProviderFactory"]

ProviderFactory = Callable[[], Provider]
"""Builds a chain entry's provider on first use; raising marks the entry as skipped."""

ChainEntry = tuple[Provider | ProviderFactory, str]
"""One chain entry: a provider (or a factory building one) and the model id to ask it for."""


@dataclass(kw_only=True, slots=True)
class FallbackRun:
    """The fallback state of one run (see :meth:`FallbackProvider.run_scope`).

    Attributes:
        index: Chain position of the entry that accepted the run, or None before any response.
        models: The model of every response in this run, in order (one per provider call).
    """

    index: int | None = None
    models: list[str] = field(default_factory=list[str])
    _token: Token[FallbackRun | None] | None = None

    @property
    def model(self) -> str | None:
        """The model that accepted the run (the last one that answered), or None."""
        return self.models[-1] if self.models else None


@dataclass(kw_only=True, slots=True)
class _Entry:
    source: Provider | ProviderFactory
    model: str
    provider: Provider | None = None
    error: str | None = None


class FallbackProvider(Provider):
    """A :class:`~robota.core.provider.Provider` that moves a request down a chain of
    ``(provider, model)`` entries on switchable failures (see the module docstring).

    Args:
        chain: Entries in preference order; the first is the primary. Each is a provider (or a
            zero-argument factory building one on first use) and the model id to request.
        sinks: Receive :class:`FallbackSwitched` and :class:`FallbackEntrySkipped` events.
        name: Provider name reported to the agent (default: the primary's name when the primary
            is an instance, else ``"fallback"``).

    Attributes:
        default_model: The primary's model.

    Raises:
        ConfigurationError: the chain is empty.

    Example:
        >>> from robota.core.testing.scripted import ScriptedProvider
        >>> chain = FallbackProvider([(ScriptedProvider(["hi"]), "big"), (ScriptedProvider(), "small")])
        >>> chain.default_model, chain.chain_models
        ('big', ('big', 'small'))
    """

    def __init__(
        self,
        chain: Sequence[ChainEntry],
        *,
        sinks: Sequence[EventSink] = (),
        name: str | None = None,
        _usage: dict[str, Usage] | None = None,
    ) -> None:
        if not chain:
            raise ConfigurationError("a fallback chain needs at least one (provider, model) entry")
        self._entries = [_Entry(source=source, model=model) for source, model in chain]
        first = chain[0][0]
        self.name = name or (first.name if isinstance(first, Provider) else "fallback")
        self.default_model = chain[0][1]
        self.sinks = tuple(sinks)
        self._usage: dict[str, Usage] = {} if _usage is None else _usage
        self._run: ContextVar[FallbackRun | None] = ContextVar(
            f"robota_fallback_run_{id(self)}", default=None
        )

    # --- state ----------------------------------------------------------------------------

    @property
    def chain_models(self) -> tuple[str, ...]:
        """The model of every entry, primary first."""
        return tuple(e.model for e in self._entries)

    @property
    def usage_by_model(self) -> Mapping[str, Usage]:
        """Usage of every completed call, summed per answering model id (entries that share a
        model id share a tally). A copy."""
        return dict(self._usage)

    @property
    def skipped(self) -> Mapping[str, str]:
        """Models whose entry could not be built, with ``ExceptionType: message``."""
        return {e.model: e.error for e in self._entries if e.error is not None}

    @property
    def current_run(self) -> FallbackRun | None:
        """The run scope active in this context, if any."""
        return self._run.get()

    # --- runs -----------------------------------------------------------------------------

    def begin_run(self) -> FallbackRun:
        """Start a run scope in the current context: calls start at the primary until an entry
        accepts the run, then at that entry. Pair with :meth:`end_run` (same context)."""
        run = FallbackRun()
        run._token = self._run.set(run)
        return run

    def end_run(self, run: FallbackRun) -> None:
        """End ``run``'s scope; the next run starts at the primary again.

        Raises:
            ValueError: ``run`` was not started by :meth:`begin_run` or was already ended.
        """
        if run._token is None:
            raise ValueError("this FallbackRun is not active")
        self._run.reset(run._token)
        run._token = None

    @contextlib.contextmanager
    def run_scope(self) -> Generator[FallbackRun]:
        """``with chain.run_scope() as run:`` — :meth:`begin_run` / :meth:`end_run` as a
        context manager."""
        run = self.begin_run()
        try:
            yield run
        finally:
            self.end_run(run)

    # --- the call -------------------------------------------------------------------------

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream ``request`` from the first entry that serves it (see the module docstring).

        Raises:
            ProviderError: a failure that is not switchable, one after text or thinking was
                yielded, or the last entry's failure when the chain is exhausted (with a note
                naming the models tried).
            ConfigurationError: no entry from the starting position could be built.
        """
        run = self._run.get()
        start = run.index if run is not None and run.index is not None else 0
        failed: tuple[str, ProviderError] | None = None
        tried: list[str] = []
        for index in range(start, len(self._entries)):
            entry = self._entries[index]
            provider = self._build(entry)
            if provider is None:
                continue
            if failed is not None:
                self._emit_switch(failed[0], entry.model, failed[1])
            tried.append(entry.model)
            shown = False
            held: list[ToolCallDelta] = []
            events = provider.stream(replace(request, model=entry.model))
            try:
                async for event in events:
                    if isinstance(event, ToolCallDelta) and not shown:
                        held.append(event)
                        continue
                    for delta in held:
                        yield delta
                    held.clear()
                    shown = True
                    if isinstance(event, ResponseCompleted):
                        response = self._accept(
                            event.response, entry.model, provider.name, index, run
                        )
                        yield ResponseCompleted(response=response)
                    else:
                        yield event
                return
            except ProviderError as error:
                if shown or not is_switchable(error):
                    raise
                failed = (entry.model, error)
            finally:
                aclose = getattr(events, "aclose", None)
                if aclose is not None:
                    await aclose()
        if failed is not None:
            failed[1].add_note(f"robota: fallback chain exhausted; tried {', '.join(tried)}")
            raise failed[1]
        raise ConfigurationError(
            "no model of the fallback chain could be built: "
            + "; ".join(f"{m}: {e}" for m, e in self.skipped.items())
        )

    def _build(self, entry: _Entry) -> Provider | None:
        if entry.provider is not None:
            return entry.provider
        if entry.error is not None:
            return None
        if isinstance(entry.source, Provider):
            entry.provider = entry.source
            return entry.provider
        try:
            entry.provider = entry.source()
        except Exception as exc:  # an unbuildable entry is passed over (seed 003)
            entry.error = f"{type(exc).__name__}: {exc}"
            emit_all(self.sinks, FallbackEntrySkipped(model=entry.model, error=entry.error))
            return None
        return entry.provider

    def _accept(
        self,
        response: ModelResponse,
        model: str,
        provider: str,
        index: int,
        run: FallbackRun | None,
    ) -> ModelResponse:
        answered = response.model or response.message.model or model
        message = response.message
        if not message.model or not message.provider:
            # the loop would fill a missing provider with the chain's (the primary's) name
            message = replace(
                message, model=message.model or answered, provider=message.provider or provider
            )
        usage = message.usage or response.usage
        if usage.requests == 0:
            usage = replace(usage, requests=1)
        self._usage[answered] = self._usage.get(answered, Usage()) + usage
        if run is not None:
            run.index = index
            run.models.append(answered)
        return replace(response, model=answered, message=message)

    def _emit_switch(self, from_model: str, to_model: str, error: ProviderError) -> None:
        emit_all(
            self.sinks,
            FallbackSwitched(
                from_model=from_model,
                to_model=to_model,
                error_code=error.error_code,
                status=error.status,
            ),
        )

    # --- compaction -----------------------------------------------------------------------

    def for_compaction(self) -> FallbackProvider:
        """A chain for compaction calls: the primary plus only the entries whose context window
        is known and at least the primary's (seed 003: "compaction moves only to a model whose
        context window is known to be at least the primary's ... an unknown window on either
        side proves nothing"). Shares this chain's per-model usage tally.

        Entries are built to read their ``model_info``; unbuildable ones are left out.
        """
        primary = self._entries[0]
        window = self._window(primary)  # builds the primary first, so it is shared, not rebuilt
        kept: list[ChainEntry] = [(primary.provider or primary.source, primary.model)]
        if window is not None:
            for entry in self._entries[1:]:
                other = self._window(entry)
                if other is not None and other >= window and entry.provider is not None:
                    kept.append((entry.provider, entry.model))
        return FallbackProvider(kept, sinks=self.sinks, name=self.name, _usage=self._usage)

    def _window(self, entry: _Entry) -> int | None:
        provider = self._build(entry)
        if provider is None:
            return None
        info = provider.model_info(entry.model)
        return info.context_window if info is not None else None

    # --- delegation -----------------------------------------------------------------------

    def _provider_for(self, model: str) -> Provider | None:
        for entry in self._entries:
            if entry.model == model:
                provider = self._build(entry)
                if provider is not None:
                    return provider
        return self._build(self._entries[0])

    def model_info(self, model: str) -> ModelInfo | None:
        """Metadata from the first buildable entry serving ``model`` (else the primary)."""
        provider = self._provider_for(model)
        return provider.model_info(model) if provider is not None else None

    def capabilities(self, model: str) -> ModelCapabilities:
        """Capabilities from the first buildable entry serving ``model`` (else the primary)."""
        provider = self._provider_for(model)
        return provider.capabilities(model) if provider is not None else super().capabilities(model)

    def models(self) -> tuple[ModelInfo, ...]:
        """Every model the built entries have metadata for."""
        seen: list[ModelInfo] = []
        for entry in self._entries:
            provider = self._build(entry)
            if provider is not None:
                seen.extend(info for info in provider.models() if info not in seen)
        return tuple(seen)

    async def count_tokens(self, request: ModelRequest) -> int | None:
        """The primary's count for ``request`` (with the primary's model), or None."""
        provider = self._build(self._entries[0])
        if provider is None:
            return None
        return await provider.count_tokens(replace(request, model=self._entries[0].model))

    async def aclose(self) -> None:
        """Close every built entry's provider (each at most once), best-effort."""
        closed: list[Provider] = []
        for entry in self._entries:
            provider = entry.provider
            if provider is None or any(provider is c for c in closed):
                continue
            closed.append(provider)
            with contextlib.suppress(Exception):
                await provider.aclose()
