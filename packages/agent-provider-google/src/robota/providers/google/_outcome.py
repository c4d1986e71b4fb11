"""Whether an assembled Gemini response is an answer or a typed error (issue #14; seed 002,
"Model contract"; seed 000, "Error Taxonomy").

Gemini API reference, ``GenerateContentResponse`` / ``Candidate`` / ``FinishReason`` /
``PromptFeedback.BlockReason`` (https://ai.google.dev/api/generate-content, read 2026-11-30):
``Candidate.finishReason`` — "If empty, the model has not stopped generating tokens". So:

==============================================  ==============================================
what the response carried                       outcome
==============================================  ==============================================
no candidate, ``promptFeedback.blockReason``    :class:`ContentFilterError`, ``vendor_type`` =
                                                the block reason
no candidate otherwise (``candidates: []``,     :class:`MalformedResponseError`
an empty stream, a cut stream)                  (``missing="candidates"``)
a candidate, but no ``finishReason`` on any     :class:`MalformedResponseError`
chunk (a stream cut before its last chunk)      (``missing="a chunk with finishReason"``)
``MALFORMED_FUNCTION_CALL``,                    :class:`MalformedResponseError` (recoverable,
``UNEXPECTED_TOOL_CALL``, ``MALFORMED_RESPONSE`` ``vendor_type`` = the reason): the model wrote
                                                a call that cannot be run, or the vendor says
                                                its own answer is malformed; a retry may
                                                succeed
``STOP``                                        ``stop`` (``tool_calls`` when the answer holds
                                                a function call)
``MAX_TOKENS``, ``CONTINUATION``                ``length`` (``CONTINUATION``: "the response
                                                reached the per-request token limit, but
                                                generation is not yet complete"; this adapter
                                                turns automatic continuation off)
safety family (see :data:`CONTENT_FILTER`)      ``content_filter``
anything else (``OTHER``, ``LANGUAGE``,         ``other``
``TOO_MANY_TOOL_CALLS``, ``NO_IMAGE``, a
reason this table does not know yet)
==============================================  ==============================================

The raw reason is always kept (``raw_finish_reason``, or the error's ``vendor_type``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from robota.core.errors import ContentFilterError, MalformedResponseError, ProviderError
from robota.core.messages import FinishReason
from robota.core.wire import malformed
from robota.providers.google._request import PROVIDER_NAME

__all__ = [
    "CONTENT_FILTER",
    "MALFORMED",
    "blocked_prompt",
    "incomplete",
    "map_finish_reason",
]

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
"""Finish reasons that mean a content policy stopped the answer → ``content_filter``."""

MALFORMED = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "MALFORMED_RESPONSE"})
"""Finish reasons that mean there is no usable answer → :class:`MalformedResponseError`."""

_LENGTH = frozenset({"MAX_TOKENS", "CONTINUATION"})


def map_finish_reason(raw: str, *, has_tool_calls: bool) -> FinishReason:
    """Normalize a Gemini ``finishReason`` that is not in :data:`MALFORMED` (module table).

    Example:
        >>> map_finish_reason("STOP", has_tool_calls=True), map_finish_reason("SPII", has_tool_calls=False)
        ('tool_calls', 'content_filter')
    """
    if raw == "STOP":
        return "tool_calls" if has_tool_calls else "stop"
    if raw in _LENGTH:
        return "length"
    if raw in CONTENT_FILTER:
        return "content_filter"
    return "other"


def blocked_prompt(reason: str, feedback: Mapping[str, Any]) -> ContentFilterError:
    """The error for a prompt Gemini blocked outright (no candidate came back)."""
    return ContentFilterError(
        f"Gemini blocked the prompt: {reason}",
        provider=PROVIDER_NAME,
        vendor_type=reason,
        body={"promptFeedback": dict(feedback)},
    )


def incomplete(
    *,
    api: str,
    candidates_seen: bool,
    raw_finish: str | None,
    chunks: int,
    finish_message: str | None = None,
) -> ProviderError | None:
    """The error a response that is not a complete answer raises, or None for an answer.

    Args:
        api: ``generateContent`` or ``streamGenerateContent`` (named in the error).
        candidates_seen: Whether any chunk carried a candidate.
        raw_finish: The last ``finishReason`` seen, if any.
        chunks: How many response objects (stream chunks) were read.
        finish_message: The candidate's ``finishMessage`` (Gemini's explanation), if any.

    Returns:
        A :class:`MalformedResponseError` (module table), or None.
    """
    if not candidates_seen:
        detail = "an empty stream" if chunks == 0 else f"{chunks} chunk(s) without a candidate"
        return malformed(PROVIDER_NAME, api, "candidates", detail=detail)
    if raw_finish is None:
        return malformed(
            PROVIDER_NAME,
            api,
            "a chunk with finishReason",
            detail=f"{chunks} chunk(s) read, none said the model stopped",
        )
    if raw_finish in MALFORMED:
        said = f": {finish_message}" if finish_message else ""
        return MalformedResponseError(
            f"{PROVIDER_NAME} {api}: the model's response cannot be used "
            f"(finishReason {raw_finish}{said}); a retry may succeed",
            provider=PROVIDER_NAME,
            api=api,
            missing="a well-formed answer",
            vendor_type=raw_finish,
        )
    return None
