"""Importing the agent leaves the rarely used machinery unimported, and each lazily imported path
still works when first used (issue 20: cold import time).

Checked structurally, never by timing: each case runs in a fresh interpreter (``sys.modules``
starts empty of Robota) and reports which modules were loaded after each step.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

RARE = (
    "robota.core.agent.run",  # the run loop: imported by the first run
    "robota.core.agent.round",
    "robota.core.agent.batch",  # tool batches and direct tool calls
    "robota.core.agent.events",
    "robota.core.agent.pause",  # pause / resume
    "robota.core.agent._waits",
    "robota.core.agent._continuation",  # journaled continuation checks
    "robota.core.agent.output",  # structured output
    "robota.core.agent.stream",  # Agent.stream
    "robota.core.journal.checkpoint",
    "robota.core.journal.port",
    "robota.core.journal.reconcile",
    "robota.core.journal.replay",
    "robota.core.gate",
)

PRELUDE = """
import json, sys
import anyio

def loaded():
    return sorted(m for m in sys.modules if m in RARE or m.startswith("robota.core.journal."))

RARE = set(json.loads(sys.argv[1]))
steps = {}
"""


def _run(body: str) -> dict[str, list[str]]:
    """Run ``body`` (after the prelude) in a fresh interpreter; it fills ``steps`` (name →
    ``loaded()``) and the result is that dictionary."""
    code = PRELUDE + textwrap.dedent(body) + "\nprint(json.dumps(steps))\n"
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(RARE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_and_building_an_agent_imports_no_rare_machinery() -> None:
    steps = _run(
        """
        from robota.core.agent import Agent
        steps["import"] = loaded()
        from robota.core.testing.scripted import ScriptedProvider
        agent = Agent(ScriptedProvider(["hi"]), system_prompt="Be brief.")
        chat = agent.new_conversation()
        steps["construct"] = loaded()
        """
    )
    assert steps == {"import": [], "construct": []}


def test_a_plain_run_imports_the_loop_when_it_runs() -> None:
    steps = _run(
        """
        from robota.core.agent import Agent
        from robota.core.testing.scripted import ScriptedProvider
        agent = Agent(ScriptedProvider(["Hello!"]))
        steps["before"] = loaded()
        steps["text"] = [agent.run_sync("Hi").text]
        steps["history"] = [type(m).__name__ for m in agent.history]
        """
    )
    assert steps["before"] == []
    assert steps["text"] == ["Hello!"]
    assert steps["history"] == ["UserMessage", "AssistantMessage"]


def test_streaming_after_the_lazy_import() -> None:
    steps = _run(
        """
        from robota.core.agent import Agent
        from robota.core.testing.scripted import ScriptedProvider

        async def main():
            agent = Agent(ScriptedProvider(["Hello there"]))
            deltas = [d async for d in agent.stream("Hi").text_deltas()]
            return "".join(deltas)

        steps["text"] = [anyio.run(main)]
        steps["after"] = loaded()
        """
    )
    assert steps["text"] == ["Hello there"]
    assert "robota.core.agent.stream" in steps["after"]


def test_a_journaled_run_and_its_continuation_after_the_lazy_import() -> None:
    steps = _run(
        """
        from robota.core.agent import Agent
        from robota.core.journal import MemoryJournal
        from robota.core.testing.scripted import ScriptedProvider

        async def main():
            journal = MemoryJournal()
            agent = Agent(ScriptedProvider(["Done."]), journal=journal)
            result = await agent.run("Hi", run_id="r1")
            run = await journal.load_run("r1")
            fresh = Agent(ScriptedProvider([]), journal=journal)
            try:
                await fresh.continue_run("r1")
            except Exception as exc:
                refused = getattr(exc, "reason", type(exc).__name__)
            return [result.text, run.outcome, sorted(run.responses), refused]

        steps["result"] = anyio.run(main)
        """
    )
    assert steps["result"] == ["Done.", "completed", [0], "finished"]


def test_pause_and_resume_after_the_lazy_import() -> None:
    steps = _run(
        """
        from robota.core.agent import Agent
        from robota.core.agent.pause import Approve, PauseState
        from robota.core.testing.scripted import ScriptedProvider, tool_call
        from robota.core.tools.function import tool

        @tool
        async def delete(path: str) -> str:
            \"\"\"Delete a file.\"\"\"
            return f"deleted {path}"

        delete.execution = "approval"

        async def main():
            provider = ScriptedProvider([[tool_call("c1", "delete", {"path": "a"})], "Done."])
            agent = Agent(provider, tools=[delete])
            paused = await agent.run_until_pause("Delete a")
            state = PauseState.from_json(paused.state.to_json())
            fresh = Agent(provider, tools=[delete])
            result = await fresh.resume(state, {"c1": Approve()})
            tool_text = [m.results[0].content for m in fresh.history if type(m).__name__ ==
                         "ToolResultMessage"]
            return [[p.key for p in paused.pending], result.text, str(tool_text)]

        steps["result"] = anyio.run(main)
        """
    )
    result = steps["result"]
    assert result[:2] == [["c1"], "Done."]
    assert "deleted a" in result[2]


def test_direct_tool_call_and_structured_output_after_the_lazy_import() -> None:
    steps = _run(
        """
        from robota.core.agent import Agent
        from robota.core.testing.scripted import ScriptedProvider
        from robota.core.tools.function import tool

        @tool
        async def add(a: int, b: int) -> int:
            \"\"\"Add.\"\"\"
            return a + b

        async def main():
            agent = Agent(ScriptedProvider(['{"a": 1}']), tools=[add])
            direct = await agent.call_tool("add", {"a": 2, "b": 3})
            steps["after_direct"] = loaded()
            typed = await agent.run("Give a", output_type=dict[str, int])
            return [str(direct.content), direct.is_error, typed.output]

        steps["result"] = anyio.run(main)
        """
    )
    content, is_error, output = steps["result"]
    assert "5" in content
    assert is_error is False
    assert output == {"a": 1}
    assert "robota.core.agent.batch" in steps["after_direct"]
