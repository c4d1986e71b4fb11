"""What a user should see for a recorded Gemini response, read by hand from the recorded bytes
(independent of the adapter's code): an :class:`Answer`, or a :class:`Failure` naming the typed
error. The rules are the package README's "Outcomes" table, written out again here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from _google_cassette_reader import method_of  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.errors import (
    AuthenticationError,
    BadRequestError,
    ContentFilterError,
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
from robota.core.testing.cassette import Interaction

CONTENT_FILTER = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
        "ESCALATION",
        "PUP_LIMITED_DISABLED",
    }
)
LENGTH = frozenset({"MAX_TOKENS", "CONTINUATION"})
UNUSABLE = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "MALFORMED_RESPONSE"})
RESPONSE_FIELDS = frozenset(
    {
        "candidates",
        "promptFeedback",
        "usageMetadata",
        "modelVersion",
        "responseId",
        "createTime",
        "modelStatus",
    }
)
_OVERFLOW = re.compile(r"input token count.*exceeds the maximum", re.IGNORECASE)


def normalized_finish(raw: str, *, has_calls: bool) -> str:
    """The README's finish-reason table."""
    if raw == "STOP":
        return "tool_calls" if has_calls else "stop"
    if raw in LENGTH:
        return "length"
    return "content_filter" if raw in CONTENT_FILTER else "other"


@dataclass
class Answer:
    text: str = ""
    thinking: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(
        default_factory=list[tuple[str, dict[str, Any]]]
    )
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read: int = 0
    raw_finish: str | None = None
    signatures: list[str] = field(default_factory=list[str])
    total_tokens: int | None = None
    candidates_seen: bool = False
    usage_reports: int = 0
    """Stream chunks before the last one that carried ``usageMetadata`` (each is reported as a
    ``UsageReported`` event when the next chunk arrives)."""

    @property
    def finish(self) -> str:
        return normalized_finish(self.raw_finish or "", has_calls=bool(self.calls))


@dataclass(frozen=True)
class Failure:
    """A typed error: its class, and the vendor facts it must keep (None: not asserted)."""

    kind: type[RobotaError]
    why: str
    status: int | None = None
    vendor_type: str | None = None


def _per_day(error: dict[str, Any]) -> bool:
    for detail in error.get("details") or []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("QuotaFailure"):
            for violation in detail.get("violations") or []:
                if isinstance(violation, dict) and "PerDay" in str(violation.get("quotaId", "")):
                    return True
    return False


def error_failure(status: int | None, error: dict[str, Any], why: str) -> Failure:
    """The error table: HTTP status (or the code an error body names) and ``google.rpc`` status."""
    vendor = error.get("status") if isinstance(error.get("status"), str) else None
    message = str(error.get("message") or "")
    kind: type[RobotaError]
    if status == 400 or vendor == "INVALID_ARGUMENT":
        overflow = _OVERFLOW.search(message) or "exceeds the maximum number of tokens" in message
        kind = ContextWindowExceededError if overflow else BadRequestError
    elif status == 401 or vendor == "UNAUTHENTICATED":
        kind = AuthenticationError
    elif status == 403 or vendor == "PERMISSION_DENIED":
        kind = PermissionDeniedError
    elif status == 404 or vendor == "NOT_FOUND":
        kind = NotFoundError
    elif status in (408, 504) or vendor == "DEADLINE_EXCEEDED":
        kind = ProviderTimeoutError
    elif status == 429 or vendor == "RESOURCE_EXHAUSTED":
        kind = QuotaExhaustedError if _per_day(error) else RateLimitError
    elif status in (503, 529) or vendor == "UNAVAILABLE":
        kind = OverloadedError
    elif (status is not None and status >= 500) or vendor == "INTERNAL":
        kind = InternalServerError
    elif status is not None and status >= 400:
        kind = BadRequestError
    else:
        kind = ProviderError
    return Failure(kind=kind, why=why, status=status, vendor_type=vendor)


def _malformed(why: str, vendor_type: str | None = None) -> Failure:
    return Failure(kind=MalformedResponseError, why=why, vendor_type=vendor_type)


def _sse_payloads(body: bytes) -> list[str] | Failure:
    """``data: `` payloads of each event (the SDK reads ``data: `` with its space), and raw JSON
    objects sent outside ``data:`` lines (an error body)."""
    payloads: list[str] = []
    data: list[str] = []
    raw: list[str] = []
    for line in re.split(r"\r\n|\r|\n", body.decode("utf-8", "replace")):
        if not line:
            if data:
                payloads.append("\n".join(data))
                data = []
        elif line.startswith("data: "):
            data.append(line[6:])
        else:
            raw.append(line)
            try:
                json.loads("".join(raw))
            except ValueError:
                continue
            payloads.append("".join(raw))
            raw = []
    if raw:
        return _malformed(f"text outside an SSE data field: {''.join(raw)[:40]!r}")
    if data:
        payloads.append("\n".join(data))
    return payloads


def _absorb(answer: Answer, body: dict[str, Any]) -> Failure | None:
    if not RESPONSE_FIELDS & body.keys():
        return _malformed("a chunk carrying none of the response's fields")
    usage = body.get("usageMetadata")
    candidates = body.get("candidates") or []
    if usage:
        answer.input_tokens = usage.get("promptTokenCount", 0)
        answer.output_tokens = usage.get("candidatesTokenCount", 0) + usage.get(
            "thoughtsTokenCount", 0
        )
        answer.cache_read = usage.get("cachedContentTokenCount", 0)
    if not candidates:
        reason = (body.get("promptFeedback") or {}).get("blockReason")
        if reason:
            return Failure(kind=ContentFilterError, why="blocked prompt", vendor_type=reason)
        return None
    answer.candidates_seen = True
    candidate = candidates[0]
    if candidate.get("finishReason"):
        answer.raw_finish = candidate["finishReason"]
    for part in (candidate.get("content") or {}).get("parts", []):
        if "thoughtSignature" in part:
            answer.signatures.append(part["thoughtSignature"])
        if "functionCall" in part:
            call = part["functionCall"]
            answer.calls.append((call["name"], call.get("args") or {}))
        elif "text" in part:
            if part.get("thought"):
                answer.thinking += part["text"]
            else:
                answer.text += part["text"]
    return None


def _judge(answer: Answer) -> Answer | Failure:
    if not answer.candidates_seen:
        return _malformed("no candidate")
    if answer.raw_finish is None:
        return _malformed("no finishReason: the response did not complete")
    if answer.raw_finish in UNUSABLE:
        return _malformed("an unusable finish", answer.raw_finish)
    return answer


def _model_call(interaction: Interaction) -> Answer | Failure:
    answer = Answer()
    # Streamed by the method recorded, whatever the content type says (as the replay picks it).
    if method_of(interaction.uri) == "streamGenerateContent":
        payloads = _sse_payloads(interaction.body)
        if isinstance(payloads, Failure):
            return payloads
        for n, payload in enumerate(payloads):
            try:
                chunk = json.loads(payload)
            except ValueError:
                return _malformed(f"chunk {n} is not JSON")
            if isinstance(chunk, dict) and next(iter(chunk), None) == "error":
                error = chunk["error"]
                code = error.get("code") if isinstance(error, dict) else None
                if not isinstance(code, int) or isinstance(code, bool):
                    return _malformed("an error chunk without a numeric code")
                return error_failure(code, error, f"error chunk {n}")
            if not isinstance(chunk, dict):
                return _malformed(f"chunk {n} is not an object")
            if n < len(payloads) - 1 and chunk.get("usageMetadata") is not None:
                answer.usage_reports += 1
            failed = _absorb(answer, chunk)
            if failed is not None:
                return failed
        return _judge(answer)
    body = interaction.json
    if not isinstance(body, dict):
        return _malformed("the body is not a JSON object")
    if "error" in body:
        error = body["error"] if isinstance(body["error"], dict) else {}
        code = error.get("code")
        return error_failure(code if isinstance(code, int) else None, error, "a 200 error body")
    failed = _absorb(answer, body)
    return failed if failed is not None else _judge(answer)


def outcome_of(interaction: Interaction) -> Answer | Failure:
    """What the recorded response means for a user (module docs)."""
    if interaction.status != 200:
        body: Any = interaction.json
        if isinstance(body, list) and len(body) == 1:
            body = body[0]
        error = body.get("error", body) if isinstance(body, dict) else {}
        failure = error_failure(interaction.status, error if isinstance(error, dict) else {}, "")
        # A body that is not JSON has no google.rpc status (the SDK puts the reason phrase).
        vendor = failure.vendor_type if isinstance(body, dict) else None
        return Failure(
            kind=failure.kind,
            why=f"HTTP {interaction.status}",
            status=interaction.status,
            vendor_type=vendor,
        )
    if method_of(interaction.uri) == "countTokens":
        body = interaction.json
        total = body.get("totalTokens") if isinstance(body, dict) else None
        if not isinstance(total, int):
            return _malformed("no totalTokens")
        return Answer(total_tokens=total)
    return _model_call(interaction)


def mismatch(error: BaseException, failure: Failure) -> str | None:
    """How ``error`` differs from the expected typed error, or None when it matches."""
    facts: BaseException = error
    if isinstance(error, ContextWindowExceededError) and error.provider_error is not None:
        facts = error.provider_error
    if type(error) is not failure.kind:
        return f"{type(error).__name__} ({error}), expected {failure.kind.__name__} ({failure.why})"
    if not isinstance(facts, ProviderError):
        return f"{type(error).__name__} keeps no vendor facts"
    if failure.status is not None and facts.status != failure.status:
        return f"status {facts.status}, expected {failure.status}"
    if failure.vendor_type is not None and facts.vendor_type != failure.vendor_type:
        return f"vendor_type {facts.vendor_type!r}, expected {failure.vendor_type!r}"
    return None
