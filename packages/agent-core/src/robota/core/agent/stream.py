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
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from types import TracebackType
from typing import Any, Generic, Self

import anyio
from anyio.abc import TaskGroup
from robota.core.agent.events import ModelTextDelta, PartialOutput
from robota.core.agent.result import RunResult
from robota.core.cancellation import CancelToken
from robota.core.events import Event, stream_backpressure
from typing_extensions import TypeVar

__all__ = ["AgentStream"]

OutputT = TypeVar("OutputT", default=str, covariant=True)

StartRun = Callable[[Callable[[Event], None], CancelToken], Awaitable[RunResult[Any]]]

BUFFER_EVENTS = 256
"""Most undelivered events a stream holds before the run's provider round waits for its
consumer (a few more may be queued: events of the run's other steps are never held back)."""


class _EventBuffer:
    """The run's events on their way to the stream consumer (a FIFO, bounded by
    :data:`BUFFER_EVENTS` through :attr:`full` / :meth:`wait_room`; see
    :data:`robota.core.events.stream_backpressure`).

    :meth:`put` is the run's synchronous sink; :meth:`get` hands out what is already queued
    without a task switch, and waits only when nothing is. The producer is woken once the
    consumer took the buffer down to half, not per event.
    """

    __slots__ = ("_closed", "_items", "_limit", "_readable", "_released", "_room")

    def __init__(self, limit: int = BUFFER_EVENTS) -> None:
        self._items: deque[Event] = deque()
        self._limit = limit
        self._readable: anyio.Event | None = None  # the consumer waits for an event
        self._room: anyio.Event | None = None  # the producer waits for room
        self._closed = False  # the producer is done: the end follows the queued events
        self._released = False  # the consumer stopped reading: never hold the producer

    def put(self, event: Event) -> None:
        """Queue one event (never blocks, never raises)."""
        self._items.append(event)
        readable = self._readable
        if readable is not None:
            self._readable = None
            readable.set()

    def close(self) -> None:
        """The producer is done (after the events queued so far, the end)."""
        self._closed = True
        readable = self._readable
        if readable is not None:
            self._readable = None
            readable.set()

    def release(self) -> None:
        """The consumer stopped reading: the producer is never held back again."""
        self._released = True
        self._wake_producer()

    def _wake_producer(self) -> None:
        room = self._room
        if room is not None:
            self._room = None
            room.set()

    @property
    def full(self) -> bool:
        """True while the producer should wait for the consumer."""
        return len(self._items) >= self._limit and not self._released

    async def wait_room(self) -> None:
        """Return once the consumer took the buffer below its bound (at once when it is, or
        when the consumer stopped reading)."""
        while self.full:
            room = self._room
            if room is None:
                room = self._room = anyio.Event()
            await room.wait()

    async def get(self) -> Event:
        """The next event: at once when one is queued, else once one arrives.

        Raises:
            anyio.EndOfStream: the producer is done and every event was handed out.
        """
        items = self._items
        while not items:
            if self._closed:
                raise anyio.EndOfStream
            readable = self._readable
            if readable is None:
                readable = self._readable = anyio.Event()
            await readable.wait()
        event = items.popleft()
        if self._room is not None and len(items) <= self._limit // 2:
            self._wake_producer()
        return event


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
        self._buffer = _EventBuffer()
        self._exited = False
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
            self._buffer.release()  # a shielded round must not wait for a reader gone
        assert self._task_group is not None
        try:
            await self._task_group.__aexit__(None, None, None)
        finally:
            self._exited = True

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
        if self._exited:
            raise anyio.ClosedResourceError
        try:
            return await self._buffer.get()
        except anyio.EndOfStream:
            if self._error is not None:
                raise self._error from None
            raise StopAsyncIteration from None

    async def _drive(self) -> None:
        # the run's provider rounds find the buffer here (this task's context only)
        stream_backpressure.set(self._buffer)
        try:
            self._result = await self._start(self._buffer.put, self._cancel)
        except Exception as exc:
            self._error = exc
        finally:
            self._done = True
            self._buffer.close()

    async def aclose(self) -> None:
        """Stop the run (it resolves as interrupted); the ``async with`` exit waits for it."""
        if not self._done:
            self._cancel.cancel("the stream consumer stopped iterating")
            self._buffer.release()

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
                    event = await self._buffer.get()
                except anyio.EndOfStream:
                    break
                yield event
            await self._task
            if self._error is not None:
                raise self._error
        finally:
            if not self._done:
                self._cancel.cancel("the stream consumer stopped iterating")
                self._buffer.release()

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
