"""The request-size figure: the first request's body with 200 extra tools, resident or deferred.

Robota runs it twice: every tool resident, and the 200 tools deferred behind ``tool_search``
(the Agent's :class:`robota.core.residency.ToolCatalog`, seed 000 "Tool Residency and Tool
Search"), the two scenario tools staying resident. The raw loop and the peers send all 200 resident (neither peer
has deferral), for scale.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from robota.core.tools import FunctionTool, Tool
from robota.providers.openai import OpenAIChatProvider

from tools.bench._common import Runner, get_time, get_weather, installed, optional_module
from tools.bench._measure import request_bytes
from tools.bench._peers import AgentsRunner, PydanticAIRunner
from tools.bench._raw import RawChat
from tools.bench._robota import RobotaRunner

__all__ = ["EXTRA_TOOLS", "extra_tool_functions", "tool_bytes"]

EXTRA_TOOLS = 200


def extra_tool_functions(count: int = EXTRA_TOOLS) -> list[Callable[..., Any]]:
    """``count`` distinct typed async functions ``lookup_000`` ... with docstrings."""
    functions: list[Callable[..., Any]] = []
    for i in range(count):

        async def lookup(query: str, limit: int = 10) -> str:
            return query[:limit]

        name = f"lookup_{i:03d}"
        lookup.__name__ = lookup.__qualname__ = name
        lookup.__doc__ = (
            f"Search index number {i} of the company knowledge base for documents matching the "
            "query and return at most `limit` titles, newest first."
        )
        functions.append(lookup)
    return functions


def _raw_spec(fn: Callable[..., Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": fn.__name__,
            "description": fn.__doc__ or "",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer", "default": 10},
                },
                "required": ["query"],
            },
        },
    }


def _robota(url: str, client: httpx.AsyncClient, *, deferred: bool) -> Runner:
    provider = OpenAIChatProvider("bench", base_url=url, http_client=client)
    scenario: list[Tool] = [
        FunctionTool(get_weather, residency="resident"),
        FunctionTool(get_time, residency="resident"),
    ]
    extra: list[Tool] = [
        FunctionTool(fn, residency="deferred" if deferred else "resident")
        for fn in extra_tool_functions()
    ]
    # Agent builds its ToolCatalog from the tools' residency: the deferred ones are withheld
    # from the request and its tool_search loader is offered in their place.
    return RobotaRunner(provider, stream=True, tools=scenario + extra)


async def tool_bytes(url: str) -> dict[str, int]:
    """First-request body bytes per configuration (only installed peers)."""
    out: dict[str, int] = {}
    async with httpx.AsyncClient() as client:
        raw = RawChat(url, client, stream=True)
        raw.tools = raw.tools + [_raw_spec(fn) for fn in extra_tool_functions()]
        out["raw/chat (200 resident)"] = await request_bytes(url, raw)
        out["robota/chat (200 resident)"] = await request_bytes(
            url, _robota(url, client, deferred=False)
        )
        out["robota/chat (200 deferred)"] = await request_bytes(
            url, _robota(url, client, deferred=True)
        )
        if installed("pydantic_ai"):
            pa = optional_module("pydantic_ai")
            runner = PydanticAIRunner(url, client, api="chat", stream=True)
            model = optional_module("pydantic_ai.models.openai").OpenAIChatModel(
                "bench-r0", provider=runner.provider
            )
            runner.agents["bench-r0"] = pa.Agent(
                model, tools=[get_weather, get_time, *extra_tool_functions()]
            )
            out["pydantic_ai/chat (200 resident)"] = await request_bytes(url, runner)
        if installed("agents"):
            agents_runner = AgentsRunner(url, client, api="chat", stream=True)
            agents_runner.tools = agents_runner.tools + [
                agents_runner.ag.function_tool(fn) for fn in extra_tool_functions()
            ]
            out["openai_agents/chat (200 resident)"] = await request_bytes(url, agents_runner)
    return out
