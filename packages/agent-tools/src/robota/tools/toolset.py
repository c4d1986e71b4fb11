"""The default set of built-in tools for one workspace (seed 004, built-in tools).

Example:
    >>> import tempfile
    >>> tools = default_tools(Workspace.at(tempfile.mkdtemp()))
    >>> [tool.name for tool in tools]  # doctest: +NORMALIZE_WHITESPACE
    ['read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'grep', 'shell',
     'shell_output', 'shell_kill', 'web_fetch', 'todo_write']
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import httpx
from robota.core.host.egress import EgressPolicy
from robota.core.host.sandbox import Sandbox
from robota.core.tools.base import Tool
from robota.tools.bounds import DEFAULT_BOUNDS, OutputBounds
from robota.tools.builtin import (
    BackgroundShells,
    EditFileTool,
    GlobTool,
    GrepTool,
    ListDirTool,
    ReadFileTool,
    ShellKillTool,
    ShellOutputTool,
    ShellTool,
    TodoWriteTool,
    WebFetchTool,
    WriteFileTool,
)
from robota.tools.workspace import Workspace

__all__ = ["BuiltinToolset", "builtin_toolset", "default_tools"]


@dataclass(frozen=True, kw_only=True, slots=True)
class BuiltinToolset:
    """The built-in tools and the stateful objects behind them.

    Attributes:
        tools: The tools, in a stable order (see :func:`builtin_toolset`).
        background: The background shells (``drain_exit_notifications()``, ``aclose()``).
        todo: The ``todo_write`` tool; its ``items`` are the model's task list.
    """

    tools: tuple[Tool, ...]
    background: BackgroundShells
    todo: TodoWriteTool

    async def aclose(self) -> None:
        """Kill every background command still running."""
        await self.background.aclose()


def builtin_toolset(
    workspace: Workspace,
    *,
    background_dir: str | os.PathLike[str] | None = None,
    background: BackgroundShells | None = None,
    http_client: httpx.AsyncClient | None = None,
    egress_policy: EgressPolicy | None = None,
    env: Mapping[str, str] | None = None,
    bounds: OutputBounds = DEFAULT_BOUNDS,
    sandbox: Sandbox | None = None,
    allow_network: bool = False,
) -> BuiltinToolset:
    """Build every built-in tool for ``workspace``.

    Args:
        workspace: The root every path tool and the shell's cwd are contained in.
        background_dir: Folder for background output files (a private temp folder when None).
            Ignored when ``background`` is given.
        background: An existing manager to share (e.g. one per session).
        http_client: Client for ``web_fetch`` (a fresh one per call when None).
        egress_policy: Policy for ``web_fetch`` (core's default when None).
        env: Environment overrides for ``shell`` (over a copy of ``os.environ``).
        bounds: Output limits for the tools that bound text.
        sandbox: Where ``shell`` runs commands, foreground and background (e.g. from
            :func:`robota.tools.sandbox.detect_sandbox`); None: no sandbox, so read-only
            command lines ask instead of being auto-approved.
        allow_network: Let ``shell`` commands that may write reach the network (all or
            nothing; read-only ones never do).

    Returns:
        Tools in this order: read_file, write_file, edit_file, list_dir, glob, grep, shell,
        shell_output, shell_kill, web_fetch, todo_write.
    """
    shells = background if background is not None else BackgroundShells(background_dir, env=env)
    todo = TodoWriteTool()
    tools: tuple[Tool, ...] = (
        ReadFileTool(workspace, bounds=bounds),
        WriteFileTool(workspace),
        EditFileTool(workspace),
        ListDirTool(workspace),
        GlobTool(workspace),
        GrepTool(workspace, bounds=bounds),
        ShellTool(
            workspace,
            sandbox=sandbox,
            allow_network=allow_network,
            background=shells,
            env=env,
            bounds=bounds,
        ),
        ShellOutputTool(shells, bounds=bounds),
        ShellKillTool(shells),
        WebFetchTool(http_client=http_client, egress_policy=egress_policy, bounds=bounds),
        todo,
    )
    return BuiltinToolset(tools=tools, background=shells, todo=todo)


def default_tools(
    workspace: Workspace,
    *,
    background_dir: str | os.PathLike[str] | None = None,
    http_client: httpx.AsyncClient | None = None,
    egress_policy: EgressPolicy | None = None,
    background: BackgroundShells | None = None,
    env: Mapping[str, str] | None = None,
    sandbox: Sandbox | None = None,
    allow_network: bool = False,
) -> list[Tool]:
    """The built-in tools as a list (see :func:`builtin_toolset` for the arguments).

    To reach the background shells (exit notifications, ``aclose``) pass your own
    ``background`` manager, or use :func:`builtin_toolset`.
    """
    return list(
        builtin_toolset(
            workspace,
            background_dir=background_dir,
            background=background,
            http_client=http_client,
            egress_policy=egress_policy,
            env=env,
            sandbox=sandbox,
            allow_network=allow_network,
        ).tools
    )
