"""Recording HTTP traffic into cassettes (``robota.evals.recording``).

The "live server" is an ``httpx.MockTransport`` behind an ordinary ``httpx`` client: the
recorder (vcrpy) sees it exactly as it sees a provider SDK's network transport. Every cassette
written is read back with ``robota.core.testing.cassette.load_cassette`` and replayed through
its transport, the path every provider's ``replay_provider`` takes.
"""

from __future__ import annotations

import doctest
import gzip
import importlib.metadata
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import httpx
import pytest
from robota.core.errors import MissingExtraError
from robota.core.testing.cassette import load_cassette
from robota.evals.recording import (
    REDACTED,
    SAFE_REQUEST_HEADERS,
    CassetteFilters,
    _encoding,
    _filters,
    record_cassette,
)

KEY = "sk-proj-Recorded0123456789SECRET"

SSE = (
    b'data: {"id":"chatcmpl-1","choices":[{"delta":{"content":"Hel"}}],"obfuscation":"Qp"}\n\n'
    b": keep-alive\n\n"
    b'data: {"id":"chatcmpl-1","choices":[{"delta":{"content":"lo \xc3\xa9t\xc3\xa9  "}}]}\n\n'
    b"data: [DONE]\n\n"
)
"""A Server-Sent Events body as a vendor streams it (a comment, non-ASCII text, a trailing space
inside a JSON string)."""

GEMINI_SSE = b'data: {"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]}\r\n\r\n'
"""Gemini ends its event lines with CRLF."""

Handler = Callable[[httpx.Request], httpx.Response]


def _server(calls: list[httpx.Request]) -> Handler:
    """A fake vendor API: a stream, a gzip-compressed JSON answer, and a 401 echoing the key."""

    def handle(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        path = request.url.path
        if path == "/v1/chat/completions":
            return httpx.Response(
                200,
                headers={
                    "content-type": "text/event-stream; charset=utf-8",
                    "set-cookie": f"__cf_bm={KEY}",
                    "x-request-id": "req_123",
                    "openai-processing-ms": "231",
                },
                content=SSE,
            )
        if path.endswith(":streamGenerateContent"):
            return httpx.Response(
                200, headers={"content-type": "text/event-stream"}, content=GEMINI_SSE
            )
        if path == "/v1/messages":
            answer = {
                "id": "msg_1",
                "content": [{"type": "text", "text": "Paris."}],
                "usage": {"input_tokens": 12, "output_tokens": 3},
            }
            return httpx.Response(
                200,
                headers={"content-type": "application/json", "content-encoding": "gzip"},
                content=gzip.compress(json.dumps(answer).encode()),
            )
        error = {
            "error": {"message": f"Incorrect API key provided: {KEY}", "code": "invalid_api_key"}
        }
        return httpx.Response(401, headers={"content-type": "application/json"}, json=error)

    return handle


async def _stream(client: httpx.AsyncClient, body: dict[str, object]) -> bytes:
    """POST a streamed chat call the way an SDK does, and read the events."""
    async with client.stream(
        "POST",
        "https://api.openai.com/v1/chat/completions",
        json=body,
        headers={"authorization": f"Bearer {KEY}", "user-agent": "OpenAI/Python 2.0"},
    ) as response:
        return b"".join([chunk async for chunk in response.aiter_bytes()])


@pytest.mark.anyio
async def test_a_streamed_response_is_recorded_byte_for_byte_and_replays_so(tmp_path: Path) -> None:
    path = tmp_path / "stream.yaml"
    calls: list[httpx.Request] = []
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(_server(calls))) as client,
        record_cassette(path) as recording,
    ):
        live = await _stream(client, {"model": "gpt-4o-mini", "stream": True})
    assert live == SSE
    assert recording.recorded == 1
    assert not recording.replaying

    [interaction] = load_cassette(path).interactions
    assert interaction.is_stream
    assert interaction.body == SSE
    assert interaction.request_body == {"model": "gpt-4o-mini", "stream": True}
    assert "string: |" in path.read_text(encoding="utf-8")  # a literal block, readable

    replayed = load_cassette(path)
    async with httpx.AsyncClient(transport=replayed.transport()) as client:
        assert await _stream(client, {"model": "gpt-4o-mini", "stream": True}) == SSE
    assert replayed.served == 1


@pytest.mark.anyio
async def test_crlf_event_lines_survive_the_file(tmp_path: Path) -> None:
    path = tmp_path / "gemini.yaml"
    calls: list[httpx.Request] = []
    url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(_server(calls))) as client,
        record_cassette(path),
    ):
        response = await client.post(url, params={"alt": "sse"}, json={"contents": []})
    assert response.content == GEMINI_SSE
    [interaction] = load_cassette(path).interactions
    assert interaction.body == GEMINI_SSE


@pytest.mark.anyio
async def test_credentials_never_reach_the_file(tmp_path: Path) -> None:
    path = tmp_path / "keys.yaml"
    calls: list[httpx.Request] = []
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(_server(calls))) as client,
        record_cassette(path),
    ):
        await _stream(client, {"model": "gpt-4o-mini", "note": f"my key is {KEY}"})
        refused = await client.post(
            "https://api.openai.com/v1/embeddings",
            json={"input": "x"},
            headers={"api-key": KEY, "cookie": f"session={KEY}", "x-api-key": KEY},
        )
        await client.post(
            "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent",
            params={"alt": "sse", "key": KEY},
            json={"contents": []},
            headers={"x-goog-api-key": KEY},
        )
    # The live traffic carried the key everywhere; the server echoed it.
    assert all(KEY in f"{dict(request.headers)} {request.url}" for request in calls)
    assert KEY in refused.text

    raw = path.read_bytes()
    assert KEY.encode() not in raw
    chat, embeddings, gemini = load_cassette(path).interactions
    assert chat.request_body == {"model": "gpt-4o-mini", "note": f"my key is {REDACTED}"}
    assert embeddings.json == {
        "error": {"message": f"Incorrect API key provided: {REDACTED}", "code": "invalid_api_key"}
    }
    assert gemini.uri == (
        "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse"
    )
    document = load_cassette(path)
    assert document.interactions[0].headers == {"content-type": "text/event-stream; charset=utf-8"}
    stored = _document(path)
    for interaction in stored["interactions"]:
        assert set(interaction["request"]["headers"]) <= set(SAFE_REQUEST_HEADERS)


@pytest.mark.parametrize(
    ("headers", "params"),
    [
        ({"authorization": "Bearer {key}"}, {}),
        ({"x-api-key": "{key}"}, {}),
        ({"x-goog-api-key": "{key}"}, {}),
        ({"api-key": "{key}"}, {}),
        ({"cookie": "theme=dark; session={key}"}, {}),
        ({}, {"key": "{key}"}),
        ({}, {"access_token": "{key}"}),
    ],
    ids=["bearer", "x-api-key", "x-goog-api-key", "api-key", "cookie", "key=", "access_token="],
)
@pytest.mark.anyio
async def test_a_key_echoed_back_is_redacted_wherever_it_was_sent(
    headers: dict[str, str], params: dict[str, str], tmp_path: Path
) -> None:
    key = "AIzaSyEchoed-0123456789abcdefghij"
    path = tmp_path / "echo.yaml"

    def echo(request: httpx.Request) -> httpx.Response:
        sent = f"{dict(request.headers)} {request.url}"
        assert key in sent
        return httpx.Response(400, json={"error": {"message": f"bad request: {sent}"}})

    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(echo)) as client,
        record_cassette(path),
    ):
        await client.post(
            "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent",
            headers={name: value.format(key=key) for name, value in headers.items()},
            params={name: value.format(key=key) for name, value in params.items()},
            json={"contents": []},
        )
    assert key.encode() not in path.read_bytes()
    [interaction] = load_cassette(path).interactions
    assert REDACTED in interaction.json["error"]["message"]
    assert interaction.uri == (
        "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent"
    )


def _document(path: Path) -> dict[str, Any]:
    import yaml

    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return cast(dict[str, Any], loaded)


@pytest.mark.anyio
async def test_a_compressed_json_answer_is_stored_decoded_and_structured(tmp_path: Path) -> None:
    path = tmp_path / "json.yaml"
    calls: list[httpx.Request] = []
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(_server(calls))) as client,
        record_cassette(path),
    ):
        live = await client.post("https://api.anthropic.com/v1/messages", json={"max_tokens": 9})
    assert live.json()["content"][0]["text"] == "Paris."
    [interaction] = load_cassette(path).interactions
    assert interaction.json == {
        "id": "msg_1",
        "content": [{"type": "text", "text": "Paris."}],
        "usage": {"input_tokens": 12, "output_tokens": 3},
    }
    assert interaction.headers == {"content-type": "application/json"}
    assert "parsed_body:" in path.read_text(encoding="utf-8")


@pytest.mark.anyio
async def test_response_headers_are_kept_only_when_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "headers.yaml"
    calls: list[httpx.Request] = []
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(_server(calls))) as client,
        record_cassette(
            path, keep_response_headers=("Content-Type", "x-request-id", "content-length")
        ),
    ):
        await _stream(client, {"model": "m"})
    [interaction] = _document(path)["interactions"]
    # content-length is framing: the recorded body may be filtered, so it is never kept.
    assert interaction["response"]["headers"] == {
        "content-type": ["text/event-stream; charset=utf-8"],
        "x-request-id": ["req_123"],
    }


@pytest.mark.parametrize(
    "name",
    [
        "set-cookie",
        "Authorization",
        "x-api-key",
        "cookie",
        "proxy-authenticate",
        "www-authenticate",
    ],
)
def test_keeping_a_sensitive_header_is_refused_at_call_time(name: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=name.lower()):
        record_cassette(tmp_path / "x.yaml", keep_response_headers=("content-type", name))
    with pytest.raises(ValueError, match=name.lower()):
        record_cassette(tmp_path / "x.yaml", keep_request_headers=(name,))
    assert not (tmp_path / "x.yaml").exists()


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="mode"):
        record_cassette(tmp_path / "x.yaml", mode="always")  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError, match="one string"):
        record_cassette(tmp_path / "x.yaml", filter_json_fields="id")


@pytest.mark.anyio
async def test_json_fields_are_omitted_from_the_copy_only(tmp_path: Path) -> None:
    path = tmp_path / "filtered.yaml"
    calls: list[httpx.Request] = []
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(_server(calls))) as client,
        record_cassette(path, filter_json_fields=("obfuscation", "user", "id")),
    ):
        live = await _stream(client, {"model": "m", "user": "u-42", "messages": [{"id": 1}]})
        answer = await client.post("https://api.anthropic.com/v1/messages", json={})
    # The client read the answers unfiltered, the server got the request unfiltered.
    assert live == SSE
    assert answer.json()["id"] == "msg_1"
    assert json.loads(calls[0].content) == {"model": "m", "user": "u-42", "messages": [{"id": 1}]}

    chat, message = load_cassette(path).interactions
    assert chat.request_body == {"model": "m", "messages": [{}]}
    assert chat.body == (
        b'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n'
        b": keep-alive\n\n"
        b'data: {"choices":[{"delta":{"content":"lo \xc3\xa9t\xc3\xa9  "}}]}\n\n'
        b"data: [DONE]\n\n"
    )
    assert message.json == {
        "content": [{"type": "text", "text": "Paris."}],
        "usage": {"input_tokens": 12, "output_tokens": 3},
    }


@pytest.mark.anyio
async def test_once_replays_an_existing_cassette_strictly_without_the_network(
    tmp_path: Path,
) -> None:
    from vcr.errors import CannotOverwriteExistingCassetteException

    path = tmp_path / "once.yaml"
    calls: list[httpx.Request] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(_server(calls))) as client:
        async with record_cassette(path):
            await _stream(client, {"model": "m", "messages": ["a"]})
        recorded = path.read_bytes()
        async with record_cassette(path) as replay:
            assert replay.replaying
            # Same method, URL and JSON document (the key order differs).
            again = await _stream(client, {"messages": ["a"], "model": "m"})
            assert replay.played == 1
            with pytest.raises(CannotOverwriteExistingCassetteException):
                await _stream(client, {"model": "m", "messages": ["b"]})
    assert again == SSE
    assert len(calls) == 1  # only the recording reached the server
    assert path.read_bytes() == recorded


@pytest.mark.anyio
async def test_overwrite_records_again_and_replay_needs_a_file(tmp_path: Path) -> None:
    path = tmp_path / "over.yaml"
    calls: list[httpx.Request] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(_server(calls))) as client:
        async with record_cassette(path):
            await _stream(client, {"model": "old"})
        async with record_cassette(path, mode="overwrite") as recording:
            await client.post("https://api.anthropic.com/v1/messages", json={"model": "new"})
    assert not recording.replaying
    assert len(calls) == 2
    [interaction] = load_cassette(path).interactions
    assert interaction.request_body == {"model": "new"}

    missing = record_cassette(tmp_path / "missing.yaml", mode="replay")
    with pytest.raises(FileNotFoundError):
        missing.__enter__()


@pytest.mark.anyio
async def test_a_block_that_raises_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "failed.yaml"
    calls: list[httpx.Request] = []

    async def failing_task() -> None:
        async with (
            httpx.AsyncClient(transport=httpx.MockTransport(_server(calls))) as client,
            record_cassette(path),
        ):
            await _stream(client, {"model": "m"})
            raise RuntimeError("task failed")

    with pytest.raises(RuntimeError, match="task failed"):
        await failing_task()
    assert len(calls) == 1
    assert not path.exists()


def test_a_sync_client_is_recorded_too(tmp_path: Path) -> None:
    path = tmp_path / "sync.yaml"
    calls: list[httpx.Request] = []
    with (
        httpx.Client(transport=httpx.MockTransport(_server(calls))) as client,
        record_cassette(path),
    ):
        response = client.post("https://api.anthropic.com/v1/messages", json={})
    assert response.json()["id"] == "msg_1"
    [interaction] = load_cassette(path).interactions
    assert interaction.json is not None
    assert interaction.json["id"] == "msg_1"


def test_recorded_urls_lose_credentials_and_keep_the_rest() -> None:
    filters = CassetteFilters()
    assert filters.uri("https://u:p4ssw0rd@h.example/v1/x?alt=sse&Key=abc&api_key=1&b=2#f") == (
        "https://h.example/v1/x?alt=sse&b=2#f"
    )
    assert filters.uri("https://h.example/v1/x?access_token=t") == "https://h.example/v1/x"


def test_without_the_extra_the_error_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "vcr", None)
    with pytest.raises(MissingExtraError, match=r'pip install "robota-agent-evals\[record\]"'):
        record_cassette(tmp_path / "x.yaml")


def test_a_vcrpy_older_than_8_2_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = importlib.metadata.version

    def version(name: str) -> str:
        return "7.0.0" if name == "vcrpy" else real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    with pytest.raises(MissingExtraError, match="too old"):
        record_cassette(tmp_path / "x.yaml")


@pytest.mark.parametrize("module", [_filters, _encoding], ids=lambda m: m.__name__)
def test_the_docstring_examples_hold(module: ModuleType) -> None:
    outcome = doctest.testmod(module)
    assert outcome.attempted > 0
    assert outcome.failed == 0
