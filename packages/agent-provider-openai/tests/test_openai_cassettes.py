"""Every recorded OpenAI-shaped interaction replayed through the adapters.

An independent reader of recorded OpenAI traffic (test side; shares no code with the adapter).

It computes, straight from the recorded JSON / SSE text, what a user should see: text, reasoning
text, tool calls (names and parsed arguments), usage numbers and the raw finish reason.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
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
    QuotaExhaustedError,
    RateLimitError,
)
from robota.core.messages import ThinkingPart, UserMessage
from robota.core.provider import ModelRequest, ResponseCompleted, TextDelta
from robota.core.testing.cassette import Cassette, Interaction, load_cassette
from robota.providers.openai.replay import replay_provider

OPENAI_HOSTS = ("api.openai.com", "openai.azure.com", "api.cerebras.ai", "openrouter.ai")


def cassette_root() -> Path:
    env = os.environ.get("ROBOTA_CASSETTE_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    repo = next(p for p in here.parents if (p / "packages").is_dir())
    return repo.parent / "shared" / "cassettes" / "pydantic-ai"


def is_openai_shaped(host: str, path: str) -> bool:
    """Interactions that belong to this vendor: OpenAI's hosts, or any host serving the
    OpenAI API shape (``.../chat/completions``, ``.../responses``)."""
    return host.endswith(OPENAI_HOSTS) or path.endswith(("/chat/completions", "/responses"))


@dataclass
class Expected:
    text: str = ""
    delta_text: str | None = None
    thinking: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=lambda: [])
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    reasoning_tokens: int = 0
    raw_finish: str | None = None


def sse_data(body: bytes) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for line in body.decode().splitlines():
        if line.startswith("data:"):
            payload = line[5:].strip()
            if payload and payload != "[DONE]":
                out.append(json.loads(payload))
    return out


def _args(raw: Any) -> Any:
    if raw is None or raw == "":
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def chat_json(doc: dict[str, Any]) -> Expected:
    choice = doc["choices"][0]
    msg = choice["message"]
    exp = Expected(text=msg.get("content") or "", raw_finish=choice.get("finish_reason"))
    if not exp.text and msg.get("refusal"):
        exp.text = msg["refusal"]
    exp.thinking = msg.get("reasoning_content") or msg.get("reasoning") or ""
    for call in msg.get("tool_calls") or []:
        exp.tool_calls.append((call["function"]["name"], _args(call["function"]["arguments"])))
    _chat_usage(exp, doc.get("usage"))
    return exp


def _chat_usage(exp: Expected, usage: dict[str, Any] | None) -> None:
    if not usage:
        return
    exp.input_tokens = usage.get("prompt_tokens") or 0
    exp.output_tokens = usage.get("completion_tokens") or 0
    exp.cache_read_tokens = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    exp.reasoning_tokens = (usage.get("completion_tokens_details") or {}).get(
        "reasoning_tokens"
    ) or 0


def chat_sse(body: bytes) -> Expected:
    exp = Expected()
    calls: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for chunk in sse_data(body):
        if chunk.get("usage"):
            _chat_usage(exp, chunk["usage"])
        for choice in chunk.get("choices") or []:
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
    exp.tool_calls = [(names[i], _args("".join(calls[i]))) for i in sorted(calls)]
    exp.delta_text = exp.text
    return exp


def responses_json(doc: dict[str, Any], items: list[dict[str, Any]] | None = None) -> Expected:
    exp = Expected(raw_finish=doc.get("status"))
    for item in doc.get("output") or items or []:
        if item["type"] == "message":
            for c in item.get("content") or []:
                if c.get("type") == "output_text":
                    exp.text += c["text"]
                elif c.get("type") == "refusal":
                    exp.text += c["refusal"]
        elif item["type"] == "reasoning":
            summary = [s["text"] for s in item.get("summary") or []]
            content = [c["text"] for c in item.get("content") or []]
            piece = "\n\n".join(summary or content)
            exp.thinking += piece
        elif item["type"] == "function_call":
            exp.tool_calls.append((item["name"], _args(item.get("arguments"))))
    usage = doc.get("usage") or {}
    exp.input_tokens = usage.get("input_tokens") or 0
    exp.output_tokens = usage.get("output_tokens") or 0
    exp.cache_read_tokens = (usage.get("input_tokens_details") or {}).get("cached_tokens") or 0
    exp.reasoning_tokens = (usage.get("output_tokens_details") or {}).get("reasoning_tokens") or 0
    return exp


def responses_sse(body: bytes) -> Expected:
    events = sse_data(body)
    final: dict[str, Any] = {}
    done: list[dict[str, Any]] = []
    deltas = ""
    for ev in events:
        if isinstance(ev.get("response"), dict):
            final = ev["response"]
        if ev.get("type") == "response.output_item.done":
            done.append(ev["item"])
        if ev.get("type") == "response.output_text.delta":
            deltas += ev["delta"]
    exp = responses_json(final, done)
    exp.delta_text = deltas
    return exp


# --- the replay run ---------------------------------------------------------------------------

UNCOVERED_REASONS = {
    "/files": "file upload / deletion (Files API, not a model call)",
    "/vector_stores": "vector store management (not a model call)",
    "/conversations": "conversation objects (server-side state, not a model call)",
    "/responses/compact": "server-side compaction endpoint (not a model call)",
    "/responses/input_tokens": "input token counting endpoint (OpenAI: count_tokens returns None)",
}


def uncovered_reason(method: str, path: str) -> str | None:
    if method == "GET" and "/responses/" in path:
        return "background-mode polling GET /responses/{id} (not a model call)"
    if method == "POST" and path.endswith(("/chat/completions", "/responses")):
        return None
    for marker, reason in UNCOVERED_REASONS.items():
        if marker in path:
            return reason
    if not path.endswith(("/chat/completions", "/responses")):
        return f"{method} {path}: not an OpenAI-shaped model call"
    return f"{method} {path}: not a model call"


@dataclass
class Case:
    file: Path
    index: int
    interaction: Interaction

    @property
    def id(self) -> str:
        return f"{self.file.parent.name}/{self.file.stem}#{self.index}"


def collect() -> tuple[list[Case], list[tuple[str, str]], int]:
    """(covered cases, uncovered (id, reason), total) over every cassette folder."""
    root = cassette_root()
    covered: list[Case] = []
    skipped: list[tuple[str, str]] = []
    total = 0
    for file in sorted(root.rglob("*.yaml")):
        cassette = load_cassette(file)
        for index, interaction in enumerate(cassette.interactions):
            if not is_openai_shaped(interaction.host, interaction.path):
                continue
            total += 1
            case = Case(file=file, index=index, interaction=interaction)
            reason = uncovered_reason(interaction.method, interaction.path)
            if reason is None:
                covered.append(case)
            else:
                skipped.append((case.id, reason))
    return covered, skipped, total


def expected_of(i: Interaction) -> Expected:
    chat = i.path.endswith("/chat/completions")
    if i.is_stream:
        return chat_sse(i.body) if chat else responses_sse(i.body)
    return chat_json(i.json) if chat else responses_json(i.json)


def expected_error(i: Interaction) -> type[Exception]:
    body = i.json if isinstance(i.json, dict) else {}
    err = body.get("error", body) if isinstance(body.get("error", body), dict) else {}
    if err.get("code") == "context_length_exceeded":
        return ContextWindowExceededError
    if err.get("code") == "insufficient_quota":
        return QuotaExhaustedError
    return {
        400: BadRequestError,
        401: AuthenticationError,
        403: PermissionDeniedError,
        404: NotFoundError,
        422: BadRequestError,
        429: RateLimitError,
        500: InternalServerError,
        503: OverloadedError,
    }[i.status]


async def run_case(case: Case) -> str | None:
    """Replay one interaction; return None when everything matched, else what differed."""
    i = case.interaction
    cassette = Cassette(path=case.file, interactions=[i])
    provider = replay_provider(cassette)
    model = (i.request_body or {}).get("model") or "unknown-model"
    request = ModelRequest(model=str(model), messages=(UserMessage.of("replayed"),))
    deltas: list[str] = []
    try:
        if i.is_stream:
            response = None
            async for event in provider.stream(request):
                if isinstance(event, TextDelta):
                    deltas.append(event.text)
                elif isinstance(event, ResponseCompleted):
                    response = event.response
            assert response is not None
        else:
            response = await provider.complete(request)
    except MalformedResponseError as error:
        if not isinstance(i.json, dict) or ("choices" not in i.json and "output" not in i.json):
            return None  # the recorded body is not a completion: refusing it is right
        return f"malformed: {error!r}"
    except (ProviderError, ContextWindowExceededError) as error:
        if i.status < 400:
            return f"unexpected error {error!r}"
        want = expected_error(i)
        if not isinstance(error, want):
            return f"error class {type(error).__name__} != {want.__name__}"
        inner = error.provider_error if isinstance(error, ContextWindowExceededError) else error
        assert inner is not None
        if inner.status != i.status:
            return f"status {inner.status} != {i.status}"
        return None
    if i.status >= 400:
        return f"expected an error for HTTP {i.status}"
    exp = expected_of(i)
    got_calls = [(c.name, c.arguments) for c in response.message.tool_calls]
    got_thinking = "".join(p.text for p in response.message.parts if isinstance(p, ThinkingPart))
    problems = []
    if response.message.text != exp.text:
        problems.append(f"text {response.message.text!r} != {exp.text!r}")
    if exp.delta_text is not None and "".join(deltas) != exp.delta_text:
        problems.append("streamed text deltas differ")
    if got_thinking != exp.thinking:
        problems.append(f"thinking {got_thinking[:60]!r} != {exp.thinking[:60]!r}")
    if got_calls != exp.tool_calls:
        problems.append(f"tool calls {got_calls} != {exp.tool_calls}")
    u = response.usage
    got_usage = (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.reasoning_tokens)
    want_usage = (exp.input_tokens, exp.output_tokens, exp.cache_read_tokens, exp.reasoning_tokens)
    if got_usage != want_usage:
        problems.append(f"usage {got_usage} != {want_usage}")
    if exp.raw_finish is not None and not (response.raw_finish_reason or "").startswith(
        exp.raw_finish
    ):
        problems.append(f"finish {response.raw_finish_reason} != {exp.raw_finish}")
    return "; ".join(problems) or None


@pytest.mark.anyio
async def test_every_recorded_openai_interaction_decodes() -> None:
    covered, skipped, total = collect()
    failures: list[str] = []
    decoded = 0
    for case in covered:
        problem = await run_case(case)
        if problem is None:
            decoded += 1
        else:
            failures.append(f"{case.id}: {problem}")
    for case_id, reason in skipped:
        print(f"not covered: {case_id}: {reason}")
    for failure in failures:
        print(f"FAILED {failure}")
    folders = sorted({c.file.parent.name for c in covered} | {s[0].split("/")[0] for s in skipped})
    failed_ids = {f.split(": ")[0] for f in failures}
    for folder in folders:
        cov = [c for c in covered if c.file.parent.name == folder]
        n_skip = sum(1 for s in skipped if s[0].startswith(folder + "/"))
        bad = sum(1 for c in cov if c.id in failed_ids)
        print(
            f"  {folder}: decoded={len(cov) - bad} covered={len(cov)} "
            f"total={len(cov) + n_skip} failed={bad}"
        )
    print(
        f"cassettes: decoded={decoded} covered={len(covered)} total={total} failed={len(failures)}"
    )
    assert total > 0
    assert failures == []
