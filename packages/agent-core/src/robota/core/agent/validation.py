"""JSON Schema validation of tool arguments and structured output, through the one shared
traversal ``robota.core.schema.validate_arguments`` (seed 000, "Tool Schema Projection": input
and output validation cannot disagree about the same schema). Imported lazily to keep
``import robota.core`` light.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["validate_against"]


def validate_against(schema: Mapping[str, Any], value: Any) -> list[str]:
    """Validate ``value`` against the JSON Schema ``schema``.

    Returns:
        Issues ordered by JSON path, each ``"<json path>: <message>"``; empty when valid.
    """
    from robota.core.schema import validate_arguments

    return validate_arguments(schema, value)
