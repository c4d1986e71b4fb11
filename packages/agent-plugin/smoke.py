"""Smoke program of robota-agent-plugin: an installed copy enforces a token budget.

A scripted model spends more tokens than the budget allows: the tool call of that round is
denied, the model wraps up, and the next run is refused before the provider is called.
"""

from robota.core import Agent, tool
from robota.core.testing.scripted import ScriptedProvider, text, tool_call, usage
from robota.plugins import BudgetedProvider, BudgetExceededError, UsageBudget


@tool
def search(q: str) -> str:
    """Search the web."""
    return "results"


provider = ScriptedProvider(
    [
        [tool_call("t1", "search", {"q": "x"}), usage(input_tokens=900, output_tokens=200)],
        [text("Here is what I found so far."), usage(input_tokens=1000, output_tokens=30)],
    ]
)
budget = UsageBudget(max_total_tokens=1000)
agent = Agent(BudgetedProvider(provider, budget), tools=[search], gates=[budget], sinks=[budget])
result = agent.run_sync("Research x")
assert result.text == "Here is what I found so far.", result
assert budget.exceeded
assert budget.exceeded_limits == ("total_tokens",)
refused: tuple[str, ...] = ()
try:
    agent.run_sync("And more?")
except BudgetExceededError as error:
    refused = error.limits
assert refused == ("total_tokens",), refused
assert len(provider.requests) == 2  # the refused run never reached the provider
print("smoke ok robota-agent-plugin")
