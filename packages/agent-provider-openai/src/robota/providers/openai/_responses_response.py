"""Responses API response objects / stream events → neutral response (one direction, one module).

Source: https://platform.openai.com/docs/api-reference/responses/object and
https://platform.openai.com/docs/api-reference/responses-streaming. Output items map to parts
as :mod:`._responses_items` describes.

What counts as an answer (issue #14):

- a response object whose ``status`` is ``completed`` (``complete`` is read the same way) —
  finish ``tool_calls`` when it asks for local tools, else ``stop``; raw reason ``completed``;
- a response whose ``status`` is ``incomplete`` — finish from ``incomplete_details.reason``
  (``max_output_tokens`` → ``length``, ``content_filter`` → ``content_filter``, else
  ``other``); raw reason ``incomplete:<reason>``;
- streamed: only the ``response.completed`` / ``response.incomplete`` event's response (its
  ``output``, or what the stream itself delivered when that is empty, see
  :mod:`._responses_stream`);
- a completed message holding a ``refusal`` content part: the refusal text is the answer text
  and the finish is ``content_filter`` with the raw reason ``refusal`` (as on Chat
  Completions), so an agent run fails with :class:`~robota.core.errors.ContentFilterError`.

A ``failed`` response (or a ``response.failed`` event) raises the error its ``error.code``
names (:func:`._errors.classify_body`); an ``error`` event is classified the same way by the
stream reader. Any other status (``queued``, ``in_progress``, ``cancelled``, none), a body
without an ``output`` list, and a stream that ended before its final event are
:class:`~robota.core.errors.MalformedResponseError` naming what was missing.

OpenAI's ``usage`` object states no hosted-tool count, so the hosted calls among the output
items (``web_search_call``, ``code_interpreter_call``) are counted into usage ``details`` as
``hosted.web_search`` / ``hosted.code_execution`` (:func:`robota.core.capabilities.
hosted_call_counts`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from robota.core.capabilities import hosted_call_counts
from robota.core.errors import RobotaError
from robota.core.messages import AssistantMessage, FinishReason, ToolCallPart
from robota.core.provider import EffortResolution, ModelResponse
from robota.core.wire import malformed
from robota.providers.openai._common import as_list, as_mapping
from robota.providers.openai._errors import classify_body
from robota.providers.openai._responses_items import decode_items
from robota.providers.openai._usage import responses_usage

__all__ = ["API", "decode_response", "response_error"]

API = "responses"
"""The API surface name used in records and errors."""

_INCOMPLETE: Mapping[str, FinishReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}
_COMPLETED = frozenset({"completed", "complete"})


def response_error(
    data: Mapping[str, Any], *, provider: str, request_id: str | None = None
) -> RobotaError | None:
    """The error of a ``failed`` response (classified by its ``error.code``), else None.

    Example:
        >>> failed = {"status": "failed", "error": {"code": "server_error", "message": "oops"}}
        >>> type(response_error(failed, provider="openai")).__name__
        'InternalServerError'
    """
    if data.get("status") != "failed":
        return None
    error = as_mapping(data.get("error"))
    body = {"error": {"message": "response failed", **error, "type": error.get("code")}}
    return classify_body(body, provider=provider, request_id=request_id)


def _refused(output: list[Any]) -> bool:
    """True when a message item of ``output`` holds a non-empty ``refusal`` content part."""
    for item in map(as_mapping, output):
        if item.get("type") != "message":
            continue
        for content in map(as_mapping, as_list(item.get("content"))):
            if content.get("type") == "refusal" and content.get("refusal"):
                return True
    return False


def _finish(
    status: str, data: Mapping[str, Any], has_calls: bool, refused: bool
) -> tuple[FinishReason, str]:
    if status == "incomplete":
        reason = as_mapping(data.get("incomplete_details")).get("reason")
        raw = f"incomplete:{reason}" if reason else "incomplete"
        return _INCOMPLETE.get(str(reason), "other"), raw
    if refused:
        return "content_filter", "refusal"
    return ("tool_calls" if has_calls else "stop"), status


def decode_response(
    data: Mapping[str, Any],
    *,
    provider: str,
    request_id: str | None = None,
    effort: EffortResolution | None = None,
    items: list[Any] | None = None,
) -> ModelResponse:
    """Decode a Responses API ``response`` object (module docstring for the rules).

    Args:
        items: Output items to use instead of ``data["output"]`` (a stream's collected items
            when the final event carries none).

    Raises:
        ProviderError: (a subclass) when the response ``status`` is ``failed``.
        MalformedResponseError: any status but completed / incomplete, or no ``output`` list.
    """
    failure = response_error(data, provider=provider, request_id=request_id)
    if failure is not None:
        raise failure
    status = data.get("status")
    if status not in _COMPLETED and status != "incomplete":
        raise malformed(
            provider,
            API,
            "a completed status",
            detail=f"status {status!r}",
            request_id=request_id,
        )
    output = data.get("output") if items is None else items
    if not isinstance(output, list):
        raise malformed(provider, API, "an output list", request_id=request_id)
    parts = decode_items(as_list(output), provider)
    has_calls = any(isinstance(p, ToolCallPart) and not p.hosted for p in parts)
    finish, raw_finish = _finish(str(status), data, has_calls, _refused(as_list(output)))
    usage = responses_usage(data.get("usage")).with_hosted_calls(hosted_call_counts(parts))
    model = str(data.get("model") or "")
    response_id = data.get("id")
    message = AssistantMessage(
        parts=tuple(parts),
        model=model,
        provider=provider,
        usage=usage,
        finish_reason=finish,
        raw_finish_reason=raw_finish,
        response_id=str(response_id) if response_id else None,
    )
    return ModelResponse(
        message=message,
        usage=usage,
        finish_reason=finish,
        raw_finish_reason=raw_finish,
        model=model,
        request_id=request_id,
        effort=effort,
    )
