"""Dispatching hook events (seed 000, "Hook System"; seed 003, "Hook executor registration").

:class:`HookRunner` holds the configured hooks and the executors that run them. On
:meth:`HookRunner.dispatch` it selects the hooks of that event whose matcher accepts the input's
subject, runs them concurrently (an anyio task group), and combines their results
deterministically (deny > ask > substitute > allow; ties by declaration order). On an enforcing
event (:func:`~robota.core.hooks.events.enforces`) an error counts as a deny named after the
hook; on an advisory event it is logged and reported, never blocking. Every run emits
``hook.started`` and ``hook.completed`` to the runner's sinks and the caller's ``emit``.

Executor registration: ``executors=None`` (omitted) keeps the built-ins (command, http,
callable); a mapping replaces them entirely — extend with ``{**default_executors(), ...}``. A
hook whose type has no executor, or whose fields its executor rejects, is refused at
construction (before the first turn) with :class:`HookConfigurationError`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType

import anyio
import httpx
from robota.core.events import Event, EventSink, OwnerPath, emit_all
from robota.core.hooks.config import HookConfig, HookConfigurationError
from robota.core.hooks.events import HookEventName, HookInput, enforces
from robota.core.hooks.executors.base import HookExecutor
from robota.core.hooks.executors.defaults import default_executors
from robota.core.hooks.outcome import (
    HookAllow,
    HookError,
    HookOutcome,
    HookResult,
    HookRun,
    combine,
)
from robota.core.hooks.telemetry import HookCompleted, HookStarted

__all__ = ["HookRunner"]

_log = logging.getLogger(__name__)


class HookRunner:
    """Runs hooks by event, matcher and posture.

    Args:
        hooks: The configured hooks, in declaration order.
        executors: Executors by hook type. None (omitted) keeps the built-ins
            (:func:`default_executors`); a mapping replaces them entirely.
        http_client: Client for the built-in HTTP executor (only when ``executors`` is None).
        sinks: Observers of ``hook.started`` / ``hook.completed`` events.

    Raises:
        HookConfigurationError: A hook's type has no executor (names the hook and the type),
            or its executor rejects its fields (e.g. a command hook without ``command``).
    """

    def __init__(
        self,
        hooks: Sequence[HookConfig] = (),
        *,
        executors: Mapping[str, HookExecutor] | None = None,
        http_client: httpx.AsyncClient | None = None,
        sinks: Sequence[EventSink] = (),
    ) -> None:
        self._executors: dict[str, HookExecutor] = (
            default_executors(http_client=http_client) if executors is None else dict(executors)
        )
        for hook in hooks:
            executor = self._executors.get(hook.type)
            if executor is None:
                known = ", ".join(sorted(self._executors)) or "none"
                raise HookConfigurationError(
                    f"hook {hook.name!r} has type {hook.type!r} but no executor is registered "
                    f"for that type (registered: {known}); pass one in HookRunner(executors=...)",
                    hook_name=hook.name,
                    hook_type=hook.type,
                )
            problem = executor.check(hook)
            if problem is not None:
                raise HookConfigurationError(
                    f"hook {hook.name!r} ({hook.type}): {problem}",
                    hook_name=hook.name,
                    hook_type=hook.type,
                )
        self._hooks: tuple[HookConfig, ...] = tuple(hooks)
        self._sinks: tuple[EventSink, ...] = tuple(sinks)

    @property
    def hooks(self) -> tuple[HookConfig, ...]:
        """The configured hooks, in declaration order."""
        return self._hooks

    @property
    def executors(self) -> Mapping[str, HookExecutor]:
        """The registered executors by type."""
        return dict(self._executors)

    def has_hooks(self, event_name: HookEventName | str) -> bool:
        """True when at least one hook is configured for ``event_name``."""
        return any(h.event == event_name for h in self._hooks)

    def matching(self, payload: HookInput) -> tuple[HookConfig, ...]:
        """The hooks that run for ``payload``, in declaration order."""
        return tuple(h for h in self._hooks if h.matches(payload))

    async def dispatch(
        self,
        event_name: HookEventName | str,
        payload: HookInput,
        *,
        owner: OwnerPath | None = None,
        emit: Callable[[Event], None] | None = None,
    ) -> HookOutcome:
        """Run every matching hook of ``event_name`` concurrently and combine the results.

        Args:
            event_name: The event (must be ``payload``'s event).
            payload: The typed input (e.g. :class:`SessionStartInput`).
            owner: Owner path for the emitted events.
            emit: An extra event destination (e.g. the run's ``ToolCallRequest.emit``).

        Returns:
            The combined :class:`HookOutcome` (``"allow"`` with no runs when nothing matched).

        Raises:
            ValueError: ``event_name`` is not ``payload``'s event.
        """
        event = HookEventName(event_name)
        if type(payload).event != event:
            raise ValueError(
                f"payload {type(payload).__name__} is for {type(payload).event.value}, "
                f"not {event.value}"
            )
        enforcing = enforces(event)
        hooks = self.matching(payload)
        results: list[HookResult | None] = [None] * len(hooks)
        where = owner if owner is not None else OwnerPath()

        def send(e: Event) -> None:
            emit_all(self._sinks, e)
            if emit is not None:
                try:
                    emit(e)
                except Exception:  # an observer must not stop a run
                    _log.exception("hook event observer failed on %s", e.type)

        async def one(index: int, hook: HookConfig) -> None:
            send(
                HookStarted(
                    owner=where, event_name=event.value, hook_name=hook.name, hook_type=hook.type
                )
            )
            started = time.monotonic()
            result = await self._run_one(hook, payload)
            results[index] = result
            if isinstance(result, HookError):
                _log.warning(
                    "%s hook %r (%s) gave no verdict: %s%s",
                    event.value,
                    hook.name,
                    hook.type,
                    result.reason,
                    " (enforcing: treated as a block)" if enforcing else " (advisory: ignored)",
                )
            send(
                HookCompleted(
                    owner=where,
                    event_name=event.value,
                    hook_name=hook.name,
                    hook_type=hook.type,
                    outcome=result.kind,
                    reason=None if isinstance(result, HookAllow) else result.reason,
                    substituted=isinstance(result, HookAllow) and result.substitute is not None,
                    enforcing=enforcing,
                    duration=time.monotonic() - started,
                )
            )

        async with anyio.create_task_group() as tg:
            for index, hook in enumerate(hooks):
                tg.start_soon(one, index, hook)
        runs = tuple(
            HookRun(hook_name=h.name, hook_type=h.type, result=r)
            for h, r in zip(hooks, results, strict=True)
            if r is not None
        )
        return combine(event.value, runs, enforcing=enforcing)

    async def _run_one(self, hook: HookConfig, payload: HookInput) -> HookResult:
        executor = self._executors[hook.type]
        try:
            return await executor.run(hook, payload)
        except Exception as exc:  # an executor bug is this hook's error, not the run's
            _log.exception("hook executor %r failed", hook.type)
            return HookError(reason=f"executor raised {type(exc).__name__}: {exc}")

    async def aclose(self) -> None:
        """Close every executor (best-effort)."""
        for executor in self._executors.values():
            try:
                await executor.aclose()
            except Exception:
                _log.exception("closing hook executor failed")

    async def __aenter__(self) -> HookRunner:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
