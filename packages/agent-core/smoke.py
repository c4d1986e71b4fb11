"""Smoke program of robota-agent-core: an installed copy runs an Agent, offline.

A scripted model calls a typed tool, gets its result back and answers; run by
``.ci/index-check`` in a fresh venv from the local index, and by the workspace tests.
"""

from robota.core import Agent, RiskClass, ToolResultMessage, tool
from robota.core.testing.scripted import ScriptedProvider, text, tool_call, usage


@tool(risk=RiskClass.INSPECT)
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First addend.
        b: Second addend.
    """
    return a + b


provider = ScriptedProvider(
    [
        [tool_call("c1", "add", {"a": 2, "b": 40})],  # round 1: the model calls the tool
        [text("2 + 40 = 42"), usage(input_tokens=12, output_tokens=5)],
    ]
)
result = Agent(provider, tools=[add]).run_sync("What is 2 + 40?")
assert result.text == "2 + 40 = 42", result
assert result.rounds == 2, result
tool_results = result.new_messages[2]
assert isinstance(tool_results, ToolResultMessage)
assert tool_results.results[0].text == "42"
assert provider.requests[0].tools[0].parameters["required"] == ["a", "b"]
print("smoke ok robota-agent-core")
