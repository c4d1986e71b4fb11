"""The run entry points of :class:`~robota.core.agent.agent.Agent`: :meth:`~RunEntryPoints.run`,
:meth:`~RunEntryPoints.stream` and :meth:`~RunEntryPoints.run_sync`, typed by the agent's output
type or a run's own (``Agent.run_until_pause`` is typed the same way).

:class:`RunEntryPoints` is a base of the agent; it holds no state of its own (the agent sets the
attributes declared here). Each entry point types its result from ``output_type=``: omitted, the
agent's ``OutputT``; a type or an output function, that run's type; a raw JSON Schema dict,
``Any``.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, overload

import anyio
from robota.core.agent._typing import (
    DepsT,
    HostedToolLike,
    OutputT,
    OutputTypeSpec,
    RunOutputT,
)
from robota.core.agent.result import RunResult
from robota.core.cancellation import CancelToken
from robota.core.messages import UserMessage

if TYPE_CHECKING:  # pausing and streaming load their machinery when used
    from robota.core.agent.pause import RunPaused
    from robota.core.agent.stream import AgentStream
    from robota.core.events import Event
    from robota.core.settings import ModelSettings

__all__ = ["Prompt", "RunEntryPoints"]

Prompt = str | UserMessage
"""A run's prompt: text or a :class:`~robota.core.messages.UserMessage`."""


class RunEntryPoints(Generic[DepsT, OutputT]):
    """Run, stream and pause entry points (see the module docstring)."""

    if TYPE_CHECKING:

        async def _run(
            self,
            prompt: Prompt,
            output_type: Any,
            settings: ModelSettings | None,
            max_rounds: int | None,
            deps: Any,
            cancel: CancelToken,
            send: Any,
            run_id: str | None = None,
            pausable: bool = False,
            accept_truncated: bool | None = None,
            hosted_tools: Iterable[HostedToolLike] | None = None,
        ) -> RunResult[Any] | RunPaused: ...

    @overload
    async def run(
        self,
        prompt: Prompt,
        *,
        output_type: None = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[OutputT]: ...

    @overload
    async def run(
        self,
        prompt: Prompt,
        *,
        output_type: Mapping[str, Any],
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[Any]: ...

    @overload
    async def run(
        self,
        prompt: Prompt,
        *,
        output_type: OutputTypeSpec[RunOutputT],
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[RunOutputT]: ...

    async def run(
        self,
        prompt: Prompt,
        *,
        output_type: Any = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[Any]:
        """Run ``prompt`` to its end and return the :class:`RunResult`.

        Waits for earlier runs on this agent (FIFO). Cancelling ``cancel`` while the run is in
        flight resolves it as ``interrupted``.

        Args:
            prompt: Text or a :class:`~robota.core.messages.UserMessage`.
            output_type: This run's output type (overrides the agent's; see
                :data:`~robota.core.agent._typing.OutputTypeSpec`). The result is then
                ``RunResult[T]``; omitted, ``RunResult[OutputT]``. The agent's
                ``output_validators`` apply only to the agent's own output type.
            settings: Run settings, merged over the agent's.
            max_rounds: Round budget for this run (0: no cap; None: the agent's).
            deps: Dependencies for tool bodies (None: the agent's).
            cancel: The run's cancellation signal.
            run_id: The run's id (None: a fresh ``run_<hex>`` id); a host names it to find the
                run in its journal later.
            accept_truncated: Use a truncated answer in this run (None: the agent's).
            hosted_tools: Hosted tools for this run, replacing the agent's (None: the agent's;
                ``()``: none).

        Raises:
            AgentClosedError: the agent was closed.
            RunCancelledError: ``cancel`` was already cancelled when the run's turn came (no
                provider call, no history change).
            ConfigurationError: an unknown hosted tool name.
            UnsupportedCapabilityError: a hosted tool the model is stated not to offer (before
                any request).
            RobotaError: see :func:`robota.core.agent.run.execute_run`.
        """
        result = await self._run(
            prompt,
            output_type,
            settings,
            max_rounds,
            deps,
            cancel or CancelToken(),
            None,
            run_id,
            accept_truncated=accept_truncated,
            hosted_tools=hosted_tools,
        )
        assert isinstance(result, RunResult)
        return result

    @overload
    def stream(
        self,
        prompt: Prompt,
        *,
        output_type: None = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> AgentStream[OutputT]: ...

    @overload
    def stream(
        self,
        prompt: Prompt,
        *,
        output_type: Mapping[str, Any],
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> AgentStream[Any]: ...

    @overload
    def stream(
        self,
        prompt: Prompt,
        *,
        output_type: OutputTypeSpec[RunOutputT],
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> AgentStream[RunOutputT]: ...

    def stream(
        self,
        prompt: Prompt,
        *,
        output_type: Any = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> AgentStream[Any]:
        """Like :meth:`run`, streaming events: ``async with agent.stream(p) as s: async for e
        in s: ...`` then ``s.result`` (``RunResult[OutputT]``, or the run's own output type).
        The run takes its FIFO slot when iteration starts. For the text alone,
        ``async for delta in agent.stream(p).text_deltas(): ...`` needs no ``async with``.

        Raises:
            AgentClosedError: the agent was closed (raised when iteration starts).
        """
        from robota.core.agent.stream import AgentStream

        own = CancelToken()
        if cancel is not None:
            cancel.on_cancel(lambda: own.cancel(cancel.reason))

        async def start(send: Callable[[Event], None], token: CancelToken) -> RunResult[Any]:
            result = await self._run(
                prompt,
                output_type,
                settings,
                max_rounds,
                deps,
                token,
                send,
                run_id,
                accept_truncated=accept_truncated,
                hosted_tools=hosted_tools,
            )
            assert isinstance(result, RunResult)
            return result

        return AgentStream(start, own)

    @overload
    def run_sync(
        self,
        prompt: Prompt,
        *,
        output_type: None = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[OutputT]: ...

    @overload
    def run_sync(
        self,
        prompt: Prompt,
        *,
        output_type: Mapping[str, Any],
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[Any]: ...

    @overload
    def run_sync(
        self,
        prompt: Prompt,
        *,
        output_type: OutputTypeSpec[RunOutputT],
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[RunOutputT]: ...

    def run_sync(
        self,
        prompt: Prompt,
        *,
        output_type: Any = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[Any]:
        """Run :meth:`run` in a new event loop (``anyio.run``).

        Raises:
            RuntimeError: when called from a running event loop (use ``await agent.run``).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(
                "Agent.run_sync cannot be called from a running event loop; "
                "use `await agent.run(...)` instead"
            )
        call = functools.partial(
            self.run,
            prompt,
            output_type=output_type,
            settings=settings,
            max_rounds=max_rounds,
            deps=deps,
            run_id=run_id,
            accept_truncated=accept_truncated,
            hosted_tools=hosted_tools,
        )
        result: RunResult[Any] = anyio.run(call)
        return result
