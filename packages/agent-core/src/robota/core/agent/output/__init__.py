"""Structured output (seed 000, "Structured Output Contract"; seed 002, "Structured output has
two layers", "Streaming parts…").

An output type is anything pydantic can validate (a model, dataclass, ``TypedDict``, primitive,
``list[...]``, ``dict[str, ...]``, ``Literal``, a union), a JSON Schema dict, a
:func:`StructuredDict`, or an output function (its parameters are the schema; its return value
is the output). The final assistant text is parsed leniently (surrounding ``` fences and prose
around one JSON value are tolerated), unwrapped when the root was wrapped, validated, passed to
the output function and the output validators. Modules: :mod:`.spec` (``OutputSpec``),
:mod:`._types` (schemas and names), :mod:`.function`, :mod:`.context`, :mod:`.partial`
(streamed snapshots), :mod:`._parse`.
"""

from __future__ import annotations

from robota.core.agent.output._parse import parse_json_leniently
from robota.core.agent.output._types import StructuredDict
from robota.core.agent.output.context import OutputContext, OutputValidator
from robota.core.agent.output.function import OutputFunction
from robota.core.agent.output.partial import PartialJson
from robota.core.agent.output.spec import OutputCheck, OutputSpec

__all__ = [
    "OutputCheck",
    "OutputContext",
    "OutputFunction",
    "OutputSpec",
    "OutputValidator",
    "PartialJson",
    "StructuredDict",
    "parse_json_leniently",
]
