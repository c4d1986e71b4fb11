"""A committed response holding hosted tool calls emits one ``HostedToolCalled`` per call,
after ``ModelResponded``; hosted calls are never dispatched locally (issue 17)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from robota.core.agent import Agent
from robota.core.agent.events import HostedToolCalled, ModelResponded, ToolCallStarted
from robota.core.messages import HostedToolResultPart, ToolCallPart
from robota.core.provider import ModelRequest, ResponseCompleted, StreamEvent
from robota.core.testing.recording import EventRecorder
from robota.core.testing.scripted import ScriptedProvider


class HostedProvider(ScriptedProvider):
    """Answers like the vendors do after running two hosted searches themselves."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for event in super().stream(request):
            if isinstance(event, ResponseCompleted):
                message = event.response.message
                parts = (
                    ToolCallPart(id="ws_1", name="web_search", arguments={"q": "a"}, hosted=True),
                    HostedToolResultPart(call_id="ws_1", name="web_search", content=[]),
                    ToolCallPart(id="ws_2", name="web_search", arguments={"q": "b"}, hosted=True),
                    HostedToolResultPart(call_id="ws_2", name="web_search", content=[]),
                    *message.parts,
                )
                message = replace(message, parts=parts)
                event = ResponseCompleted(response=replace(event.response, message=message))
            yield event


@pytest.mark.anyio
async def test_hosted_calls_are_reported_after_the_response() -> None:
    sink = EventRecorder()
    result = await Agent(HostedProvider(["found it"]), sinks=[sink]).run("search")
    assert result.text == "found it"
    hosted = [e for e in sink.events if isinstance(e, HostedToolCalled)]
    assert [(e.call_id, e.name, e.round) for e in hosted] == [
        ("ws_1", "web_search", 1),
        ("ws_2", "web_search", 1),
    ]
    responded = next(i for i, e in enumerate(sink.events) if isinstance(e, ModelResponded))
    assert all(sink.events.index(e) > responded for e in hosted)
    assert not [e for e in sink.events if isinstance(e, ToolCallStarted)]
    assert len(result.new_messages) == 2  # the prompt and the answer: no local tool result
