"""todo_write, aliases/description overrides, output bounds, the default toolset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from _tools_helpers import call, text_of  # pyright: ignore[reportImplicitRelativeImport]
from hypothesis import given
from hypothesis import strategies as st
from robota.core.errors import ConfigurationError
from robota.core.tools.base import RiskClass, Tool, ToolContext, ToolOutput
from robota.tools import (
    HeadTailBuffer,
    OutputBounds,
    OverriddenTool,
    ReadFileTool,
    TodoItem,
    TodoWriteTool,
    Workspace,
    bound_text,
    builtin_toolset,
    canonical_name_of,
    default_tools,
    with_overrides,
)
from robota.tools.bounds import cut_utf8

pytestmark = pytest.mark.anyio


async def test_todo_write_keeps_list_and_emits_progress(workspace: Workspace) -> None:
    notes: list[str] = []
    ctx: ToolContext[Any] = ToolContext(
        run_id="r",
        call_id="c",
        tool_call_id="t",
        tool_name="todo_write",
        deps=None,
        emit_progress=notes.append,
    )
    tool = TodoWriteTool()
    assert tool.risk is RiskClass.MODIFY
    todos = [
        {"content": "Read the code", "status": "completed"},
        {"content": "Write the fix", "status": "in_progress"},
        {"content": "Run the tests", "status": "pending"},
    ]
    result = await call(tool, ctx, todos=todos)
    assert text_of(result) == (
        "Task list updated (1/3 completed):\n[x] Read the code\n[~] Write the fix\n[ ] Run the tests"
    )
    assert tool.items == (
        TodoItem(content="Read the code", status="completed"),
        TodoItem(content="Write the fix", status="in_progress"),
        TodoItem(content="Run the tests", status="pending"),
    )
    assert notes == ["[x] Read the code\n[~] Write the fix\n[ ] Run the tests"]


async def test_todo_write_refuses_two_in_progress(ctx: ToolContext[Any]) -> None:
    tool = TodoWriteTool()
    result = await call(
        tool,
        ctx,
        todos=[
            {"content": "a", "status": "in_progress"},
            {"content": "b", "status": "in_progress"},
        ],
    )
    assert result.is_error
    assert (
        text_of(result) == "Error: 2 tasks are in_progress; keep exactly one in progress at a time"
    )
    assert tool.items == ()


@dataclass
class Recorder(Tool):
    name: str = "shell"
    description: str = "Run a command."
    risk: RiskClass | None = RiskClass.EXECUTE
    seen: list[str] = field(default_factory=list[str])

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        self.seen.append(ctx.tool_name)
        return f"ran {arguments['command']}"


async def test_alias_reaches_canonical_tool(ctx: ToolContext[Any]) -> None:
    inner = Recorder()
    other = TodoWriteTool()
    tools = with_overrides(
        [inner, other],
        aliases={"shell": "bash", "missing_tool": "x"},
        descriptions={"shell": lambda cur: f"{cur}\nNever invoke sudo.", "nope": "ignored"},
    )
    aliased, untouched = tools
    assert untouched is other
    assert isinstance(aliased, OverriddenTool)
    assert aliased.name == "bash"
    assert aliased.canonical_name == "shell"
    assert canonical_name_of(aliased) == "shell"
    assert canonical_name_of(other) == "todo_write"
    assert aliased.description == "Run a command.\nNever invoke sudo."
    assert aliased.risk is RiskClass.EXECUTE
    assert aliased.definition().name == "bash"
    assert await aliased.call({"command": "ls"}, ctx) == "ran ls"
    assert inner.seen == ["shell"]


def test_description_string_override_and_permission_argument_kept(workspace: Workspace) -> None:
    read = ReadFileTool(workspace)
    [tool] = with_overrides([read], descriptions={"read_file": "Read it."})
    assert (tool.name, tool.description) == ("read_file", "Read it.")
    assert tool.permission_argument == read.permission_argument
    assert tool.parameters == read.parameters


def test_alias_collisions_and_bad_names_refused(workspace: Workspace) -> None:
    with pytest.raises(ConfigurationError, match="would both be called 'todo_write'"):
        with_overrides([Recorder(), TodoWriteTool()], aliases={"shell": "todo_write"})
    with pytest.raises(ConfigurationError, match="must match"):
        with_overrides([Recorder()], aliases={"shell": "has space"})


def test_bound_text_notes_what_was_cut() -> None:
    text = "\n".join(f"line {i}" for i in range(10))
    bounded = bound_text(text, OutputBounds(max_lines=3, max_bytes=1000, max_line_chars=100))
    assert bounded.text == "line 0\nline 1\nline 2\n[output truncated: showed 3 of 10 lines]"
    long = bound_text("a" * 30, OutputBounds(max_line_chars=10))
    assert long.text == (
        "aaaaaaaaaa... [20 more characters on this line]\n"
        "[output truncated: 1 long line(s) cut at 10 characters]"
    )
    small = bound_text("é" * 10 + "\nnext", OutputBounds(max_bytes=5))
    assert small.text == "éé\n[output truncated: showed 1 of 2 lines; stopped at the 5-byte limit]"
    assert bound_text("fine", OutputBounds()).truncated is False


def test_head_tail_buffer_keeps_both_ends() -> None:
    buffer = HeadTailBuffer(10)
    for chunk in (b"abc", b"defgh", b"ijklmnop", b"qrst"):
        buffer.write(chunk)
    assert buffer.total == 20
    assert buffer.dropped == 10
    assert buffer.text() == "abcde\n[... 10 bytes of output omitted ...]\npqrst"


@given(st.text(max_size=50), st.integers(min_value=0, max_value=200))
def test_cut_utf8_never_splits_a_character(text: str, limit: int) -> None:
    data = text.encode()
    cut = cut_utf8(data, limit)
    assert len(cut) <= limit
    assert data.startswith(cut)
    assert len(cut) >= min(limit, len(data)) - 3
    cut.decode()  # never raises


async def test_default_tools_names_and_risks(workspace: Workspace) -> None:
    tools = default_tools(workspace)
    assert {tool.name: tool.risk for tool in tools} == {
        "read_file": RiskClass.INSPECT,
        "write_file": RiskClass.MODIFY,
        "edit_file": RiskClass.MODIFY,
        "list_dir": RiskClass.INSPECT,
        "glob": RiskClass.INSPECT,
        "grep": RiskClass.INSPECT,
        "shell": RiskClass.EXECUTE,
        "shell_output": RiskClass.INSPECT,
        "shell_kill": RiskClass.EXECUTE,
        "web_fetch": RiskClass.EXECUTE,
        "todo_write": RiskClass.MODIFY,
    }
    toolset = builtin_toolset(workspace)
    assert toolset.todo in toolset.tools
    await toolset.aclose()
