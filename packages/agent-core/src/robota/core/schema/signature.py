"""A typed callable's arguments as a pydantic model and a normalized JSON Schema.

Parameters come from the type hints (an unannotated parameter is ``typing.Any``); a first
parameter annotated ``ToolContext`` / ``ToolContext[Deps]`` is the tool context and is not part of
the schema. Parameter descriptions come from the Google-style docstring ``Args:`` section (parsed
with the ``docstring_parser`` package); a parameter with a default is not required. Unknown
arguments are refused (``additionalProperties: false`` on the root): an argument the function does
not take is a mistake the model should hear about.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from robota.core.schema.normalize import SchemaConversionError, normalize_schema

__all__ = ["ArgumentsModel", "arguments_model", "function_schema"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ArgumentsModel:
    """What a callable's signature says about its arguments.

    Attributes:
        model: A pydantic model class with one field per schema parameter (``extra="forbid"``);
            validating through it coerces values in pydantic's lax mode (``"3"`` becomes
            ``3`` for an ``int``; a dict becomes a model instance).
        schema: The normalized JSON Schema of the parameters (object root).
        description: The docstring's summary and body (without the ``Args:``/``Returns:``
            sections), or ``""``.
        context_parameter: Name of the ``ToolContext`` parameter, or None.
        parameter_names: Schema parameter names in signature order.
    """

    model: type[Any]
    schema: dict[str, Any]
    description: str
    context_parameter: str | None
    parameter_names: tuple[str, ...]


def _is_context(annotation: Any) -> bool:
    # Imported here: robota.core.tools re-exports FunctionTool, which imports this module.
    from robota.core.tools.base import ToolContext

    origin = typing.get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, ToolContext)


def arguments_model(fn: Callable[..., Any]) -> ArgumentsModel:
    """Build the arguments model and schema of ``fn``.

    Args:
        fn: A sync or async function with type hints.

    Returns:
        An :class:`ArgumentsModel`.

    Raises:
        SchemaConversionError: for ``*args``/``**kwargs``/positional-only parameters, a
            ``ToolContext`` parameter that is not first, or a parameter type the schema subset
            cannot carry (see :mod:`robota.core.schema.normalize`).
    """
    import docstring_parser
    from pydantic import ConfigDict, Field, create_model

    signature = inspect.signature(fn)
    hints = typing.get_type_hints(fn, include_extras=True)
    doc = docstring_parser.parse(inspect.getdoc(fn) or "", docstring_parser.DocstringStyle.GOOGLE)
    param_docs = {p.arg_name: p.description for p in doc.params if p.description}

    fields: dict[str, Any] = {}
    context_parameter: str | None = None
    for index, (name, param) in enumerate(signature.parameters.items()):
        annotation = hints.get(name, Any)
        if _is_context(annotation):
            if index != 0:
                raise SchemaConversionError(
                    f"parameter {name!r} of {fn.__name__} is a ToolContext but not the first "
                    "parameter; move it first.",
                    field=name,
                )
            context_parameter = name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise SchemaConversionError(
                f"parameter {name!r} of {fn.__name__} is {param.kind.description}; tool "
                "arguments are named, so use a named parameter (a list or dict if needed).",
                field=name,
            )
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[name] = (annotation, Field(default, description=param_docs.get(name)))

    model = create_model(
        f"{fn.__name__}_arguments",
        __config__=ConfigDict(extra="forbid"),
        **fields,
    )
    schema = normalize_schema(model.model_json_schema(mode="validation"))
    description = "\n\n".join(
        part for part in (doc.short_description, doc.long_description) if part
    )
    return ArgumentsModel(
        model=model,
        schema=schema,
        description=description,
        context_parameter=context_parameter,
        parameter_names=tuple(fields),
    )


def function_schema(fn: Callable[..., Any]) -> tuple[dict[str, Any], str]:
    """The JSON Schema of ``fn``'s parameters and its docstring description.

    Args:
        fn: A typed callable (see the module docstring for the rules).

    Returns:
        ``(schema, description)``: the normalized parameters schema (object root) and the
        docstring's summary and body (``""`` when it has none).

    Raises:
        SchemaConversionError: see :func:`arguments_model`.

    Example:
        >>> def get_weather(city: str, days: int = 1) -> str:
        ...     '''Forecast for a city.
        ...
        ...     Args:
        ...         city: City name, e.g. "Oslo".
        ...         days: How many days ahead.
        ...     '''
        ...     return "sunny"
        >>> schema, description = function_schema(get_weather)
        >>> description
        'Forecast for a city.'
        >>> schema["properties"]["city"]
        {'description': 'City name, e.g. "Oslo".', 'type': 'string'}
        >>> schema["required"], schema["additionalProperties"]
        (['city'], False)
    """
    built = arguments_model(fn)
    return built.schema, built.description
