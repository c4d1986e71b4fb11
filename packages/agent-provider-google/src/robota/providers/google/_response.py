"""Gemini ``GenerateContentResponse`` (one, or a stream of chunks) → neutral events and a
:class:`~robota.core.provider.ModelResponse` (the other direction of translation).

Rules (Gemini API reference, https://ai.google.dev/api/generate-content, read 2026-11-30):

- Consecutive text chunks of the same kind (answer or ``thought: true``) merge into one part.
- A ``thoughtSignature`` on a thought part stays on that :class:`ThinkingPart`; on a function
  call it goes to :attr:`ToolCallPart.signature`; on a plain text part it is kept as an empty
  Google :class:`ThinkingPart` placed right before the :class:`TextPart` (see ``_request``).
  Signatures are kept as standard base64 text (``provider="google"``).
- ``functionCall`` without an ``id`` (Gemini 2.x) gets an opaque id
  ``gemini-call-<random>`` (see :data:`SYNTHETIC_ID_PREFIX`); it is never sent back.
  Arguments arrive whole: an absent or empty ``args`` is ``arguments={}``, ``raw_arguments=""``.
- ``executableCode`` / ``codeExecutionResult`` parts → hosted ``code_execution`` call/result;
  grounding metadata with web search queries → hosted ``web_search`` call/result; URL context
  metadata → hosted ``web_fetch`` call/result (placed before the answer text).
- Usage: ``input = promptTokenCount`` (includes ``cachedContentTokenCount`` = cache read);
  ``output = candidatesTokenCount + thoughtsTokenCount`` (Robota counts reasoning inside output);
  ``toolUsePromptTokenCount`` (tokens of hosted-tool results fed to the model) is kept in
  ``details["tool_use_prompt_tokens"]``. No ``usageMetadata``, or a count that is not a
  non-negative integer (see ``_chunks``), is unknown: 0, and the usage is ``partial``.
  Gemini states no hosted-tool count, so the final usage counts the hosted calls among the
  parts in ``details`` as ``hosted.<tool>`` (``hosted_call_counts``).
- The ``usageMetadata`` of every chunk before the last one is reported as a
  :class:`UsageReported` (cumulative usage so far) as soon as the next chunk arrives, ahead of
  that chunk's deltas; the last chunk's usage is on the :class:`ResponseCompleted` response. So
  a one-chunk answer or failure (``MALFORMED_FUNCTION_CALL`` …) yields no event before its end
  and stays retryable.
- Whether the assembled response is an answer at all, and its normalized finish reason, is
  decided by ``_outcome`` (a blocked prompt, no candidate, no ``finishReason``,
  ``MALFORMED_FUNCTION_CALL`` … are typed errors). A chunk that carries none of the response's
  fields (``{}``, or JSON that is not an object, which the SDK reads as empty) is a
  :class:`MalformedResponseError`: it is not a Gemini response chunk.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from robota.core.capabilities import HostedTool, hosted_call_counts
from robota.core.errors import MalformedResponseError
from robota.core.messages import (
    AssistantMessage,
    AssistantPart,
    HostedToolResultPart,
    JsonValue,
    ProviderDetailsPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from robota.core.provider import (
    EffortResolution,
    ModelResponse,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageReported,
)
from robota.core.usage import Usage
from robota.providers.google._outcome import blocked_prompt, incomplete, map_finish_reason
from robota.providers.google._request import PROVIDER_NAME, SYNTHETIC_ID_PREFIX, encode_signature

from google.genai import types

__all__ = ["ResponseAssembler", "usage_of"]


def usage_of(meta: types.GenerateContentResponseUsageMetadata | None) -> Usage:
    """Translate ``usageMetadata`` (see module docs for the rules).

    No ``usageMetadata`` at all, or a count that is negative (:data:`~._chunks.UNKNOWN` marks
    one the server sent unreadable), is unknown: 0 for that count and the usage ``partial`` —
    never attested as a consistent total.

    Example:
        >>> usage_of(None).partial
        True
        >>> u = usage_of(types.GenerateContentResponseUsageMetadata(
        ...     prompt_token_count=-1, candidates_token_count=3))
        >>> u.input_tokens, u.output_tokens, u.partial
        (0, 3, True)
    """
    if meta is None:
        return Usage(requests=1, partial=True)
    unknown = False

    def count(value: int | None) -> int:
        nonlocal unknown
        if value is None:
            return 0
        if value < 0:
            unknown = True
            return 0
        return value

    thoughts = count(meta.thoughts_token_count)
    details: dict[str, int] = {}
    tool_prompt = count(meta.tool_use_prompt_token_count)
    if tool_prompt:
        details["tool_use_prompt_tokens"] = tool_prompt
    return Usage(
        input_tokens=count(meta.prompt_token_count),
        output_tokens=count(meta.candidates_token_count) + thoughts,
        cache_read_tokens=count(meta.cached_content_token_count),
        reasoning_tokens=thoughts,
        requests=1,
        details=details,
        partial=unknown,
    )


def _dump(model: Any) -> JsonValue:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _object(model: Any) -> dict[str, Any]:
    data = _dump(model)
    return data if isinstance(data, dict) else {}


def _is_empty(chunk: types.GenerateContentResponse) -> bool:
    """True when the SDK found none of the response's fields in a chunk."""
    return (
        chunk.candidates is None
        and chunk.prompt_feedback is None
        and chunk.usage_metadata is None
        and chunk.model_version is None
        and chunk.response_id is None
        and chunk.create_time is None
        and chunk.model_status is None
    )


def _new_id() -> str:
    return SYNTHETIC_ID_PREFIX + uuid.uuid4().hex[:16]


@dataclass(kw_only=True, slots=True)
class _Block:
    kind: str  # text | thinking | call | done
    text: str = ""
    signature: str | None = None
    part: AssistantPart | None = None


@dataclass(kw_only=True, slots=True)
class ResponseAssembler:
    """Accumulates response chunks; :meth:`feed` returns the deltas of each chunk and
    :meth:`finish` the assembled response.

    Attributes:
        model: The requested model (used when the response names none).
    """

    model: str
    api: str = "generateContent"
    _blocks: list[_Block] = field(default_factory=list[_Block])
    _calls: int = 0
    _chunks: int = 0
    _last_code_call: str | None = None
    _raw_finish: str | None = None
    _finish_message: str | None = None
    _usage: types.GenerateContentResponseUsageMetadata | None = None
    _model_version: str | None = None
    _response_id: str | None = None
    _grounding: types.GroundingMetadata | None = None
    _url_context: types.UrlContextMetadata | None = None
    _candidates_seen: bool = False
    _unreported: Usage | None = None

    def feed(self, chunk: types.GenerateContentResponse) -> list[StreamEvent]:
        """Absorb one response (or stream chunk) and return its deltas — preceded by a
        :class:`UsageReported` with the previous chunk's usage, now known not to be the last.

        Raises:
            ContentFilterError: when the prompt was blocked and no candidate came back.
            MalformedResponseError: when the chunk carries none of the response's fields.
        """
        self._chunks += 1
        if _is_empty(chunk):
            raise MalformedResponseError(
                f"{PROVIDER_NAME} {self.api}: chunk {self._chunks} is not a "
                "GenerateContentResponse (it carried none of its fields)",
                provider=PROVIDER_NAME,
                api=self.api,
                missing="a GenerateContentResponse object",
            )
        events: list[StreamEvent] = []
        if self._unreported is not None:
            events.append(UsageReported(usage=self._unreported))
            self._unreported = None
        self._model_version = chunk.model_version or self._model_version
        self._response_id = chunk.response_id or self._response_id
        if chunk.usage_metadata is not None:
            self._usage = chunk.usage_metadata
            self._unreported = usage_of(chunk.usage_metadata)
        candidates = chunk.candidates or []
        if not candidates:
            feedback = chunk.prompt_feedback
            if feedback is not None and feedback.block_reason is not None:
                raise blocked_prompt(str(feedback.block_reason.value), _object(feedback))
            return events
        self._candidates_seen = True
        candidate = candidates[0]
        if candidate.finish_reason is not None:
            self._raw_finish = str(candidate.finish_reason.value)
            self._finish_message = candidate.finish_message
        if candidate.grounding_metadata is not None:
            self._grounding = candidate.grounding_metadata
        if candidate.url_context_metadata is not None:
            self._url_context = candidate.url_context_metadata
        parts = candidate.content.parts if candidate.content is not None else None
        for part in parts or []:
            events.extend(self._part(part))
        return events

    def _part(self, part: types.Part) -> list[StreamEvent]:
        signature = (
            encode_signature(part.thought_signature) if part.thought_signature is not None else None
        )
        if part.function_call is not None:
            return [self._function_call(part.function_call, signature)]
        if part.executable_code is not None:
            self._code_call(part.executable_code)
            return []
        if part.code_execution_result is not None:
            result = part.code_execution_result
            self._blocks.append(
                _Block(
                    kind="done",
                    part=HostedToolResultPart(
                        call_id=self._last_code_call or _new_id(),
                        name=HostedTool.CODE_EXECUTION.value,
                        content={
                            "outcome": str(result.outcome.value) if result.outcome else None,
                            "output": result.output,
                        },
                        provider=PROVIDER_NAME,
                    ),
                )
            )
            return []
        if part.text is not None:
            return self._text(part.text, thought=bool(part.thought), signature=signature)
        data = _dump(part)
        if isinstance(data, dict) and signature is not None:
            data["thoughtSignature"] = signature
        if isinstance(data, dict) and set(data) - {"thoughtSignature"}:
            self._blocks.append(
                _Block(
                    kind="done",
                    part=ProviderDetailsPart(provider=PROVIDER_NAME, data={"part": data}),
                )
            )
        elif signature is not None:
            self._blocks.append(_Block(kind="text", signature=signature))
        return []

    def _text(self, text: str, *, thought: bool, signature: str | None) -> list[StreamEvent]:
        kind = "thinking" if thought else "text"
        last = self._blocks[-1] if self._blocks else None
        if last is None or last.kind != kind or (signature is not None and last.signature):
            last = _Block(kind=kind)
            self._blocks.append(last)
        last.text += text
        if signature is not None:
            last.signature = signature
        if not text:
            return []
        return [ThinkingDelta(text=text) if thought else TextDelta(text=text)]

    def _function_call(self, call: types.FunctionCall, signature: str | None) -> StreamEvent:
        args = call.args or {}
        raw = json.dumps(args) if args else ""
        call_id = call.id or _new_id()
        index = self._calls
        self._calls += 1
        self._blocks.append(
            _Block(
                kind="call",
                part=ToolCallPart(
                    id=call_id,
                    name=call.name or "",
                    arguments=dict(args),
                    raw_arguments=raw,
                    signature=signature,
                    provider=PROVIDER_NAME if signature is not None else None,
                ),
            )
        )
        return ToolCallDelta(index=index, id=call_id, name=call.name or "", arguments_delta=raw)

    def _code_call(self, code: types.ExecutableCode) -> None:
        call_id = _new_id()
        self._last_code_call = call_id
        arguments: dict[str, JsonValue] = {
            "language": str(code.language.value) if code.language else "PYTHON",
            "code": code.code or "",
        }
        self._blocks.append(
            _Block(
                kind="done",
                part=ToolCallPart(
                    id=call_id,
                    name=HostedTool.CODE_EXECUTION.value,
                    arguments=arguments,
                    raw_arguments=json.dumps(arguments),
                    hosted=True,
                    provider=PROVIDER_NAME,
                ),
            )
        )

    def _hosted_metadata(self) -> list[AssistantPart]:
        parts: list[AssistantPart] = []
        grounding = self._grounding
        if grounding is not None and grounding.web_search_queries:
            call_id = _new_id()
            queries: list[JsonValue] = list(grounding.web_search_queries)
            parts.append(
                ToolCallPart(
                    id=call_id,
                    name=HostedTool.WEB_SEARCH.value,
                    arguments={"queries": queries},
                    raw_arguments=json.dumps({"queries": queries}),
                    hosted=True,
                    provider=PROVIDER_NAME,
                )
            )
            parts.append(
                HostedToolResultPart(
                    call_id=call_id,
                    name=HostedTool.WEB_SEARCH.value,
                    content=_dump(grounding),
                    provider=PROVIDER_NAME,
                )
            )
        url_context = self._url_context
        if url_context is not None and url_context.url_metadata:
            call_id = _new_id()
            urls: list[JsonValue] = [m.retrieved_url or "" for m in url_context.url_metadata]
            parts.append(
                ToolCallPart(
                    id=call_id,
                    name=HostedTool.WEB_FETCH.value,
                    arguments={"urls": urls},
                    raw_arguments=json.dumps({"urls": urls}),
                    hosted=True,
                    provider=PROVIDER_NAME,
                )
            )
            parts.append(
                HostedToolResultPart(
                    call_id=call_id,
                    name=HostedTool.WEB_FETCH.value,
                    content=_dump(url_context),
                    provider=PROVIDER_NAME,
                )
            )
        return parts

    def parts(self) -> list[AssistantPart]:
        """The assembled assistant parts so far, in order."""
        out: list[AssistantPart] = self._hosted_metadata()
        for block in self._blocks:
            if block.part is not None:
                out.append(block.part)
            elif block.kind == "thinking":
                out.append(
                    ThinkingPart(
                        text=block.text,
                        signature=block.signature,
                        provider=PROVIDER_NAME,
                    )
                )
            else:
                if block.signature is not None:
                    out.append(ThinkingPart(signature=block.signature, provider=PROVIDER_NAME))
                if block.text:
                    out.append(TextPart(text=block.text))
        return out

    def finish(self, *, effort: EffortResolution | None = None) -> ModelResponse:
        """Assemble the final response.

        Raises:
            MalformedResponseError: when the response is not a complete answer (no candidate,
                no ``finishReason``, ``MALFORMED_FUNCTION_CALL`` … — see ``_outcome``).
        """
        error = incomplete(
            api=self.api,
            candidates_seen=self._candidates_seen,
            raw_finish=self._raw_finish,
            chunks=self._chunks,
            finish_message=self._finish_message,
        )
        if error is not None:
            raise error
        raw_finish = self._raw_finish or ""
        parts = self.parts()
        has_calls = any(isinstance(p, ToolCallPart) and not p.hosted for p in parts)
        finish = map_finish_reason(raw_finish, has_tool_calls=has_calls)
        usage = usage_of(self._usage).with_hosted_calls(hosted_call_counts(parts))
        model = self._model_version or self.model
        message = AssistantMessage(
            parts=tuple(parts),
            model=model,
            provider=PROVIDER_NAME,
            usage=usage,
            finish_reason=finish,
            raw_finish_reason=self._raw_finish,
            response_id=self._response_id,
        )
        return ModelResponse(
            message=message,
            usage=usage,
            finish_reason=finish,
            raw_finish_reason=self._raw_finish,
            model=model,
            effort=effort,
        )
