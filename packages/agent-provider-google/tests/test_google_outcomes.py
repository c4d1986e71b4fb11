"""Every Gemini response is a correct answer or a typed error (issue #14): finish reasons, a
response without a candidate, retries of an unusable function call, usage reported before the
end, and an over-long prompt — each fed to the real provider as the bytes a server sends."""

from __future__ import annotations

from typing import Any

import pytest
from _google_serve import (  # pyright: ignore[reportImplicitRelativeImport]
    JSON,
    SSE,
    call,
    candidate,
    request,
    run,
    serving,
    sse,
    text,
)
from google.genai import types
from robota.core.agent import Agent
from robota.core.errors import (
    ContentFilterError,
    ContextWindowExceededError,
    MalformedResponseError,
)
from robota.core.provider import ToolDefinition, UsageReported
from robota.core.retry import RetryingProvider, RetryPolicy
from robota.core.tools.base import RiskClass
from robota.core.tools.function import tool
from robota.core.usage import Usage

FILTERED = {
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",
    "MODEL_ARMOR",
    "ESCALATION",
    "PUP_LIMITED_DISABLED",
}
UNUSABLE = {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "MALFORMED_RESPONSE"}
REASONS = [r.value for r in types.FinishReason] + ["A_REASON_ADDED_IN_2027"]


def _expected(reason: str, *, with_call: bool) -> str:
    if reason in UNUSABLE:
        return "MalformedResponseError"
    if reason == "STOP":
        return "tool_calls" if with_call else "stop"
    if reason in ("MAX_TOKENS", "CONTINUATION"):
        return "length"
    return "content_filter" if reason in FILTERED else "other"


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore:A_REASON_ADDED_IN_2027 is not a valid FinishReason")
@pytest.mark.parametrize("streaming", [True, False], ids=["stream", "buffered"])
async def test_every_finish_reason_is_an_answer_or_a_typed_error(streaming: bool) -> None:
    server = serving((200, b""))
    provider = server.provider(streaming=streaming)
    wrong: list[str] = []
    for reason in REASONS:
        for with_call in (False, True):
            parts = [text("partial"), *([call("lookup", q="x")] if with_call else [])]
            body = candidate(*parts, finish=reason)
            server.serve(200, sse(body) if streaming else body, SSE if streaming else JSON)
            outcome = await run(provider)
            want = _expected(reason, with_call=with_call)
            if outcome.error is not None:
                error = outcome.error
                got = type(error).__name__
                if getattr(error, "vendor_type", None) != reason or not error.recoverable:
                    got += f" (vendor_type={getattr(error, 'vendor_type', None)})"
            else:
                assert outcome.response is not None
                got = outcome.response.finish_reason
                if outcome.response.raw_finish_reason != reason:
                    got += f" (raw {outcome.response.raw_finish_reason})"
            if got != want:
                wrong.append(f"{reason} call={with_call}: {got}, expected {want}")
    assert not wrong, "\n".join(wrong)


BLOCK_REASONS = [r.value for r in types.BlockedReason]


@pytest.mark.anyio
@pytest.mark.parametrize("streaming", [True, False], ids=["stream", "buffered"])
async def test_no_candidate_is_a_content_filter_or_malformed_error(streaming: bool) -> None:
    server = serving((200, b""))
    provider = server.provider(streaming=streaming)
    usage = {"promptTokenCount": 7, "totalTokenCount": 7}
    cases: list[tuple[dict[str, Any], type[Exception], str | None]] = [
        ({"candidates": []}, MalformedResponseError, None),
        ({"usageMetadata": usage}, MalformedResponseError, None),
        ({"candidates": [], "promptFeedback": {"safetyRatings": []}}, MalformedResponseError, None),
    ]
    for reason in BLOCK_REASONS:
        feedback = {"blockReason": reason, "safetyRatings": []}
        cases.append(
            ({"promptFeedback": feedback, "usageMetadata": usage}, ContentFilterError, reason)
        )
    for body, kind, vendor_type in cases:
        server.serve(200, sse(body) if streaming else body, SSE if streaming else JSON)
        outcome = await run(provider)
        assert type(outcome.error) is kind, body
        assert getattr(outcome.error, "vendor_type", None) == vendor_type
        if kind is MalformedResponseError:
            assert getattr(outcome.error, "missing", None) == "candidates"
            assert outcome.error is not None
            assert outcome.error.recoverable


async def _no_wait(seconds: float) -> None:
    del seconds


MALFORMED = candidate(finish="MALFORMED_FUNCTION_CALL", usage={"promptTokenCount": 9})
ASKS_WEATHER = candidate(call("weather", city="Paris"), usage={"promptTokenCount": 9})


@pytest.mark.anyio
async def test_retrying_provider_retries_a_buffered_malformed_function_call() -> None:
    server = serving((200, MALFORMED), (200, ASKS_WEATHER))
    retrying = RetryingProvider(
        server.provider(streaming=False), RetryPolicy(max_attempts=3), sleep=_no_wait
    )
    response = await retrying.complete(request())
    assert [(c.name, c.arguments) for c in response.message.tool_calls] == [
        ("weather", {"city": "Paris"})
    ]
    assert response.finish_reason == "tool_calls"
    assert len(server.requests) == 2


@pytest.mark.anyio
async def test_a_streamed_malformed_call_is_retried_only_before_any_event() -> None:
    server = serving((200, sse(MALFORMED)), (200, sse(ASKS_WEATHER)))
    retrying = RetryingProvider(server.provider(), RetryPolicy(max_attempts=3), sleep=_no_wait)
    assert (await retrying.complete(request())).message.tool_calls[0].name == "weather"
    assert len(server.requests) == 2

    late = serving((200, sse(candidate(text("Let me"), finish=None), MALFORMED)))
    retrying = RetryingProvider(late.provider(), RetryPolicy(max_attempts=3), sleep=_no_wait)
    with pytest.raises(MalformedResponseError) as info:
        await retrying.complete(request())
    assert info.value.vendor_type == "MALFORMED_FUNCTION_CALL"
    assert len(late.requests) == 1


@pytest.mark.anyio
async def test_an_agent_runs_the_tool_after_a_malformed_call_is_retried() -> None:
    ran: list[str] = []

    @tool(risk=RiskClass.INSPECT)
    def weather(city: str) -> str:
        """Weather in a city."""
        ran.append(city)
        return "sunny"

    final = candidate(text("It is sunny in Paris."))
    server = serving((200, MALFORMED), (200, ASKS_WEATHER), (200, final))
    retrying = RetryingProvider(
        server.provider(streaming=False), RetryPolicy(max_attempts=3), sleep=_no_wait
    )
    result = await Agent(retrying, model="gemini-2.5-flash", tools=(weather,)).run("Paris?")
    assert result.text == "It is sunny in Paris."
    assert ran == ["Paris"]
    assert len(server.requests) == 3


def _usage(output: int) -> dict[str, int]:
    return {"promptTokenCount": 10, "candidatesTokenCount": output, "totalTokenCount": 10 + output}


@pytest.mark.anyio
async def test_usage_is_reported_before_the_last_chunk() -> None:
    chunks = [
        candidate(text("a"), finish=None, usage=_usage(1)),
        candidate(text("b"), finish=None, usage=_usage(3)),
        candidate(text("c"), usage=_usage(5)),
    ]
    outcome = await run(serving((200, sse(*chunks))).provider())
    assert [e.kind for e in outcome.events] == [
        "text_delta",
        "usage_reported",
        "text_delta",
        "usage_reported",
        "text_delta",
    ]
    reported = [e.usage for e in outcome.events if isinstance(e, UsageReported)]
    assert reported == [
        Usage(input_tokens=10, output_tokens=1, requests=1),
        Usage(input_tokens=10, output_tokens=3, requests=1),
    ]
    assert outcome.response is not None
    assert (outcome.response.usage.input_tokens, outcome.response.usage.output_tokens) == (10, 5)

    cut = await run(serving((200, sse(*chunks[:2]))).provider())
    assert isinstance(cut.error, MalformedResponseError)
    assert cut.error.missing == "a chunk with finishReason"
    assert [e.usage.output_tokens for e in cut.events if isinstance(e, UsageReported)] == [1]

    buffered = await run(serving((200, chunks[2])).provider(streaming=False))
    assert not [e for e in buffered.events if isinstance(e, UsageReported)]


OVERFLOW_WORDINGS = [
    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    "The input token count exceeds the maximum number of tokens allowed 1048576.",
]


@pytest.mark.anyio
@pytest.mark.parametrize("message", OVERFLOW_WORDINGS, ids=["gemini-api", "vertex"])
@pytest.mark.parametrize("delivery", ["http-400", "200-body", "200-stream-chunk"])
async def test_an_over_long_prompt_is_a_context_window_error(message: str, delivery: str) -> None:
    error = {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": message}}
    if delivery == "http-400":
        server, streaming = serving((400, error)), True
    elif delivery == "200-body":
        server, streaming = serving((200, error)), False
    else:
        server, streaming = serving((200, sse(error))), True
    tool_def = ToolDefinition(name="f", description="", parameters={"type": "object"})
    outcome = await run(server.provider(streaming=streaming), request(tools=(tool_def,)))
    assert isinstance(outcome.error, ContextWindowExceededError)
    assert outcome.error.provider_reported
    vendor = outcome.error.provider_error
    assert vendor is not None
    assert (vendor.status, vendor.vendor_type, vendor.provider) == (
        400,
        "INVALID_ARGUMENT",
        "google",
    )
