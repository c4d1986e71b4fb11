"""A streaming run (seed 000, "Run Concurrency Contract", "Cancellation Contract").

``Agent.stream`` returns an :class:`AgentStream`, used as an async context manager that is also
an async iterator of events. The run starts (and queues for the agent's FIFO slot) only when the
consumer first iterates; an abandoned, never-iterated stream never takes the slot. Leaving the
``async with`` block before the run finished (``break``, an exception, ``aclose()``) cancels the
run, which then commits its assistant message as interrupted and releases the slot.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from types import TracebackType

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from robota.core.agent.result import RunResult
from robota.core.cancellation import CancelToken
from robota.core.events import Event

__all__ = ["AgentStream"]

StartRun = Callable[[Callable[[Event], None], CancelToken], Awaitable[RunResult]]


class AgentStream:
    """Events of one run as they happen, then its :attr:`result`.

    Example::

        async with agent.stream("Summarize the file") as stream:
            async for event in stream:
                if isinstance(event, ModelTextDelta):
                    print(event.text, end="")
        print(stream.result.usage)

    Iterating re-raises the run's error (after the events before it) when the run fails.
    """

    def __init__(self, start: StartRun, cancel: CancelToken) -> None:
        self._start = start
        self._cancel = cancel
        self._task_group: TaskGroup | None = None
        self._send: MemoryObjectSendStream[Event]
        self._receive: MemoryObjectReceiveStream[Event]
        self._send, self._receive = anyio.create_memory_object_stream[Event](math.inf)
        self._started = False
        self._done = False
        self._result: RunResult | None = None
        self._error: Exception | None = None

    async def __aenter__(self) -> AgentStream:
        if self._task_group is not None:
            raise RuntimeError("an AgentStream can be entered once")
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._started and not self._done:
            self._cancel.cancel("the stream consumer stopped iterating")
        assert self._task_group is not None
        try:
            await self._task_group.__aexit__(None, None, None)
        finally:
            self._receive.close()

    def __aiter__(self) -> AgentStream:
        return self

    async def __anext__(self) -> Event:
        if self._task_group is None:
            raise RuntimeError(
                "iterate an AgentStream inside `async with agent.stream(...) as stream:`"
            )
        if not self._started:
            self._started = True
            self._task_group.start_soon(self._drive)
        try:
            return await self._receive.receive()
        except anyio.EndOfStream:
            if self._error is not None:
                raise self._error from None
            raise StopAsyncIteration from None

    async def _drive(self) -> None:
        try:
            self._result = await self._start(self._send.send_nowait, self._cancel)
        except Exception as exc:
            self._error = exc
        finally:
            self._done = True
            self._send.close()

    async def aclose(self) -> None:
        """Stop the run (it resolves as interrupted); the ``async with`` exit waits for it."""
        if not self._done:
            self._cancel.cancel("the stream consumer stopped iterating")

    @property
    def done(self) -> bool:
        """True once the run finished (completed, interrupted or failed)."""
        return self._done

    @property
    def result(self) -> RunResult:
        """The run's result.

        Raises:
            RuntimeError: when the run has not finished (or never started).
            Exception: the run's own error when it failed.
        """
        if self._error is not None:
            raise self._error
        if self._result is None:
            raise RuntimeError("the run has not finished; iterate the stream to the end first")
        return self._result
