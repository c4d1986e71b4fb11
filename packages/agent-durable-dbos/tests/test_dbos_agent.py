"""DBOSAgent in one process on SQLite: a run is a workflow whose model calls and tool effects are
DBOS steps; a finished workflow id answers from DBOS without calling the model or a tool again.
Crash recovery (SIGKILL at every step boundary, SQLite and PostgreSQL) is tested in
``tests-integration/test_dbos_kill.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from dbos import DBOS
from robota.core.journal import INTERRUPTED_EFFECT_TEXT
from robota.core.messages import ToolResultMessage, text_of
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools.base import ToolContext
from robota.core.tools.function import tool
from robota.durable.dbos import DBOSAgent, DBOSTool

pytestmark = pytest.mark.anyio

EFFECTS: list[str] = []


@tool(idempotent=True, timeout=5.0)
async def append(line: str) -> str:
    """Append a line."""
    EFFECTS.append(line)
    return f"appended {line}"


@tool
async def explode(line: str) -> str:
    """Always fails."""
    raise RuntimeError(f"cannot write {line}")


@pytest.fixture
async def dbos_app(tmp_path: Path) -> AsyncIterator[tuple[DBOSAgent, ScriptedProvider]]:
    EFFECTS.clear()
    DBOS(
        config={
            "name": "robota-unit",
            "system_database_url": f"sqlite:///{tmp_path}/dbos.db",
            "application_version": "unit-1",
            "executor_id": "unit",
            "log_level": "WARNING",
        }
    )
    provider = ScriptedProvider(
        [
            [tool_call("t1", "append", {"line": "a"}), tool_call("t2", "explode", {"line": "b"})],
            [tool_call("t3", "append", {"line": "c"})],
            [text("done")],
        ]
    )
    durable = DBOSAgent(provider, tools=[append, explode], name="unit", system_prompt="sys")
    DBOS.launch()
    try:
        yield durable, provider
    finally:
        DBOS.destroy(destroy_registry=True)


async def test_a_run_is_a_workflow_with_the_loops_messages(
    dbos_app: tuple[DBOSAgent, ScriptedProvider],
) -> None:
    durable, provider = dbos_app
    result = await durable.run("write", workflow_id="wf-1")
    assert result.workflow_id == "wf-1"
    assert result.text == "done"
    assert EFFECTS == ["a", "c"]
    results = [
        (text_of(r.content), r.is_error)
        for m in result.new_messages
        if isinstance(m, ToolResultMessage)
        for r in m.results
    ]
    assert results == [
        ("appended a", False),
        ("RuntimeError: cannot write b", True),
        ("appended c", False),
    ]
    assert len(provider.requests) == 3
    steps = await DBOS.list_workflow_steps_async("wf-1")
    names = [s["function_name"] for s in steps]
    assert names.count("robota.model_call") == 3
    assert names.count("robota.tool_start") == 3
    assert names.count("robota.tool_effect") == 3


async def test_a_finished_workflow_id_answers_without_calling_anything_again(
    dbos_app: tuple[DBOSAgent, ScriptedProvider],
) -> None:
    durable, provider = dbos_app
    first = await durable.run("write", workflow_id="wf-2")
    again = await durable.run("write", workflow_id="wf-2")
    assert again == first
    assert len(provider.requests) == 3
    assert EFFECTS == ["a", "c"]
    assert (await durable.result("wf-2")).text == "done"


async def test_the_dbos_tool_keeps_the_inner_tools_facts_and_runs_sequentially() -> None:
    wrapped = DBOSTool(append, "nonce")
    assert (wrapped.name, wrapped.idempotent, wrapped.timeout, wrapped.sequential) == (
        "append",
        True,
        5.0,
        True,
    )
    assert wrapped.parameters == append.parameters


async def test_an_effect_started_by_an_earlier_execution_is_reported_interrupted() -> None:
    @tool
    async def once(line: str) -> str:
        """Not idempotent."""
        EFFECTS.append(line)
        return "ran"

    EFFECTS.clear()
    ctx: ToolContext[None] = ToolContext(
        run_id="r", call_id="c", tool_call_id="t", tool_name="once", deps=None
    )
    out = await DBOSTool(once, "now")._effect(True, {"line": "x"}, ctx)  # pyright: ignore[reportPrivateUsage]
    assert isinstance(out, dict)
    assert out["content"] == [{"kind": "text", "text": INTERRUPTED_EFFECT_TEXT}]
    assert EFFECTS == []
    again = await DBOSTool(append, "now")._effect(True, {"line": "y"}, ctx)  # pyright: ignore[reportPrivateUsage]
    assert isinstance(again, dict)
    assert EFFECTS == ["y"]  # an idempotent tool runs again


def test_a_journal_is_refused() -> None:
    with pytest.raises(ValueError, match="journal"):
        DBOSAgent(ScriptedProvider([]), name="refused", journal=object())
