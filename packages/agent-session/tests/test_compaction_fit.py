"""Compaction's summary request always fits the compaction model's window (issue #15): a 1 MB
tool result is shortened for a 32k local model, a history built for a 1M window is compacted for
a 200k model, a stored dangling tool call is repaired, a request that can never fit is refused
before sending, and an overflow caused by the newest tool result is recovered.

The provider here enforces windows the way a vendor does: it refuses (provider-reported
``ContextWindowExceededError``) a request whose input plus ``max_tokens`` exceeds the model's
window, and refuses (400) a tool call without a result.
"""

from __future__ import annotations

import doctest
import importlib
import math
import re
from collections.abc import AsyncIterator, Iterable

import pytest
from robota.core.agent import Agent
from robota.core.agent.context import estimate_tokens
from robota.core.agent.pairing import INTERRUPTED_RESULT_TEXT, PairingRepair, repair_pairing
from robota.core.capabilities import ModelInfo
from robota.core.errors import BadRequestError, ContextWindowExceededError, ProviderError
from robota.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import ModelRequest, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.function import tool
from robota.session.compaction import (
    SUMMARY_NOTES,
    OverflowRecoveringProvider,
    SummaryTooLargeError,
    compact,
    fit_messages,
)

pytestmark = pytest.mark.anyio

SUMMARY_MARK = re.compile(r"\n\[… ([\d,]+) characters of tool output elided for the summary …\]\n")
OVERFLOW_MARK = re.compile(
    r"\n\[… ([\d,]+) characters of tool output elided to fit the context window …\]\n"
)


class WindowedProvider(ScriptedProvider):
    """A scripted provider that enforces context windows like a vendor.

    Args:
        turns: Scripted answers (one per accepted request).
        windows: Context window (tokens) of each model.
        advertised: Whether ``model_info`` tells the window (a local model nobody registered
            does not).
        ratio: The vendor's token count over Robota's estimate (a tokenizer that counts more).
        report_window: Whether the overflow error carries ``context_window``.

    Attributes:
        requests: Accepted requests.
        refused: Refused requests, in order.
    """

    def __init__(
        self,
        turns: Iterable[Turn],
        *,
        windows: dict[str, int],
        advertised: bool = True,
        ratio: float = 1.0,
        report_window: bool = False,
    ) -> None:
        super().__init__(turns)
        self.windows = windows
        self.advertised = advertised
        self.ratio = ratio
        self.report_window = report_window
        self.refused: list[ModelRequest] = []

    def model_info(self, model: str) -> ModelInfo | None:
        window = self.windows.get(model) if self.advertised else None
        return ModelInfo(provider=self.name, model=model, context_window=window)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if repair_pairing(request.messages) != request.messages:
            self.refused.append(request)
            raise BadRequestError(
                "tool_use ids were found without tool_result blocks immediately after",
                provider=self.name,
                status=400,
            )
        window = self.windows[request.model]
        used = math.ceil(estimate_tokens(request.messages, request.tools) * self.ratio)
        if used + (request.settings.max_tokens or 0) > window:
            self.refused.append(request)
            raise ContextWindowExceededError(
                f"prompt is too long: {used} tokens > {window} maximum",
                context_window=window if self.report_window else None,
                provider_error=ProviderError("prompt is too long", provider=self.name, status=400),
            )
        async for event in super().stream(request):
            yield event


def big_text(size: int) -> str:
    """``size`` characters starting with BEGIN and ending with END."""
    filler = "log line 0123456789 abcdefghij\n" * (size // 31 + 1)
    return "BEGIN\n" + filler[: size - 10] + "\nEND"


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


RECENT: list[Message] = [
    UserMessage.of("second"),
    AssistantMessage(parts=(TextPart(text="ok"),)),
    UserMessage.of("third"),
    AssistantMessage(parts=(TextPart(text="fine"),)),
]


def result_text(message: Message) -> str:
    assert isinstance(message, ToolResultMessage)
    return message.results[0].text


def split_marked(shown: str, mark: re.Pattern[str]) -> tuple[str, int, str]:
    """(head, characters elided, tail) of a shortened tool output."""
    found = mark.search(shown)
    assert found is not None, shown[:200]
    return shown[: found.start()], int(found[1].replace(",", "")), shown[found.end() :]


async def test_one_megabyte_tool_result_is_compacted_for_a_32k_local_model() -> None:
    body = big_text(1_000_000)
    history = [*read_turn("build.log", body, "c1"), *RECENT]
    provider = WindowedProvider(
        [[text("The user read build.log, a build log.")]], windows={"local-32k": 32_768}
    )

    record = await compact(provider, "local-32k", history)

    assert provider.refused == []
    [request] = provider.requests
    # window 32,768 - answer 8,192 (a quarter of the window) - margin 3,276 (10%) = 21,300
    assert request.settings.max_tokens == 8_192
    assert record.summary_request is not None
    assert record.summary_request.budget_tokens == 21_300
    assert 21_000 < estimate_tokens(request.messages) <= 21_300
    assert record.summary_request.original_tokens > 250_000
    shown = result_text(request.messages[2])
    head, elided, tail = split_marked(shown, SUMMARY_MARK)
    assert head.startswith("BEGIN")
    assert tail.endswith("END")
    assert body.startswith(head)
    assert body.endswith(tail)
    assert len(head) + elided + len(tail) == 1_000_000
    assert isinstance(request.messages[2], ToolResultMessage)
    assert request.messages[2].results[0].call_id == "c1"
    assert request.messages[-1] == UserMessage.of(
        "Summarize the conversation so far for your own later use: the user's goals, decisions "
        "made, files and facts discovered, work completed, and what remains to do. Be complete "
        "but concise. Answer with the summary only."
    )
    # nothing is lost: the removed messages are kept verbatim, the 1 MB result included
    assert record.removed == tuple(history[:4])
    assert record.summary == "The user read build.log, a build log."
    assert record.messages[-4:] == tuple(RECENT)


async def test_history_built_for_a_1m_window_is_compacted_for_a_200k_model() -> None:
    history: list[Message] = [SystemMessage(content="You are a coding agent.")]
    for n in range(20):
        history += read_turn(f"f{n}.py", big_text(140_000), f"c{n}")
    history += RECENT
    provider = WindowedProvider(
        [[text("big summary")], [text("small summary")], [text("override summary")]],
        windows={"big-1m": 1_000_000, "small-200k": 200_000},
    )
    assert 700_000 < estimate_tokens(history) < 800_000

    big = await compact(provider, "big-1m", history)
    small = await compact(provider, "small-200k", history)
    chosen = await compact(provider, "big-1m", history, context_window=200_000)

    assert provider.refused == []
    sent_big, sent_small, sent_chosen = provider.requests
    assert big.summary_request is not None
    assert big.summary_request.changed_parts == 0
    assert sent_big.messages[:-1] == tuple(history[:-4])  # fits 1M: sent as stored
    for request, record in ((sent_small, small), (sent_chosen, chosen)):
        # 200,000 - 8,192 - 20,000 = 171,808
        assert record.summary_request is not None
        assert record.summary_request.budget_tokens == 171_808
        assert estimate_tokens(request.messages) <= 171_808
        assert request.messages[0] == SystemMessage(content="You are a coding agent.")
        results = [m for m in request.messages if isinstance(m, ToolResultMessage)]
        assert len(results) == 20
        kept = [len(split_marked(result_text(m), SUMMARY_MARK)[0]) for m in results]
        assert kept[0] < kept[-1]  # the oldest is cut the most
    assert sent_small.model == "small-200k"
    assert sent_chosen.model == "big-1m"  # the caller's window, the caller's model
    assert small.removed == chosen.removed == tuple(history[1:-4])


async def test_stored_dangling_tool_call_is_repaired_in_the_summary_request() -> None:
    dangling = AssistantMessage(parts=(ToolCallPart(id="c1", name="ls", arguments={"path": "."}),))
    history: list[Message] = [
        UserMessage.of("list the files"),
        dangling,
        UserMessage.of("never mind"),
        AssistantMessage(parts=(TextPart(text="ok"),)),
        *RECENT,
    ]
    provider = WindowedProvider([[text("The user changed their mind.")]], windows={"m": 32_768})
    with pytest.raises(BadRequestError):  # the vendor refuses the stored history as is
        await provider.complete(ModelRequest(model="m", messages=tuple(history[:4])))
    provider.refused.clear()

    record = await compact(provider, "m", history)

    assert provider.refused == []
    sent = provider.requests[0].messages
    assert sent[1] == dangling
    answered = sent[2]
    assert isinstance(answered, ToolResultMessage)
    assert answered.results == (
        ToolResultPart(
            call_id="c1",
            name="ls",
            content=(TextPart(text=INTERRUPTED_RESULT_TEXT),),
            is_error=True,
        ),
    )
    assert record.summary_request is not None
    assert record.summary_request.repairs == (
        PairingRepair(kind="orphan_call", call_id="c1", name="ls"),
    )
    assert record.removed == tuple(history[:4])  # the stored history is not rewritten


async def test_thousands_of_tiny_plain_turns_still_fit_as_one_shortened_transcript() -> None:
    history: list[Message] = []
    for n in range(400):
        history += [UserMessage.of(f"q{n}"), AssistantMessage(parts=(TextPart(text="a"),))]
    provider = WindowedProvider([[text("summary")]], windows={"tiny": 4_096})

    record = await compact(provider, "tiny", history)

    [sent] = provider.requests
    assert provider.refused == []
    assert record.summary_request is not None
    budget = record.summary_request.budget_tokens
    assert budget is not None
    assert record.summary_request.sent_tokens <= budget
    texts = [
        part.text
        for message in sent.messages
        if isinstance(message, UserMessage)
        for part in message.parts
        if isinstance(part, TextPart)
    ]
    [transcript] = [t for t in texts if t.startswith("user: q0")]
    assert "user: q397" in transcript  # the whole older history, as one part


async def test_summary_request_that_can_never_fit_is_refused_before_sending() -> None:
    history: list[Message] = []
    for n in range(400):
        history += [UserMessage.of(f"q{n}"), AssistantMessage(parts=(TextPart(text="a"),))]
    provider = WindowedProvider([[text("never")]], windows={"tiny": 4_096})

    with pytest.raises(SummaryTooLargeError) as caught:  # no room for the answer at all
        await compact(provider, "tiny", history, max_answer_tokens=5_000)
    with pytest.raises(SummaryTooLargeError):
        await compact(provider, "tiny", history[:8], max_answer_tokens=5_000)

    assert provider.requests == []
    assert provider.refused == []
    error = caught.value
    assert error.context_window == 4_096
    assert error.budget_tokens == 4_096 - 5_000 - 409
    assert error.minimum_tokens > error.budget_tokens
    assert error.recoverable is False


async def test_provider_that_still_reports_overflow_gets_a_smaller_summary_request() -> None:
    # the vendor's tokenizer counts twice Robota's estimate: the fitted request is refused once
    history = [*read_turn("build.log", big_text(1_000_000), "c1"), *RECENT]
    provider = WindowedProvider([[text("summary")]], windows={"local-32k": 32_768}, ratio=2.0)
    retries: list[int] = []

    record = await compact(provider, "local-32k", history, on_recover=retries.append)

    [refused] = provider.refused
    [accepted] = provider.requests
    assert record.summary_request is not None
    assert record.summary_request.overflow_retries == 1
    assert retries == [1]
    assert estimate_tokens(accepted.messages) <= estimate_tokens(refused.messages) // 2
    assert record.summary_request.sent_tokens == estimate_tokens(accepted.messages)
    head, _, tail = split_marked(result_text(accepted.messages[2]), SUMMARY_MARK)
    assert head.startswith("BEGIN")
    assert tail.endswith("END")


def log_agent(provider: WindowedProvider, size: int, recovered: list[int]) -> Agent:
    body = big_text(size)

    @tool
    async def read_log() -> str:
        """Read the build log."""
        return body

    return Agent(
        OverflowRecoveringProvider(provider, on_recover=recovered.append),
        model="local",
        tools=[read_log],
    )


def tool_turns(answer: str) -> list[Turn]:
    return [[tool_call("c1", "read_log", {})], [text(answer)]]


async def test_overflow_caused_by_the_newest_tool_result_is_recovered() -> None:
    # a local server with a 32k window nobody registered: Robota knows no window, so the only
    # signal is the server's refusal; the 1 MB result is the newest (and only) one
    provider = WindowedProvider(
        tool_turns("The log ends with END."), windows={"local": 32_768}, advertised=False
    )
    recovered: list[int] = []
    agent = log_agent(provider, 1_000_000, recovered)

    result = await agent.run("read the log")

    assert result.text == "The log ends with END."
    assert len(provider.refused) == 2  # a quarter of the refused size each time
    assert recovered == [1, 1]
    answered = provider.requests[-1]
    assert estimate_tokens(answered.messages, answered.tools) <= 32_768
    shown = answered.messages[-1]
    assert isinstance(shown, ToolResultMessage)
    assert shown.results[0].call_id == "c1"
    head, elided, tail = split_marked(shown.results[0].text, OVERFLOW_MARK)
    assert head.startswith("BEGIN")
    assert tail.endswith("END")
    assert len(head) + elided + len(tail) == 1_000_000
    stored = [m for m in agent.history if isinstance(m, ToolResultMessage)]
    assert stored[0].results[0].text == big_text(1_000_000)  # the history keeps it all


async def test_overflow_recovery_uses_the_window_the_error_reports() -> None:
    provider = WindowedProvider(
        tool_turns("done"), windows={"local": 32_768}, advertised=False, report_window=True
    )
    recovered: list[int] = []

    result = await log_agent(provider, 1_000_000, recovered).run("read the log")

    assert result.text == "done"
    assert len(provider.refused) == 1
    assert recovered == [1]
    answered = provider.requests[-1]
    # 32,768 - 3,276 (10% margin) = 29,492
    assert 29_000 < estimate_tokens(answered.messages, answered.tools) <= 29_492


async def test_overflow_when_the_vendor_counts_more_than_the_estimate() -> None:
    # the window is known and the agent's own budget let ~25k estimated tokens through, but
    # the vendor counts 1.5x: the newest result is halved and the call succeeds
    provider = WindowedProvider(tool_turns("done"), windows={"local": 32_768}, ratio=1.5)
    recovered: list[int] = []

    result = await log_agent(provider, 100_000, recovered).run("read the log")

    assert result.text == "done"
    [refused] = provider.refused
    answered = provider.requests[-1]
    assert recovered == [1]
    refused_tokens = estimate_tokens(refused.messages, refused.tools)
    assert estimate_tokens(answered.messages, answered.tools) <= refused_tokens // 2


def test_tool_output_is_shortened_before_conversation_text() -> None:
    pasted = big_text(200_000)
    messages: list[Message] = [
        *read_turn("a.log", big_text(200_000), "c1"),
        UserMessage.of(pasted),
        UserMessage.of("Summarize."),
    ]
    protected = frozenset({5})

    loose = fit_messages(messages, 60_000, protected=protected, notes=SUMMARY_NOTES)
    tight = fit_messages(messages, 20_000, protected=protected, notes=SUMMARY_NOTES)

    assert loose.fits
    assert loose.messages[4] == messages[4]  # the tool result alone was enough
    assert SUMMARY_MARK.search(result_text(loose.messages[2])) is not None
    assert tight.fits
    assert result_text(tight.messages[2]) == (
        "[… 200,000 characters of tool output elided for the summary …]"
    )
    pasted_shown = tight.messages[4]
    assert isinstance(pasted_shown, UserMessage)
    shown_text = pasted_shown.parts[0]
    assert isinstance(shown_text, TextPart)
    assert "characters of message text elided for the summary" in shown_text.text
    assert tight.messages[5] == messages[5]


@pytest.mark.parametrize(
    "module", ["robota.session.compaction._fit", "robota.session.compaction._summary"]
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), raise_on_error=False)
    assert result.attempted > 0
    assert result.failed == 0
