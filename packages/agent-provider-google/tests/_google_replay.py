"""Replaying recorded Gemini traffic through the real provider and judging the result against
``_google_expected`` (shared by the recorded-folder test and the synthetic-recordings test).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _google_cassette_reader import (  # pyright: ignore[reportImplicitRelativeImport]
    COVERED_METHODS,
    google_interactions,
    method_of,
    request_of,
    vertex_target,
)
from _google_conversations import (  # pyright: ignore[reportImplicitRelativeImport]
    Conversation,
    RecordedTool,
)
from _google_expected import (  # pyright: ignore[reportImplicitRelativeImport]
    Answer,
    Failure,
    mismatch,
    outcome_of,
)
from google.oauth2.credentials import Credentials
from robota.core.agent import Agent
from robota.core.errors import RobotaError
from robota.core.messages import ProviderDetailsPart, ThinkingPart, ToolCallPart
from robota.core.provider import ModelResponse
from robota.core.testing.cassette import Cassette, Interaction
from robota.providers.google import GoogleProvider, VertexTarget
from robota.providers.google.replay import provider_for_cassette

UNCOVERED_REASON = "file-search store management and uploads are not model calls"


def _vertex(uri: str) -> VertexTarget | None:
    target = vertex_target(uri)
    if target is None:
        return None
    return VertexTarget(project=target[0], location=target[1], credentials=Credentials(token="r"))


def _provider(file: Path, interaction: Interaction) -> tuple[Cassette, GoogleProvider]:
    single = Cassette(path=file, interactions=[interaction])
    return single, provider_for_cassette(single, vertex=_vertex(interaction.uri))


def _details_signatures(parts: Sequence[object]) -> list[str]:
    found: list[str] = []
    for part in parts:
        if isinstance(part, ProviderDetailsPart) and isinstance(part.data, dict):
            raw = part.data.get("part")
            if isinstance(raw, dict) and isinstance(raw.get("thoughtSignature"), str):
                found.append(str(raw["thoughtSignature"]))
    return found


async def _replay(provider: GoogleProvider, interaction: Interaction) -> object:
    """The user-visible result: a token count, a :class:`ModelResponse` (with the streamed
    text and usage-event count checked against it), or the error raised."""
    request = request_of(interaction)
    method = method_of(interaction.uri)
    try:
        if method == "countTokens":
            return await provider.count_tokens(request)
        if method == "streamGenerateContent":
            streamed, usage_events, final = "", 0, None
            async for event in provider.stream(request):
                if event.kind == "text_delta":
                    streamed += event.text
                elif event.kind == "usage_reported":
                    usage_events += 1
                elif event.kind == "response_completed":
                    final = event.response
            assert final is not None
            assert streamed == final.message.text
            return (final, usage_events)
        return (await provider.complete(request), 0)
    except RobotaError as error:
        return error


def _check_answer(result: object, expected: Answer) -> None:
    if expected.total_tokens is not None:
        assert result == expected.total_tokens
        return
    assert isinstance(result, tuple), f"expected an answer, got {result!r}"
    response, usage_events = result
    assert isinstance(response, ModelResponse)
    message = response.message
    assert message.text == expected.text
    thinking = "".join(p.text for p in message.parts if isinstance(p, ThinkingPart))
    assert thinking == expected.thinking
    assert [(c.name, c.arguments) for c in message.tool_calls] == expected.calls
    assert response.usage.input_tokens == expected.input_tokens
    assert response.usage.output_tokens == expected.output_tokens
    assert response.usage.cache_read_tokens == expected.cache_read
    assert response.finish_reason == expected.finish
    assert response.raw_finish_reason == expected.raw_finish
    assert usage_events == expected.usage_reports
    signatures = [
        p.signature
        for p in message.parts
        if isinstance(p, (ThinkingPart, ToolCallPart)) and p.signature is not None
    ] + _details_signatures(message.parts)
    # Signatures may be split across stream chunks only when they belong to different parts.
    assert set(signatures) <= set(expected.signatures)
    if expected.signatures:
        assert signatures


async def check_interaction(file: Path, interaction: Interaction) -> bool:
    """Replay one interaction; True when it was a typed error, as the recording says."""
    single, provider = _provider(file, interaction)
    try:
        expected = outcome_of(interaction)
        result = await _replay(provider, interaction)
        assert single.served == 1
        if isinstance(expected, Failure):
            assert isinstance(result, BaseException), f"expected {expected}, got {result!r}"
            problem = mismatch(result, expected)
            assert problem is None, problem
            return True
        assert not isinstance(result, BaseException), f"expected an answer, got {result!r}"
        _check_answer(result, expected)
        return False
    finally:
        await provider.aclose()


@dataclass
class Summary:
    """Counts of one replay over every recorded Google interaction."""

    total: int = 0
    decoded: int = 0
    typed: int = 0
    skipped: list[str] = field(default_factory=list[str])
    failures: list[str] = field(default_factory=list[str])

    @property
    def line(self) -> str:
        return (
            f"cassettes(google): decoded={self.decoded} errors_typed={self.typed} "
            f"skipped={len(self.skipped)} total={self.total} failed={len(self.failures)}"
        )


async def replay_all() -> Summary:
    """Replay every Google interaction under the cassette root; model calls and token counts
    are checked, other methods are skipped with a reason."""
    interactions = google_interactions()
    summary = Summary(total=len(interactions))
    for file, index, interaction in interactions:
        method = method_of(interaction.uri)
        if method not in COVERED_METHODS:
            summary.skipped.append(f"{file.name}#{index} {method}: {UNCOVERED_REASON}")
            continue
        try:
            summary.typed += await check_interaction(file, interaction)
        except Exception as exc:
            summary.failures.append(f"{file.parent.name}/{file.name}#{index}: {exc!r}")
            continue
        summary.decoded += 1
    return summary


async def replay_conversation(conversation: Conversation) -> None:
    """A real Agent with the recorded tools runs the conversation; it must end with the recorded
    final text after exactly the recorded rounds and tool calls."""
    cassette = Cassette(path=conversation.file, interactions=list(conversation.calls))
    provider = provider_for_cassette(cassette, vertex=_vertex(conversation.calls[0].uri))
    results = conversation.recorded_results()
    tools = [RecordedTool(d, results.get(d.name, ())) for d in conversation.tool_definitions()]
    system, prompt = conversation.prompt()
    agent = Agent(provider, model=conversation.model, system_prompt=system, tools=tools)
    try:
        result = await agent.run(prompt)
    finally:
        await provider.aclose()
    final = conversation.answers[-1]
    assert result.text == final.text
    assert result.finish_reason == "stop"
    assert cassette.served == len(conversation.calls)
    assert result.usage.requests == len(conversation.calls)
    recorded_calls = sum(len(a.calls) for a in conversation.answers[:-1])
    assert sum(t.calls for t in tools) == recorded_calls
