"""The replay harness works on recordings it has never seen: a folder of vcrpy cassettes written
here (error statuses, a stream cut before its last chunk, an unusable function call, a blocked
prompt, a gateway's 200 error body, a three-round tool conversation) is replayed through
``ROBOTA_CASSETTE_DIR`` by the same code as the shared recordings — every error decodes into its
typed error and counts as decoded, and the conversation is found and finished by an Agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from _google_conversations import tool_conversations  # pyright: ignore[reportImplicitRelativeImport]
from _google_replay import (  # pyright: ignore[reportImplicitRelativeImport]
    replay_all,
    replay_conversation,
)
from _google_serve import call, candidate, sse, text  # pyright: ignore[reportImplicitRelativeImport]

API = "https://generativelanguage.googleapis.com/v1beta"
VERTEX = (
    "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/p/locations/us-central1/"
    "publishers/google/models"
)
USAGE = {"promptTokenCount": 12, "candidatesTokenCount": 3, "totalTokenCount": 15}
ASK = {"contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}]}


def _error(code: int, status: str, message: str = "x", **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "status": status, "message": message, **extra}}


def _interaction(
    uri: str, status: int, body: Any, *, request: Any = None, content_type: str | None = None
) -> dict[str, Any]:
    response: dict[str, Any] = {"status": {"code": status, "message": ""}, "headers": {}}
    if isinstance(body, bytes):
        response["body"] = {"string": body.decode()}
        response["headers"]["content-type"] = [content_type or "text/event-stream"]
    else:
        response["parsed_body"] = body
        response["headers"]["content-type"] = [content_type or "application/json"]
    return {
        "request": {"method": "POST", "uri": uri, "parsed_body": request or ASK},
        "response": response,
    }


def _model(method: str, model: str = "gemini-2.5-flash") -> str:
    suffix = "?alt=sse" if method == "streamGenerateContent" else ""
    return f"{API}/models/{model}:{method}{suffix}"


PER_DAY = {
    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
    "violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel"}],
}
OVERFLOW = "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576)."
WEATHER_TOOL = {
    "functionDeclarations": [
        {
            "name": "weather",
            "description": "Weather in a city.",
            "parametersJsonSchema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        }
    ]
}


def _turns(*extra: dict[str, Any]) -> dict[str, Any]:
    return {"contents": [*ASK["contents"], *extra], "tools": [WEATHER_TOOL]}


def _result(name: str, value: str) -> dict[str, Any]:
    return {
        "role": "user",
        "parts": [{"functionResponse": {"name": name, "response": {"output": value}}}],
    }


def _asked(city: str) -> dict[str, Any]:
    return {"role": "model", "parts": [call("weather", city=city)]}


TYPED_ERRORS: list[dict[str, Any]] = [
    _interaction(_model("generateContent"), 429, _error(429, "RESOURCE_EXHAUSTED")),
    _interaction(
        _model("generateContent"), 429, _error(429, "RESOURCE_EXHAUSTED", details=[PER_DAY])
    ),
    _interaction(_model("generateContent"), 400, _error(400, "INVALID_ARGUMENT", OVERFLOW)),
    _interaction(_model("streamGenerateContent"), 503, [_error(503, "UNAVAILABLE")]),
    _interaction(
        _model("generateContent"), 502, b"<html>Bad Gateway</html>", content_type="text/html"
    ),
    _interaction(f"{VERTEX}/gemini-2.5-pro:generateContent", 403, _error(403, "PERMISSION_DENIED")),
    _interaction(f"{API}/models/gemini-2.5-flash:countTokens", 404, _error(404, "NOT_FOUND")),
    _interaction(_model("generateContent"), 200, _error(429, "RESOURCE_EXHAUSTED")),
    _interaction(_model("streamGenerateContent"), 200, sse(candidate(text("Par"), finish=None))),
    _interaction(
        _model("streamGenerateContent"),
        200,
        sse(candidate(text("Par"), finish=None), _error(503, "UNAVAILABLE")),
    ),
    _interaction(_model("generateContent"), 200, candidate(finish="MALFORMED_FUNCTION_CALL")),
    _interaction(_model("generateContent"), 200, {"promptFeedback": {"blockReason": "SAFETY"}}),
    _interaction(_model("generateContent"), 200, {"candidates": [], "usageMetadata": USAGE}),
]
ANSWERS: list[dict[str, Any]] = [
    _interaction(f"{API}/models/gemini-2.5-flash:countTokens", 200, {"totalTokens": 31}),
    _interaction(
        _model("streamGenerateContent"),
        200,
        sse(candidate(text("Sun"), finish=None, usage=USAGE), candidate(text("ny."), usage=USAGE)),
    ),
    _interaction(
        _model("generateContent"),
        200,
        candidate(call("weather", city="Paris"), usage=USAGE),
        request=_turns(),
    ),
    _interaction(
        _model("generateContent"),
        200,
        candidate(call("weather", city="Lyon"), usage=USAGE),
        request=_turns(_asked("Paris"), _result("weather", "sunny")),
    ),
    _interaction(
        _model("generateContent"),
        200,
        candidate(text("Sunny in Paris, rainy in Lyon."), usage=USAGE),
        request=_turns(
            _asked("Paris"), _result("weather", "sunny"), _asked("Lyon"), _result("weather", "rain")
        ),
    ),
]
UPLOAD = _interaction(f"{API}/fileSearchStores", 200, {"name": "fileSearchStores/s"})


@pytest.fixture
def unseen_recordings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "test_unseen"
    folder.mkdir()
    for n, interaction in enumerate([*TYPED_ERRORS, UPLOAD]):
        document = {"interactions": [interaction], "version": 1}
        (folder / f"single_{n}.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    conversation = {"interactions": ANSWERS, "version": 1}
    (folder / "answers.yaml").write_text(yaml.safe_dump(conversation), encoding="utf-8")
    monkeypatch.setenv("ROBOTA_CASSETTE_DIR", str(tmp_path))
    return tmp_path


@pytest.mark.anyio
async def test_unseen_recordings_decode_into_answers_and_typed_errors(
    unseen_recordings: Path,
) -> None:
    summary = await replay_all()
    print(summary.line.replace("cassettes(google)", "cassettes(google unseen)"))
    assert summary.failures == []
    assert (summary.decoded, summary.typed, len(summary.skipped), summary.total) == (
        len(TYPED_ERRORS) + len(ANSWERS),
        len(TYPED_ERRORS),
        1,
        len(TYPED_ERRORS) + len(ANSWERS) + 1,
    )


@pytest.mark.anyio
async def test_an_unseen_tool_conversation_is_found_and_finished(unseen_recordings: Path) -> None:
    conversations = tool_conversations()
    assert [len(c.calls) for c in conversations] == [3]
    assert json.loads(conversations[0].recorded_results()["weather"][1]) == {"output": "rain"}
    await replay_conversation(conversations[0])
