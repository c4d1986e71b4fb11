"""JSON forms of what the journal stores (model responses, tool results)."""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from robota.core.messages import JsonValue, ToolResultPart
from robota.core.provider import ModelResponse

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["decode_response", "decode_result", "encode_response", "encode_result"]


# pydantic refuses a config on a dataclass adapter; a one-element list carries the config
# (binary media as base64) the same way robota.core.messages does.
@cache
def _response_adapter() -> TypeAdapter[list[ModelResponse]]:
    from pydantic import ConfigDict, TypeAdapter

    return TypeAdapter(
        list[ModelResponse], config=ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")
    )


@cache
def _result_adapter() -> TypeAdapter[list[ToolResultPart]]:
    from pydantic import ConfigDict, TypeAdapter

    return TypeAdapter(
        list[ToolResultPart], config=ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")
    )


def encode_response(response: ModelResponse) -> JsonValue:
    """JSON form of a model response."""
    value: Any = json.loads(_response_adapter().dump_json([response]))[0]
    return value


def decode_response(value: JsonValue) -> ModelResponse:
    """Inverse of :func:`encode_response` (raises ``ValueError`` on a malformed value)."""
    return _response_adapter().validate_json(json.dumps([value]))[0]


def encode_result(result: ToolResultPart) -> JsonValue:
    """JSON form of a tool result."""
    value: Any = json.loads(_result_adapter().dump_json([result]))[0]
    return value


def decode_result(value: JsonValue) -> ToolResultPart:
    """Inverse of :func:`encode_result` (raises ``ValueError`` on a malformed value)."""
    return _result_adapter().validate_json(json.dumps([value]))[0]
