"""Shared plumbing of the built-in tools: pydantic-validated arguments and one error policy.

Every built-in tool reports failures the model can act on (a missing file, an ambiguous edit, a
path outside the workspace, a refused URL, an ``OSError``) as an error result, ``ToolReturn(is_error=True)``
with a message saying what went wrong, never by raising; invalid arguments raise
:class:`~robota.core.errors.ToolArgumentsError` like :class:`~robota.core.tools.function.
FunctionTool`. Cancellation always propagates.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError
from robota.core.errors import ToolArgumentsError
from robota.core.host.errors import PathContainmentError
from robota.core.schema import json_schema_of
from robota.core.tools.base import Residency, Tool, ToolContext, ToolOutput, ToolReturn
from robota.tools.errors import ToolUsageError

ArgsT = TypeVar("ArgsT", bound=BaseModel)

__all__ = ["BuiltinTool"]


class BuiltinTool(Tool, Generic[ArgsT]):
    """A tool whose arguments are a pydantic model (``args_model``) and whose body is
    :meth:`run`.

    Subclasses set ``name``, ``description``, ``risk``, ``permission_argument`` and
    ``args_model``; ``parameters`` is the model's normalized JSON Schema.
    """

    args_model: ClassVar[type[BaseModel]]
    residency: Residency = "resident"  # the built-ins are the session's core tier: never deferred

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        model = cls.__dict__.get("args_model")
        if model is not None:
            schema = dict(json_schema_of(model))
            schema.pop("description", None)
            cls.parameters = schema

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """Validate ``arguments`` and run the body.

        Returns:
            The body's result; a :class:`ToolUsageError` or a path-containment error becomes
            ``ToolReturn(is_error=True)`` carrying its message.

        Raises:
            ToolArgumentsError: The arguments do not validate.
        """
        try:
            args = self.args_model.model_validate(arguments)
        except ValidationError as error:
            issues = [f"$.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()]
            raise ToolArgumentsError(
                f"invalid arguments for tool {self.name!r}", tool_name=self.name, issues=issues
            ) from error
        try:
            return await self.run(args, ctx)  # pyright: ignore[reportArgumentType]
        except (ToolUsageError, PathContainmentError) as error:
            return ToolReturn.text(f"Error: {error.message}", is_error=True)
        except OSError as error:
            return ToolReturn.text(f"Error: {error}", is_error=True)

    @abstractmethod
    async def run(self, args: ArgsT, ctx: ToolContext[Any]) -> ToolOutput:
        """The tool body, with validated arguments."""
