"""A scripted provider for tests (CONVENTIONS.md, "Tests": the same object Robota's own loop
tests use).

:class:`ScriptedProvider` plays back scripted turns — one turn per provider call — and records
every :class:`~robota.core.provider.ModelRequest` it receives. A turn is a sequence of steps:
streamed text, thinking (with a signature), tool calls (a raw string argument may be unparseable
JSON; ``hosted=True`` makes a call the vendor ran itself, answered by a :func:`hosted_result`
step and counted in the response's usage as the vendor adapters count it), usage (final, or reported mid-stream as a
:class:`~robota.core.provider.UsageReported`), an error to raise, a delay, a checkpoint to wait
on or to signal, a finish reason (normalized and raw), the point where the final
:class:`~robota.core.provider.ResponseCompleted` is yielded (:func:`complete`; later steps run
while the stream closes), and a stream cut before its final event (:func:`cut`). A plain string
is a text step; a plain string as a whole turn is a one-text-step turn.

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
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import anyio
from robota.core.capabilities import ModelCapabilities, ModelInfo, hosted_call_counts
from robota.core.errors import ProviderError
from robota.core.messages import (
    AssistantMessage,
    FinishReason,
    HostedToolResultPart,
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
    UsageReported,
)
from robota.core.usage import Usage

__all__ = [
    "Complete",
    "Cut",
    "Delay",
    "Fail",
    "Finish",
    "HostedResult",
    "Reached",
    "ReportUsage",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "Step",
    "Text",
    "Thinking",
    "ToolCall",
    "Turn",
    "UsageStep",
    "WaitFor",
    "complete",
    "cut",
    "delay",
    "fail",
    "finish",
    "hosted_result",
    "reached",
    "report_usage",
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
    may be invalid JSON, e.g. ``'{"path": "a'`` cut by the token limit: the assembled call's
    ``arguments`` is then None).

    ``hosted`` True makes a call the vendor ran itself (a ``ToolCallPart`` with ``hosted=True``):
    like the vendor adapters, it streams no :class:`~robota.core.provider.ToolCallDelta`, does
    not make the default finish reason ``tool_calls``, and is counted in the response's usage
    under ``hosted.<name>`` when ``name`` is a :class:`~robota.core.capabilities.HostedTool`
    value (a count a :class:`UsageStep` states itself wins, as a vendor-stated count does)."""

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, JsonValue] | str
    hosted: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class HostedResult:
    """The vendor's result of a hosted call: a
    :class:`~robota.core.messages.HostedToolResultPart` in the response (nothing is streamed).

    Attributes:
        call_id: The id of the hosted :class:`ToolCall` it answers.
        name: The hosted tool's name.
        content: The vendor's result payload (JSON), kept verbatim.
    """

    kind: Literal["hosted_result"] = "hosted_result"
    call_id: str
    name: str
    content: JsonValue = None


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
    """The finish reason: ``reason`` is the normalized category (default: ``tool_calls`` when
    the turn has tool calls, else ``stop``), ``raw`` the vendor's own string (e.g.
    ``"max_tokens"``)."""

    kind: Literal["finish"] = "finish"
    reason: FinishReason
    raw: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ReportUsage:
    """Yield a :class:`~robota.core.provider.UsageReported` with ``usage`` (the cumulative usage
    of the call so far, as Anthropic's ``message_start`` reports it). It is not the response's
    final usage: add a :class:`UsageStep` for that."""

    kind: Literal["report_usage"] = "report_usage"
    usage: Usage


@dataclass(frozen=True, kw_only=True, slots=True)
class Complete:
    """Yield the final :class:`~robota.core.provider.ResponseCompleted` here, before the steps
    after it (a delay, a checkpoint, an error: what happens while a vendor's stream closes).
    Steps after it may not add content (text, thinking, tool calls, usage, finish)."""

    kind: Literal["complete"] = "complete"


@dataclass(frozen=True, kw_only=True, slots=True)
class Cut:
    """End the stream here without a final :class:`~robota.core.provider.ResponseCompleted`
    (a connection cut before the vendor's last event)."""

    kind: Literal["cut"] = "cut"


Step = (
    Text
    | Thinking
    | ToolCall
    | HostedResult
    | UsageStep
    | ReportUsage
    | Fail
    | Delay
    | WaitFor
    | Reached
    | Finish
    | Complete
    | Cut
)
Turn = str | Sequence[Step | str]


def text(value: str) -> Text:
    """A text step."""
    return Text(text=value)


def thinking(value: str, signature: str | None = None) -> Thinking:
    """A thinking step."""
    return Thinking(text=value, signature=signature)


def tool_call(
    id: str,
    name: str,
    arguments: dict[str, JsonValue] | str | None = None,
    *,
    hosted: bool = False,
) -> ToolCall:
    """A tool call step (``arguments`` None means ``{}``); ``hosted=True``: a call the vendor
    ran itself (see :class:`ToolCall`), never dispatched locally.

    Example:
        >>> from robota.core.agent import Agent
        >>> provider = ScriptedProvider([[
        ...     tool_call("ws_1", "web_search", {"query": "robota"}, hosted=True),
        ...     hosted_result("ws_1", "web_search", [{"url": "https://example.com"}]),
        ...     text("Found it."),
        ... ]])
        >>> result = Agent(provider).run_sync("Search")
        >>> result.text, dict(result.usage.hosted_calls), len(provider.requests)
        ('Found it.', {'web_search': 1}, 1)
    """
    return ToolCall(
        id=id, name=name, arguments={} if arguments is None else arguments, hosted=hosted
    )


def hosted_result(call_id: str, name: str, content: JsonValue = None) -> HostedResult:
    """A hosted tool result step answering the hosted call ``call_id``."""
    return HostedResult(call_id=call_id, name=name, content=content)


def usage(*, input_tokens: int = 0, output_tokens: int = 0, **more: Any) -> UsageStep:
    """A usage step; extra keywords are :class:`~robota.core.usage.Usage` fields."""
    return UsageStep(usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens, **more))


def report_usage(*, input_tokens: int = 0, output_tokens: int = 0, **more: Any) -> ReportUsage:
    """A mid-stream usage report; extra keywords are :class:`~robota.core.usage.Usage`
    fields."""
    return ReportUsage(usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens, **more))


def complete() -> Complete:
    """The step yielding the final response (later steps run after it)."""
    return Complete()


def cut() -> Cut:
    """A step ending the stream without a final response."""
    return Cut()


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
        self._played = 0

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
        """Play the next turn. See the module docstring for the steps.

        Raises:
            ScriptExhaustedError: no turn is left.
            ValueError: a content step after :func:`complete`.
            ProviderError: what a :func:`fail` step holds.
        """
        self.requests.append(request)
        if not self._turns:
            raise ScriptExhaustedError(
                f"ScriptedProvider was called {len(self.requests)} times but the script has "
                f"only {self._played} turn(s); add a turn for this request (a provider plays "
                "its script once: build a new one for every run that needs the same answers)"
            )
        turn = self._turns.pop(0)
        self._played += 1
        steps: Sequence[Step | str] = [turn] if isinstance(turn, str) else turn
        state = _TurnState()
        completed = False
        for raw_step in steps:
            step = Text(text=raw_step) if isinstance(raw_step, str) else raw_step
            if completed and isinstance(
                step, Text | Thinking | ToolCall | HostedResult | UsageStep | Finish
            ):
                raise ValueError(f"a {step.kind!r} step cannot follow complete()")
            if isinstance(step, Complete):
                if not completed:
                    completed = True
                    yield self._completed(request, state)
            elif isinstance(step, Cut):
                return
            elif isinstance(step, Fail):
                raise step.error
            elif isinstance(step, Delay):
                await anyio.sleep(step.seconds)
            elif isinstance(step, WaitFor):
                await step.event.wait()
            elif isinstance(step, Reached):
                step.event.set()
            else:
                event = self._content(step, state)
                if event is not None:
                    yield event
        if not completed:
            yield self._completed(request, state)

    def _content(
        self,
        step: Text | Thinking | ToolCall | HostedResult | UsageStep | ReportUsage | Finish,
        state: _TurnState,
    ) -> StreamEvent | None:
        parts = state.parts
        if isinstance(step, Text):
            if parts and isinstance(parts[-1], TextPart):
                parts[-1] = TextPart(text=parts[-1].text + step.text)
            else:
                parts.append(TextPart(text=step.text))
            return TextDelta(text=step.text)
        if isinstance(step, Thinking):
            parts.append(ThinkingPart(text=step.text, signature=step.signature, provider=self.name))
            return ThinkingDelta(text=step.text)
        if isinstance(step, ToolCall):
            raw = step.arguments if isinstance(step.arguments, str) else json.dumps(step.arguments)
            if step.hosted:
                parts.append(
                    ToolCallPart(
                        id=step.id,
                        name=step.name,
                        arguments=_parse(raw),
                        raw_arguments=raw,
                        hosted=True,
                        provider=self.name,
                    )
                )
                return None
            index = state.calls
            state.calls += 1
            parts.append(
                ToolCallPart(id=step.id, name=step.name, arguments=_parse(raw), raw_arguments=raw)
            )
            return ToolCallDelta(index=index, id=step.id, name=step.name, arguments_delta=raw)
        if isinstance(step, HostedResult):
            parts.append(
                HostedToolResultPart(
                    call_id=step.call_id, name=step.name, content=step.content, provider=self.name
                )
            )
            return None
        if isinstance(step, UsageStep):
            state.usage = step.usage
            return None
        if isinstance(step, ReportUsage):
            return UsageReported(usage=step.usage)
        state.finish_reason, state.raw_reason = step.reason, step.raw
        return None

    def _completed(self, request: ModelRequest, state: _TurnState) -> ResponseCompleted:
        reported = state.usage.with_hosted_calls(hosted_call_counts(state.parts))
        if reported.requests == 0:
            reported = replace(reported, requests=1)
        reason: FinishReason = state.finish_reason or ("tool_calls" if state.calls else "stop")
        message = AssistantMessage(
            parts=tuple(state.parts),
            model=request.model,
            provider=self.name,
            usage=reported,
            finish_reason=reason,
            raw_finish_reason=state.raw_reason,
        )
        return ResponseCompleted(
            response=ModelResponse(
                message=message,
                usage=reported,
                finish_reason=reason,
                raw_finish_reason=state.raw_reason,
                model=request.model,
            )
        )


@dataclass(kw_only=True, slots=True)
class _TurnState:
    """What one turn assembled so far."""

    parts: list[TextPart | ThinkingPart | ToolCallPart | HostedToolResultPart] = field(
        default_factory=list[TextPart | ThinkingPart | ToolCallPart | HostedToolResultPart]
    )
    usage: Usage = field(default_factory=Usage)
    finish_reason: FinishReason | None = None
    raw_reason: str | None = None
    calls: int = 0


def _parse(raw: str) -> dict[str, JsonValue] | None:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
