"""Regressions for an outside review of compaction (promise: compaction always fits).

A tool result made of very many small content blocks, and a history made of thousands of tiny
tool calls, must still be reducible to a request that fits a small local model's window.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import anyio
import pytest
from robota.core.agent.context import estimate_tokens
from robota.core.agent.pairing import repair_pairing
from robota.core.capabilities import ModelInfo
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
from robota.core.provider import ModelRequest, StreamEvent
from robota.core.testing.scripted import ScriptedProvider
from robota.session.compaction import OverflowRecoveringProvider, compact, fit_messages

WINDOW = 32_768


class Windowed(ScriptedProvider):
    """Refuses (as a vendor would) a request over its window; records accepted sizes."""

    def __init__(self, answers: Sequence[str], window: int) -> None:
        super().__init__(list(answers))
        self.window = window
        self.sizes: list[int] = []
        self.accepted: list[ModelRequest] = []

    def model_info(self, model: str) -> ModelInfo | None:
        return ModelInfo(provider=self.name, model=model, context_window=self.window)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        used = math.ceil(estimate_tokens(request.messages, request.tools))
        self.sizes.append(used)
        if used + (request.settings.max_tokens or 0) > self.window:
            raise ContextWindowExceededError(
                f"prompt is too long: {used} tokens > {self.window} maximum",
                provider_error=ProviderError("prompt is too long", provider=self.name, status=400),
            )
        self.accepted.append(request)
        async for event in super().stream(request):
            yield event


def tool_pair(n: int, content: Sequence[TextPart]) -> list[Message]:
    call = ToolCallPart(id=f"c{n}", name="read", arguments={"n": n}, raw_arguments=f'{{"n": {n}}}')
    result = ToolResultPart(call_id=f"c{n}", name="read", content=tuple(content))
    return [AssistantMessage(parts=(call,)), ToolResultMessage(results=(result,))]


RECENT: list[Message] = [
    UserMessage.of("recent one"),
    AssistantMessage(parts=(TextPart(text="ok"),)),
    UserMessage.of("recent two"),
    AssistantMessage(parts=(TextPart(text="ok"),)),
]


def many_blocks() -> list[TextPart]:
    return [TextPart(text="y" * 20) for _ in range(50_000)]


def test_fit_merges_a_result_of_many_small_blocks_into_one_bounded_part() -> None:
    messages = [UserMessage.of("read it"), *tool_pair(0, many_blocks())]
    fit = fit_messages(messages, 2_000, tiers=("tool_output",))
    assert fit.fits
    result = fit.messages[2]
    assert isinstance(result, ToolResultMessage)
    (part,) = result.results
    assert part.call_id == "c0"
    assert part.name == "read"
    assert len(part.content) == 1
    assert "elided" in part.text


def test_compaction_of_a_1mb_result_in_50k_blocks_fits_a_32k_model() -> None:
    model = Windowed(["The summary."], WINDOW)
    history = [UserMessage.of("read it"), *tool_pair(0, many_blocks()), *RECENT]
    record = anyio.run(lambda: compact(model, "local", history))
    assert record.summary_request is not None
    assert max(model.sizes) <= WINDOW
    sent = model.accepted[-1].messages
    assert repair_pairing(sent) == sent


def test_overflow_recovery_shortens_a_newest_result_of_many_blocks() -> None:
    model = Windowed(["ok"], WINDOW)
    request = ModelRequest(
        model="local",
        messages=(
            UserMessage.of("old"),
            *tool_pair(0, [TextPart(text="old output " * 100)]),
            UserMessage.of("read the big one"),
            *tool_pair(1, many_blocks()),
        ),
    )
    response = anyio.run(OverflowRecoveringProvider(model).complete, request)
    assert response.message.text == "ok"
    assert max(model.sizes[1:]) <= WINDOW


def test_thousands_of_tiny_tool_results_are_compacted_not_refused() -> None:
    model = Windowed(["The summary."], WINDOW)
    older: list[Message] = [UserMessage.of("scan")]
    for n in range(3_000):
        older += tool_pair(n, [TextPart(text="ok")])
    record = anyio.run(lambda: compact(model, "local", [*older, *RECENT]))
    assert record.summary_request is not None
    assert max(model.sizes) <= WINDOW
    sent = model.accepted[-1].messages
    assert repair_pairing(sent) == sent
    assert len(record.removed) == len(older)


def test_sqlite_journal_never_replaces_a_saved_wait_response(tmp_path: Path) -> None:
    from robota.core.journal import AlreadyRecordedError
    from robota.session import SQLiteJournal

    async def main() -> None:
        first, second = SQLiteJournal(tmp_path / "j.db"), SQLiteJournal(tmp_path / "j.db")
        await first.start_run("r", {})
        await first.record_wait_request("r", "1:0", {"q": 1})
        run = await second.load_run("r")
        assert run is not None
        assert run.waits["1:0"].response is None
        await first.record_wait_response("r", "1:0", {"a": 1})
        with pytest.raises(AlreadyRecordedError):
            await second.record_wait_response("r", "1:0", {"a": 2})
        saved = await second.load_run("r")
        assert saved is not None
        assert saved.waits["1:0"].response == {"a": 1}
        for journal in (first, second):
            await journal.aclose()

    anyio.run(main)
