"""The execution journal port (seed 000, "Execution Journal and Continuation").

A host makes a run recoverable by giving the agent a :class:`Journal` it owns exclusively.
Every boundary whose loss would make a repeat or a hidden effect possible is written — and
awaited — before the runtime crosses it:

- ``start_run``: the checkpoint the run starts from (history before the run, the prompt, the
  run's options), before the first model call.
- ``record_response``: a model call's full response, before the loop uses it.
- ``record_tool_start``: a tool call and the arguments it actually runs with, before its effect.
- ``record_tool_result``: its result, after the effect.
- ``finish_run``: the outcome.

A failed write raises :class:`~robota.core.errors.JournalError`, which fails the run — never a
tool error the model could retry, since a retried effect could run twice.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from robota.core.messages import JsonValue

__all__ = ["Journal", "JournalRun", "MemoryJournal", "ToolRecord"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolRecord:
    """What the journal knows of one tool call.

    Attributes:
        key: Stable identity within the run: ``"<round>:<index>"`` (the provider's call id is
            not unique, so it is not the key).
        tool_name: Canonical tool name.
        arguments: The arguments the body was started with.
        result: The recorded result (JSON form of a ToolResultPart), or None when the effect
            started and no result was recorded (a crash in between).
    """

    key: str
    tool_name: str
    arguments: JsonValue
    result: JsonValue | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class JournalRun:
    """Everything recorded for one run.

    Attributes:
        run_id: The run's id.
        checkpoint: What the run started from (opaque JSON owned by the agent).
        responses: Recorded model responses by 0-based model-call step.
        tools: Tool records by key.
        outcome: ``completed`` / ``failed`` / ``interrupted``, or None while unfinished.
    """

    run_id: str
    checkpoint: JsonValue
    responses: Mapping[int, JsonValue] = field(default_factory=dict[int, JsonValue])
    tools: Mapping[str, ToolRecord] = field(default_factory=dict[str, ToolRecord])
    outcome: str | None = None


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
        """Record that a tool's effect is about to start with ``arguments``."""

    @abstractmethod
    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        """Record a tool's result after its effect."""

    @abstractmethod
    async def finish_run(
        self, run_id: str, outcome: Literal["completed", "failed", "interrupted"]
    ) -> None:
        """Record the run's outcome."""

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
        tools = self._run(run_id)["tools"]
        record: ToolRecord = tools[key]
        tools[key] = ToolRecord(
            key=key, tool_name=record.tool_name, arguments=record.arguments, result=result
        )

    async def finish_run(
        self, run_id: str, outcome: Literal["completed", "failed", "interrupted"]
    ) -> None:
        self._run(run_id)["outcome"] = outcome
