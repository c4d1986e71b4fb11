"""Tool conversations found in recorded Gemini traffic (not named: discovered from the files).

A conversation is a run of model calls in one recording where every response but the last asks
for function calls, every following request sends function responses back, and the last
response is a plain answer (``STOP``, text, no call) — what an :class:`~robota.core.agent.Agent`
with the recorded tools replays end to end. Runs that end on a call (a structured-output tool
the recorder's framework stopped on), mix streamed and buffered calls, or hold an error are not
conversations an agent can finish, and are left to the per-interaction replay.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _google_cassette_reader import (  # pyright: ignore[reportImplicitRelativeImport]
    MODEL_CALLS,
    cassette_root,
    is_google_host,
    method_of,
    model_of,
    request_of,
)
from _google_expected import Answer, outcome_of  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.messages import SystemMessage, TextPart, UserMessage
from robota.core.provider import ToolDefinition
from robota.core.testing.cassette import Interaction, load_cassette
from robota.core.tools.base import RiskClass, Tool, ToolContext, ToolOutput


@dataclass(frozen=True)
class Conversation:
    """One replayable tool conversation.

    Attributes:
        file: The recording.
        calls: The model calls, in order.
        answers: What each call's response says (read independently).
    """

    file: Path
    calls: tuple[Interaction, ...]
    answers: tuple[Answer, ...]

    @property
    def id(self) -> str:
        return f"{self.file.parent.name}/{self.file.name}@{self.calls[0].uri.rsplit('/', 1)[-1]}"

    @property
    def model(self) -> str:
        return model_of(self.calls[0].uri)

    def prompt(self) -> tuple[str | None, str]:
        """(system prompt, last user text) of the first request."""
        messages = request_of(self.calls[0]).messages
        system = next((m.content for m in messages if isinstance(m, SystemMessage)), None)
        user = [m for m in messages if isinstance(m, UserMessage)]
        parts = user[-1].parts if user else ()
        return system, "".join(p.text for p in parts if isinstance(p, TextPart))

    def tool_definitions(self) -> list[ToolDefinition]:
        found: dict[str, ToolDefinition] = {}
        for call in self.calls:
            for definition in request_of(call).tools:
                found.setdefault(definition.name, definition)
        return list(found.values())

    def recorded_results(self) -> dict[str, list[str]]:
        """The function responses the recorder sent back, by tool name, in order."""
        results: dict[str, list[str]] = {}
        for call in self.calls[1:]:
            contents = (call.request_body or {}).get("contents") or []
            for part in (contents[-1] if contents else {}).get("parts", []):
                response = part.get("functionResponse")
                if isinstance(response, dict):
                    results.setdefault(str(response.get("name")), []).append(
                        json.dumps(response.get("response"))
                    )
        return results


def _sends_results(interaction: Interaction) -> bool:
    contents = (interaction.request_body or {}).get("contents") or []
    last = contents[-1] if contents and isinstance(contents[-1], dict) else {}
    return any("functionResponse" in p for p in last.get("parts", []) if isinstance(p, dict))


def _conversation(file: Path, run: Sequence[tuple[Interaction, Answer]]) -> Conversation | None:
    if len(run) < 2 or len({method_of(i.uri) for i, _ in run}) != 1:
        return None
    *asking, (_, final) = run
    if final.calls or not final.text or final.finish != "stop":
        return None
    if any(not a.calls or a.finish != "tool_calls" for _, a in asking):
        return None
    conversation = Conversation(
        file=file, calls=tuple(i for i, _ in run), answers=tuple(a for _, a in run)
    )
    declared = {d.name for d in conversation.tool_definitions()}
    if any(name not in declared for _, a in asking for name, _ in a.calls):
        return None
    return conversation


def tool_conversations() -> list[Conversation]:
    """Every replayable tool conversation under the cassette root."""
    found: list[Conversation] = []
    for file in sorted(cassette_root().glob("*/*.yaml")):
        calls = [
            i
            for i in load_cassette(file).interactions
            if is_google_host(i.host) and method_of(i.uri) in MODEL_CALLS
        ]
        run: list[tuple[Interaction, Answer]] = []
        for interaction in calls:
            outcome = outcome_of(interaction)
            follows = (
                isinstance(outcome, Answer)
                and bool(run)
                and bool(run[-1][1].calls)
                and _sends_results(interaction)
                and model_of(interaction.uri) == model_of(run[-1][0].uri)
            )
            if follows and isinstance(outcome, Answer):
                run.append((interaction, outcome))
                continue
            found.extend(c for c in [_conversation(file, run)] if c is not None)
            starts = isinstance(outcome, Answer) and not _sends_results(interaction)
            run = [(interaction, outcome)] if starts and isinstance(outcome, Answer) else []
        found.extend(c for c in [_conversation(file, run)] if c is not None)
    return found


class RecordedTool(Tool):
    """A tool with a recorded declaration that answers with the recorded function response."""

    risk = RiskClass.INSPECT

    def __init__(self, definition: ToolDefinition, results: Sequence[str]) -> None:
        self.name = definition.name
        self.description = definition.description
        self.parameters = definition.parameters
        self._results = list(results)
        self.calls = 0

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        answer = self._results[self.calls] if self.calls < len(self._results) else "ok"
        self.calls += 1
        return answer
