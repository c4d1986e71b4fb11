"""``todo_write``: the task list the model keeps while it works (seed 004, built-in tools).

Each call replaces the whole list. The list is readable by the host through
:attr:`TodoWriteTool.items`, and every change is sent to observers as a ``tool.progress`` event
(through ``ToolContext.emit_progress``) whose text is the rendered list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field
from robota.core.tools.base import RiskClass, ToolContext, ToolOutput
from robota.tools.builtin._base import BuiltinTool
from robota.tools.errors import ToolUsageError

__all__ = ["TodoItem", "TodoStatus", "TodoWriteArgs", "TodoWriteTool", "render_todos"]

TodoStatus = Literal["pending", "in_progress", "completed"]
"""The state of one task."""

_MARKS: dict[str, str] = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


@dataclass(frozen=True, kw_only=True, slots=True)
class TodoItem:
    """One task of the list.

    Attributes:
        content: What the task is, in the model's words.
        status: ``pending``, ``in_progress`` or ``completed``.
    """

    content: str
    status: TodoStatus


class _TodoArg(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, description="The task, in imperative form.")
    status: TodoStatus = Field(description="pending, in_progress or completed.")


class TodoWriteArgs(BaseModel):
    """Arguments of ``todo_write``."""

    model_config = ConfigDict(extra="forbid")

    todos: list[_TodoArg] = Field(
        description="The complete, updated task list (replaces the old one)."
    )


def render_todos(items: tuple[TodoItem, ...]) -> str:
    """Render the list one task per line: ``[ ]`` pending, ``[~]`` in progress, ``[x]`` done."""
    if not items:
        return "(no tasks)"
    return "\n".join(f"{_MARKS[item.status]} {item.content}" for item in items)


class TodoWriteTool(BuiltinTool[TodoWriteArgs]):
    """Keep a task list: each call replaces it; at most one task may be ``in_progress``.

    The result is the rendered list with counts. More than one ``in_progress`` task, or the
    same task text twice, is an error result.
    """

    name = "todo_write"
    description = (
        "Create or update your task list for the current work. Send the complete list each "
        "time; mark one task in_progress while you work on it and completed when done."
    )
    risk = RiskClass.MODIFY
    sequential = True
    idempotent = True
    args_model: ClassVar[type[BaseModel]] = TodoWriteArgs

    def __init__(self) -> None:
        self._items: tuple[TodoItem, ...] = ()

    @property
    def items(self) -> tuple[TodoItem, ...]:
        """The current list, in the model's order."""
        return self._items

    async def run(self, args: TodoWriteArgs, ctx: ToolContext[Any]) -> ToolOutput:
        items = tuple(TodoItem(content=t.content, status=t.status) for t in args.todos)
        active = sum(1 for item in items if item.status == "in_progress")
        if active > 1:
            raise ToolUsageError(
                f"{active} tasks are in_progress; keep exactly one in progress at a time"
            )
        contents = [item.content for item in items]
        duplicates = sorted({c for c in contents if contents.count(c) > 1})
        if duplicates:
            raise ToolUsageError(f"tasks listed twice: {', '.join(repr(d) for d in duplicates)}")
        self._items = items
        rendered = render_todos(items)
        ctx.emit_progress(rendered)
        done = sum(1 for item in items if item.status == "completed")
        return f"Task list updated ({done}/{len(items)} completed):\n{rendered}"
