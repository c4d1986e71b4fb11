"""Replay every recorded Gemini / Vertex interaction through the provider and compare what a user
sees with values read independently from the recording."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from _google_cassette_reader import (  # pyright: ignore[reportImplicitRelativeImport]
    cassette_root,
    expected_of,
    is_google_host,
    method_of,
    request_of,
    vertex_target,
)
from google.oauth2.credentials import Credentials
from robota.core.messages import ProviderDetailsPart, ThinkingPart, ToolCallPart
from robota.core.testing.cassette import Cassette, Interaction, load_cassette
from robota.providers.google import VertexTarget
from robota.providers.google.replay import provider_for_cassette

COVERED_METHODS = frozenset({"generateContent", "streamGenerateContent", "countTokens"})
UNCOVERED_REASON = "file-search store management and uploads are not model calls"


def _google_interactions() -> list[tuple[Path, int, Interaction]]:
    found: list[tuple[Path, int, Interaction]] = []
    for file in sorted(cassette_root().glob("*/*.yaml")):
        cassette = load_cassette(file)
        for index, interaction in enumerate(cassette.interactions):
            if is_google_host(interaction.host):
                found.append((file, index, interaction))
    return found


def _provider(file: Path, interaction: Interaction):
    single = Cassette(path=file, interactions=[interaction])
    target = vertex_target(interaction.uri)
    vertex = None
    if target is not None:
        vertex = VertexTarget(
            project=target[0], location=target[1], credentials=Credentials(token="replay")
        )
    return single, provider_for_cassette(single, vertex=vertex)


def _details_signatures(parts: Sequence[object]) -> list[str]:
    found: list[str] = []
    for part in parts:
        if isinstance(part, ProviderDetailsPart) and isinstance(part.data, dict):
            raw = part.data.get("part")
            if isinstance(raw, dict) and isinstance(raw.get("thoughtSignature"), str):
                found.append(str(raw["thoughtSignature"]))
    return found


async def _check(file: Path, interaction: Interaction) -> None:
    single, provider = _provider(file, interaction)
    request = request_of(interaction)
    method = method_of(interaction.uri)
    if method == "countTokens":
        count = await provider.count_tokens(request)
        assert count == interaction.json["totalTokens"]
        assert single.served == 1
        return
    expected = expected_of(interaction)
    if method == "streamGenerateContent":
        streamed = ""
        final = None
        async for event in provider.stream(request):
            if event.kind == "text_delta":
                streamed += event.text
            elif event.kind == "response_completed":
                final = event.response
        assert final is not None
        assert streamed == expected.text
        response = final
    else:
        response = await provider.complete(request)
    message = response.message
    assert single.served == 1
    assert message.text == expected.text
    thinking = "".join(p.text for p in message.parts if isinstance(p, ThinkingPart))
    assert thinking == expected.thinking
    assert [(c.name, c.arguments) for c in message.tool_calls] == expected.calls
    assert response.usage.input_tokens == expected.input_tokens
    assert response.usage.output_tokens == expected.output_tokens
    assert response.usage.cache_read_tokens == expected.cache_read
    assert response.finish_reason == expected.finish
    assert response.raw_finish_reason == expected.raw_finish
    signatures = [
        p.signature
        for p in message.parts
        if isinstance(p, (ThinkingPart, ToolCallPart)) and p.signature is not None
    ] + _details_signatures(message.parts)
    # Signatures may be split across stream chunks only when they belong to different parts.
    assert set(signatures) <= set(expected.signatures)
    if expected.signatures:
        assert signatures
    await provider.aclose()


@pytest.mark.anyio
async def test_every_recorded_google_interaction_decodes() -> None:
    interactions = _google_interactions()
    assert interactions, f"no Google cassettes under {cassette_root()}"
    covered = decoded = 0
    failures: list[str] = []
    skipped: list[str] = []
    for file, index, interaction in interactions:
        method = method_of(interaction.uri)
        if method not in COVERED_METHODS:
            skipped.append(f"{file.name}#{index} {method}: {UNCOVERED_REASON}")
            continue
        covered += 1
        try:
            await _check(file, interaction)
        except Exception as exc:
            failures.append(f"{file.parent.name}/{file.name}#{index}: {exc!r}")
            continue
        decoded += 1
    print(
        f"cassettes: decoded={decoded} covered={covered} total={len(interactions)} "
        f"failed={len(failures)}"
    )
    for line in skipped:
        print("  not covered:", line)
    assert not failures, "\n".join(failures)
    assert covered == decoded
