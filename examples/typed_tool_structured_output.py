"""A typed tool and a structured answer, offline.

Shows: a plain Python function becomes a tool with ``@tool`` (its type hints are the argument
schema, its docstring the description); the model calls it; the final answer is parsed and
validated into a pydantic model with ``output_type=``, and ``result.output`` is typed as that
model (``Agent[None, Restock]``, ``RunResult[Restock]``); the ``@tool`` function stays callable
as the function it wraps. ``ScriptedProvider`` from
``robota.core.testing`` plays the model, so this runs without a key or a network — swap in
``AnthropicProvider(...)``, ``OpenAIResponsesProvider(...)`` or ``GoogleProvider(...)`` for a
real one.

Run: ``uv run python examples/typed_tool_structured_output.py``
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel
from robota.core import Agent, RiskClass, tool
from robota.core.messages import Message, ToolResultMessage
from robota.core.testing.scripted import ScriptedProvider, text, tool_call


def tool_results(messages: Sequence[Message]) -> list[str]:
    """The text of every tool result among ``messages``, in order."""
    return [r.text for m in messages if isinstance(m, ToolResultMessage) for r in m.results]


@tool(risk=RiskClass.INSPECT)
def stock_level(sku: str, warehouse: str = "main") -> int:
    """Units of a product in stock.

    Args:
        sku: The product code.
        warehouse: Which warehouse to count in.
    """
    return {"A-1": 12, "B-7": 0}.get(sku, 0)


class Restock(BaseModel):
    """The structured answer: which products to reorder."""

    reorder: list[str]
    reason: str


def main() -> None:
    provider = ScriptedProvider(
        [
            # round 1: the model calls the tool twice
            [
                tool_call("c1", "stock_level", {"sku": "A-1"}),
                tool_call("c2", "stock_level", {"sku": "B-7", "warehouse": "main"}),
            ],
            # round 2: it answers with JSON matching Restock
            [text('{"reorder": ["B-7"], "reason": "B-7 is out of stock"}')],
        ]
    )
    agent = Agent(
        provider,
        tools=[stock_level],
        system_prompt="You manage a warehouse.",
        output_type=Restock,
    )
    result = agent.run_sync("Which of A-1 and B-7 need reordering?")

    restock: Restock = result.output  # typed: no isinstance check needed
    print("tool schema:", stock_level.parameters["properties"])
    print("reorder:", restock.reorder, "-", restock.reason)
    print("rounds:", result.rounds)
    # what the tool results were, as the model saw them
    assert tool_results(result.new_messages) == ["12", "0"]
    assert restock == Restock(reorder=["B-7"], reason="B-7 is out of stock")
    assert stock_level("A-1") == 12  # the decorated function is still the function


if __name__ == "__main__":
    main()
