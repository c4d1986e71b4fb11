"""The real adapters behind a scripted broken server, what a user sees of an answer, and the
tally of attempts.

A :class:`Server` is an ``httpx.MockTransport`` handler serving a queue of replies (bytes, a
:class:`~broken_server.wire.ChunkedBody`, or a full ``httpx.Response``) and keeping every request
it received (headers and JSON body), so a test can look at what the adapter sent next.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import httpx
from robota.core.errors import RobotaError
from robota.core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UserMessage,
)
from robota.core.provider import ModelRequest, ModelResponse, Provider
from robota.providers.anthropic import AnthropicProvider
from robota.providers.google import GoogleProvider
from robota.providers.openai.chat import OpenAIChatProvider
from robota.providers.openai.responses import OpenAIResponsesProvider

from broken_server.wire import ChunkedBody

__all__ = [
    "FAMILIES",
    "MODELS",
    "Answer",
    "Family",
    "Reply",
    "Server",
    "Tally",
    "answer_of",
    "build",
    "call",
    "describe",
    "is_typed",
]

Family = Literal["openai-chat", "openai-responses", "anthropic", "gemini"]
FAMILIES: tuple[Family, ...] = ("openai-chat", "openai-responses", "anthropic", "gemini")
MODELS: Mapping[Family, str] = {
    "openai-chat": "gpt-4o-mini",
    "openai-responses": "gpt-4.1-mini",
    "anthropic": "claude-sonnet-4-6",
    "gemini": "gemini-2.5-flash",
}
KEY = "outsider-test-key"
CALL_LIMIT = 20.0
"""Seconds one adapter call may take before the attempt counts as a hang."""

Reply = bytes | ChunkedBody | httpx.Response


@dataclass(kw_only=True, slots=True)
class Seen:
    """One request the server received."""

    url: str
    headers: dict[str, str]
    body: Any


@dataclass(kw_only=True, slots=True)
class Server:
    """Serves ``replies`` in order (the last one again when they run out)."""

    replies: list[Reply]
    status: int = 200
    content_type: str = "text/event-stream"
    headers: Mapping[str, str] = field(default_factory=lambda: {})
    seen: list[Seen] = field(default_factory=lambda: [])

    def handler(self, request: httpx.Request) -> httpx.Response:
        raw = request.content
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        self.seen.append(Seen(url=str(request.url), headers=dict(request.headers), body=body))
        index = min(len(self.seen) - 1, len(self.replies) - 1)
        reply = self.replies[index]
        if isinstance(reply, httpx.Response):
            return reply
        headers = {"content-type": self.content_type, **self.headers}
        if isinstance(reply, ChunkedBody):
            return httpx.Response(self.status, headers=headers, stream=reply)
        return httpx.Response(self.status, headers=headers, content=reply)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handler))


def build(
    family: Family,
    client: httpx.AsyncClient,
    *,
    streaming: bool = True,
    base_url: str | None = None,
    profile: str = "openai",
) -> Provider:
    """The family's adapter with an explicit key over ``client``."""
    if family == "openai-chat":
        return OpenAIChatProvider(
            KEY,
            base_url=base_url,
            http_client=client,
            streaming=streaming,
            profile=profile,
            name="openai" if profile == "openai" else profile,
        )
    if family == "openai-responses":
        return OpenAIResponsesProvider(
            KEY, base_url=base_url, http_client=client, streaming=streaming
        )
    if family == "anthropic":
        if base_url is None:
            return AnthropicProvider(KEY, http_client=client)
        return AnthropicProvider(KEY, http_client=client, base_url=base_url)
    return GoogleProvider(KEY, http_client=client, streaming=streaming, base_url=base_url)


@dataclass(frozen=True, kw_only=True, slots=True)
class Answer:
    """What a user sees of one response (tool call ids are left out: Gemini invents them).

    Attributes:
        text: Text parts joined.
        thinking: Thinking text joined.
        tool_calls: ``(name, arguments as canonical JSON or "raw:<text>")`` per local call.
        finish_reason: Neutral finish reason.
        raw_finish_reason: The vendor's word.
        usage: ``(input, output, cache_read, reasoning)`` tokens and the partial flag.
    """

    text: str
    thinking: str
    tool_calls: tuple[tuple[str, str], ...]
    finish_reason: str | None
    raw_finish_reason: str | None
    usage: tuple[int, int, int, int, bool]


def answer_of(response: ModelResponse) -> Answer:
    message = response.message
    calls: list[tuple[str, str]] = []
    for part in message.parts:
        if isinstance(part, ToolCallPart) and not part.hosted:
            args = (
                json.dumps(part.arguments, sort_keys=True)
                if part.arguments is not None
                else f"raw:{part.raw_arguments}"
            )
            calls.append((part.name, args))
    usage = message.usage or response.usage
    return Answer(
        text="".join(p.text for p in message.parts if isinstance(p, TextPart)),
        thinking="".join(p.text for p in message.parts if isinstance(p, ThinkingPart)),
        tool_calls=tuple(calls),
        finish_reason=message.finish_reason or response.finish_reason,
        raw_finish_reason=message.raw_finish_reason or response.raw_finish_reason,
        usage=(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.reasoning_tokens,
            usage.partial,
        ),
    )


def request_for(
    family: Family, messages: Sequence[Message] | None = None, **fields: Any
) -> ModelRequest:
    return ModelRequest(
        model=MODELS[family],
        messages=tuple(messages) if messages is not None else (UserMessage.of("Say hello."),),
        **fields,
    )


async def call(
    family: Family,
    replies: Reply | Sequence[Reply],
    *,
    streaming: bool = True,
    status: int = 200,
    content_type: str | None = None,
    headers: Mapping[str, str] | None = None,
    base_url: str | None = None,
    profile: str = "openai",
    model: str | None = None,
) -> tuple[Answer | BaseException, Server]:
    """One call of the family's adapter against the scripted server: the streamed path through
    the core contract's buffered convenience (``Provider.complete`` over ``stream()``), or the
    adapter's own buffered ``complete``. Returns the answer or the exception, never raises."""
    queue: list[Reply] = (
        [replies] if isinstance(replies, bytes | ChunkedBody | httpx.Response) else list(replies)
    )
    server = Server(
        replies=queue,
        status=status,
        content_type=content_type or ("text/event-stream" if streaming else "application/json"),
        headers=dict(headers or {}),
    )
    async with server.client() as client:
        provider = build(family, client, streaming=streaming, base_url=base_url, profile=profile)
        request = request_for(family)
        if model is not None:
            request = ModelRequest(model=model, messages=request.messages)
        outcome: Answer | BaseException
        try:
            with anyio.fail_after(CALL_LIMIT):
                if streaming:
                    response = await Provider.complete(provider, request)
                else:
                    response = await provider.complete(request)
            outcome = answer_of(response)
        except Exception as error:  # the verdict is the caller's
            outcome = error
        finally:
            await provider.aclose()
    return outcome, server


def is_typed(outcome: object) -> bool:
    """True for a Robota error (the promised failure kind)."""
    return isinstance(outcome, RobotaError)


def describe(outcome: object) -> str:
    """A one-line description of an outcome for failure messages."""
    if isinstance(outcome, Answer):
        return (
            f"answer text={outcome.text[:60]!r} calls={outcome.tool_calls} "
            f"finish={outcome.finish_reason}/{outcome.raw_finish_reason} usage={outcome.usage}"
        )
    if isinstance(outcome, BaseException):
        extra = getattr(outcome, "missing", None)
        more = f" missing={extra!r}" if extra else ""
        return f"{type(outcome).__module__}.{type(outcome).__name__}: {str(outcome)[:160]}{more}"
    return repr(outcome)


def assistant_text(messages: Iterable[Message]) -> str:
    return "".join(m.text for m in messages if isinstance(m, AssistantMessage))


@dataclass(kw_only=True, slots=True)
class Tally:
    """Attempts of this module: each is held or broken (the last test prints the line)."""

    held: list[str] = field(default_factory=lambda: [])
    broken: list[str] = field(default_factory=lambda: [])

    def record(self, name: str, problems: Sequence[str]) -> None:
        if problems:
            self.broken.append(f"{name}: " + "; ".join(problems))
        else:
            self.held.append(name)

    def line(self) -> str:
        tried = len(self.held) + len(self.broken)
        return f"malformed(outsider): tried={tried} held={len(self.held)} broken={len(self.broken)}"
