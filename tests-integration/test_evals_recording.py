"""Recording a real provider run into a cassette (``robota.evals.recording``), then replaying it.

The "live" API is robota's loopback replay server serving real recorded vendor traffic
(``cassettes/*_read_file.yaml``: a tool round and a text answer, derived from
``shared/cassettes/pydantic-ai``). Each provider adapter talks to it over a real socket with its
default HTTP client and a fake API key while :func:`record_cassette` records. The new cassette
must replay through that provider's ``replay_provider`` to the same answer, replay strictly
(method, URL and body) through ``record_cassette(mode="replay")`` with the server gone, hold
every response body exactly as served, and hold the API key nowhere.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from robota.core.agent import Agent
from robota.core.errors import RobotaError
from robota.core.provider import Provider
from robota.core.testing.cassette import Interaction, load_cassette
from robota.core.tools.function import tool
from robota.evals.recording import REDACTED, record_cassette
from robota.providers.anthropic import AnthropicProvider
from robota.providers.anthropic.replay import replay_provider as anthropic_replay
from robota.providers.google import GoogleProvider
from robota.providers.google.replay import provider_for_cassette as google_replay
from robota.providers.openai import OpenAIChatProvider, OpenAIResponsesProvider
from robota.providers.openai.replay import replay_provider as openai_replay

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

CASSETTES = Path(__file__).resolve().parent / "cassettes"
API_KEY = "sk-live-Zq8RecordingKey0123456789abcdef"
"""The fake key every live call sends; it must appear nowhere in a recorded cassette."""
OTHER_KEY = "sk-ci-AnotherKey9876543210"
NOTES = "Robota notes: the launch code is 7319.\n"
PROMPT = "Read notes.txt and answer."


@tool
def read_file(path: str) -> str:
    """Read a file.

    Args:
        path: The file's path.
    """
    return NOTES if path == "notes.txt" else ""


@dataclass(frozen=True, kw_only=True, slots=True)
class Vendor:
    """One provider, the recording that plays its live API, and how to reach it."""

    id: str
    cassette: str
    model: str
    final_text: str
    live: Callable[[str, str], Provider]
    """(server URL, API key) -> the provider as a user builds it (its default HTTP client)."""
    replay: Callable[[Path], Provider]


VENDORS = (
    Vendor(
        id="openai-responses",
        cassette="openai_responses_read_file.yaml",
        model="gpt-4o",
        final_text="The capital of France is Paris.",
        live=lambda url, key: OpenAIResponsesProvider(key, base_url=url + "/v1"),
        replay=lambda path: openai_replay(load_cassette(path)),
    ),
    Vendor(
        id="openai-chat-streamed",
        cassette="openai_chat_read_file.yaml",
        model="gpt-4o-mini",
        final_text="The capital of the UK is London.",
        live=lambda url, key: OpenAIChatProvider(key, base_url=url + "/v1", streaming=True),
        replay=lambda path: openai_replay(load_cassette(path)),
    ),
    Vendor(
        id="anthropic",
        cassette="anthropic_read_file.yaml",
        model="claude-sonnet-4-5",
        final_text=(
            "Based on the result, you are located in Mexico. The largest city in Mexico is "
            "Mexico City (Ciudad de México), which is both the capital and the most populous "
            "city in the country. With a population of approximately 9.2 million people in the "
            "city proper and over 21 million people in its metropolitan area, Mexico City is "
            "not only the largest city in Mexico but also one of the largest cities in the world."
        ),
        live=lambda url, key: AnthropicProvider(key, base_url=url),
        replay=lambda path: anthropic_replay(load_cassette(path)),
    ),
    Vendor(
        id="gemini",
        cassette="google_read_file.yaml",
        model="gemini-3-pro-preview",
        final_text="The capital of Mexico is Mexico City.",
        live=lambda url, key: GoogleProvider(key, base_url=url + "/"),
        replay=lambda path: google_replay(load_cassette(path)),
    ),
)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loopback server is reached directly, whatever proxy the host configures."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "*")


async def _answer(provider: Provider, model: str) -> str:
    agent = Agent(provider, model=model, tools=[read_file], retry=None)
    result = await agent.run(PROMPT)
    return result.text


@pytest.mark.parametrize("vendor", VENDORS, ids=lambda v: v.id)
# the anthropic recording names a model the SDK now warns about; the replay is what is tested
@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
async def test_a_recorded_live_run_replays_to_the_same_answer_without_the_key(
    vendor: Vendor, tmp_path: Path
) -> None:
    source = load_cassette(CASSETTES / vendor.cassette)
    path = tmp_path / "cassettes" / f"{vendor.id}.yaml"
    with ReplayServer(interactions=source.interactions) as server:
        url = server.url
        async with record_cassette(path) as recording:
            live = await _answer(vendor.live(url, API_KEY), vendor.model)
        assert not recording.replaying
        assert recording.recorded == 2
    # The live traffic was not filtered: the server saw the key and answered every call.
    assert server.misses == []
    assert server.served == 2
    assert all(API_KEY in f"{r.headers} {r.query}" for r in server.received)
    assert live == vendor.final_text

    raw = path.read_bytes()
    assert API_KEY.encode() not in raw
    recorded = load_cassette(path)
    assert [i.path for i in recorded.interactions] == [i.path for i in source.interactions]
    for mine, served in zip(recorded.interactions, source.interactions, strict=True):
        assert mine.status == served.status
        if served.is_stream:
            assert mine.is_stream
            assert mine.body == served.body  # byte for byte: the SSE parser sees the same events
        else:
            assert mine.json == served.json
        # The request went on record, without credentials.
        assert isinstance(mine.request_body, dict)
    document = json.dumps(recorded.interactions[1].request_body)
    assert "7319" in document  # the tool result the agent sent back is in the second request

    assert await _answer(vendor.replay(path), vendor.model) == vendor.final_text

    # Strict replay: the server is gone, another key; method, URL and body must match.
    async with record_cassette(path, mode="replay") as replay:
        again = await _answer(vendor.live(url, OTHER_KEY), vendor.model)
    assert again == vendor.final_text
    assert replay.replaying
    assert replay.played == 2
    assert path.read_bytes() == raw


async def test_a_key_echoed_in_an_error_body_is_redacted(tmp_path: Path) -> None:
    echo = json.dumps(
        {
            "error": {
                "message": f"Incorrect API key provided: {API_KEY}.",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        }
    ).encode()
    refused = Interaction(
        method="POST",
        uri="https://api.openai.com/v1/chat/completions",
        request_body=None,
        status=401,
        headers={"content-type": "application/json", "set-cookie": f"session={API_KEY}"},
        body=echo,
        json=json.loads(echo),
    )
    path = tmp_path / "refused.yaml"
    with ReplayServer(interactions=[refused]) as server:
        async with record_cassette(path):
            provider = OpenAIChatProvider(API_KEY, base_url=server.url + "/v1", streaming=True)
            with pytest.raises(RobotaError):
                await _answer(provider, "gpt-4o-mini")
    raw = path.read_bytes()
    assert API_KEY.encode() not in raw
    [kept] = load_cassette(path).interactions
    assert kept.status == 401
    assert kept.json["error"]["message"] == f"Incorrect API key provided: {REDACTED}."
    assert dict(kept.headers) == {"content-type": "application/json"}  # no set-cookie


async def test_a_run_that_raises_writes_no_cassette(tmp_path: Path) -> None:
    source = load_cassette(CASSETTES / "openai_chat_read_file.yaml")
    path = tmp_path / "half.yaml"

    async def run(url: str) -> None:
        async with record_cassette(path):
            provider = OpenAIChatProvider(API_KEY, base_url=url + "/v1")
            await _answer(provider, "gpt-4o-mini")  # the second call misses: HTTP 599

    with ReplayServer(interactions=source.interactions[:1]) as server, pytest.raises(RobotaError):
        await run(server.url)
    assert server.served == 1
    assert not path.exists()
