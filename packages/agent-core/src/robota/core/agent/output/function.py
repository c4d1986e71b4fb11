"""Output functions: the model's JSON is validated against a function's parameters (like a
tool's arguments), the function is called and its return value is the run's output."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from robota.core.agent.output.context import OutputContext
from robota.core.schema.normalize import SchemaConversionError
from robota.core.schema.signature import arguments_model

__all__ = ["OutputFunction", "is_output_function"]


def is_output_function(value: object) -> bool:
    """True for a plain function, a method or a ``functools.partial`` (not a class)."""
    return (
        inspect.isfunction(value) or inspect.ismethod(value) or isinstance(value, functools.partial)
    )


def _is_output_context(annotation: Any) -> bool:
    origin = typing.get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, OutputContext)


def _target(fn: Callable[..., Any]) -> Callable[..., Any]:
    inner: Any = fn
    while isinstance(inner, functools.partial):
        inner = inner.func  # pyright: ignore[reportUnknownMemberType]
    return inner


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputFunction:
    """A resolved output function.

    Attributes:
        fn: The function.
        name: Its name (the schema name).
        schema: The parameters' JSON Schema (object root).
        description: The docstring's summary.
        model: The pydantic arguments model.
        parameters: Schema parameter names.
        takes_context: True when the first parameter is an ``OutputContext``.
    """

    fn: Callable[..., Any]
    name: str
    schema: dict[str, Any]
    description: str
    model: Any
    parameters: tuple[str, ...]
    takes_context: bool

    @classmethod
    def of(cls, fn: Callable[..., Any]) -> OutputFunction:
        """Resolve ``fn``'s parameters.

        Raises:
            TypeError: a parameter pydantic cannot describe, ``*args``/``**kwargs``, or a
                ``ToolContext`` parameter (output functions take an ``OutputContext``).
        """
        target = _target(fn)
        name = str(getattr(target, "__name__", "final_result"))
        try:
            signature = inspect.signature(fn)
            hints = typing.get_type_hints(target, include_extras=True)
        except (TypeError, ValueError, NameError) as exc:
            raise TypeError(f"output function {name!r} has no readable signature: {exc}") from exc
        params = list(signature.parameters.values())
        takes_context = bool(params) and _is_output_context(hints.get(params[0].name))
        if takes_context:
            params = params[1:]

        def stub(**kwargs: Any) -> Any:  # carries the signature without the context
            return kwargs

        stub.__name__ = name
        stub.__doc__ = inspect.getdoc(target)
        stub.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        stub.__annotations__ = {p.name: hints[p.name] for p in params if p.name in hints}
        try:
            built = arguments_model(stub)
        except (SchemaConversionError, TypeError) as exc:
            raise TypeError(f"output function {name!r} cannot be described: {exc}") from exc
        if built.context_parameter is not None:
            raise TypeError(
                f"output function {name!r} takes a ToolContext; annotate its first parameter "
                "OutputContext[Deps] instead"
            )
        return cls(
            fn=fn,
            name=name,
            schema=built.schema,
            description=built.description,
            model=built.model,
            parameters=built.parameter_names,
            takes_context=takes_context,
        )

    def check(self, data: Any) -> tuple[Any, list[str]]:
        """Validate ``data`` as the arguments: ``(validated model, [])`` or ``(None, issues)``."""
        from pydantic import ValidationError

        try:
            return self.model.model_validate(data), []
        except ValidationError as exc:
            return None, [
                f"{'/'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
                for err in exc.errors()
            ]

    async def call(self, arguments: Any, ctx: OutputContext[Any]) -> Any:
        """Call the function with validated ``arguments`` (awaited when it is async).

        Raises:
            ModelRetry: what the function raised (a model-safe retry).
            Exception: any other failure of the function (an application failure).
        """
        kwargs = {name: getattr(arguments, name) for name in self.parameters}
        result = self.fn(ctx, **kwargs) if self.takes_context else self.fn(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result
