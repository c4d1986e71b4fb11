"""``@tool`` functions stay callable; ``tools=`` takes plain functions; output functions, run
overrides, hosted tools and conversations keep their types."""

from __future__ import annotations

from typing import reveal_type

import anyio
from pydantic import BaseModel
from robota.core import Agent, FunctionTool, HostedTool, tool
from robota.core.testing.scripted import ScriptedProvider, tool_call


class Order(BaseModel):
    item: str
    quantity: int


@tool
def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b


@tool(name="shout_text")
async def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def echo(text: str) -> str:
    """Echo a text."""
    return text


async def place(item: str, quantity: int) -> Order:
    """Place an order (an output function)."""
    return Order(item=item, quantity=quantity)


def count_words(text: str) -> int:
    """Count words (a sync output function)."""
    return len(text.split())


async def main() -> None:
    reveal_type(add)  # revealed: FunctionTool[(a: int, b: int = 1), int]
    reveal_type(add(2, b=3))  # revealed: int
    reveal_type(await shout("hi"))  # revealed: str
    assert add(2, b=3) == 5
    assert await shout("hi") == "HI"
    any_tool: FunctionTool = add
    print(any_tool.name)

    provider = ScriptedProvider(
        [
            [tool_call("c1", "echo", {"text": "x"}), tool_call("c2", "add", {"a": 1})],
            '{"item": "tea", "quantity": 2}',
        ]
    )
    agent = Agent(provider, tools=[add, shout, echo], output_type=place)
    reveal_type(agent)  # revealed: Agent[None, Order]
    result = await agent.run("Order two teas")
    reveal_type(result.output)  # revealed: Order
    assert result.output == Order(item="tea", quantity=2)

    words = Agent(ScriptedProvider(['{"text": "a b c"}']), output_type=count_words)
    reveal_type((await words.run("Count")).output)  # revealed: int

    plain = Agent(ScriptedProvider(['{"item": "cake", "quantity": 1}', "ok"]))
    overridden = await plain.run("Order cake", output_type=Order)
    reveal_type(overridden)  # revealed: RunResult[Order]
    reveal_type((await plain.run("Thanks")).output)  # revealed: str

    hosted = Agent(ScriptedProvider(["Found it."]), hosted_tools=["web_search"])
    assert hosted.hosted_tools == frozenset({HostedTool.WEB_SEARCH})
    await hosted.run("Search", hosted_tools=[HostedTool.WEB_SEARCH])

    chat = agent.new_conversation(name="user-1")
    reveal_type(chat)  # revealed: Agent[None, Order]


if __name__ == "__main__":
    anyio.run(main)
