"""Compaction summarizes older turns and keeps what it removed; overflow recovery elides old
tool output in the request only and retries a bounded number of times."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from robota.core.errors import ContextWindowExceededError, ProviderError
from robota.core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    Provider,
    ResponseCompleted,
    StreamEvent,
)
from robota.core.testing.scripted import ScriptedProvider, text
from robota.session.compaction import (
    CompactionError,
    OverflowRecoveringProvider,
    compact,
    elide_tool_results,
)

pytestmark = pytest.mark.anyio


def read_turn(path: str, body: str, call_id: str) -> list[Message]:
    return [
        UserMessage.of(f"read {path}"),
        AssistantMessage(
            parts=(ToolCallPart(id=call_id, name="read_file", arguments={"path": path}),)
        ),
        ToolResultMessage(
            results=(
                ToolResultPart(call_id=call_id, name="read_file", content=(TextPart(text=body),)),
            )
        ),
        AssistantMessage(parts=(TextPart(text=f"read {path}"),)),
    ]


async def test_compact_summarizes_older_turns_and_restores_read_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("current notes")
    history = [
        *read_turn("notes.txt", "old notes", "c1"),
        UserMessage.of("second"),
        AssistantMessage(parts=(TextPart(text="ok"),)),
        UserMessage.of("third"),
        AssistantMessage(parts=(TextPart(text="fine"),)),
    ]
    provider = ScriptedProvider([[text("User read notes.txt.")]])
    record = await compact(provider, "m", history, keep_last_turns=2, workspace=tmp_path)
    request = provider.requests[0]
    assert request.settings.tool_choice == "none"
    assert request.tools == ()
    assert record.removed == tuple(history[:4])
    assert record.messages[-4:] == tuple(history[4:])
    first = record.messages[0]
    assert isinstance(first, UserMessage)
    body = first.parts[0]
    assert isinstance(body, TextPart)
    assert "User read notes.txt." in body.text
    assert "current notes" in body.text
    assert record.restored_files == ("notes.txt",)
    assert record.to_json()["summary"] == "User read notes.txt."


async def test_compact_refuses_when_there_is_nothing_older() -> None:
    with pytest.raises(CompactionError):
        await compact(ScriptedProvider([]), "m", [UserMessage.of("only")], keep_last_turns=2)


async def test_empty_summary_is_an_error() -> None:
    history = [UserMessage.of("a"), UserMessage.of("b"), UserMessage.of("c")]
    with pytest.raises(CompactionError, match="no text"):
        await compact(ScriptedProvider([[text("  ")]]), "m", history, keep_last_turns=1)


def test_elide_keeps_the_last_results() -> None:
    history = read_turn("a", "A" * 100, "1") + read_turn("b", "B" * 100, "2")
    view, count = elide_tool_results(history, keep_last=1)
    assert count == 1
    first = view[2]
    assert isinstance(first, ToolResultMessage)
    assert "elided" in first.results[0].text
    assert view[6] is history[6]
    assert history[2] != first  # canonical list untouched


class Overflowing(Provider):
    """Fails with a provider-reported overflow until the request is small enough."""

    name = "fake"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.sizes: list[int] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        size = sum(
            len(r.text)
            for m in request.messages
            if isinstance(m, ToolResultMessage)
            for r in m.results
        )
        self.sizes.append(size)
        if size > self.limit:
            raise ContextWindowExceededError(
                "too long",
                provider_error=ProviderError("prompt is too long", provider="fake", status=400),
            )
        yield ResponseCompleted(
            response=ModelResponse(message=AssistantMessage(parts=(TextPart(text="ok"),)))
        )


async def test_overflow_recovery_elides_and_retries() -> None:
    history = (
        read_turn("a", "A" * 500, "1")
        + read_turn("b", "B" * 500, "2")
        + read_turn("c", "C" * 500, "3")
    )
    inner = Overflowing(limit=1200)
    recovered: list[int] = []
    provider = OverflowRecoveringProvider(inner, on_recover=recovered.append)
    response = await provider.complete(ModelRequest(model="m", messages=tuple(history)))
    assert response.message.text == "ok"
    assert inner.sizes[0] == 1500
    assert inner.sizes[-1] <= 1200
    assert recovered == [1]


async def test_overflow_recovery_gives_up_after_the_bound() -> None:
    history = read_turn("a", "A" * 500, "1")
    inner = Overflowing(limit=10)
    provider = OverflowRecoveringProvider(inner, max_attempts=2)
    with pytest.raises(ContextWindowExceededError):
        await provider.complete(ModelRequest(model="m", messages=tuple(history)))
    assert len(inner.sizes) <= 3
