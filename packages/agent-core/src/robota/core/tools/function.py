"""Tools from typed Python functions: :class:`FunctionTool` and the :func:`tool` decorator.

The name is the function's name (overridable), the description its docstring, the parameters
schema comes from the signature (:func:`robota.core.schema.arguments_model`; the model is built
once per function and shared by all its tools, each tool's ``parameters`` is its own copy). The
body receives
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

The decorated function stays callable with its own signature (a type checker checks the
arguments and knows the return type): ``add(2, b=3)`` returns ``5``.

``@tool`` on a method (a function written in a class body) makes a method tool: its schema
never holds ``self`` (the first parameter), and read through an instance (``calc.double``) it is
a ``FunctionTool`` over the bound method — callable as ``calc.double(2)``, registered as
``Agent(provider, tools=[calc.double])``. Read through the class (``Calc.double``) it has no
instance to call with, so ``tools=`` refuses it (``TypeError``) and :meth:`FunctionTool.call`
raises ``TypeError``. A ``@staticmethod`` read through its class (``FunctionTool(Calc.helper)``)
keeps every parameter when the class is reachable from its module by its qualified name (a
class defined inside a function is not: write ``@tool`` above ``@staticmethod`` there).

A ``functools.partial`` is described by its remaining parameters (named after the wrapped
function) and a callable object by its ``__call__`` without ``self`` (named after its class).
"""

from __future__ import annotations

import copy
import functools
import inspect
import re
import sys
import types
from collections.abc import Callable
from typing import Any, Concatenate, Generic, Self, cast, overload

import anyio.to_thread
from robota.core.errors import ConfigurationError, ToolArgumentsError
from robota.core.schema.signature import ArgumentsModel
from robota.core.tools._arguments import (
    callable_name,
    copy_schema,
    is_coroutine_callable,
    shared_arguments,
)
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
from typing_extensions import ParamSpec, TypeVar

__all__ = ["FunctionTool", "tool"]

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

P = ParamSpec("P", default=...)
R = TypeVar("R", default=Any)

PermissionArgumentSpec = PermissionArgument | tuple[str, ArgumentKind | str]
"""A :class:`PermissionArgument`, or the shorthand ``(key, kind)``, e.g. ``("path", "path")``."""


class FunctionTool(Tool, Generic[P, R]):
    """A :class:`~robota.core.tools.base.Tool` whose body is a typed Python function.

    ``FunctionTool[P, R]`` keeps the wrapped function's parameters ``P`` and return type
    ``R``: calling the tool (``add(1, 2)``) calls the function itself, with no validation,
    gate or event (the model-facing path is :meth:`call`).

    Args:
        fn: The body, sync or async: a function, a bound method, a ``@staticmethod``, a
            ``functools.partial`` (its remaining parameters) or a callable object (its
            ``__call__``). Parameters need type hints (unannotated means Any).
        name: Model-facing name; defaults to ``fn.__name__`` (a partial: the wrapped
            function's; a callable object: its class's). Must match
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
        SchemaConversionError: when the signature cannot be expressed as a schema, or cannot
            be read (e.g. a builtin without type hints).
    """

    def __init__(
        self,
        fn: Callable[P, R],
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
        static = isinstance(fn, staticmethod)
        if static:  # @tool above @staticmethod: the plain function, never a method
            fn = cast("Callable[P, R]", fn.__func__)  # pyright: ignore[reportUnknownMemberType]
        self.fn: Callable[P, R] = fn
        self.method_of: str | None = None if static else _defining_class(fn)
        """The qualified name of the class whose method this is, while not bound to an
        instance (the schema then leaves out ``self``); None for a function or a bound tool."""
        self._attribute: str | None = None
        self.arguments: ArgumentsModel = shared_arguments(fn, drop_first=self.method_of is not None)
        """The signature's arguments model and schema, shared by every tool of the same
        function (see :mod:`robota.core.tools._arguments`); read only."""
        self.name = name if name is not None else callable_name(fn)
        if not _NAME.match(self.name):
            raise ConfigurationError(f"tool name {self.name!r} must match {_NAME.pattern}")
        self.description = description if description is not None else self.arguments.description
        self.parameters = copy_schema(self.arguments.schema)
        """This tool's own copy of the shared schema: editing it changes this tool only."""
        self.risk = risk
        self.permission_argument = _permission_argument(permission_argument, self.arguments)
        self.sequential = sequential
        self.timeout = timeout
        self.max_retries = max_retries
        self.residency = residency
        self.idempotent = idempotent
        self.execution = execution
        self.strict = strict
        self._is_async = is_coroutine_callable(fn)

    def __repr__(self) -> str:
        return f"FunctionTool(name={self.name!r}, risk={self.risk!r})"

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the wrapped function directly (an async function returns its coroutine)."""
        return self.fn(*args, **kwargs)

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self._attribute = name

    @overload
    def __get__(self, instance: None, owner: type[Any], /) -> Self: ...

    @overload
    def __get__(
        self: FunctionTool[Concatenate[Any, Q], S],
        instance: object,
        owner: type[Any] | None = None,
        /,
    ) -> FunctionTool[Q, S]: ...

    @overload
    def __get__(self, instance: object, owner: type[Any] | None = None, /) -> Self: ...

    def __get__(self, instance: object, owner: type[Any] | None = None, /) -> Any:
        """A method tool read through an instance: the ``FunctionTool`` of the bound method
        (same name, options and schema; cached on the instance when it has a ``__dict__``).
        Read through the class, or when this tool is no method: the tool itself."""
        if instance is None or self.method_of is None:
            return self
        bound = copy.copy(self)
        bound.parameters = copy_schema(self.parameters)
        bound.fn = types.MethodType(self.fn, instance)
        bound.method_of = None
        bound._attribute = None
        namespace: dict[str, Any] | None = getattr(instance, "__dict__", None)
        if self._attribute is not None and namespace is not None:
            namespace[self._attribute] = bound
        return bound

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

        if self.method_of is not None:
            raise TypeError(unbound_method_message(self))
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
        body: Callable[..., Any] = self.fn
        if self._is_async:
            result = await body(**kwargs)
        else:
            result = await anyio.to_thread.run_sync(
                functools.partial(body, **kwargs), abandon_on_cancel=True
            )
        return _to_output(result)


def _defining_class(fn: Callable[..., Any]) -> str | None:
    """The qualified name of the class in whose body ``fn`` was written (``def`` directly in a
    class body, with a first positional parameter, and not a ``@staticmethod`` of that class),
    else None."""
    if not inspect.isfunction(fn):
        return None
    owner, _, _ = fn.__qualname__.rpartition(".")
    if not owner or owner.endswith("<locals>"):
        return None
    first = next(iter(inspect.signature(fn).parameters.values()), None)
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if first is None or first.kind not in positional:
        return None
    return None if _is_static_of(fn, owner) else owner


def _is_static_of(fn: types.FunctionType, owner: str) -> bool:
    """True when the class ``owner`` (a qualified name in ``fn``'s module) holds ``fn`` as a
    ``staticmethod``. False when the class cannot be reached (still being defined, as when
    ``@tool`` decorates a ``def`` in a class body, or defined inside a function): ``fn`` is
    then taken for a method, as it is written in a class body."""
    scope: object = sys.modules.get(fn.__module__)
    for part in owner.split("."):
        namespace: dict[str, Any] | None = getattr(scope, "__dict__", None)
        scope = None if namespace is None else namespace.get(part)
        if scope is None:
            return False
    if not isinstance(scope, type):
        return False
    return any(
        isinstance(member, staticmethod) and member.__func__ is fn  # pyright: ignore[reportUnknownMemberType]
        for member in vars(scope).values()
    )


def unbound_method_message(tool: FunctionTool[..., Any]) -> str:
    """Why ``tool``, a method tool read through its class, cannot be registered or called."""
    return (
        f"tool {tool.name!r} is the method {tool.method_of}.{tool.fn.__name__} read through "
        f"its class: it has no instance to call with; register it from an instance, e.g. "
        f"tools=[{tool.method_of}(...).{tool.fn.__name__}]"
    )


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
def tool(fn: Callable[P, R], /) -> FunctionTool[P, R]: ...


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
) -> _Decorator: ...


def tool(
    fn: Callable[P, R] | None = None,
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
) -> FunctionTool[P, R] | _Decorator:
    """Make a :class:`FunctionTool`; use as ``@tool`` or ``@tool(risk=RiskClass.INSPECT)``.

    Keyword arguments are those of :class:`FunctionTool`. The result is a
    ``FunctionTool[P, R]`` that is still callable as the decorated function.

    Raises:
        ConfigurationError, SchemaConversionError: see :class:`FunctionTool`.
    """

    def build(body: Callable[Q, S]) -> FunctionTool[Q, S]:
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

    return build(fn) if fn is not None else _Decorator(build)


Q = ParamSpec("Q")
S = TypeVar("S")


class _Decorator:
    """What ``tool(...)`` with keyword arguments returns: applied to a function, it gives the
    ``FunctionTool`` of that function, keeping its parameters and return type."""

    __slots__ = ("_build",)

    def __init__(self, build: Callable[[Callable[..., Any]], FunctionTool[..., Any]]) -> None:
        self._build = build

    def __call__(self, fn: Callable[Q, S], /) -> FunctionTool[Q, S]:
        built: FunctionTool[Q, S] = self._build(fn)
        return built
