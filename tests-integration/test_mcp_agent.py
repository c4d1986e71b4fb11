"""An MCP tool driven through an Agent run (scripted provider, real stdio MCP server)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from robota.core.agent import Agent
from robota.core.messages import TextPart, ToolResultMessage
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.tools.mcp import McpToolset, StdioServerConfig

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

SERVER = Path(__file__).resolve().parent / "mcp_servers" / "demo_server.py"


async def test_agent_calls_an_mcp_tool() -> None:
    config = StdioServerConfig(
        name="demo", command=sys.executable, args=(str(SERVER), "stdio"), enabled_tools=("add",)
    )
    provider = ScriptedProvider(
        [
            [tool_call("c1", "mcp__demo__add", {"a": 20, "b": 22})],
            [text("The sum is 42.")],
        ]
    )
    async with McpToolset([config]) as toolset:
        agent = Agent(provider, tools=await toolset.tools())
        result = await agent.run("What is 20 + 22?")
    assert result.text == "The sum is 42."
    first_request = provider.requests[0]
    assert [t.name for t in first_request.tools] == ["mcp__demo__add"]
    assert first_request.tools[0].parameters["required"] == ["a", "b"]
    tool_results = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    [part] = tool_results[0].results
    assert part.name == "mcp__demo__add"
    assert not part.is_error
    assert part.content[0] == TextPart(text="42")
