"""Attacks by class on the Gemini provider's response reading (issue #14): whatever bytes a broken
server or a cut connection delivers, a user gets the recorded answer or a typed
:class:`~robota.core.errors.ProviderError` — never a shorter successful answer, never a
``JSONDecodeError``/``KeyError``/``TypeError``.

Classes: every structural cut point of every recorded stream and buffered body (hypothesis adds
arbitrary byte offsets), garbage at every event boundary of every recorded stream, whole bodies
that are empty, HTML or an ``error`` object delivered every way Gemini or a gateway does it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from _google_cassette_reader import (  # pyright: ignore[reportImplicitRelativeImport]
    google_interactions,
    method_of,
    request_of,
    vertex_target,
)
from _google_expected import RESPONSE_FIELDS  # pyright: ignore[reportImplicitRelativeImport]
from _google_serve import (  # pyright: ignore[reportImplicitRelativeImport]
    JSON,
    SSE,
    Outcome,
    Server,
    candidate,
    run,
    serving,
    sse,
    text,
)
from google.oauth2.credentials import Credentials
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robota.core.errors import (
    AuthenticationError,
    BadRequestError,
    InternalServerError,
    MalformedResponseError,
    NotFoundError,
    OverloadedError,
    PermissionDeniedError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    RobotaError,
)
from robota.core.messages import ThinkingPart
from robota.core.provider import ModelRequest, ModelResponse
from robota.core.testing.cassette import Interaction
from robota.providers.google import GoogleProvider, VertexTarget


def _answer(response: ModelResponse) -> tuple[Any, ...]:
    usage = response.usage
    calls = [(c.name, c.arguments) for c in response.message.tool_calls]
    return (
        response.message.text,
        "".join(p.text for p in response.message.parts if isinstance(p, ThinkingPart)),
        calls,
        response.finish_reason,
        response.raw_finish_reason,
        (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens),
    )


@dataclass
class Recorded:
    """One recorded 200 model call, its provider (serving any bytes) and its full answer."""

    name: str
    interaction: Interaction
    server: Server
    provider: GoogleProvider
    request: ModelRequest
    reference: tuple[Any, ...] | None = None

    async def outcome(self, body: bytes) -> Outcome:
        self.server.serve(200, body, SSE if self.interaction.is_stream else JSON)
        return await run(self.provider, self.request)


def _recorded(streams: bool) -> list[tuple[str, Interaction]]:
    found: list[tuple[str, Interaction]] = []
    for file, index, interaction in google_interactions():
        wanted = "streamGenerateContent" if streams else "generateContent"
        if interaction.status == 200 and method_of(interaction.uri) == wanted:
            found.append((f"{file.name}#{index}", interaction))
    return found


_CACHE: dict[str, Recorded] = {}
_PROVIDERS: dict[tuple[tuple[str, str] | None, bool], tuple[Server, GoogleProvider]] = {}


async def _load(name: str, interaction: Interaction) -> Recorded:
    """The recording with a provider that serves any bytes; providers are shared per target
    and transport (building one costs ~80 ms)."""
    if name not in _CACHE:
        target = vertex_target(interaction.uri)
        key = (target, interaction.is_stream)
        if key not in _PROVIDERS:
            server = serving((200, b""))
            vertex = None
            if target is not None:
                vertex = VertexTarget(
                    project=target[0], location=target[1], credentials=Credentials(token="r")
                )
            _PROVIDERS[key] = (server, server.provider(vertex=vertex, streaming=key[1]))
        server, provider = _PROVIDERS[key]
        recorded = Recorded(name, interaction, server, provider, request_of(interaction))
        full = await recorded.outcome(interaction.body)
        assert full.response is not None or isinstance(full.error, ProviderError), full
        recorded.reference = _answer(full.response) if full.response is not None else None
        _CACHE[name] = recorded
    return _CACHE[name]


def structural_cuts(body: bytes) -> list[int]:
    """Cut points: each byte of each line's ``data: `` framing and line terminator, and the
    first, middle and last byte of each line's payload."""
    cuts = {0, len(body)}
    for match in re.finditer(rb"([^\r\n]*)(\r\n|\r|\n|$)", body):
        start, end = match.start(1), match.end(1)
        cuts.update(range(start, min(start + 7, end) + 1))
        cuts.update({(start + end) // 2, max(end - 1, start), end})
        cuts.update(range(end, match.end(2) + 1))
    if len(body) < 4096 and not body.startswith(b"data:"):
        cuts.update(range(0, len(body), max(len(body) // 16, 1)))
    return sorted(c for c in cuts if 0 <= c <= len(body))


@dataclass
class Tally:
    cuts: int = 0
    answers: int = 0
    typed: int = 0
    wrong: list[str] = field(default_factory=list[str])

    def judge(self, recorded: Recorded, where: str, outcome: Outcome, *, answer_ok: bool) -> None:
        self.cuts += 1
        if outcome.response is not None:
            if answer_ok and _answer(outcome.response) == recorded.reference:
                self.answers += 1
                return
            self.wrong.append(f"{recorded.name} {where}: an answer {_answer(outcome.response)}")
        elif isinstance(outcome.error, ProviderError):
            self.typed += 1
        else:
            self.wrong.append(f"{recorded.name} {where}: {outcome.error!r}")


@pytest.mark.anyio
@pytest.mark.parametrize("streams", [True, False], ids=["streams", "buffered"])
async def test_every_cut_point_is_the_recorded_answer_or_a_typed_error(streams: bool) -> None:
    tally = Tally()
    recordings = _recorded(streams)
    assert recordings or not streams
    for name, interaction in recordings:
        recorded = await _load(name, interaction)
        # A recording that is itself a typed error (a cut or unusable response) stays one.
        answer_ok = recorded.reference is not None
        for cut in structural_cuts(interaction.body):
            outcome = await recorded.outcome(interaction.body[:cut])
            tally.judge(recorded, f"cut at byte {cut}", outcome, answer_ok=answer_ok)
    kind = "streams" if streams else "bodies"
    print(
        f"malformed(google {kind}): recordings={len(recordings)} cuts={tally.cuts} "
        f"answers={tally.answers} typed={tally.typed} escaped={len(tally.wrong)}"
    )
    assert not tally.wrong, "\n".join(tally.wrong[:20])


def _error(code: int | None, status: str, message: str = "from the server") -> dict[str, Any]:
    error: dict[str, Any] = {"status": status, "message": message}
    if code is not None:
        error["code"] = code
    return {"error": error}


GARBAGE: dict[str, tuple[bytes, type[RobotaError] | None]] = {
    "not JSON": (b"data: {not json\r\n\r\n", MalformedResponseError),
    "an HTML page": (b"<html><body>502 Bad Gateway</body></html>\r\n", MalformedResponseError),
    "null": (b"data: null\r\n\r\n", MalformedResponseError),
    "an array": (b"data: [1, 2]\r\n\r\n", MalformedResponseError),
    "a number": (b"data: 42\r\n\r\n", MalformedResponseError),
    "an empty object": (b"data: {}\r\n\r\n", MalformedResponseError),
    "an unknown object": (b'data: {"surprise": true}\r\n\r\n', MalformedResponseError),
    # Not garbage: Server-Sent Events comments, pings and other fields carry no data (WHATWG
    # HTML §9.2.6), so the recorded answer is due (None) — a keep-alive never costs the answer.
    "a comment line": (b": keep-alive\r\n\r\n", None),
    "a ping event": (b"event: ping\r\ndata: {}\r\n\r\n", None),
    "an id and retry field": (b"id: 7\r\nretry: 1000\r\n\r\n", None),
    "an error 429": (sse(_error(429, "RESOURCE_EXHAUSTED")), RateLimitError),
    "an error 503": (sse(_error(503, "UNAVAILABLE")), OverloadedError),
    "an error without code": (sse(_error(None, "UNAVAILABLE")), MalformedResponseError),
}
# What str.splitlines (so httpx's line reader before 0.28, which google-genai 3.3 reads through)
# takes for a line end but Server-Sent Events does not: a line holding one is no data line.
SPLITLINES_ONLY = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
for _char in SPLITLINES_ONLY:
    GARBAGE[f"a line of {_char!r}"] = (f"{_char}\r\n\r\n".encode(), MalformedResponseError)
    GARBAGE[f"{_char!r} before a data line"] = (
        f"{_char}data: {{}}\r\n\r\n".encode(),
        MalformedResponseError,
    )


def _boundaries(body: bytes) -> list[int]:
    return [0] + [m.end() for m in re.finditer(rb"(\r\n|\r|\n){2}", body)]


@pytest.mark.anyio
async def test_garbage_at_every_event_boundary_is_a_typed_error() -> None:
    wrong: list[str] = []
    tried = 0
    for name, interaction in _recorded(streams=True):
        recorded = await _load(name, interaction)
        body = interaction.body
        for at in _boundaries(body):
            for label, (garbage, kind) in GARBAGE.items():
                tried += 1
                outcome = await recorded.outcome(body[:at] + garbage + body[at:])
                if kind is None:
                    if outcome.response is not None and recorded.reference is not None:
                        if _answer(outcome.response) == recorded.reference:
                            continue
                    elif outcome.response is None and recorded.reference is None:
                        continue  # the recording itself is a typed error
                    got = outcome.error if outcome.error is not None else outcome.response
                    wrong.append(f"{name} {label} at byte {at}: {got!r}, expected the answer")
                elif type(outcome.error) is not kind:
                    got = outcome.error if outcome.error is not None else outcome.response
                    wrong.append(f"{name} {label} at byte {at}: {got!r}, expected {kind.__name__}")
    print(f"malformed(google garbage): tried={tried} escaped={len(wrong)}")
    assert tried
    assert not wrong, "\n".join(wrong[:20])


ERRORS: list[tuple[int, str, type[RobotaError]]] = [
    (400, "INVALID_ARGUMENT", BadRequestError),
    (401, "UNAUTHENTICATED", AuthenticationError),
    (403, "PERMISSION_DENIED", PermissionDeniedError),
    (404, "NOT_FOUND", NotFoundError),
    (429, "RESOURCE_EXHAUSTED", RateLimitError),
    (500, "INTERNAL", InternalServerError),
    (503, "UNAVAILABLE", OverloadedError),
    (504, "DEADLINE_EXCEEDED", ProviderTimeoutError),
]
DELIVERIES: dict[str, Callable[[dict[str, Any], int], tuple[int, bytes, bool]]] = {
    "HTTP status, JSON body": lambda e, code: (code, json.dumps(e).encode(), True),
    "HTTP status, JSON array body": lambda e, code: (code, json.dumps([e]).encode(), True),
    "200 buffered body": lambda e, code: (200, json.dumps(e).encode(), False),
    "200 stream, first chunk": lambda e, code: (200, sse(e), True),
    "200 stream, after text": lambda e, code: (
        200,
        sse(candidate(text("Hel"), finish=None), e),
        True,
    ),
}


@pytest.mark.anyio
@pytest.mark.parametrize("delivery", list(DELIVERIES))
async def test_an_error_object_is_classified_by_the_code_it_names(delivery: str) -> None:
    server = serving((200, b""))
    providers = {True: server.provider(), False: server.provider(streaming=False)}
    for code, status, kind in ERRORS:
        http_status, body, streaming = DELIVERIES[delivery](_error(code, status), code)
        server.serve(http_status, body, SSE if body.startswith(b"data:") else JSON)
        outcome = await run(providers[streaming])
        error = outcome.error
        assert type(error) is kind, f"{code} {status}: {error!r}"
        assert isinstance(error, ProviderError)
        assert (error.status, error.vendor_type, error.message) == (code, status, "from the server")


WHOLE_BODIES: dict[str, tuple[int, bytes, str, type[RobotaError]]] = {
    "an empty 200 body": (200, b"", "application/json", MalformedResponseError),
    "an empty 200 stream": (200, b"", "text/event-stream", MalformedResponseError),
    "a 200 HTML page": (
        200,
        b"<!DOCTYPE html>\n<html>{oops</html>\n",
        "text/html",
        MalformedResponseError,
    ),
    "a 502 HTML page": (502, b"<html>Bad Gateway</html>", "text/html", InternalServerError),
    "a 503 HTML page": (503, b"<html>Unavailable</html>", "text/html", OverloadedError),
    "a 429 text body": (429, b"slow down", "text/plain", RateLimitError),
    "a 200 JSON string": (200, b'"ok"', "application/json", MalformedResponseError),
    "a 200 JSON array": (200, b"[]", "application/json", MalformedResponseError),
    "JSON nested 50000 deep": (
        200,
        b"[" * 50_000 + b"]" * 50_000,
        "application/json",
        MalformedResponseError,
    ),
    "an event nested 50000 deep": (
        200,
        b"data: " + b'{"a":' * 50_000 + b"1" + b"}" * 50_000 + b"\r\n\r\n",
        "text/event-stream",
        MalformedResponseError,
    ),
}


@pytest.mark.anyio
@pytest.mark.parametrize("streaming", [True, False], ids=["stream", "buffered"])
async def test_bodies_that_are_not_a_response_are_typed_errors(streaming: bool) -> None:
    server = serving((200, b""))
    provider = server.provider(streaming=streaming)
    for label, (status, body, content_type, kind) in WHOLE_BODIES.items():
        server.serve(status, body, {"content-type": content_type})
        outcome = await run(provider)
        assert type(outcome.error) is kind, f"{label}: {outcome.error or outcome.response!r}"


@pytest.mark.anyio
@pytest.mark.parametrize("char", list(SPLITLINES_ONLY), ids=[hex(ord(c)) for c in SPLITLINES_ONLY])
async def test_a_splitlines_break_inside_a_chunk_is_text_not_a_line_end(char: str) -> None:
    """Inside a JSON string NEL, U+2028 and U+2029 are text (the others must be escaped): the
    answer keeps them, and a raw control character is a typed error, whatever line reader the
    SDK uses."""
    server = serving((200, b""))
    provider = server.provider(streaming=True)
    said = f"a{char}b"
    body = json.dumps(candidate(text(said)), ensure_ascii=False)
    server.serve(200, f"data: {body}\r\n\r\n".encode(), SSE)
    outcome = await run(provider)
    if char in "\x85\u2028\u2029":
        assert outcome.response is not None, outcome.error
        assert outcome.response.message.text == said
    else:  # json.dumps escapes a C0 control: put it in raw, where JSON forbids it
        server.serve(
            200, f"data: {body.replace(json.dumps(char)[1:-1], char)}\r\n\r\n".encode(), SSE
        )
        outcome = await run(provider)
        assert type(outcome.error) is MalformedResponseError, outcome.response


STREAM_NAMES = [name for name, _ in _recorded(streams=True)]
_STREAMS = dict(_recorded(streams=True))


@pytest.mark.anyio
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
async def test_any_cut_of_any_recorded_stream(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(STREAM_NAMES))
    recorded = await _load(name, _STREAMS[name])
    body = recorded.interaction.body
    cut = data.draw(st.integers(min_value=0, max_value=len(body)))
    outcome = await recorded.outcome(body[:cut])
    tally = Tally()
    tally.judge(recorded, f"cut at byte {cut}", outcome, answer_ok=recorded.reference is not None)
    assert not tally.wrong, tally.wrong


def _benign(line: str) -> bool:
    """A line that is itself a valid response chunk, or one carrying no data by the Server-Sent
    Events standard (a comment, an ``event``/``id``/``retry`` field): then an answer is
    correct."""
    if line.startswith(":") or (line.partition(":")[0] in ("event", "id", "retry") and ":" in line):
        return True
    payload = line[6:] if line.startswith("data: ") else line
    try:
        value = json.loads(payload)
    except ValueError:
        return False
    return isinstance(value, dict) and bool(RESPONSE_FIELDS & value.keys())


@pytest.mark.anyio
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
async def test_any_line_injected_into_any_recorded_stream(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(STREAM_NAMES))
    recorded = await _load(name, _STREAMS[name])
    body = recorded.interaction.body
    at = data.draw(st.sampled_from(_boundaries(body)))
    line = data.draw(
        st.one_of(
            st.text(st.characters(exclude_characters="\r\n"), min_size=1, max_size=30),
            st.text(st.characters(exclude_characters="\r\n"), max_size=30).map("data: {}".format),
        )
    )
    injected = line.encode("utf-8", "surrogatepass")  # lone surrogates: invalid UTF-8 bytes
    outcome = await recorded.outcome(body[:at] + injected + b"\r\n\r\n" + body[at:])
    tally = Tally()
    tally.judge(recorded, f"{line!r} at byte {at}", outcome, answer_ok=_benign(line))
    assert not tally.wrong, tally.wrong
