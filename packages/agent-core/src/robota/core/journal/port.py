"""The execution journal port (seed 000, "Execution Journal and Continuation").

A host makes a run recoverable by giving the agent a :class:`Journal` it owns exclusively.
Every boundary whose loss would make a repeat or a hidden effect possible is written — and
awaited — before the runtime crosses it:

- ``start_run``: the checkpoint the run starts from (history before the run, the prompt, the
  run's options, the tool residency and the runtime fingerprints), before the first model call.
- ``record_model_start``: a model call is about to be sent (with a digest of its request).
- ``record_response``: a model call's full response, before the loop uses it.
- ``record_tool_admitted``: a tool call, the arguments it actually runs with and the admission
  that let it run (or refused it), before its effect.
- ``record_residency``: the deferred tools loaded once a call changed them, before its result.
- ``record_tool_result``: its result, after the effect.
- ``record_wait_request`` / ``record_wait_response``: a saved pre-effect wait (an ``approval``
  or ``external`` call's request for an outside response) and the response that answers it.
- ``finish_run``: the outcome.

A failed write raises :class:`~robota.core.errors.JournalError`, which fails the run — never a
tool error the model could retry, since a retried effect could run twice.

Backends implement six primitives (``start_run``, ``load_run``, ``record_response``,
``record_tool_start``, ``record_tool_result``, ``finish_run``). The other writes have default
implementations on those primitives, so every backend that keeps the primitives durable keeps
these durable too: they are stored as tool records under reserved keys starting with ``@``
(a tool call's key is always ``"<round>:<index>"``), and :class:`JournalRun` sorts them back into
their own fields when a backend builds it. A backend may override them with a native layout as
long as ``load_run`` returns the same :class:`JournalRun`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from robota.core.errors import JournalError
from robota.core.messages import JsonValue

__all__ = [
    "RESERVED_PREFIX",
    "AlreadyRecordedError",
    "Journal",
    "JournalRun",
    "MemoryJournal",
    "ToolRecord",
    "WaitRecord",
]

RESERVED_PREFIX = "@"
"""Tool-record keys starting with this are runtime records, never tool calls."""

_MODEL = "@model/"
_RESIDENCY = "@residency/"
_WAIT = "@wait/"
_ADMITTED = "$robota.admitted"


class AlreadyRecordedError(JournalError):
    """A write that must not replace a recorded value found one (e.g. two hosts answering one
    saved wait at once: the second never replaces the first's response).

    Attributes:
        run_id: The run.
        key: The record's key.
    """

    code = "journal_already_recorded"

    def __init__(self, message: str, *, run_id: str, key: str) -> None:
        super().__init__(message)
        self.run_id = run_id
        self.key = key


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolRecord:
    """What the journal knows of one tool call.

    Attributes:
        key: Stable identity within the run: ``"<round>:<index>"`` (the provider's call id is
            not unique, so it is not the key).
        tool_name: Canonical tool name.
        arguments: The arguments the body was started with (after every gate's changes).
        result: The recorded result (JSON form of a ToolResultPart), or None when the effect
            started and no result was recorded (a crash in between).
        admission: What let the call run or refused it, recorded with the start (see
            :class:`robota.core.journal.replay.Admission`): the gates' verdict, the effective
            risk the permission decision chose, the permission decisions, and the model's call
            it answers. None for a record written without one.
    """

    key: str
    tool_name: str
    arguments: JsonValue
    result: JsonValue | None = None
    admission: JsonValue | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class WaitRecord:
    """A saved pre-effect wait (seed 000: "Requests and responses are durable under stable
    identities").

    Attributes:
        request_id: ``"<round>:<index>"`` of the call that waits (stable across continuations).
        request: What was asked (tool, arguments, execution kind, the decision key).
        response: The recorded response (a decision document), or None while unanswered.
    """

    request_id: str
    request: JsonValue
    response: JsonValue | None = None


def _empty_tools() -> dict[str, ToolRecord]:
    return {}


@dataclass(frozen=True, kw_only=True, slots=True)
class JournalRun:
    """Everything recorded for one run.

    A backend builds it from what it stored; runtime records kept under reserved tool-record
    keys (see the module docstring) are moved from ``tools`` into their own fields here.

    Attributes:
        run_id: The run's id.
        checkpoint: What the run started from (opaque JSON owned by the agent).
        responses: Recorded model responses by 0-based model-call step.
        tools: Tool records by key (tool calls only).
        outcome: ``completed`` / ``failed`` / ``interrupted``, or None while unfinished.
        model_starts: Model calls recorded as sent, by step: the request digest document.
        residency: Loaded deferred tools (in load order) recorded after the call whose key
            they are stored under.
        waits: Saved pre-effect waits by request id.
    """

    run_id: str
    checkpoint: JsonValue
    responses: Mapping[int, JsonValue] = field(default_factory=dict[int, JsonValue])
    tools: Mapping[str, ToolRecord] = field(default_factory=_empty_tools)
    outcome: str | None = None
    model_starts: Mapping[int, JsonValue] = field(default_factory=dict[int, JsonValue])
    residency: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    waits: Mapping[str, WaitRecord] = field(default_factory=dict[str, WaitRecord])

    def __post_init__(self) -> None:
        tools: dict[str, ToolRecord] = {}
        model_starts = dict(self.model_starts)
        residency = dict(self.residency)
        waits = dict(self.waits)
        for key, record in self.tools.items():
            if key.startswith(_MODEL):
                model_starts[int(key[len(_MODEL) :])] = record.arguments
            elif key.startswith(_RESIDENCY):
                residency[key[len(_RESIDENCY) :]] = _names(record.arguments)
            elif key.startswith(_WAIT):
                request_id = key[len(_WAIT) :]
                waits[request_id] = WaitRecord(
                    request_id=request_id, request=record.arguments, response=record.result
                )
            else:
                tools[key] = _unwrapped(record)
        object.__setattr__(self, "tools", tools)
        object.__setattr__(self, "model_starts", model_starts)
        object.__setattr__(self, "residency", residency)
        object.__setattr__(self, "waits", waits)

    @property
    def unrecorded_model_calls(self) -> tuple[int, ...]:
        """Steps of model calls recorded as sent whose response was never recorded."""
        return tuple(sorted(s for s in self.model_starts if s not in self.responses))

    @property
    def next_step(self) -> int:
        """The step of the next model call (one past every started or answered call)."""
        steps = set(self.responses) | set(self.model_starts)
        return max(steps) + 1 if steps else 0


def _recorded_result(run: JournalRun, key: str) -> JsonValue | None:
    if key.startswith(_WAIT):
        wait = run.waits.get(key[len(_WAIT) :])
        return None if wait is None else wait.response
    record = run.tools.get(key)
    return None if record is None else record.result


def _names(value: JsonValue) -> tuple[str, ...]:
    loaded: Any = value.get("loaded") if isinstance(value, dict) else None
    if not isinstance(loaded, list):
        return ()
    items: list[Any] = loaded
    return tuple(str(n) for n in items)


def _unwrapped(record: ToolRecord) -> ToolRecord:
    value = record.arguments
    if isinstance(value, dict) and value.get(_ADMITTED) == 1 and record.admission is None:
        return ToolRecord(
            key=record.key,
            tool_name=record.tool_name,
            arguments=value.get("arguments"),
            result=record.result,
            admission=value.get("admission"),
        )
    return record


class Journal(ABC):
    """Durable record of runs. All writes are awaited before the runtime moves on."""

    @abstractmethod
    async def start_run(self, run_id: str, checkpoint: JsonValue) -> None:
        """Record the checkpoint of a new run.

        Raises:
            JournalError: on a write failure or if ``run_id`` already exists.
        """

    @abstractmethod
    async def load_run(self, run_id: str) -> JournalRun | None:
        """Everything recorded for ``run_id``, or None when unknown."""

    @abstractmethod
    async def record_response(self, run_id: str, step: int, response: JsonValue) -> None:
        """Record model call ``step``'s response (idempotent for an equal value)."""

    @abstractmethod
    async def record_tool_start(
        self, run_id: str, key: str, tool_name: str, arguments: JsonValue
    ) -> None:
        """Record that a tool's effect is about to start with ``arguments`` (a later start under
        the same key replaces the record, result included)."""

    @abstractmethod
    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        """Record a tool's result after its effect (``key`` must have been started)."""

    @abstractmethod
    async def finish_run(
        self, run_id: str, outcome: Literal["completed", "failed", "interrupted"]
    ) -> None:
        """Record the run's outcome."""

    # --- writes with defaults on the primitives -------------------------------------------

    async def record_tool_admitted(
        self,
        run_id: str,
        key: str,
        tool_name: str,
        arguments: JsonValue,
        admission: JsonValue,
    ) -> None:
        """Record a tool call's start together with the admission that decided it (one write:
        the decision is durable exactly when the start is).

        The default stores ``{"$robota.admitted": 1, "arguments": ..., "admission": ...}`` with
        :meth:`record_tool_start`; :class:`JournalRun` unwraps it.
        """
        document: Any = {_ADMITTED: 1, "arguments": arguments, "admission": admission}
        await self.record_tool_start(run_id, key, tool_name, document)

    async def record_model_start(self, run_id: str, step: int, request: JsonValue) -> None:
        """Record that model call ``step`` is about to be sent (``request``: its digest
        document). A start without a recorded response is what continuation refuses to guess
        about."""
        await self.record_tool_start(run_id, f"{_MODEL}{step}", "@model_call", request)

    async def record_residency(self, run_id: str, key: str, loaded: Sequence[str]) -> None:
        """Record the deferred tools loaded (in load order) once call ``key`` changed them."""
        document: Any = {"loaded": list(loaded)}
        await self.record_tool_start(run_id, f"{_RESIDENCY}{key}", "@residency", document)

    async def record_wait_request(self, run_id: str, request_id: str, request: JsonValue) -> None:
        """Save a pre-effect wait's request before the run suspends. Must not be called again
        for a request already saved (it would drop a recorded response)."""
        await self.record_tool_start(run_id, f"{_WAIT}{request_id}", "@wait", request)

    async def record_tool_result_once(self, run_id: str, key: str, result: JsonValue) -> None:
        """Record a result only when none is recorded under ``key`` yet (compare-and-set).

        The default checks with :meth:`load_run` and then writes with
        :meth:`record_tool_result`; a backend shared by several processes must override it with
        one atomic conditional write (as :class:`robota.session.SQLiteJournal` does).

        Raises:
            AlreadyRecordedError: a result is already recorded under ``key``.
            JournalError: ``key`` was never started, or the write failed.
        """
        run = await self.load_run(run_id)
        if run is not None and _recorded_result(run, key) is not None:
            raise AlreadyRecordedError(
                f"run {run_id}: {key} already has a recorded result; it is never replaced",
                run_id=run_id,
                key=key,
            )
        await self.record_tool_result(run_id, key, result)

    async def record_wait_response(self, run_id: str, request_id: str, response: JsonValue) -> None:
        """Save the response to a saved request, before it is used; never replaces a saved
        response.

        Raises:
            AlreadyRecordedError: a response is already saved for ``request_id``.
        """
        await self.record_tool_result_once(run_id, f"{_WAIT}{request_id}", response)

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""


class MemoryJournal(Journal):
    """An in-process journal (tests, and hosts that only want the replay semantics)."""

    def __init__(self) -> None:
        self.runs: dict[str, dict[str, Any]] = {}

    async def start_run(self, run_id: str, checkpoint: JsonValue) -> None:
        from robota.core.errors import JournalError

        if run_id in self.runs:
            raise JournalError(f"run {run_id} already journaled")
        self.runs[run_id] = {
            "checkpoint": checkpoint,
            "responses": {},
            "tools": {},
            "outcome": None,
        }

    async def load_run(self, run_id: str) -> JournalRun | None:
        run = self.runs.get(run_id)
        if run is None:
            return None
        return JournalRun(
            run_id=run_id,
            checkpoint=run["checkpoint"],
            responses=dict(run["responses"]),
            tools=dict(run["tools"]),
            outcome=run["outcome"],
        )

    def _run(self, run_id: str) -> dict[str, Any]:
        from robota.core.errors import JournalError

        try:
            return self.runs[run_id]
        except KeyError:
            raise JournalError(f"run {run_id} was never started in this journal") from None

    async def record_response(self, run_id: str, step: int, response: JsonValue) -> None:
        self._run(run_id)["responses"][step] = response

    async def record_tool_start(
        self, run_id: str, key: str, tool_name: str, arguments: JsonValue
    ) -> None:
        self._run(run_id)["tools"][key] = ToolRecord(
            key=key, tool_name=tool_name, arguments=arguments
        )

    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        from robota.core.errors import JournalError

        tools = self._run(run_id)["tools"]
        record: ToolRecord | None = tools.get(key)
        if record is None:
            raise JournalError(f"run {run_id}: no started tool call {key}")
        tools[key] = ToolRecord(
            key=key, tool_name=record.tool_name, arguments=record.arguments, result=result
        )

    async def finish_run(
        self, run_id: str, outcome: Literal["completed", "failed", "interrupted"]
    ) -> None:
        self._run(run_id)["outcome"] = outcome
