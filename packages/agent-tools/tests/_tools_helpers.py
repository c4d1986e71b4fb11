"""Shared helpers for the built-in tool tests."""

from __future__ import annotations

from typing import Any

from robota.core.messages import TextPart
from robota.core.tools.base import Tool, ToolContext, ToolReturn


async def call(tool: Tool, ctx: ToolContext[Any], **arguments: Any) -> ToolReturn:
    """Call ``tool`` and return its result as a ToolReturn (plain text wrapped)."""
    output = await tool.call(arguments, ctx)
    return output if isinstance(output, ToolReturn) else ToolReturn.text(output)


def text_of(result: ToolReturn) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, TextPart))
