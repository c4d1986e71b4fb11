"""Replay every recorded api.anthropic.com interaction through the provider and compare what a
user sees with values read independently from the recorded bytes (``_anthropic_wire``)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from robota.core.agent import Agent
from robota.core.errors import ContextWindowExceededError, ProviderError
from robota.core.messages import SystemMessage, TextPart, ThinkingPart, ToolCallPart, UserMessage
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

# --- independent reader of the recorded bytes (shares no code with the adapter) ---


def cassette_root() -> Path:
    """``ROBOTA_CASSETTE_DIR`` or ``<repo>/../shared/cassettes/pydantic-ai``."""
    env = os.environ.get("ROBOTA_CASSETTE_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    repo = next(p for p in here.parents if (p / "packages").is_dir())
    return repo.parent / "shared" / "cassettes" / "pydantic-ai"


@dataclass
class Expected:
    text: str = ""
    thinking: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    hosted_calls: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read: int = 0
    cache_write: int = 0
    stop_reason: str | None = None
    model: str = ""


_STOPS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


def expected_finish(stop_reason: str | None) -> str:
    return _STOPS.get(stop_reason or "", "other")


def _usage(exp: Expected, usage: dict[str, Any]) -> None:
    exp.cache_read = usage.get("cache_read_input_tokens") or 0
    exp.cache_write = usage.get("cache_creation_input_tokens") or 0
    exp.input_tokens = (usage.get("input_tokens") or 0) + exp.cache_read + exp.cache_write
    exp.output_tokens = usage.get("output_tokens") or 0


def read_json(body: dict[str, Any]) -> Expected:
    exp = Expected(model=body.get("model", ""), stop_reason=body.get("stop_reason"))
    for block in body.get("content", []):
        if block["type"] == "text":
            exp.text += block["text"]
        elif block["type"] == "thinking":
            exp.thinking += block["thinking"]
        elif block["type"] == "tool_use":
            exp.tool_calls.append((block["name"], block["input"]))
        elif block["type"] == "server_tool_use":
            exp.hosted_calls.append(block["name"])
    _usage(exp, body.get("usage") or {})
    return exp


def read_sse(raw: bytes) -> Expected:
    exp = Expected()
    usage: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    for line in raw.decode().splitlines():
        if not line.startswith("data:"):
            continue
        event = json.loads(line[5:])
        kind = event["type"]
        if kind == "message_start":
            exp.model = event["message"]["model"]
            usage.update(event["message"].get("usage") or {})
        elif kind == "content_block_start":
            block = dict(event["content_block"])
            block["_json"] = ""
            blocks[event["index"]] = block
            if block["type"] == "text":
                exp.text += block.get("text", "")
            if block["type"] == "server_tool_use":
                exp.hosted_calls.append(block["name"])
        elif kind == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "text_delta":
                exp.text += delta["text"]
            elif delta["type"] == "thinking_delta":
                exp.thinking += delta["thinking"]
            elif delta["type"] == "input_json_delta":
                blocks[event["index"]]["_json"] += delta["partial_json"]
        elif kind == "content_block_stop":
            block = blocks[event["index"]]
            if block["type"] == "tool_use":
                args = json.loads(block["_json"]) if block["_json"] else {}
                exp.tool_calls.append((block["name"], args))
        elif kind == "message_delta":
            exp.stop_reason = event["delta"].get("stop_reason") or exp.stop_reason
            usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})
    _usage(exp, usage)
    return exp


# --- replay ---

_ERROR_CLASSES = {
    "invalid_request_error": "BadRequestError",
    "authentication_error": "AuthenticationError",
    "permission_error": "PermissionDeniedError",
    "not_found_error": "NotFoundError",
    "rate_limit_error": "RateLimitError",
    "api_error": "InternalServerError",
    "overloaded_error": "OverloadedError",
}


def _interactions() -> list[tuple[str, int, Interaction]]:
    root = cassette_root()
    found: list[tuple[str, int, Interaction]] = []
    for path in sorted(root.rglob("*.yaml")):
        cassette = load_cassette(path)
        for index, interaction in enumerate(cassette.interactions):
            if interaction.host.endswith("anthropic.com"):
                found.append((str(path.relative_to(root)), index, interaction))
    return found


def _request(body: dict[str, Any]) -> ModelRequest:
    messages: list[Any] = []
    system = body.get("system")
    if isinstance(system, list):
        system = "".join(b.get("text", "") for b in system)
    if system:
        messages.append(SystemMessage(content=system))
    prompt = "replay"
    for message in body.get("messages") or []:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            prompt = content
        elif message.get("role") == "user" and isinstance(content, list):
            texts = [b["text"] for b in content if b.get("type") == "text" and b.get("text")]
            prompt = texts[-1] if texts else prompt
    messages.append(UserMessage.of(prompt))
    tools = tuple(
        ToolDefinition(
            name=t["name"],
            description=t.get("description") or "",
            parameters=t["input_schema"],
            strict=t.get("strict"),
        )
        for t in body.get("tools") or []
        if "input_schema" in t
    )
    return ModelRequest(model=body["model"], messages=tuple(messages), tools=tools)


def _check(response: ModelResponse, exp: Expected, problems: list[str]) -> None:
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


async def _replay_one(interaction: Interaction) -> tuple[bool, list[str]]:
    """Returns (covered, problems)."""
    cassette = Cassette(path=Path("one.yaml"), interactions=[interaction])
    provider = replay_provider(cassette)
    problems: list[str] = []
    if interaction.path == "/v1/messages/count_tokens":
        body = interaction.request_body or {}
        tokens = await provider.count_tokens(_request(body))
        if tokens != interaction.json["input_tokens"]:
            problems.append(f"count_tokens {tokens} != {interaction.json['input_tokens']}")
        return True, problems
    if interaction.path != "/v1/messages":
        return False, [f"not covered: {interaction.method} {interaction.path}"]
    request = _request(interaction.request_body or {})
    if interaction.status >= 400:
        error_type = (interaction.json or {}).get("error", {}).get("type")
        try:
            await provider.complete(request)
        except ContextWindowExceededError as exc:
            if exc.provider_error is None or exc.provider_error.status != interaction.status:
                problems.append("context window error lost its provider details")
        except ProviderError as exc:
            want = _ERROR_CLASSES.get(error_type or "")
            if want and type(exc).__name__ != want:
                problems.append(f"error class {type(exc).__name__} != {want}")
            if exc.status != interaction.status:
                problems.append(f"status {exc.status} != {interaction.status}")
        else:
            problems.append("no error raised for an error response")
        return True, problems
    if interaction.is_stream:
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
        expected = read_sse(interaction.body)
        if text != expected.text:
            problems.append("streamed text deltas differ from the recorded text")
        if thinking != expected.thinking:
            problems.append("streamed thinking deltas differ from the recorded thinking")
        _check(final, expected, problems)
    else:
        _check(await provider.complete(request), read_json(interaction.json), problems)
    return True, problems


@pytest.mark.anyio
async def test_every_recorded_anthropic_interaction_decodes() -> None:
    interactions = _interactions()
    if not interactions:
        pytest.skip(f"no cassettes under {cassette_root()}")
    covered = decoded = 0
    failures: list[str] = []
    for name, index, interaction in interactions:
        is_covered, problems = await _replay_one(interaction)
        if not is_covered:
            print(f"skipped {name}#{index}: {problems[0]}")
            continue
        covered += 1
        if problems:
            failures.append(f"{name}#{index}: " + "; ".join(problems))
        else:
            decoded += 1
    total = len(interactions)
    print(f"cassettes: decoded={decoded} covered={covered} total={total} failed={len(failures)}")
    assert failures == []
    assert covered > 0


def test_the_reader_sees_text_and_tools_in_a_known_recording() -> None:
    """Guards the independent reader itself on one recording whose content is known."""
    path = cassette_root() / "test_anthropic" / "test_anthropic_mixed_strict_tool_run.yaml"
    if not path.exists():
        pytest.skip("cassette not available")
    cassette = load_cassette(path)
    first = read_json(cassette.interactions[0].json)
    last = read_json(cassette.interactions[2].json)
    assert first.tool_calls == [("country_source", {})]
    assert first.input_tokens == 628
    assert last.text == "Capital: Tokyo"
    assert isinstance(TextPart(text=last.text).text, str)


# --- multi-round: a real Agent over recorded tool-calling conversations ---


class _ReplayedTool(Tool):
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


def _tool_answers(interactions: list[Interaction]) -> dict[str, list[str]]:
    """Tool name → recorded tool_result texts, in order (read from the recorded requests)."""
    answers: dict[str, list[str]] = {}
    last_body = interactions[-1].request_body or {}
    names: dict[str, str] = {}
    for message in last_body.get("messages") or []:
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_use":
                names[block["id"]] = block["name"]
            elif block.get("type") == "tool_result":
                content = block.get("content")
                if isinstance(content, list):
                    content = "".join(b.get("text", "") for b in content)
                answers.setdefault(names[block["tool_use_id"]], []).append(str(content or ""))
    return answers


def _agent_conversations() -> list[tuple[str, list[Interaction]]]:
    found: list[tuple[str, list[Interaction]]] = []
    for path in sorted(cassette_root().rglob("*.yaml")):
        cassette = load_cassette(path)
        its = list(cassette.interactions)
        if len(its) < 2 or any(
            not i.host.endswith("anthropic.com") or i.path != "/v1/messages" or i.is_stream
            for i in its
        ):
            continue
        bodies = [i.json or {} for i in its]
        kinds = {b["type"] for body in bodies for b in body.get("content", [])}
        tools = (its[0].request_body or {}).get("tools") or []
        if (
            "tool_use" not in kinds
            or kinds - {"text", "tool_use", "thinking"}
            or bodies[-1].get("stop_reason") != "end_turn"
            or not all("input_schema" in t for t in tools)
            or any(t["name"] == "final_result" for t in tools)
            or (its[0].request_body or {}).get("thinking")
        ):
            continue
        found.append((str(path.relative_to(cassette_root())), its))
    return found


@pytest.mark.anyio
async def test_agent_runs_recorded_tool_conversations_to_the_recorded_answer() -> None:
    conversations = _agent_conversations()
    names = [name for name, _ in conversations]
    if not conversations:
        pytest.skip("no cassettes")
    assert "test_anthropic/test_anthropic_mixed_strict_tool_run.yaml" in names
    for name, its in conversations:
        first = its[0].request_body or {}
        answers = _tool_answers(its)
        tools = [_ReplayedTool(t, list(answers.get(t["name"], []))) for t in first["tools"]]
        request = _request(first)
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
        assert result.text == read_json(its[-1].json).text, name
        assert cassette.served == len(its), name
        assert result.usage.requests == len(its), name
        recorded_calls = [
            b["input"] for i in its for b in (i.json or {})["content"] if b["type"] == "tool_use"
        ]
        made = [c for t in tools for c in t.calls]
        assert made, name
        assert sorted(map(json.dumps, made)) == sorted(map(json.dumps, recorded_calls)), name
    print(f"agent conversations replayed: {len(conversations)}: {names}")
