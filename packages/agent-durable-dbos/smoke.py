"""Smoke program of robota-agent-durable-dbos: an installed copy runs an agent as a workflow.

DBOS on a SQLite file in a temporary directory runs a scripted agent whose tool has an effect;
asking for the same workflow id again answers from DBOS without repeating the effect.
"""

import tempfile
from pathlib import Path

import anyio
from dbos import DBOS
from robota.core import tool
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.durable.dbos import DBOSAgent

effects: list[str] = []


@tool
async def record(line: str) -> str:
    """Record a line."""
    effects.append(line)
    return f"recorded {line}"


async def main() -> None:
    database = Path(tempfile.mkdtemp()) / "dbos.sqlite"
    DBOS(
        config={
            "name": "robota-smoke",
            "system_database_url": f"sqlite:///{database}",
            "application_version": "1",
            "log_level": "WARNING",
        }
    )
    provider = ScriptedProvider([[tool_call("1", "record", {"line": "a"})], "Recorded a."])
    durable = DBOSAgent(provider, tools=[record])
    DBOS.launch()
    try:
        first = await durable.run("Record a.", workflow_id="smoke-1")
        again = await durable.run("Record a.", workflow_id="smoke-1")
    finally:
        DBOS.destroy(destroy_registry=True)
    assert first.text == again.text == "Recorded a.", (first, effects)
    assert effects == ["a"], (first, effects)


anyio.run(main)
print("smoke ok robota-agent-durable-dbos")
