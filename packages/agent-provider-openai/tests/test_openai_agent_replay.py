"""Multi-round recorded conversations run through a real Agent over the replayed responses.

For every recording where the model called tools and then answered, an :class:`Agent` with
tools of the same names (answering with the tool results the recorder sent back) must end with
the recorded final text.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from robota.core.agent import Agent
from robota.core.testing.cassette import Cassette, Interaction, load_cassette
from robota.core.tools.base import Tool, ToolContext, ToolOutput
from robota.providers.openai.replay import replay_provider


def _reader() -> Any:
    """The independent recorded-traffic reader of test_openai_cassettes.py."""
    path = Path(__file__).with_name("test_openai_cassettes.py")
    spec = importlib.util.spec_from_file_location("_openai_cassette_reader", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


READER = _reader()


class RecordedTool(Tool):
    """Answers each call with the result the recorder sent back for that call id."""

    def __init__(self, name: str, outputs: Mapping[str, str]) -> None:
        self.name = name
        self.description = f"recorded tool {name}"
        self.parameters = {"type": "object"}
        self.outputs = outputs
        self.calls: list[str] = []

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        self.calls.append(ctx.tool_call_id)
        return self.outputs.get(ctx.tool_call_id, "")


def _tool_outputs(calls: list[Interaction]) -> dict[str, str]:
    outputs: dict[str, str] = {}
    for call in calls:
        body = call.request_body or {}
        for message in body.get("messages") or []:
            if message.get("role") == "tool" and isinstance(message.get("content"), str):
                outputs[message["tool_call_id"]] = message["content"]
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                output = item.get("output")
                outputs[item["call_id"]] = output if isinstance(output, str) else json.dumps(output)
    return outputs


def conversations() -> list[tuple[Path, list[Interaction]]]:
    found: list[tuple[Path, list[Interaction]]] = []
    for file in sorted(READER.cassette_root().rglob("*.yaml")):
        calls = [
            i
            for i in load_cassette(file).interactions
            if i.method == "POST" and i.path.endswith(("/chat/completions", "/responses"))
        ]
        if len(calls) < 2 or any(i.status >= 400 for i in calls):
            continue
        if len({i.path for i in calls}) != 1 or len({i.is_stream for i in calls}) != 1:
            continue
        expected = [READER.expected_of(i) for i in calls]
        if not all(e.tool_calls for e in expected[:-1]) or expected[-1].tool_calls:
            continue
        if not expected[-1].text or any(
            e.raw_finish not in (None, "completed", "tool_calls", "stop") for e in expected
        ):
            continue
        if any(
            call.request_body and call.request_body.get("previous_response_id") for call in calls
        ):
            continue  # server-side state chains are not a local history replay
        found.append((file, calls))
    return found


CONVERSATIONS = conversations()


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("file", "calls"),
    CONVERSATIONS,
    ids=[f"{f.parent.name}/{f.stem}" for f, _ in CONVERSATIONS],
)
async def test_agent_reaches_the_recorded_final_answer(
    file: Path, calls: list[Interaction]
) -> None:
    expected = [READER.expected_of(i) for i in calls]
    names = sorted({name for e in expected for name, _ in e.tool_calls})
    outputs = _tool_outputs(calls)
    tools = [RecordedTool(name, outputs) for name in names]
    cassette = Cassette(path=file, interactions=calls)
    provider = replay_provider(cassette)
    model = (calls[0].request_body or {}).get("model") or "gpt-4o"
    agent = Agent(provider, model=str(model), tools=tools)
    result = await agent.run("replayed conversation")
    assert result.text == expected[-1].text
    assert cassette.served == len(calls)
    assert sum(len(t.calls) for t in tools) == sum(len(e.tool_calls) for e in expected[:-1])


def test_some_recorded_conversations_were_found() -> None:
    assert len(CONVERSATIONS) >= 3
