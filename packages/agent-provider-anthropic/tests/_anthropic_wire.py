"""An independent reader of recorded Anthropic traffic: what a user should see for a recorded
response (the answer, or the typed error), computed from the bytes without any adapter code.

Rules it applies, each from the vendor docs or the package README ("Outcomes"):
- an error status → the error class of the body's ``error.type``, else of the status;
- a 2xx JSON error body / an ``event: error`` → the class of its type, status None;
- a 2xx body that is not a JSON object → ``MalformedResponseError``;
- a stream is an answer only once its ``message_stop`` event is complete (blank line included);
- whitespace-only text blocks join the text block before them or vanish.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robota.core.testing.cassette import Interaction, load_cassette

__all__ = [
    "Expected",
    "ExpectedError",
    "anthropic_interactions",
    "cassette_root",
    "expect",
    "expected_finish",
    "message_stop_end",
    "read_json",
    "read_sse",
    "sse_events",
]

BY_TYPE = {
    "invalid_request_error": "BadRequestError",
    "request_too_large": "BadRequestError",
    "authentication_error": "AuthenticationError",
    "billing_error": "QuotaExhaustedError",
    "permission_error": "PermissionDeniedError",
    "not_found_error": "NotFoundError",
    "rate_limit_error": "RateLimitError",
    "api_error": "InternalServerError",
    "timeout_error": "ProviderTimeoutError",
    "overloaded_error": "OverloadedError",
}
"""https://docs.anthropic.com/en/api/errors (error types)."""

BY_STATUS = {
    400: "BadRequestError",
    401: "AuthenticationError",
    402: "QuotaExhaustedError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    408: "ProviderTimeoutError",
    413: "BadRequestError",
    422: "BadRequestError",
    429: "RateLimitError",
    500: "InternalServerError",
    502: "InternalServerError",
    503: "OverloadedError",
    504: "ProviderTimeoutError",
    529: "OverloadedError",
}

_STOPS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


def cassette_root() -> Path:
    """``ROBOTA_CASSETTE_DIR`` or ``<repo>/../shared/cassettes/pydantic-ai``."""
    env = os.environ.get("ROBOTA_CASSETTE_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    repo = next(p for p in here.parents if (p / "packages").is_dir())
    return repo.parent / "shared" / "cassettes" / "pydantic-ai"


def anthropic_interactions() -> list[tuple[str, int, Interaction]]:
    """Every recorded interaction with an ``*.anthropic.com`` host, by file and position."""
    root = cassette_root()
    found: list[tuple[str, int, Interaction]] = []
    for path in sorted(root.rglob("*.yaml")) if root.is_dir() else []:
        try:
            cassette = load_cassette(path)
        except (ValueError, KeyError, TypeError):
            continue
        for index, interaction in enumerate(cassette.interactions):
            if interaction.host.endswith("anthropic.com"):
                found.append((str(path.relative_to(root)), index, interaction))
    return found


def expected_finish(stop_reason: str | None) -> str:
    return _STOPS.get(stop_reason or "", "other")


@dataclass
class Expected:
    """The answer a recorded response should decode into."""

    text: str = ""
    thinking: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list[tuple[str, Any]])
    hosted_calls: list[str] = field(default_factory=list[str])
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read: int = 0
    cache_write: int = 0
    stop_reason: str | None = None
    model: str = ""
    _last_text: bool = False

    def add_text(self, text: str) -> None:
        if not text:
            return
        if not text.strip():
            if self._last_text:
                self.text += text
            return
        self.text += text
        self._last_text = True

    def add_other(self) -> None:
        self._last_text = False


@dataclass
class ExpectedError:
    """The typed error a recorded response should decode into."""

    name: str
    status: int | None = None
    vendor_type: str | None = None
    overflow: bool = False


def _usage(exp: Expected, usage: dict[str, Any]) -> None:
    exp.cache_read = usage.get("cache_read_input_tokens") or 0
    exp.cache_write = usage.get("cache_creation_input_tokens") or 0
    exp.input_tokens = (usage.get("input_tokens") or 0) + exp.cache_read + exp.cache_write
    exp.output_tokens = usage.get("output_tokens") or 0


def _error(body: Any, status: int | None) -> ExpectedError:
    error = body.get("error") if isinstance(body, dict) else None
    error = error if isinstance(error, dict) else {}
    kind = error.get("type") if isinstance(error.get("type"), str) else None
    name = BY_TYPE.get(kind or "")
    if name is None and status is not None and status >= 400:
        fallback = "InternalServerError" if status >= 500 else "BadRequestError"
        name = BY_STATUS.get(status, fallback)
    message = error.get("message")
    overflow = isinstance(message, str) and message.lower().startswith("prompt is too long")
    return ExpectedError(
        name=name or "ProviderError", status=status, vendor_type=kind, overflow=overflow
    )


def read_json(body: dict[str, Any]) -> Expected | ExpectedError:
    """A buffered 2xx body: the answer, or the error it carries."""
    try:
        return _read_json(body)
    except (KeyError, TypeError, AttributeError):
        return ExpectedError(name="MalformedResponseError")


def _read_json(body: dict[str, Any]) -> Expected | ExpectedError:
    if body.get("type") == "error" or ("type" not in body and isinstance(body.get("error"), dict)):
        return _error(body, None)
    if not isinstance(body.get("content"), list) or not isinstance(body.get("stop_reason"), str):
        return ExpectedError(name="MalformedResponseError")
    exp = Expected(model=body.get("model", ""), stop_reason=body.get("stop_reason"))
    for block in body["content"]:
        if block["type"] == "text":
            exp.add_text(block["text"])
            continue
        exp.add_other()
        if block["type"] == "thinking":
            exp.thinking += block["thinking"]
        elif block["type"] == "tool_use":
            exp.tool_calls.append((block["name"], block["input"]))
        elif block["type"] == "server_tool_use":
            exp.hosted_calls.append(block["name"])
    _usage(exp, body.get("usage") or {})
    return exp


def sse_events(raw: bytes) -> list[tuple[int, dict[str, Any]]]:
    """Complete events of an SSE body: ``(offset just past the event's blank line, data)``."""
    events: list[tuple[int, dict[str, Any]]] = []
    data: list[str] = []
    offset = 0
    for match in re.finditer(rb"([^\r\n]*)(\r\n|\r|\n)", raw):
        line = match.group(1).decode("utf-8", "replace")
        offset = match.end()
        if line == "":
            if data:
                events.append((offset, json.loads("\n".join(data))))
            data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    return events


def message_stop_end(raw: bytes) -> int | None:
    """Offset where the ``message_stop`` event is complete, or None when it never is."""
    ends = [end for end, event in sse_events(raw) if event.get("type") == "message_stop"]
    return ends[0] if ends else None


def read_sse(raw: bytes) -> Expected | ExpectedError:
    """A streamed 2xx body: the answer, or the error it ends in."""
    try:
        return _read_sse(raw)
    except (KeyError, TypeError, AttributeError, ValueError):
        return ExpectedError(name="MalformedResponseError")


def _read_sse(raw: bytes) -> Expected | ExpectedError:
    exp = Expected()
    usage: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    started = stopped = False
    for _, event in sse_events(raw):
        kind = event.get("type")
        if kind == "error":
            return _error(event, None)
        if kind == "message_start":
            started = True
            exp.model = event["message"]["model"]
            usage.update(event["message"].get("usage") or {})
        elif kind == "content_block_start":
            block = dict(event["content_block"])
            block["_json"] = ""
            block["_text"] = block.get("text", "")
            blocks[event["index"]] = block
            if block["type"] == "server_tool_use":
                exp.hosted_calls.append(block["name"])
        elif kind == "content_block_delta":
            delta = event["delta"]
            block = blocks[event["index"]]
            if delta["type"] == "text_delta":
                block["_text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                exp.thinking += delta["thinking"]
            elif delta["type"] == "input_json_delta":
                block["_json"] += delta["partial_json"]
        elif kind == "content_block_stop":
            block = blocks[event["index"]]
            if block["type"] == "text":
                exp.add_text(block["_text"])
            else:
                exp.add_other()
            if block["type"] == "tool_use":
                args = json.loads(block["_json"]) if block["_json"] else {}
                exp.tool_calls.append((block["name"], args))
        elif kind == "message_delta":
            exp.stop_reason = event["delta"].get("stop_reason") or exp.stop_reason
            usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})
        elif kind == "message_stop":
            stopped = True
            break
    if not started or not stopped or exp.stop_reason is None:
        return ExpectedError(name="MalformedResponseError")
    _usage(exp, usage)
    return exp


def expect(interaction: Interaction) -> Expected | ExpectedError:
    """What the recorded ``/v1/messages`` response should decode into."""
    if interaction.status >= 400:
        return _error(interaction.json, interaction.status)
    if interaction.is_stream:
        return read_sse(interaction.body)
    if not isinstance(interaction.json, dict):
        return ExpectedError(name="MalformedResponseError")
    return read_json(interaction.json)
