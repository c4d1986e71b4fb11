"""A scripted provider for tests (CONVENTIONS.md, "Tests": the same object Robota's own loop
tests use).

:class:`ScriptedProvider` plays back scripted turns — one turn per provider call — and records
every :class:`~robota.core.provider.ModelRequest` it receives. A turn is a sequence of steps:
streamed text, thinking (with a signature), tool calls, usage, an error to raise, a delay, a
checkpoint to wait on or to signal, and a finish reason. A plain string is a text step; a plain
string as a whole turn is a one-text-step turn.

Example:
    >>> import anyio
    >>> from robota.core.agent import Agent
    >>> from robota.core.testing.scripted import ScriptedProvider, text, tool_call, usage
    >>> provider = ScriptedProvider([
    ...     [tool_call("c1", "missing_tool", {"q": "x"})],
    ...     [text("Done"), text("."), usage(input_tokens=12, output_tokens=3)],
    ... ])
    >>> result = Agent(provider).run_sync("Go")
    >>> result.text, result.usage.input_tokens, len(provider.requests)
    ('Done.', 12, 2)
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import anyio
from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.errors import ProviderError
from robota.core.messages import (
    AssistantMessage,
    FinishReason,
    JsonValue,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    Provider,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from robota.core.usage import Usage

__all__ = [
    "Delay",
    "Fail",
    "Finish",
    "Reached",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "Step",
    "Text",
    "Thinking",
    "ToolCall",
    "Turn",
    "UsageStep",
    "WaitFor",
    "delay",
    "fail",
    "finish",
    "reached",
    "text",
    "thinking",
    "tool_call",
    "usage",
    "wait_for",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class Text:
    """Stream ``text`` as one text delta."""

    kind: Literal["text"] = "text"
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Thinking:
    """Stream reasoning ``text`` (kept with ``signature``)."""

    kind: Literal["thinking"] = "thinking"
    text: str
    signature: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCall:
    """A tool call; ``arguments`` is a dict (sent as JSON) or a raw string sent verbatim (which
    may be invalid JSON)."""

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, JsonValue] | str


@dataclass(frozen=True, kw_only=True, slots=True)
class UsageStep:
    """The usage the response reports."""

    kind: Literal["usage"] = "usage"
    usage: Usage


@dataclass(frozen=True, kw_only=True, slots=True)
class Fail:
    """Raise ``error`` at this point of the stream."""

    kind: Literal["fail"] = "fail"
    error: ProviderError


@dataclass(frozen=True, kw_only=True, slots=True)
class Delay:
    """``anyio.sleep(seconds)`` — a point where cancellation can land."""

    kind: Literal["delay"] = "delay"
    seconds: float


@dataclass(frozen=True, kw_only=True, slots=True)
class WaitFor:
    """Wait until the test sets ``event`` (an ``anyio.Event``): a deterministic checkpoint."""

    kind: Literal["wait_for"] = "wait_for"
    event: anyio.Event


@dataclass(frozen=True, kw_only=True, slots=True)
class Reached:
    """Set ``event`` (an ``anyio.Event``) when the stream gets here."""

    kind: Literal["reached"] = "reached"
    event: anyio.Event


@dataclass(frozen=True, kw_only=True, slots=True)
class Finish:
    """The finish reason (default: ``tool_calls`` when the turn has tool calls, else
    ``stop``)."""

    kind: Literal["finish"] = "finish"
    reason: FinishReason
    raw: str | None = None


Step = Text | Thinking | ToolCall | UsageStep | Fail | Delay | WaitFor | Reached | Finish
Turn = str | Sequence[Step | str]


def text(value: str) -> Text:
    """A text step."""
    return Text(text=value)


def thinking(value: str, signature: str | None = None) -> Thinking:
    """A thinking step."""
    return Thinking(text=value, signature=signature)


def tool_call(id: str, name: str, arguments: dict[str, JsonValue] | str | None = None) -> ToolCall:
    """A tool call step (``arguments`` None means ``{}``)."""
    return ToolCall(id=id, name=name, arguments={} if arguments is None else arguments)


def usage(*, input_tokens: int = 0, output_tokens: int = 0, **more: Any) -> UsageStep:
    """A usage step; extra keywords are :class:`~robota.core.usage.Usage` fields."""
    return UsageStep(usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens, **more))


def fail(error: ProviderError) -> Fail:
    """A step raising ``error``."""
    return Fail(error=error)


def delay(seconds: float) -> Delay:
    """A sleep step."""
    return Delay(seconds=seconds)


def wait_for(event: anyio.Event) -> WaitFor:
    """A step waiting for ``event``."""
    return WaitFor(event=event)


def reached(event: anyio.Event) -> Reached:
    """A step setting ``event``."""
    return Reached(event=event)


def finish(reason: FinishReason, raw: str | None = None) -> Finish:
    """A finish-reason step."""
    return Finish(reason=reason, raw=raw)


class ScriptExhaustedError(AssertionError):
    """The provider was called more times than the script has turns."""


class ScriptedProvider(Provider):
    """Plays back scripted turns; one turn per provider call.

    Args:
        turns: The turns, in call order.
        name: Provider name.
        model: The default model (also reported in ``model_info``).
        context_window: The context window ``model_info`` reports (None: unknown model, so
            the agent's context guard is off).
        capabilities: What ``capabilities`` reports (default: all unknown).

    Attributes:
        requests: Every request received, in order.

    Raises (from ``stream``):
        ScriptExhaustedError: when called with no turns left.
    """

    def __init__(
        self,
        turns: Iterable[Turn] = (),
        *,
        name: str = "scripted",
        model: str = "scripted-model",
        context_window: int | None = None,
        capabilities: ModelCapabilities | None = None,
    ) -> None:
        self.name = name
        self.default_model = model
        self.context_window = context_window
        self.model_capabilities = capabilities or ModelCapabilities()
        self.requests: list[ModelRequest] = []
        self._turns: list[Turn] = list(turns)

    def add(self, *turns: Turn) -> None:
        """Append turns to the script."""
        self._turns.extend(turns)

    @property
    def remaining(self) -> int:
        """Turns not yet played."""
        return len(self._turns)

    def model_info(self, model: str) -> ModelInfo | None:
        """Info for any model: the configured window and capabilities."""
        return ModelInfo(
            provider=self.name,
            model=model,
            context_window=self.context_window,
            capabilities=self.model_capabilities,
        )

    def capabilities(self, model: str) -> ModelCapabilities:
        """The configured capabilities."""
        return self.model_capabilities

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Play the next turn. See the module docstring for the steps."""
        self.requests.append(request)
        if not self._turns:
            raise ScriptExhaustedError(
                f"ScriptedProvider was called {len(self.requests)} times but the script has "
                f"only {len(self.requests) - 1} turn(s); add a turn for this request"
            )
        turn = self._turns.pop(0)
        steps: Sequence[Step | str] = [turn] if isinstance(turn, str) else turn
        parts: list[TextPart | ThinkingPart | ToolCallPart] = []
        reported = Usage()
        finish_reason: FinishReason | None = None
        raw_reason: str | None = None
        calls = 0
        for raw_step in steps:
            step = Text(text=raw_step) if isinstance(raw_step, str) else raw_step
            if isinstance(step, Text):
                yield TextDelta(text=step.text)
                if parts and isinstance(parts[-1], TextPart):
                    parts[-1] = TextPart(text=parts[-1].text + step.text)
                else:
                    parts.append(TextPart(text=step.text))
            elif isinstance(step, Thinking):
                yield ThinkingDelta(text=step.text)
                parts.append(
                    ThinkingPart(text=step.text, signature=step.signature, provider=self.name)
                )
            elif isinstance(step, ToolCall):
                raw = (
                    step.arguments
                    if isinstance(step.arguments, str)
                    else json.dumps(step.arguments)
                )
                yield ToolCallDelta(index=calls, id=step.id, name=step.name, arguments_delta=raw)
                calls += 1
                parts.append(
                    ToolCallPart(
                        id=step.id, name=step.name, arguments=_parse(raw), raw_arguments=raw
                    )
                )
            elif isinstance(step, UsageStep):
                reported = step.usage
            elif isinstance(step, Fail):
                raise step.error
            elif isinstance(step, Delay):
                await anyio.sleep(step.seconds)
            elif isinstance(step, WaitFor):
                await step.event.wait()
            elif isinstance(step, Reached):
                step.event.set()
            else:
                finish_reason, raw_reason = step.reason, step.raw
        if reported.requests == 0:
            reported = replace(reported, requests=1)
        reason: FinishReason = finish_reason or ("tool_calls" if calls else "stop")
        message = AssistantMessage(
            parts=tuple(parts),
            model=request.model,
            provider=self.name,
            usage=reported,
            finish_reason=reason,
            raw_finish_reason=raw_reason,
        )
        yield ResponseCompleted(
            response=ModelResponse(
                message=message,
                usage=reported,
                finish_reason=reason,
                raw_finish_reason=raw_reason,
                model=request.model,
            )
        )


def _parse(raw: str) -> dict[str, JsonValue] | None:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
