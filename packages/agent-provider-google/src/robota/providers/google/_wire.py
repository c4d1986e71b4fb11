"""Reading what the SDK received: a buffered ``generateContent`` body, or the chunks of a
``streamGenerateContent`` stream, into SDK response objects — or a typed error (issue #14).

- Buffered: the SDK is asked for the raw body (``should_return_http_response``) so this module
  sees every byte: an empty body, an HTML page or JSON that is not an object is a
  :class:`~robota.core.errors.MalformedResponseError` (:func:`robota.core.wire.decode_json_object`);
  a body carrying an ``error`` object (a gateway answering 200) is classified by the code and
  status it names (``_errors.classify_error_body``) — ``"error": null`` beside an answer is no
  error; the rest, repaired by ``_chunks.clean_response`` (unreadable token counts → unknown),
  is shaped by the SDK's own response reader.
- Streamed: the body reaches the SDK re-framed and repaired by ``_transport``; the SDK splits
  the Server-Sent Events and raises ``APIError`` for an ``error`` chunk; anything else it raises
  while reading (a chunk that is not JSON, an error chunk without a numeric code, a connection
  closed mid-body, no event within a per-call timeout) is classified by
  ``_errors.classify_read_error``. The chunks' meaning (a missing ``finishReason``, an empty
  chunk) is judged by the assembler.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any

import pydantic
from robota.core.errors import MalformedResponseError
from robota.core.wire import decode_json_object
from robota.providers.google._chunks import clean_response
from robota.providers.google._errors import classify_error_body, classify_read_error
from robota.providers.google._request import PROVIDER_NAME

from google.genai import models as genai_models
from google.genai import types

__all__ = ["decode_body", "read_chunks"]


def decode_body(
    body: str | None, headers: Mapping[str, str] | None, *, api: str, vertex: bool
) -> tuple[dict[str, Any], types.GenerateContentResponse]:
    """Decode one buffered ``generateContent`` body.

    Returns:
        ``(json_object, response)``: the body as sent, and the SDK's reading of it.

    Raises:
        MalformedResponseError: for an empty, HTML or non-object body, JSON nested too deep to
            decode, or a body the SDK cannot shape into a response.
        ProviderError: (subclasses) for a body that carries an ``error`` object.
    """
    try:
        data = decode_json_object(body or "", provider=PROVIDER_NAME, api=api)
    except RecursionError as exc:
        raise MalformedResponseError(
            f"{PROVIDER_NAME} {api}: the body is JSON nested too deep to decode",
            provider=PROVIDER_NAME,
            api=api,
            missing="JSON object body",
        ) from exc
    if isinstance(data.get("error"), Mapping):
        raise classify_error_body(data, headers or {})
    readable = clean_response(data) or data
    try:
        shaped = (
            genai_models._GenerateContentResponse_from_vertex(readable)
            if vertex
            else genai_models._GenerateContentResponse_from_mldev(readable)
        )
        response = types.GenerateContentResponse._from_response(response=shaped, kwargs={})
    except (
        pydantic.ValidationError,
        TypeError,
        ValueError,
        LookupError,
        AttributeError,
        RecursionError,
    ) as exc:
        raise MalformedResponseError(
            f"{PROVIDER_NAME} {api}: the body is not a GenerateContentResponse ({exc})",
            provider=PROVIDER_NAME,
            api=api,
            missing="a GenerateContentResponse object",
        ) from exc
    return data, response


async def read_chunks(
    chunks: AsyncIterator[types.GenerateContentResponse], *, api: str
) -> AsyncGenerator[types.GenerateContentResponse]:
    """The SDK's stream chunks, with its read failures turned into typed errors.

    Raises:
        ProviderError: (subclasses) an ``error`` chunk by its code; a chunk the SDK could not
            read → :class:`MalformedResponseError`; transport failures → connection/timeout
            (no event within a per-call timeout → :class:`ProviderTimeoutError`, see
            ``_transport``).
    """
    try:
        while True:
            try:
                chunk = await anext(chunks)
            except StopAsyncIteration:
                return
            except Exception as exc:
                classified = classify_read_error(exc, api=api, during_stream=True)
                if classified is None:
                    raise
                raise classified from exc
            yield chunk
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()
