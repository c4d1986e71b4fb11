"""An independent reader of recorded OpenAI traffic (test side; shares no code with the adapter).

From the recorded JSON / SSE text alone it decides what a user should get from each model call:
an *answer* (text, reasoning text, tool calls with parsed arguments, usage, raw finish reason)
or a *typed error* (the Robota error class the recorded status / error body names, or a
malformed-response error for a body that is no complete answer). It works on any folder of
vcrpy recordings (``ROBOTA_CASSETTE_DIR``) and names no recording.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robota.core.errors import (
    AuthenticationError,
    BadRequestError,
    ContextWindowExceededError,
    InternalServerError,
    MalformedResponseError,
    NotFoundError,
    OverloadedError,
    PermissionDeniedError,
    ProviderError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitError,
    RobotaError,
)
from robota.core.testing.cassette import Interaction, load_cassette

OPENAI_HOSTS = ("api.openai.com", "openai.azure.com", "api.cerebras.ai", "openrouter.ai")
MODEL_PATHS = ("/chat/completions", "/responses")


def cassette_root() -> Path:
    env = os.environ.get("ROBOTA_CASSETTE_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    repo = next(p for p in here.parents if (p / "packages").is_dir())
    return repo.parent / "shared" / "cassettes" / "pydantic-ai"


def is_openai_shaped(host: str, path: str) -> bool:
    """OpenAI's hosts, or any host serving the OpenAI API shape."""
    return host.endswith(OPENAI_HOSTS) or path.endswith(MODEL_PATHS)


def surface(path: str) -> str:
    """``chat`` for Chat Completions, ``responses`` for everything else OpenAI-shaped."""
    return "chat" if path.endswith("/chat/completions") else "responses"


@functools.cache
def recordings() -> list[tuple[Path, list[Interaction]]]:
    """Every cassette under the root with its interactions (unreadable files are skipped); read
    once per test session."""
    found: list[tuple[Path, list[Interaction]]] = []
    for file in sorted(cassette_root().rglob("*.yaml")):
        try:
            found.append((file, list(load_cassette(file).interactions)))
        except (ValueError, KeyError, TypeError):
            continue
    return found


def is_model_call(i: Interaction) -> bool:
    return i.method == "POST" and i.path.endswith(MODEL_PATHS)


@dataclass
class Expected:
    """What a user should see from a call that answered."""

    text: str = ""
    delta_text: str | None = None
    thinking: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=lambda: [])
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    reasoning_tokens: int = 0
    raw_finish: str | None = None
    output_items: list[dict[str, Any]] = field(default_factory=lambda: [])


@dataclass
class Refused:
    """A call that must end in a typed error of class ``error``."""

    error: type[RobotaError]
    why: str
    status: int | None = None


def sse_data(body: bytes) -> tuple[list[Any], bool]:
    """The ``data`` payloads of complete events (JSON-decoded; None when not JSON) and whether
    ``[DONE]`` arrived."""
    out: list[Any] = []
    done = False
    for block in body.decode("utf-8", "replace").replace("\r\n", "\n").split("\n\n")[:-1]:
        lines = [line[5:].removeprefix(" ") for line in block.split("\n") if line[:5] == "data:"]
        if not lines:
            continue
        payload = "\n".join(lines)
        if payload == "[DONE]":
            done = True
            break
        try:
            out.append(json.loads(payload))
        except ValueError:
            out.append(None)
    return out, done


def _args(raw: Any) -> Any:
    if raw is None or raw == "":
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _error_of(document: Any) -> dict[str, Any] | None:
    """The error a JSON document states, or None."""
    if not isinstance(document, dict) or document.get("object") == "response":
        return None
    if document.get("type") == "error" or document.get("object") == "error":
        inner = document.get("error")
        return inner if isinstance(inner, dict) else {"message": inner, **document}
    inner = document.get("error")
    if isinstance(inner, dict) and inner:
        return inner
    if isinstance(inner, str) and inner:
        return {"message": inner}
    return None


STATUS_ERRORS: dict[int, type[RobotaError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    408: ProviderTimeoutError,
    409: InternalServerError,
    413: ContextWindowExceededError,
    422: BadRequestError,
    429: RateLimitError,
    503: OverloadedError,
    529: OverloadedError,
}


def error_class(status: int | None, error: dict[str, Any]) -> type[RobotaError]:
    """The class OpenAI's documented status / type / code rules give."""
    marks = {str(error.get("type")), str(error.get("code"))}
    message = str(error.get("message") or "").lower()
    if marks & {"insufficient_quota", "billing_hard_limit_reached"}:
        return QuotaExhaustedError
    if marks & {"context_length_exceeded", "string_above_max_length"}:
        return ContextWindowExceededError
    if "context length" in message or "context size" in message:
        return ContextWindowExceededError
    code = error.get("code")
    if status is None and isinstance(code, int) and 100 <= code <= 599:
        status = code
    if status is not None:
        if status in STATUS_ERRORS:
            return STATUS_ERRORS[status]
        return InternalServerError if status >= 500 else ProviderError
    if marks & {"rate_limit_exceeded", "rate_limit_error", "tokens", "requests"}:
        return RateLimitError
    if marks & {"server_error", "internal_error", "api_error"}:
        return InternalServerError
    if marks & {"invalid_request_error", "invalid_prompt"}:
        return BadRequestError
    return ProviderError


def _chat_usage(exp: Expected, usage: Any) -> None:
    if not isinstance(usage, dict):
        return
    exp.input_tokens = usage.get("prompt_tokens") or 0
    exp.output_tokens = usage.get("completion_tokens") or 0
    exp.cache_read_tokens = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    exp.reasoning_tokens = (usage.get("completion_tokens_details") or {}).get(
        "reasoning_tokens"
    ) or 0


def chat_json(doc: Any) -> Expected | Refused:
    if _error_of(doc) is not None:
        return Refused(error_class(None, _error_of(doc) or {}), "200 body states an error")
    choices = doc.get("choices") if isinstance(doc, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return Refused(MalformedResponseError, "no choices")
    choice = choices[0]
    msg = choice.get("message")
    if not isinstance(msg, dict) or not choice.get("finish_reason"):
        return Refused(MalformedResponseError, "no message or finish_reason")
    exp = Expected(text=msg.get("content") or "", raw_finish=choice.get("finish_reason"))
    if not exp.text and msg.get("refusal"):
        exp.text = msg["refusal"]
    exp.thinking = msg.get("reasoning_content") or msg.get("reasoning") or ""
    for call in msg.get("tool_calls") or []:
        exp.tool_calls.append((call["function"]["name"], _args(call["function"]["arguments"])))
    _chat_usage(exp, doc.get("usage"))
    return exp


def chat_sse(body: bytes) -> Expected | Refused:
    chunks, done = sse_data(body)
    if not chunks and not done:
        return Refused(MalformedResponseError, "no event stream")
    exp = Expected()
    calls: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            return Refused(MalformedResponseError, "event data is not a JSON object")
        if _error_of(chunk) is not None:
            return Refused(error_class(None, _error_of(chunk) or {}), "error event")
        if chunk.get("usage"):
            _chat_usage(exp, chunk["usage"])
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            exp.text += delta.get("content") or ""
            exp.thinking += delta.get("reasoning_content") or delta.get("reasoning") or ""
            for tc in delta.get("tool_calls") or []:
                fn = tc.get("function") or {}
                if fn.get("name"):
                    names[tc["index"]] = fn["name"]
                calls.setdefault(tc["index"], []).append(fn.get("arguments") or "")
            if choice.get("finish_reason"):
                exp.raw_finish = choice["finish_reason"]
    if exp.raw_finish is None or not done:
        return Refused(MalformedResponseError, "no finish_reason or no [DONE]")
    exp.tool_calls = [(names[i], _args("".join(calls[i]))) for i in sorted(calls)]
    exp.delta_text = exp.text
    return exp


def responses_json(doc: Any, items: list[Any] | None = None) -> Expected | Refused:
    if _error_of(doc) is not None:
        return Refused(error_class(None, _error_of(doc) or {}), "200 body states an error")
    if not isinstance(doc, dict):
        return Refused(MalformedResponseError, "not a JSON object")
    status = doc.get("status")
    if status == "failed":
        error = doc.get("error") or {}
        return Refused(error_class(None, {**error, "type": error.get("code")}), "failed")
    output = doc.get("output") if not (items and not doc.get("output")) else items
    if status not in ("completed", "complete", "incomplete") or not isinstance(output, list):
        return Refused(MalformedResponseError, f"status {status!r}")
    raw = status
    if status == "incomplete":
        reason = (doc.get("incomplete_details") or {}).get("reason")
        raw = f"incomplete:{reason}" if reason else "incomplete"
    exp = Expected(raw_finish=raw, output_items=list(output))
    for item in output:
        if item["type"] == "message":
            for c in item.get("content") or []:
                if c.get("type") == "output_text":
                    exp.text += c["text"]
                elif c.get("type") == "refusal":
                    exp.text += c["refusal"]
        elif item["type"] == "reasoning":
            summary = [s["text"] for s in item.get("summary") or []]
            content = [c["text"] for c in item.get("content") or []]
            exp.thinking += "\n\n".join(summary or content)
        elif item["type"] == "function_call":
            exp.tool_calls.append((item["name"], _args(item.get("arguments"))))
    usage = doc.get("usage") or {}
    exp.input_tokens = usage.get("input_tokens") or 0
    exp.output_tokens = usage.get("output_tokens") or 0
    exp.cache_read_tokens = (usage.get("input_tokens_details") or {}).get("cached_tokens") or 0
    exp.reasoning_tokens = (usage.get("output_tokens_details") or {}).get("reasoning_tokens") or 0
    return exp


def responses_sse(body: bytes) -> Expected | Refused:
    events, _ = sse_data(body)
    done_items: list[Any] = []
    deltas = ""
    for ev in events:
        if not isinstance(ev, dict):
            return Refused(MalformedResponseError, "event data is not a JSON object")
        if _error_of(ev) is not None:
            return Refused(error_class(None, _error_of(ev) or {}), "error event")
        kind = ev.get("type")
        if kind == "response.failed":
            return responses_json({**(ev.get("response") or {}), "status": "failed"})
        if kind == "response.output_item.done":
            done_items.append(ev["item"])
        if kind == "response.output_text.delta":
            deltas += ev["delta"]
        if kind in ("response.completed", "response.incomplete") and isinstance(
            ev.get("response"), dict
        ):
            exp = responses_json(ev["response"], done_items)
            if isinstance(exp, Expected):
                exp.delta_text = deltas
            return exp
    return Refused(MalformedResponseError, "no response.completed event")


def outcome(i: Interaction) -> Expected | Refused:
    """What the adapter must produce for one recorded model call."""
    if i.status >= 400:
        error = _error_of(i.json) or {}
        return Refused(error_class(i.status, error), f"HTTP {i.status}", status=i.status)
    chat = i.path.endswith("/chat/completions")
    try:
        if i.is_stream:
            return chat_sse(i.body) if chat else responses_sse(i.body)
        if i.json is None:
            return Refused(MalformedResponseError, "body is not JSON")
        return chat_json(i.json) if chat else responses_json(i.json)
    except (KeyError, TypeError, AttributeError, IndexError):
        return Refused(MalformedResponseError, "unexpected shape")
