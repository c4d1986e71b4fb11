"""Tools from typed Python functions: :class:`FunctionTool` and the :func:`tool` decorator.

The name is the function's name (overridable), the description its docstring, the parameters
schema comes from the signature (:func:`robota.core.schema.arguments_model`). The body receives
arguments validated and coerced through a pydantic model built from the signature (an ``int``
parameter gets an ``int``, a model parameter an instance); an optional first parameter annotated
``ToolContext[...]`` receives the context. A sync body runs in a worker thread
(``anyio.to_thread.run_sync``); when the run is cancelled the call returns at once and the thread
is abandoned to finish on its own, so long sync work should poll ``ctx.cancelled``.

Example:
    >>> import anyio
    >>> @tool(risk=RiskClass.INSPECT)
    ... def add(a: int, b: int = 1) -> int:
    ...     '''Add two numbers.
    ...
    ...     Args:
    ...         a: First addend.
    ...         b: Second addend.
    ...     '''
    ...     return a + b
    >>> add.name, add.description, add.parameters["required"]
    ('add', 'Add two numbers.', ['a'])
    >>> ctx = ToolContext(run_id="r", call_id="c", tool_call_id="t", tool_name="add", deps=None)
    >>> anyio.run(add.call, {"a": "2", "b": 3}, ctx)
    '5'
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from typing import Any, overload

import anyio.to_thread
from robota.core.errors import ConfigurationError, ToolArgumentsError
from robota.core.schema.signature import ArgumentsModel, arguments_model
from robota.core.tools.base import (
    ArgumentKind,
    PermissionArgument,
    Residency,
    RiskClass,
    Tool,
    ToolContext,
    ToolExecution,
    ToolOutput,
    ToolReturn,
)

__all__ = ["FunctionTool", "tool"]

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

PermissionArgumentSpec = PermissionArgument | tuple[str, ArgumentKind | str]
"""A :class:`PermissionArgument`, or the shorthand ``(key, kind)``, e.g. ``("path", "path")``."""


class FunctionTool(Tool):
    """A :class:`~robota.core.tools.base.Tool` whose body is a typed Python function.

    Args:
        fn: The body, sync or async. Parameters need type hints (unannotated means Any).
        name: Model-facing name; defaults to ``fn.__name__``. Must match
            ``^[a-zA-Z0-9_-]{1,64}$``.
        description: Defaults to the docstring's summary and body.
        risk: The tool's :class:`RiskClass` (None: undeclared, permission evaluation asks).
        permission_argument: The argument permission patterns match, as a
            :class:`PermissionArgument` or ``(key, kind)``; the key must be a parameter.
        sequential: True to never run concurrently with other calls of the same batch.
        timeout: Per-call timeout in seconds, or None for none.
        max_retries: How many invalid-argument attempts the model gets per run.
        residency: See :data:`~robota.core.tools.base.Residency`.
        idempotent: True when re-running after a crash is safe (journal continuation).
        execution: See :data:`~robota.core.tools.base.ToolExecution`.
        strict: Ask vendors for strict argument adherence where supported.

    Raises:
        ConfigurationError: for an invalid name or an unknown permission-argument key.
        SchemaConversionError: when the signature cannot be expressed as a schema.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        risk: RiskClass | None = None,
        permission_argument: PermissionArgumentSpec | None = None,
        sequential: bool = False,
        timeout: float | None = None,
        max_retries: int = 2,
        residency: Residency = "auto",
        idempotent: bool = False,
        execution: ToolExecution = "immediate",
        strict: bool | None = None,
    ) -> None:
        self.fn = fn
        self.arguments: ArgumentsModel = arguments_model(fn)
        self.name = name if name is not None else fn.__name__
        if not _NAME.match(self.name):
            raise ConfigurationError(f"tool name {self.name!r} must match {_NAME.pattern}")
        self.description = description if description is not None else self.arguments.description
        self.parameters = self.arguments.schema
        self.risk = risk
        self.permission_argument = _permission_argument(permission_argument, self.arguments)
        self.sequential = sequential
        self.timeout = timeout
        self.max_retries = max_retries
        self.residency = residency
        self.idempotent = idempotent
        self.execution = execution
        self.strict = strict
        self._is_async = inspect.iscoroutinefunction(fn)

    def __repr__(self) -> str:
        return f"FunctionTool(name={self.name!r}, risk={self.risk!r})"

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """Validate and coerce ``arguments``, run the body, and convert its result.

        Returns:
            The body's ``str`` or :class:`ToolReturn` as is; any other value as JSON text
            (pydantic-aware: models, dataclasses, datetimes serialize).

        Raises:
            ToolArgumentsError: when the arguments do not validate against the signature.
            Exception: whatever the body raises.
        """
        from pydantic import ValidationError

        try:
            validated = self.arguments.model.model_validate(arguments)
        except ValidationError as error:
            issues = [f"$.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()]
            raise ToolArgumentsError(
                f"invalid arguments for tool {self.name!r}", tool_name=self.name, issues=issues
            ) from error
        kwargs = {n: getattr(validated, n) for n in self.arguments.parameter_names}
        if self.arguments.context_parameter is not None:
            kwargs[self.arguments.context_parameter] = ctx
        if self._is_async:
            result = await self.fn(**kwargs)
        else:
            result = await anyio.to_thread.run_sync(
                functools.partial(self.fn, **kwargs), abandon_on_cancel=True
            )
        return _to_output(result)


def _permission_argument(
    spec: PermissionArgumentSpec | None, arguments: ArgumentsModel
) -> PermissionArgument | None:
    if spec is None:
        return None
    if isinstance(spec, PermissionArgument):
        result = spec
    else:
        key, kind = spec
        result = PermissionArgument(key=key, kind=ArgumentKind(kind))
    if result.key not in arguments.parameter_names:
        raise ConfigurationError(
            f"permission argument {result.key!r} is not a parameter "
            f"(parameters: {', '.join(arguments.parameter_names)})"
        )
    return result


def _to_output(result: Any) -> ToolOutput:
    if isinstance(result, str | ToolReturn):
        return result
    import pydantic_core

    return pydantic_core.to_json(result).decode()


@overload
def tool(fn: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    risk: RiskClass | None = None,
    permission_argument: PermissionArgumentSpec | None = None,
    sequential: bool = False,
    timeout: float | None = None,
    max_retries: int = 2,
    residency: Residency = "auto",
    idempotent: bool = False,
    execution: ToolExecution = "immediate",
    strict: bool | None = None,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    risk: RiskClass | None = None,
    permission_argument: PermissionArgumentSpec | None = None,
    sequential: bool = False,
    timeout: float | None = None,
    max_retries: int = 2,
    residency: Residency = "auto",
    idempotent: bool = False,
    execution: ToolExecution = "immediate",
    strict: bool | None = None,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a :class:`FunctionTool`; use as ``@tool`` or ``@tool(risk=RiskClass.INSPECT)``.

    Keyword arguments are those of :class:`FunctionTool`.

    Raises:
        ConfigurationError, SchemaConversionError: see :class:`FunctionTool`.
    """

    def build(body: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            body,
            name=name,
            description=description,
            risk=risk,
            permission_argument=permission_argument,
            sequential=sequential,
            timeout=timeout,
            max_retries=max_retries,
            residency=residency,
            idempotent=idempotent,
            execution=execution,
            strict=strict,
        )

    return build(fn) if fn is not None else build
