"""An agent run as a DBOS workflow (seed 000, "Execution Journal and Continuation"; DBOS
durable execution: https://docs.dbos.dev/python/tutorials/workflow-tutorial).

:class:`DBOSAgent` registers one DBOS workflow. Each execution of it builds a fresh
:class:`~robota.core.agent.Agent` whose provider is a :class:`~robota.durable.dbos.DBOSProvider`
(every model call a step) and whose tools are :class:`~robota.durable.dbos.DBOSTool` wrappers
(every effect at most once, an effect cut by a crash reported interrupted). When a process dies,
``DBOS.launch()`` in a process with the same executor id and application version recovers the
workflow: it runs the workflow function again, completed steps answer from their checkpoints,
and the run ends with the messages an uncrashed run would have had (modulo interrupted
results).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from robota.core.agent import Agent
from robota.core.messages import JsonValue, Message, dump_messages, load_messages
from robota.core.provider import Provider
from robota.core.tools.base import Tool
from robota.durable.dbos.provider import DBOSProvider
from robota.durable.dbos.tool import DBOSTool

from dbos import DBOS, SetWorkflowID

__all__ = ["DBOSAgent", "DurableRunResult"]


@dataclass(frozen=True, kw_only=True, slots=True)
class DurableRunResult:
    """What a durable run returns.

    Attributes:
        workflow_id: The DBOS workflow id (also the run id of the agent run).
        text: The final assistant text.
        new_messages: The messages the run appended after ``history``.
        interrupted: True when cancellation ended the run.
    """

    workflow_id: str
    text: str
    new_messages: tuple[Message, ...]
    interrupted: bool = False

    @classmethod
    def from_json(cls, value: Any) -> DurableRunResult:
        """Parse the workflow's JSON output."""
        return cls(
            workflow_id=value["workflow_id"],
            text=value["text"],
            new_messages=tuple(load_messages(json.dumps(value["new_messages"]))),
            interrupted=bool(value["interrupted"]),
        )


class DBOSAgent:
    """An agent whose runs are DBOS workflows.

    Construct it before ``DBOS.launch()`` (DBOS recovers only registered workflows), once per
    ``name`` per process, in every process that may run or recover its workflows.

    Args:
        provider: The real provider (wrapped in :class:`DBOSProvider` per execution).
        tools: The real tools (wrapped in :class:`DBOSTool` per execution).
        name: Workflow name prefix; the workflow is registered as ``"<name>.run"``.
        **agent_options: Further :class:`~robota.core.agent.Agent` keyword arguments (model,
            system prompt, settings, max rounds, gates, sinks, ...). ``journal`` is not
            accepted: DBOS is the journal.

    Raises:
        ValueError: ``journal`` was passed.

    Example:
        >>> from robota.core.testing.scripted import ScriptedProvider
        >>> durable = DBOSAgent(ScriptedProvider(["hi"]), name="doc_example")
        >>> durable.workflow_name
        'doc_example.run'
    """

    def __init__(
        self,
        provider: Provider,
        *,
        tools: Sequence[Tool] = (),
        name: str = "robota_agent",
        **agent_options: Any,
    ) -> None:
        if "journal" in agent_options:
            raise ValueError("a DBOSAgent is journaled by DBOS; do not pass journal=")
        self.provider = provider
        self.tools = tuple(tools)
        self.agent_options = agent_options
        self.workflow_name = f"{name}.run"

        async def workflow(prompt: str, history: JsonValue) -> JsonValue:
            return await self._execute(prompt, history)

        self._workflow: Callable[[str, JsonValue], Coroutine[Any, Any, JsonValue]] = DBOS.workflow(
            name=self.workflow_name
        )(workflow)

    def build_agent(self, history: Sequence[Message], nonce: str) -> Agent:
        """The agent one workflow execution runs (fresh per execution).

        Args:
            history: The conversation before the run.
            nonce: The execution nonce (see :class:`DBOSTool`).
        """
        return Agent(
            DBOSProvider(self.provider),
            tools=[DBOSTool(t, nonce) for t in self.tools],
            history=history,
            **self.agent_options,
        )

    async def _execute(self, prompt: str, history: JsonValue) -> JsonValue:
        nonce = uuid.uuid4().hex  # new for every execution of the workflow function
        messages = load_messages(json.dumps(history))
        agent = self.build_agent(messages, nonce)
        workflow_id = DBOS.workflow_id or f"run_{nonce}"
        result = await agent.run(prompt, run_id=workflow_id)
        new: Any = json.loads(dump_messages(result.new_messages))
        return {
            "workflow_id": workflow_id,
            "text": result.text,
            "new_messages": new,
            "interrupted": result.interrupted,
        }

    async def run(
        self, prompt: str, *, history: Sequence[Message] = (), workflow_id: str | None = None
    ) -> DurableRunResult:
        """Run ``prompt`` as a workflow and wait for its result.

        Args:
            prompt: The user prompt.
            history: The conversation before the run (system messages are dropped).
            workflow_id: The workflow id (None: DBOS picks one). Starting an id that already
                exists returns that workflow's result instead of running again (DBOS
                idempotency).

        Raises:
            RobotaError: what the agent run raised.
        """
        document: Any = json.loads(dump_messages(history))
        if workflow_id is not None:
            with SetWorkflowID(workflow_id):
                handle = await DBOS.start_workflow_async(self._workflow, prompt, document)
        else:
            handle = await DBOS.start_workflow_async(self._workflow, prompt, document)
        return DurableRunResult.from_json(await handle.get_result())

    async def result(self, workflow_id: str) -> DurableRunResult:
        """Wait for workflow ``workflow_id`` (for example one being recovered) and return its
        result.

        Raises:
            DBOSNonExistentWorkflowError: no such workflow.
        """
        handle = await DBOS.retrieve_workflow_async(workflow_id)
        return DurableRunResult.from_json(await handle.get_result())
