"""The cassette judge on recordings it has never seen: error statuses, error bodies in a 200, cut
streams, HTML pages and an uncovered endpoint, written as vcrpy files into a fresh
``ROBOTA_CASSETTE_DIR``. Each must come out as its answer or its typed error, counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from _anthropic_fakes import message, sse, stream_events  # pyright: ignore[reportImplicitRelativeImport]
from _anthropic_replay import (  # pyright: ignore[reportImplicitRelativeImport]
    agent_conversations,
    replay_conversation,
    summarize,
)
from _anthropic_wire import anthropic_interactions  # pyright: ignore[reportImplicitRelativeImport]

_URL = "https://api.anthropic.com/v1/messages"
_BODY = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "hi"}],
}


def _interaction(
    status: int,
    body: Any,
    *,
    content_type: str = "application/json",
    uri: str = _URL,
    method: str = "POST",
    request: dict[str, Any] | None = None,
) -> dict[str, Any]:
    response: dict[str, Any] = {
        "status": {"code": status, "message": "x"},
        "headers": {"content-type": [content_type]},
    }
    if isinstance(body, bytes):
        response["body"] = {"string": body.decode()}
    else:
        response["parsed_body"] = body
    return {
        "request": {"method": method, "uri": uri, "headers": {}, "parsed_body": request or _BODY},
        "response": response,
    }


def _error(kind: str, text: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": text}}


_CUT = sse(stream_events([({"type": "text", "text": ""}, ["Hel", "lo"])]))
_ERRORED = sse(
    [
        *stream_events([({"type": "text", "text": ""}, ["Hel"])])[:4],
        _error("rate_limit_error", "slow down"),
    ]
)
_WHITESPACE = sse(
    stream_events(
        [
            ({"type": "text", "text": ""}, ["\n\n"]),
            ({"type": "tool_use", "id": "t1", "name": "now", "input": {}}, []),
        ],
        stop_reason="tool_use",
    )
)
_TOOL = {
    "name": "now",
    "description": "The time.",
    "input_schema": {"type": "object", "properties": {}},
}

UNSEEN: dict[str, list[dict[str, Any]]] = {
    "overloaded": [_interaction(529, _error("overloaded_error", "Overloaded"))],
    "too_long": [_interaction(400, _error("invalid_request_error", "prompt is too long: 9 > 8"))],
    "auth": [_interaction(401, _error("authentication_error", "invalid x-api-key"))],
    "gateway_page": [_interaction(502, b"<html>Bad gateway</html>", content_type="text/html")],
    "error_in_200": [_interaction(200, _error("overloaded_error", "Overloaded"))],
    "html_200": [_interaction(200, b"<html>maintenance</html>", content_type="text/html")],
    "cut_stream": [
        _interaction(200, _CUT[: _CUT.index(b"message_delta")], content_type="text/event-stream")
    ],
    "error_event": [_interaction(200, _ERRORED, content_type="text/event-stream")],
    "whitespace": [_interaction(200, _WHITESPACE, content_type="text/event-stream")],
    "count_limited": [
        _interaction(429, _error("rate_limit_error", "slow"), uri=_URL + "/count_tokens")
    ],
    "models": [
        _interaction(200, {"data": []}, uri="https://api.anthropic.com/v1/models", method="GET")
    ],
    "conversation": [
        _interaction(
            200,
            message(
                [
                    {"type": "text", "text": "\n\n"},
                    {"type": "tool_use", "id": "t1", "name": "now", "input": {}},
                ],
                stop_reason="tool_use",
            ),
            request={**_BODY, "tools": [_TOOL]},
        ),
        _interaction(
            200,
            message([{"type": "text", "text": "It is noon."}]),
            request={
                **_BODY,
                "tools": [_TOOL],
                "messages": [
                    {"role": "user", "content": "hi"},
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": "t1", "name": "now", "input": {}}],
                    },
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": "t1", "content": "12:00"}
                        ],
                    },
                ],
            },
        ),
    ],
}


@pytest.fixture
def unseen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, interactions in UNSEEN.items():
        document = {"interactions": interactions, "version": 1}
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    monkeypatch.setenv("ROBOTA_CASSETTE_DIR", str(tmp_path))
    return tmp_path


@pytest.mark.anyio
async def test_unseen_recordings_decode_into_answers_or_typed_errors(unseen: Path) -> None:
    interactions = anthropic_interactions()
    line, failures = await summarize(interactions)
    assert failures == []
    # 13 interactions: /v1/models is not covered; three answers (the whitespace stream and the
    # conversation's two rounds); the other nine are typed errors.
    assert line == "cassettes(anthropic): decoded=12 errors_typed=9 skipped=1 total=13 failed=0"


@pytest.mark.anyio
async def test_tool_conversations_are_found_by_reading_the_files(unseen: Path) -> None:
    conversations = agent_conversations()
    assert len(conversations) == 1
    for name, its in conversations:
        assert json.dumps(its[0].json).count("tool_use") >= 1
        await replay_conversation(name, its)
