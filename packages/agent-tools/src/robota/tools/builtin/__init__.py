"""The built-in tools, one module each (seed 004, built-in tools)."""

from robota.tools.builtin.background import (
    BackgroundRead,
    BackgroundShells,
    BackgroundStatus,
    TaskState,
)
from robota.tools.builtin.edit_file import EditFileTool
from robota.tools.builtin.glob import GlobTool
from robota.tools.builtin.grep import GrepTool
from robota.tools.builtin.list_dir import ListDirTool
from robota.tools.builtin.read_file import ReadFileTool
from robota.tools.builtin.shell import ShellKillTool, ShellOutputTool, ShellTool
from robota.tools.builtin.todo import TodoItem, TodoStatus, TodoWriteTool
from robota.tools.builtin.web_fetch import WebFetchTool, html_to_markdown
from robota.tools.builtin.write_file import WriteFileTool

__all__ = [
    "BackgroundRead",
    "BackgroundShells",
    "BackgroundStatus",
    "EditFileTool",
    "GlobTool",
    "GrepTool",
    "ListDirTool",
    "ReadFileTool",
    "ShellKillTool",
    "ShellOutputTool",
    "ShellTool",
    "TaskState",
    "TodoItem",
    "TodoStatus",
    "TodoWriteTool",
    "WebFetchTool",
    "WriteFileTool",
    "html_to_markdown",
]
