"""Structured output (seed 000, "Structured Output Contract").

An output type is a pydantic model class (the run returns a validated instance) or a JSON Schema
dict (the run returns the validated JSON value). The final assistant text is parsed leniently
(surrounding ``` fences and prose around one JSON object are tolerated) and validated; pydantic
is imported only when a pydantic model is used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robota.core.agent.validation import validate_against
from robota.core.capabilities import (
    ModelCapabilities,
    StructuredOutputTransport,
    choose_output_transport,
)
from robota.core.provider import OutputSchema

__all__ = ["OutputSpec", "parse_json_leniently"]

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n(?P<body>.*?)\n?\s*```\s*$", re.DOTALL)


def parse_json_leniently(text: str) -> Any:
    """Parse a JSON value from model text.

    Tries, in order: the whole text; the body of a ```` ``` ```` fence; the span from the first
    ``{`` to the last ``}`` (or ``[`` … ``]``).

    Raises:
        ValueError: when none of these parse, naming the JSON error.
    """
    candidates = [text.strip()]
    fenced = _FENCE.match(text)
    if fenced:
        candidates.append(fenced.group("body").strip())
    for open_, close in (("{", "}"), ("[", "]")):
        start, end = text.find(open_), text.rfind(close)
        if 0 <= start < end:
            candidates.append(text[start : end + 1])
    error: json.JSONDecodeError | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            error = error or exc
    raise ValueError(f"the response is not valid JSON ({error})")


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputSpec:
    """A resolved output type.

    Attributes:
        output_type: The pydantic model class or the JSON Schema dict the caller gave.
        schema: JSON Schema of the expected value.
        name: Schema name sent to vendors.
    """

    output_type: Any
    schema: Mapping[str, Any]
    name: str

    @classmethod
    def of(cls, output_type: Any) -> OutputSpec:
        """Resolve ``output_type``.

        Raises:
            TypeError: when it is neither a pydantic model class nor a dict schema.
        """
        if isinstance(output_type, Mapping):
            schema: Mapping[str, Any] = output_type
            title = schema.get("title")
            return cls(
                output_type=output_type,
                schema=schema,
                name=str(title) if isinstance(title, str) else "final_result",
            )
        if isinstance(output_type, type):
            from pydantic import BaseModel

            if issubclass(output_type, BaseModel):
                return cls(
                    output_type=output_type,
                    schema=output_type.model_json_schema(),
                    name=output_type.__name__,
                )
        raise TypeError(
            f"output_type must be a pydantic model class or a JSON Schema dict, got {output_type!r}"
        )

    @property
    def schema_text(self) -> str:
        """The schema as compact JSON for instructions."""
        return json.dumps(self.schema, sort_keys=True)

    def transport(self, caps: ModelCapabilities) -> StructuredOutputTransport:
        """The transport for a model with ``caps`` (``choose_output_transport``)."""
        return choose_output_transport(caps)

    def request_output(self, transport: StructuredOutputTransport) -> OutputSchema | None:
        """The ``ModelRequest.output`` value: set for native and JSON-mode transports."""
        if transport is StructuredOutputTransport.PROMPTED:
            return None
        return OutputSchema(name=self.name, schema=self.schema, transport=transport)

    def validate(self, text: str) -> tuple[Any, list[str]]:
        """Parse and validate ``text``; returns ``(value, [])`` or ``(None, issues)``."""
        try:
            data = parse_json_leniently(text)
        except ValueError as exc:
            return None, [str(exc)]
        if isinstance(self.output_type, Mapping):
            issues = validate_against(self.schema, data)
            return (data, []) if not issues else (None, issues)
        from pydantic import BaseModel, ValidationError

        model: type[BaseModel] = self.output_type
        try:
            return model.model_validate(data), []
        except ValidationError as exc:
            return None, [
                f"{'/'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
                for err in exc.errors()
            ]
