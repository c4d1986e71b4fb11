"""Property: for random histories of random sizes and windows, the summary request compaction
sends always fits the window (with room for the answer), keeps tool pairing valid and keeps the
instruction whole — or a typed error is raised before anything is sent (issue #15). And
:func:`fit_messages` never touches protected messages or tool-call ids."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
from hypothesis import event, example, given, settings
from hypothesis import strategies as st
from robota.core.agent.context import estimate_tokens
from robota.core.agent.pairing import repair_pairing
from robota.core.capabilities import ModelInfo
from robota.core.errors import ContextWindowExceededError, ProviderError
from robota.core.messages import (
    AssistantMessage,
    MediaPart,
    Message,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import ModelRequest, StreamEvent
from robota.core.testing.scripted import ScriptedProvider
from robota.session.compaction import (
    DEFAULT_SUMMARY_INSTRUCTION,
    CompactionError,
    CompactionRecord,
    SummaryTooLargeError,
    compact,
    fit_messages,
)

ALPHABETS = ["abc xyz\n", 'q"\\\t', "é中文🙂", "0123456789"]


class StrictWindowProvider(ScriptedProvider):
    """Answers every request that fits its window and is pairing-valid; records the rest."""

    def __init__(self, window: int | None) -> None:
        super().__init__()
        self.window = window
        self.refused: list[ModelRequest] = []

    def model_info(self, model: str) -> ModelInfo | None:
        return ModelInfo(provider=self.name, model=model, context_window=self.window)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        assert repair_pairing(request.messages) == request.messages
        used = estimate_tokens(request.messages, request.tools)
        if self.window is not None and used + (request.settings.max_tokens or 0) > self.window:
            self.refused.append(request)
            raise ContextWindowExceededError(
                "too long", provider_error=ProviderError("too long", provider="x", status=400)
            )
        self.add("summary")
        async for streamed in super().stream(request):
            yield streamed


@st.composite
def texts(draw: st.DrawFn, max_size: int) -> str:
    size = draw(st.one_of(st.integers(0, 200), st.integers(0, max_size)))
    alphabet = draw(st.sampled_from(ALPHABETS))
    return (alphabet * (size // len(alphabet) + 1))[:size]


@st.composite
def turns(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = [UserMessage.of(draw(texts(20_000)))]
    for round_ in range(draw(st.integers(0, 3))):
        calls = [
            ToolCallPart(
                id=f"c{draw(st.integers(0, 10**9))}",
                name="read_file",
                arguments={"path": draw(texts(300)), "body": draw(texts(5_000))},
            )
            for _ in range(draw(st.integers(1, 3)))
        ]
        parts: list[TextPart | ThinkingPart | ToolCallPart] = []
        if draw(st.booleans()):
            parts.append(ThinkingPart(text=draw(texts(3_000)), signature="sig" * 20))
        parts += calls
        out.append(AssistantMessage(parts=tuple(parts)))
        if round_ == 0 and draw(st.integers(0, 9)) == 0:
            continue  # a stored dangling call
        results: list[ToolResultPart] = []
        for call in calls:
            content: list[TextPart | MediaPart] = [TextPart(text=draw(texts(300_000)))]
            if draw(st.integers(0, 5)) == 0:
                content.append(
                    MediaPart(
                        media_kind="image",
                        media_type="image/png",
                        data=b"\x89PNG" * draw(st.integers(1, 20_000)),
                    )
                )
            results.append(ToolResultPart(call_id=call.id, name=call.name, content=tuple(content)))
        out.append(ToolResultMessage(results=tuple(results)))
    out.append(AssistantMessage(parts=(TextPart(text=draw(texts(10_000))),)))
    return out


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    history: list[Message] = []
    if draw(st.booleans()):
        history.append(SystemMessage(content=draw(texts(40_000))))
    for turn in draw(st.lists(turns(), min_size=0, max_size=6)):
        history += turn
    return history


WINDOWS = st.one_of(
    st.none(), st.integers(500, 8_000), st.integers(8_000, 400_000), st.sampled_from([32_768])
)


@settings(max_examples=200, deadline=None)
@given(
    history=histories(),
    window=WINDOWS,
    keep=st.integers(0, 2),
    answer=st.one_of(st.none(), st.integers(1, 4_000)),
)
def test_sent_summary_request_fits_or_a_typed_error_is_raised_before_sending(
    history: list[Message], window: int | None, keep: int, answer: int | None
) -> None:
    provider = StrictWindowProvider(window)

    async def run() -> None:
        refusal: CompactionError | None = None
        record: CompactionRecord | None = None
        try:
            record = await compact(
                provider, "m", history, keep_last_turns=keep, max_answer_tokens=answer
            )
        except CompactionError as error:  # nothing to compact, or it can never fit
            refusal = error
        if record is None:
            assert refusal is not None
            event(f"refused before sending: {type(refusal).__name__}")
            assert provider.requests == []
            assert provider.refused == []
            if isinstance(refusal, SummaryTooLargeError):
                assert refusal.minimum_tokens > refusal.budget_tokens
            return
        [request] = provider.requests
        assert record.summary_request is not None
        event("sent shortened" if record.summary_request.changed_parts else "sent as stored")
        assert provider.refused == []
        assert request.messages[-1] == UserMessage.of(DEFAULT_SUMMARY_INSTRUCTION)
        assert repair_pairing(request.messages) == request.messages
        assert record.summary_request is not None
        budget = record.summary_request.budget_tokens
        if window is None:
            assert budget is None
            head = tuple(history[:1]) if isinstance(history[0], SystemMessage) else ()
            assert request.messages[:-1] == repair_pairing((*head, *record.removed))
        else:
            assert budget is not None
            assert estimate_tokens(request.messages) <= budget
            reserve = request.settings.max_tokens
            assert reserve is not None
            assert estimate_tokens(request.messages) + reserve + window // 10 <= window

    anyio.run(run)


@settings(max_examples=200, deadline=None)
@given(history=histories(), budget=st.integers(0, 200_000))
# found by a draw: the marker for this prompt is shorter in characters, longer in UTF-8 bytes
@example(history=[SystemMessage(content=("0123456789" * 8)[:74])], budget=0)
def test_fit_keeps_protected_messages_and_tool_ids(history: list[Message], budget: int) -> None:
    messages = [*repair_pairing(history), UserMessage.of("instruction")]
    protected = frozenset({len(messages) - 1})

    fit = fit_messages(messages, budget, protected=protected)

    assert fit.estimated_tokens == estimate_tokens(fit.messages)
    assert fit.fits == (fit.estimated_tokens <= budget)
    assert fit.messages[-1] == messages[-1]
    assert repair_pairing(fit.messages) == fit.messages
    assert [type(m) for m in fit.messages] == [type(m) for m in messages]
    if fit.original_tokens <= budget:
        assert fit.messages == tuple(messages)
        assert fit.changed_parts == 0
    else:
        assert fit.estimated_tokens < fit.original_tokens or fit.changed_parts == 0
    for before, after in zip(messages, fit.messages, strict=True):
        if isinstance(before, ToolResultMessage):
            assert isinstance(after, ToolResultMessage)
            assert [(r.call_id, r.name, r.is_error) for r in before.results] == [
                (r.call_id, r.name, r.is_error) for r in after.results
            ]
        if isinstance(before, AssistantMessage):
            assert isinstance(after, AssistantMessage)
            assert [(c.id, c.name) for c in before.tool_calls] == [
                (c.id, c.name) for c in after.tool_calls
            ]
