"""Built-in tools (files, search, shell, web fetch, todo) and MCP toolsets (seed 004)."""

from typing import TYPE_CHECKING

from robota.tools.bounds import (
    DEFAULT_BOUNDS,
    BoundedText,
    HeadTailBuffer,
    OutputBounds,
    bound_text,
)
from robota.tools.builtin import (
    BackgroundRead,
    BackgroundShells,
    BackgroundStatus,
    EditFileTool,
    GlobTool,
    GrepTool,
    ListDirTool,
    ReadFileTool,
    ShellKillTool,
    ShellOutputTool,
    ShellTool,
    TodoItem,
    TodoWriteTool,
    WebFetchTool,
    WriteFileTool,
)
from robota.tools.errors import ToolUsageError
from robota.tools.overrides import (
    DescriptionOverride,
    OverriddenTool,
    canonical_name_of,
    with_overrides,
)
from robota.tools.sandbox import BubblewrapSandbox, detect_sandbox
from robota.tools.toolset import BuiltinToolset, builtin_toolset, default_tools
from robota.tools.workspace import Workspace

__all__ = [
    "DEFAULT_BOUNDS",
    "BackgroundRead",
    "BackgroundShells",
    "BackgroundStatus",
    "BoundedText",
    "BubblewrapSandbox",
    "BuiltinToolset",
    "DescriptionOverride",
    "EditFileTool",
    "GlobTool",
    "GrepTool",
    "HeadTailBuffer",
    "ListDirTool",
    "OutputBounds",
    "OverriddenTool",
    "ReadFileTool",
    "ShellKillTool",
    "ShellOutputTool",
    "ShellTool",
    "TodoItem",
    "TodoWriteTool",
    "ToolUsageError",
    "WebFetchTool",
    "Workspace",
    "WriteFileTool",
    "bound_text",
    "builtin_toolset",
    "canonical_name_of",
    "default_tools",
    "detect_sandbox",
    "with_overrides",
]


if TYPE_CHECKING:
    __version__: str
    """This distribution's installed version, read from its metadata on first access (a
    name only a type checker sees declared here: at run time the module ``__getattr__``
    below answers it, so a misspelled import is still reported)."""
else:

    def __getattr__(name: str) -> str:
        """``__version__``: this distribution's installed version, read from its metadata on demand."""
        if name == "__version__":
            from importlib.metadata import version

            return version("robota-agent-tools")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
