"""Multi-round recorded conversations run through a real Agent over the replayed responses.

Conversations are discovered from the recordings' content (``_openai_recorded.py``): every recording
whose model calls all answered, each but the last asking for tools and the last answering in
text. An :class:`Agent` with tools of the same names (answering with the tool results the
recorder sent back) must end with the recorded final text. Where a recorded Responses answer
holds a reasoning item, the next request must send that reasoning item back followed by the
items that came after it, each with its recorded id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import _openai_recorded as READER  # pyright: ignore[reportImplicitRelativeImport]
import pytest
from robota.core.agent import Agent
from robota.core.provider import PayloadEvent
from robota.core.testing.cassette import Cassette, Interaction
from robota.core.tools.base import Tool, ToolContext, ToolOutput
from robota.providers.openai.replay import replay_provider

LINKED = ("reasoning", "message", "function_call")
"""Output item types linked to each other by id when replayed."""


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


def answers(calls: list[Interaction]) -> list[READER.Expected]:
    """The recorded answers of ``calls`` (empty when one of them did not answer)."""
    outcomes = [READER.outcome(i) for i in calls]
    found = [o for o in outcomes if isinstance(o, READER.Expected)]
    return found if len(found) == len(outcomes) else []


def classify(calls: list[Interaction]) -> str | None:
    """None when ``calls`` is a local tool conversation an agent can replay, else why not."""
    if len({i.path for i in calls}) != 1 or len({i.is_stream for i in calls}) != 1:
        return "mixes API surfaces or streamed and buffered calls"
    outcomes = answers(calls)
    if not outcomes:
        return "a call did not answer"
    if not all(o.tool_calls for o in outcomes[:-1]) or outcomes[-1].tool_calls:
        return "not tool rounds followed by a text answer"
    if not outcomes[-1].text or any(
        o.raw_finish not in ("completed", "tool_calls", "stop") for o in outcomes
    ):
        return "no final text, or a round did not finish normally"
    if any(call.request_body and call.request_body.get("previous_response_id") for call in calls):
        return "server-side state chain (previous_response_id), not a local history replay"
    return None


def conversations() -> tuple[list[tuple[Path, list[Interaction]]], list[tuple[Path, str]]]:
    """(replayable conversations, (file, why not) for other multi-call recordings)."""
    found: list[tuple[Path, list[Interaction]]] = []
    other: list[tuple[Path, str]] = []
    for file, interactions in READER.recordings():
        calls = [i for i in interactions if READER.is_model_call(i)]
        if len(calls) < 2:
            continue
        reason = classify(calls)
        if reason is None:
            found.append((file, calls))
        else:
            other.append((file, reason))
    return found, other


def linked_items(items: list[Any]) -> list[tuple[str, str | None]]:
    """(type, id) of the reasoning / message / function_call items, in order."""
    out: list[tuple[str, str | None]] = []
    for item in items:
        if isinstance(item, dict) and item.get("type") in LINKED:
            out.append((str(item["type"]), item.get("id")))
    return out


def replayed_ids_problem(calls: list[Interaction], payloads: list[PayloadEvent]) -> str | None:
    """For each recorded Responses answer holding a reasoning item: the next request must carry
    the answer's reasoning / message / function_call items in order, with their ids."""
    requests = [p.payload for p in payloads if p.direction == "request"]
    for index, exp in enumerate(answers(calls)[:-1]):
        recorded = linked_items(exp.output_items)
        if not any(kind == "reasoning" for kind, _ in recorded):
            continue
        sent = requests[index + 1]
        assert isinstance(sent, dict)
        items = sent.get("input")
        replayed = linked_items(items if isinstance(items, list) else [])
        start = next(
            (i for i in range(len(replayed)) if replayed[i : i + len(recorded)] == recorded),
            None,
        )
        if start is None:
            return f"request {index + 1} input items {replayed} lack {recorded} in order"
    return None


async def run_conversation(file: Path, calls: list[Interaction]) -> tuple[str | None, bool]:
    """Replay one conversation: (what differed or None, whether reasoning ids were checked)."""
    expected = answers(calls)
    names = sorted({name for e in expected for name, _ in e.tool_calls})
    outputs = _tool_outputs(calls)
    tools = [RecordedTool(name, outputs) for name in names]
    cassette = Cassette(path=file, interactions=calls)
    provider = replay_provider(cassette)
    payloads: list[PayloadEvent] = []
    model = (calls[0].request_body or {}).get("model") or "gpt-4o"
    agent = Agent(provider, model=str(model), tools=tools, on_payload=payloads.append)
    try:
        result = await agent.run("replayed conversation")
    finally:
        await provider.aclose()
    problems: list[str] = []
    if result.text != expected[-1].text:
        problems.append(f"final text {result.text[:60]!r} != {expected[-1].text[:60]!r}")
    if cassette.served != len(calls):
        problems.append(f"served {cassette.served} of {len(calls)} recorded calls")
    dispatched = sum(len(t.calls) for t in tools)
    if dispatched != sum(len(e.tool_calls) for e in expected[:-1]):
        problems.append(f"dispatched {dispatched} tool calls")
    checked = any(
        kind == "reasoning" for e in expected[:-1] for kind, _ in linked_items(e.output_items)
    )
    ids = replayed_ids_problem(calls, payloads)
    if ids is not None:
        problems.append(ids)
    return "; ".join(problems) or None, checked


@pytest.mark.anyio
async def test_agents_reach_the_recorded_final_answers() -> None:
    found, other = conversations()
    if not found and not other:
        pytest.skip(f"no multi-call recordings under {READER.cassette_root()}")
    failures: list[str] = []
    with_reasoning = 0
    for file, calls in found:
        problem, checked = await run_conversation(file, calls)
        with_reasoning += int(checked and problem is None)
        if problem is not None:
            failures.append(f"{file.parent.name}/{file.stem}: {problem}")
    for file, reason in other:
        print(f"not replayed: {file.parent.name}/{file.stem}: {reason}")
    for failure in failures:
        print(f"FAILED {failure}")
    decoded = len(found) - len(failures)
    print(
        f"cassettes(openai agent replay): decoded={decoded} errors_typed=0 "
        f"skipped={len(other)} total={len(found) + len(other)} failed={len(failures)} "
        f"reasoning_ids_checked={with_reasoning}"
    )
    assert failures == []
