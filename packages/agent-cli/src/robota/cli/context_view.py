"""What ``/context`` and ``/tools`` show: the context-window breakdown (categories, tokens,
share of the window, free space) and the session's tools (name, source, description) with the
hosted tools. A ``rich`` table on a terminal, plain aligned lines otherwise (or without
``rich``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from robota.cli.terminal_text import shown
from robota.core.capabilities import HostedTool
from robota.core.tools.base import Tool
from robota.framework.interactive.breakdown import ContextBreakdown

__all__ = [
    "ToolRow",
    "context_lines",
    "hosted_line",
    "print_context",
    "print_tools",
    "tool_rows",
    "tools_lines",
]

_DESCRIPTION = 72  # characters of a tool's description shown


def _share(tokens: int, whole: int | None) -> str:
    if not whole:
        return "-"
    percent = 100 * tokens / whole
    return "<0.1%" if 0 < percent < 0.05 else f"{percent:.1f}%"


def _rows(breakdown: ContextBreakdown) -> list[tuple[str, int, str]]:
    """(category, tokens, share of the window — of the total when the window is unknown)."""
    whole = breakdown.context_window or breakdown.total
    rows = [
        ("system prompt", breakdown.system_prompt, _share(breakdown.system_prompt, whole)),
        ("tool definitions", breakdown.tools, _share(breakdown.tools, whole)),
        ("conversation", breakdown.conversation, _share(breakdown.conversation, whole)),
    ]
    if breakdown.free is not None:
        rows.append(("free space", breakdown.free, _share(breakdown.free, whole)))
    return rows


def _headline(breakdown: ContextBreakdown, model: str) -> str:
    window = breakdown.context_window
    if window is None:
        return (
            f"context of {model}: {breakdown.total:,} tokens (estimated); "
            "the model's context window is unknown"
        )
    return (
        f"context of {model}: {breakdown.total:,} of {window:,} tokens "
        f"({_share(breakdown.total, window)}), {breakdown.free or 0:,} free (estimated)"
    )


def _reported(breakdown: ContextBreakdown) -> str | None:
    if breakdown.last_reported_input is None:
        return None
    return (
        f"last request: {breakdown.last_reported_input:,} input tokens (reported by the provider)"
    )


def context_lines(breakdown: ContextBreakdown, *, model: str) -> list[str]:
    """``/context`` as plain lines.

    Args:
        breakdown: The session's :meth:`~robota.framework.interactive.InteractiveSession.
            context_breakdown` (estimated tokens: JSON characters / 4).
        model: The model id, named in the first line.

    Example:
        >>> b = ContextBreakdown(system_prompt=100, tools=300, conversation=600, total=1000,
        ...                      context_window=8000, free=7000, last_reported_input=950)
        >>> print("\\n".join(context_lines(b, model="m")))
        context of m: 1,000 of 8,000 tokens (12.5%), 7,000 free (estimated)
          system prompt       100   1.2%
          tool definitions    300   3.8%
          conversation        600   7.5%
          free space        7,000  87.5%
          last request: 950 input tokens (reported by the provider)
    """
    rows = _rows(breakdown)
    name_width = max(len(name) for name, _, _ in rows)
    token_width = max(len(f"{tokens:,}") for _, tokens, _ in rows)
    lines = [_headline(breakdown, model)]
    lines += [
        f"  {name:<{name_width}}  {tokens:>{token_width},}  {share:>5}"
        for name, tokens, share in rows
    ]
    reported = _reported(breakdown)
    if reported:
        lines.append(f"  {reported}")
    return lines


def _console(err: TextIO) -> object | None:
    """A rich console on ``err``, or None without ``rich``."""
    try:
        from rich.console import Console
    except ImportError:  # rich is optional here: plain lines
        return None
    return Console(file=err, highlight=False, markup=False, emoji=False)


def print_context(
    breakdown: ContextBreakdown, *, model: str, rich: bool, err: TextIO | None = None
) -> None:
    """Print ``/context`` on ``err`` (standard error): a ``rich`` table when ``rich`` is True
    (a terminal) and the library is there, else :func:`context_lines`."""
    out = err or sys.stderr
    console = _console(out) if rich else None
    if console is None:
        out.write("".join(f"{line}\n" for line in context_lines(breakdown, model=model)))
        out.flush()
        return
    from rich.console import Console
    from rich.table import Table

    assert isinstance(console, Console)
    table = Table()
    table.add_column("category")
    table.add_column("tokens", justify="right")
    share = "share of window" if breakdown.context_window else "share"
    table.add_column(share, justify="right")
    for name, tokens, part in _rows(breakdown):
        table.add_row(name, f"{tokens:,}", part)
    console.print(_headline(breakdown, model), soft_wrap=True)
    console.print(table)
    reported = _reported(breakdown)
    if reported:
        console.print(reported, soft_wrap=True)


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolRow:
    """One ``/tools`` line.

    Attributes:
        name: The model-facing tool name.
        source: ``built-in`` or ``MCP <server>``.
        description: The first line of the tool's description, cut to 72 characters.
    """

    name: str
    source: str
    description: str


def tool_rows(tools: Sequence[Tool]) -> list[ToolRow]:
    """The session's tools in name order; an MCP tool (``mcp__<server>__<tool>``) names its
    server. Names and descriptions are written through
    :func:`~robota.cli.terminal_text.shown` (a server chose them)."""
    rows: list[ToolRow] = []
    for tool in sorted(tools, key=lambda t: t.name):
        server = getattr(tool, "server", None)
        if tool.name.startswith("mcp__"):
            source = f"MCP {server}" if isinstance(server, str) else "MCP"
        else:
            source = "built-in"
        first = (tool.description or "").strip().splitlines()
        text = first[0] if first else ""
        if len(text) > _DESCRIPTION:
            text = text[: _DESCRIPTION - 1] + "…"
        # an MCP server chose the name and the description: shown with escapes made visible
        rows.append(ToolRow(name=shown(tool.name), source=shown(source), description=shown(text)))
    return rows


def hosted_line(on: frozenset[HostedTool], offered: frozenset[HostedTool] | None) -> str:
    """The hosted-tools line of ``/tools``: what is on, and whether the model offers web
    search (``offered`` None: not stated).

    Example:
        >>> hosted_line(frozenset(), frozenset({HostedTool.WEB_SEARCH}))
        'hosted tools: none on; web search: off (the model offers it: /web-search on)'
    """
    names = ", ".join(sorted(str(t) for t in on)) or "none"
    if HostedTool.WEB_SEARCH in on:
        search = "on (/web-search off to stop)"
    elif offered is None:
        search = "off (not stated whether the model offers it: /web-search on to try)"
    elif HostedTool.WEB_SEARCH in offered:
        search = "off (the model offers it: /web-search on)"
    else:
        search = "off (the model does not offer it)"
    return f"hosted tools: {names} on; web search: {search}"


def tools_lines(rows: Sequence[ToolRow]) -> list[str]:
    """``/tools`` as plain lines (without the hosted-tools line).

    Example:
        >>> rows = [ToolRow(name="read_file", source="built-in", description="Read a file."),
        ...         ToolRow(name="mcp__docs__find", source="MCP docs", description="Search.")]
        >>> print("\\n".join(tools_lines(rows)))
        tools (2):
          read_file        built-in  Read a file.
          mcp__docs__find  MCP docs  Search.
    """
    if not rows:
        return ["tools: none"]
    name_width = max(len(r.name) for r in rows)
    source_width = max(len(r.source) for r in rows)
    return [f"tools ({len(rows)}):"] + [
        f"  {r.name:<{name_width}}  {r.source:<{source_width}}  {r.description}".rstrip()
        for r in rows
    ]


def print_tools(
    tools: Sequence[Tool],
    *,
    hosted: str,
    rich: bool,
    err: TextIO | None = None,
) -> None:
    """Print ``/tools`` on ``err`` (standard error): the tools, then the ``hosted`` line
    (:func:`hosted_line`); a ``rich`` table when ``rich`` is True and the library is there."""
    out = err or sys.stderr
    rows = tool_rows(tools)
    console = _console(out) if rich and rows else None
    if console is None:
        out.write("".join(f"{line}\n" for line in [*tools_lines(rows), hosted]))
        out.flush()
        return
    from rich.console import Console
    from rich.table import Table

    assert isinstance(console, Console)
    table = Table()
    name_width = max(len(r.name) for r in rows)
    source_width = max(len(r.source) for r in rows)
    room = max(console.width - name_width - source_width - 10, 16)  # 10: borders and padding
    table.add_column("tool", no_wrap=True, min_width=name_width)
    table.add_column("source", no_wrap=True, min_width=source_width)
    table.add_column("description", no_wrap=True)
    for row in rows:
        text = row.description if len(row.description) <= room else row.description[: room - 1]
        table.add_row(row.name, row.source, text + ("…" if text != row.description else ""))
    console.print(f"tools ({len(rows)}):", soft_wrap=True)
    console.print(table)
    console.print(hosted, soft_wrap=True)
