"""Replaying recorded interactions through the real provider and judging what a user sees — the
answer, or the typed error — against ``_anthropic_wire``'s independent reading of the bytes;
and finding the recorded tool conversations an agent can replay. Names no recording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _anthropic_wire import (  # pyright: ignore[reportImplicitRelativeImport]
    Expected,
    ExpectedError,
    cassette_root,
    expect,
    expected_finish,
    read_json,
)
from robota.core.agent import Agent
from robota.core.errors import ContextWindowExceededError, ProviderError, RobotaError
from robota.core.messages import SystemMessage, ThinkingPart, ToolCallPart, UserMessage
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    ResponseCompleted,
    TextDelta,
    ThinkingDelta,
    ToolDefinition,
)
from robota.core.testing.cassette import Cassette, Interaction, load_cassette
from robota.core.tools.base import Tool, ToolContext
from robota.providers.anthropic.replay import replay_provider

# --- a request our adapter can send in place of the recorded one ---


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(b.get("text") or "")
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def request_for(body: Any) -> ModelRequest:
    body = body if isinstance(body, dict) else {}
    messages: list[Any] = []
    system = _text_of(body.get("system"))
    if system.strip():
        messages.append(SystemMessage(content=system))
    prompt = "replay"
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            prompt = _text_of(message.get("content")).strip() or prompt
    messages.append(UserMessage.of(prompt))
    tools = tuple(
        ToolDefinition(
            name=t["name"],
            description=t.get("description") or "",
            parameters=t["input_schema"],
            strict=t.get("strict"),
        )
        for t in body.get("tools") or []
        if isinstance(t, dict) and isinstance(t.get("input_schema"), dict) and "name" in t
    )
    model = body.get("model") if isinstance(body.get("model"), str) else "claude-sonnet-4-6"
    return ModelRequest(model=model, messages=tuple(messages), tools=tools)


# --- judging an outcome ---


def _check_answer(response: ModelResponse, exp: Expected, problems: list[str]) -> None:
    message = response.message
    got_thinking = "".join(p.text for p in message.parts if isinstance(p, ThinkingPart))
    calls = [(c.name, c.arguments) for c in message.tool_calls]
    hosted = [p.name for p in message.parts if isinstance(p, ToolCallPart) and p.hosted]
    pairs = {
        "text": (message.text, exp.text),
        "thinking": (got_thinking, exp.thinking),
        "tool_calls": (calls, exp.tool_calls),
        "hosted_calls": (hosted, exp.hosted_calls),
        "input_tokens": (response.usage.input_tokens, exp.input_tokens),
        "output_tokens": (response.usage.output_tokens, exp.output_tokens),
        "cache_read": (response.usage.cache_read_tokens, exp.cache_read),
        "cache_write": (response.usage.cache_write_tokens, exp.cache_write),
        "finish": (response.finish_reason, expected_finish(exp.stop_reason)),
        "raw_finish": (response.raw_finish_reason, exp.stop_reason),
        "model": (response.model, exp.model),
    }
    for key, (got, want) in pairs.items():
        if got != want:
            problems.append(f"{key}: got {got!r:.120} want {want!r:.120}")


def check_error(error: BaseException, want: ExpectedError) -> list[str]:
    """Problems with ``error`` as the decoding of a response expected to fail as ``want``."""
    if isinstance(error, ContextWindowExceededError):
        inner = error.provider_error
        problems = [] if want.name == "BadRequestError" else [f"context error, want {want.name}"]
        if inner is None or inner.status != want.status or inner.vendor_type != want.vendor_type:
            problems.append("context window error lost its status or type")
        return problems
    problems: list[str] = []
    if want.overflow:
        problems.append(f"{type(error).__name__} for 'prompt is too long', want context error")
    if type(error).__name__ != want.name:
        problems.append(f"error class {type(error).__name__} != {want.name}: {error}")
    if isinstance(error, ProviderError) and want.name != "MalformedResponseError":
        if error.status != want.status:
            problems.append(f"status {error.status} != {want.status}")
        if error.vendor_type != want.vendor_type:
            problems.append(f"vendor type {error.vendor_type} != {want.vendor_type}")
    return problems


async def _call(interaction: Interaction, problems: list[str]) -> ModelResponse | None:
    provider = replay_provider(Cassette(path=Path("one.yaml"), interactions=[interaction]))
    request = request_for(interaction.request_body)
    wants_stream = isinstance(interaction.request_body, dict) and bool(
        interaction.request_body.get("stream")
    )
    if not (wants_stream or interaction.is_stream):
        return await provider.complete(request)
    text = thinking = ""
    final: ModelResponse | None = None
    async for event in provider.stream(request):
        if isinstance(event, TextDelta):
            text += event.text
        elif isinstance(event, ThinkingDelta):
            thinking += event.text
        elif isinstance(event, ResponseCompleted):
            final = event.response
    assert final is not None
    if text != final.message.text:
        problems.append("streamed text deltas differ from the final text")
    if thinking != "".join(p.text for p in final.message.parts if isinstance(p, ThinkingPart)):
        problems.append("streamed thinking deltas differ from the final thinking")
    return final


async def _count(interaction: Interaction) -> int | None:
    provider = replay_provider(Cassette(path=Path("one.yaml"), interactions=[interaction]))
    return await provider.count_tokens(request_for(interaction.request_body))


def _expect_count(interaction: Interaction) -> Expected | ExpectedError:
    body = interaction.json
    if interaction.status >= 400 or not isinstance(body, dict):
        return expect(interaction)
    tokens = body.get("input_tokens")
    if isinstance(tokens, int):
        return Expected(input_tokens=tokens)
    found = read_json(body)
    return found if isinstance(found, ExpectedError) else ExpectedError("MalformedResponseError")


async def replay_one(interaction: Interaction) -> tuple[str, list[str]]:
    """``("answer" | "error" | "skipped", problems)`` for one recorded interaction."""
    if interaction.path == "/v1/messages/count_tokens":
        want: Expected | ExpectedError = _expect_count(interaction)
        try:
            tokens = await _count(interaction)
        except RobotaError as exc:
            if isinstance(want, ExpectedError):
                return "error", check_error(exc, want)
            return "answer", [f"unexpected {type(exc).__name__}: {exc}"]
        if isinstance(want, ExpectedError):
            return "error", [f"no error raised, want {want.name}"]
        return "answer", [] if tokens == want.input_tokens else [f"count {tokens}"]
    if interaction.path != "/v1/messages":
        return "skipped", [f"not covered: {interaction.method} {interaction.path}"]
    want = expect(interaction)
    problems: list[str] = []
    try:
        response = await _call(interaction, problems)
    except RobotaError as exc:
        if isinstance(want, ExpectedError):
            return "error", check_error(exc, want)
        return "answer", [f"unexpected {type(exc).__name__}: {exc}"]
    if isinstance(want, ExpectedError):
        return "error", [f"an answer where {want.name} was due"]
    assert response is not None
    _check_answer(response, want, problems)
    return "answer", problems


async def summarize(interactions: list[tuple[str, int, Interaction]]) -> tuple[str, list[str]]:
    """Replay ``interactions``; return the summary line
    (``cassettes(anthropic): decoded=N errors_typed=M skipped=K total=T failed=F``; an
    interaction decoded into its due typed error counts in both ``decoded`` and
    ``errors_typed``) and the failures."""
    decoded = errors_typed = skipped = 0
    failures: list[str] = []
    for name, index, interaction in interactions:
        outcome, problems = await replay_one(interaction)
        if outcome == "skipped":
            skipped += 1
            print(f"skipped {name}#{index}: {problems[0]}")
        elif problems:
            failures.append(f"{name}#{index}: " + "; ".join(problems))
        else:
            decoded += 1
            errors_typed += outcome == "error"
    line = (
        f"cassettes(anthropic): decoded={decoded} errors_typed={errors_typed} "
        f"skipped={skipped} total={len(interactions)} failed={len(failures)}"
    )
    return line, failures


# --- multi-round: a real Agent over recorded tool-calling conversations ---


class ReplayedTool(Tool):
    """A tool of a recorded name that answers with the result the recording sent back."""

    def __init__(self, spec: dict[str, Any], answers: list[str]) -> None:
        self.name = spec["name"]
        self.description = spec.get("description") or ""
        self.parameters = spec["input_schema"]
        self.strict = spec.get("strict")
        self._answers = answers
        self.calls: list[dict[str, Any]] = []

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> str:
        self.calls.append(arguments)
        return self._answers.pop(0) if self._answers else ""


def tool_answers(interactions: list[Interaction]) -> dict[str, list[str]]:
    """Tool name → recorded tool_result texts, in order (read from the last recorded request)."""
    answers: dict[str, list[str]] = {}
    last_body = interactions[-1].request_body or {}
    names: dict[str, str] = {}
    for message in last_body.get("messages") or []:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use":
                names[block["id"]] = block["name"]
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in names:
                text = _text_of(block.get("content"))
                answers.setdefault(names[block["tool_use_id"]], []).append(text)
    return answers


def agent_conversations() -> list[tuple[str, list[Interaction]]]:
    """Recordings that are one whole buffered tool conversation our agent can replay."""
    found: list[tuple[str, list[Interaction]]] = []
    root = cassette_root()
    for path in sorted(root.rglob("*.yaml")) if root.is_dir() else []:
        its = list(load_cassette(path).interactions)
        if len(its) < 2 or any(
            not i.host.endswith("anthropic.com")
            or i.path != "/v1/messages"
            or i.is_stream
            or i.status != 200
            or not isinstance(i.json, dict)
            or not isinstance(i.request_body, dict)
            for i in its
        ):
            continue
        wanted = [read_json(i.json) for i in its]
        bodies = [i.json or {} for i in its]
        kinds = {b.get("type") for body in bodies for b in body.get("content") or []}
        first = its[0].request_body or {}
        tools = first.get("tools") or []
        if (
            any(isinstance(w, ExpectedError) for w in wanted)
            or "tool_use" not in kinds
            or kinds - {"text", "tool_use", "thinking"}
            or bodies[-1].get("stop_reason") != "end_turn"
            or any(b.get("stop_reason") not in ("tool_use", "end_turn") for b in bodies)
            or not all(isinstance(t, dict) and "input_schema" in t for t in tools)
            or any(t["name"] == "final_result" for t in tools)
            or first.get("thinking")
        ):
            continue
        found.append((str(path.relative_to(root)), its))
    return found


async def replay_conversation(name: str, its: list[Interaction]) -> None:
    """Run a real :class:`Agent` over the recorded conversation ``its``; assert it reaches the
    recorded answer with the recorded tool calls, using every recorded response once."""
    first = its[0].request_body or {}
    answers = tool_answers(its)
    tools = [ReplayedTool(t, list(answers.get(t["name"], []))) for t in first["tools"]]
    request = request_for(first)
    system = next((m.content for m in request.messages if isinstance(m, SystemMessage)), None)
    cassette = Cassette(path=Path(name), interactions=its)
    agent = Agent(
        replay_provider(cassette),
        model=first["model"],
        system_prompt=system,
        tools=tools,
        max_rounds=len(its),
    )
    prompt = request.messages[-1]
    assert isinstance(prompt, UserMessage)
    result = await agent.run(prompt)
    final = read_json(its[-1].json)
    assert isinstance(final, Expected), name
    assert result.text == final.text, name
    assert cassette.served == len(its), name
    assert result.usage.requests == len(its), name
    recorded_calls = [
        b["input"] for i in its for b in (i.json or {})["content"] if b["type"] == "tool_use"
    ]
    made = [c for t in tools for c in t.calls]
    assert made, name
    assert sorted(map(json.dumps, made)) == sorted(map(json.dumps, recorded_calls)), name
