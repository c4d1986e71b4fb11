"""A streaming run (seed 000, "Run Concurrency Contract", "Cancellation Contract").

``Agent.stream`` returns an :class:`AgentStream`, used as an async context manager that is also
an async iterator of events. The run starts (and queues for the agent's FIFO slot) only when the
consumer first iterates; an abandoned, never-iterated stream never takes the slot. Leaving the
``async with`` block before the run finished (``break``, an exception, ``aclose()``) cancels the
run, which then commits its assistant message as interrupted and releases the slot.

The helpers :meth:`AgentStream.text_deltas`, :meth:`AgentStream.text` and
:meth:`AgentStream.partial_outputs` also work without ``async with``: they then run the stream
themselves (the run goes in a task of its own; leaving the loop early cancels it).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncGenerator, Awaitable, Callable
from types import TracebackType
from typing import Any, Generic, Self

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from robota.core.agent.events import ModelTextDelta, PartialOutput
from robota.core.agent.result import RunResult
from robota.core.cancellation import CancelToken
from robota.core.events import Event
from typing_extensions import TypeVar

__all__ = ["AgentStream"]

OutputT = TypeVar("OutputT", default=str, covariant=True)

StartRun = Callable[[Callable[[Event], None], CancelToken], Awaitable[RunResult[Any]]]


class AgentStream(Generic[OutputT]):
    """Events of one run as they happen, then its :attr:`result` (``RunResult[OutputT]``).

    Example::

        async with agent.stream("Summarize the file") as stream:
            async for event in stream:
                if isinstance(event, ModelTextDelta):
                    print(event.text, end="")
        print(stream.result.usage)

    Or, for the text only, in one line (no ``async with`` needed)::

        async for delta in agent.stream("Summarize the file").text_deltas():
            print(delta, end="")

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
        self._result: RunResult[Any] | None = None
        self._error: Exception | None = None
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Self:
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

    def __aiter__(self) -> Self:
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

    async def _events(self) -> AsyncGenerator[Event, None]:
        """The run's events, with or without an enclosing ``async with``."""
        if self._task_group is not None:
            async for event in self:
                yield event
            return
        if self._started:
            raise RuntimeError("this AgentStream was already consumed")
        self._started = True
        # Not a task group: a helper's async generator may be closed from another task (after
        # a `break`), and a task group must be exited by the task that entered it.
        self._task = asyncio.get_running_loop().create_task(self._drive())
        try:
            while True:
                try:
                    event = await self._receive.receive()
                except anyio.EndOfStream:
                    break
                yield event
            await self._task
            if self._error is not None:
                raise self._error
        finally:
            if not self._done:
                self._cancel.cancel("the stream consumer stopped iterating")

    async def text_deltas(self) -> AsyncGenerator[str, None]:
        """The answer text as it streams, one delta at a time (every round's
        :class:`~robota.core.agent.events.ModelTextDelta`, in order).

        Works inside or without ``async with``; afterwards :attr:`result` holds the result.
        Leaving the loop early cancels the run (it resolves as interrupted).

        Example:
            >>> from robota.core.agent.agent import Agent
            >>> from robota.core.testing.scripted import ScriptedProvider, text
            >>> agent = Agent(ScriptedProvider([[text("Hel"), text("lo")]]))
            >>> async def main() -> list[str]:
            ...     return [d async for d in agent.stream("hi").text_deltas()]
            >>> anyio.run(main)
            ['Hel', 'lo']

        Raises:
            RuntimeError: the stream was already consumed.
            Exception: the run's own error when it failed (after the deltas before it).
        """
        async for event in self._events():
            if isinstance(event, ModelTextDelta):
                yield event.text

    async def text(self) -> AsyncGenerator[str, None]:
        """The answer text so far after each delta (cumulative); see :meth:`text_deltas`."""
        so_far = ""
        async for delta in self.text_deltas():
            so_far += delta
            yield so_far

    async def partial_outputs(self) -> AsyncGenerator[OutputT, None]:
        """Typed snapshots of the structured output while it streams: the ``value`` of each
        :class:`~robota.core.agent.events.PartialOutput` event that has one (a repaired snapshot
        that validated partially; each at least as complete as the one before within a round).
        The final validated value is ``stream.result.output`` afterwards.

        Works inside or without ``async with``, like :meth:`text_deltas`.

        Raises:
            RuntimeError: the stream was already consumed.
            Exception: the run's own error when it failed.
        """
        async for event in self._events():
            if isinstance(event, PartialOutput) and event.value is not None:
                value: OutputT = event.value
                yield value

    @property
    def result(self) -> RunResult[OutputT]:
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
