"""An agent run as a DBOS workflow (seed 000, "Execution Journal and Continuation"; DBOS
durable execution: https://docs.dbos.dev/python/tutorials/workflow-tutorial).

:class:`DBOSAgent` registers one DBOS workflow. Each execution of it builds a fresh
:class:`~robota.core.agent.Agent` whose provider is a :class:`~robota.durable.dbos.DBOSProvider`
(every model call a step, a call sent without a recorded response refused), whose tools are
:class:`~robota.durable.dbos.DBOSTool` wrappers (every effect at most once, an effect cut by a
crash reported interrupted) and whose gates are one :class:`~robota.durable.dbos.DBOSGates`
(each call's admission a step, so recovery never asks an approver or a hook again). When a
process dies, ``DBOS.launch()`` in a process with the same executor id and application version
recovers the workflow: it runs the workflow function again, completed steps answer from their
checkpoints, and the run ends with the messages an uncrashed run would have had (modulo
interrupted results). Tool residency is rebuilt by the same replay (``tool_search`` runs again
over the same catalog); the residency a run starts with is part of the workflow's input.

A call to an ``approval`` or ``external`` tool is a durable pre-effect wait: the workflow saves
one request per pending call as the DBOS event ``robota.wait/<request id>`` (before it waits)
and waits with ``DBOS.recv`` on the topic of the same name. :meth:`DBOSAgent.respond` sends a
response only to a request the workflow saved (DBOS stores the message before the workflow
consumes it, and the consumed message is checkpointed); an ``Approve`` still goes through the
gates when the call runs.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from robota.core.agent import Agent, RunPaused
from robota.core.agent.pause import (
    Approve,
    Decision,
    ExternalResult,
    dump_decisions,
    load_decisions,
)
from robota.core.journal import (
    ReconciliationError,
    StateDifference,
    WaitResponseError,
    gate_fingerprints,
)
from robota.core.journal.checkpoint import settings_json
from robota.core.messages import JsonValue, Message, dump_messages, load_messages
from robota.core.provider import Provider
from robota.core.tools.base import Tool
from robota.durable.dbos.gates import DBOSGates
from robota.durable.dbos.provider import DBOSProvider
from robota.durable.dbos.tool import DBOSTool

from dbos import DBOS, SetWorkflowID

__all__ = [
    "ANSWERED_EVENT_PREFIX",
    "RUNTIME_STATE_STEP",
    "WAIT_PREFIX",
    "DBOSAgent",
    "DurableRunResult",
]

RUNTIME_STATE_STEP = "robota.runtime_state"
"""DBOS step name of the runtime state a workflow started with (compared on recovery)."""

WAIT_PREFIX = "robota.wait/"
"""Key prefix of the DBOS event holding a saved request, and topic prefix of its response."""

ANSWERED_EVENT_PREFIX = "robota.answered/"
"""Key prefix of the DBOS event holding the response a workflow used."""


@dataclass(frozen=True, kw_only=True, slots=True)
class DurableRunResult:
    """What a durable run returns.

    Attributes:
        workflow_id: The DBOS workflow id (also the run id of the agent run).
        text: The final assistant text.
        new_messages: The messages the run appended after ``history``.
        interrupted: True when cancellation ended the run.
        loaded: Deferred tools loaded at the end of the run, in load order (pass them as the
            next run's ``loaded`` to keep the conversation's residency).
    """

    workflow_id: str
    text: str
    new_messages: tuple[Message, ...]
    interrupted: bool = False
    loaded: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, value: Any) -> DurableRunResult:
        """Parse the workflow's JSON output."""
        return cls(
            workflow_id=value["workflow_id"],
            text=value["text"],
            new_messages=tuple(load_messages(json.dumps(value["new_messages"]))),
            interrupted=bool(value["interrupted"]),
            loaded=tuple(str(n) for n in value.get("loaded", [])),
        )


class DBOSAgent:
    """An agent whose runs are DBOS workflows.

    Construct it before ``DBOS.launch()`` (DBOS recovers only registered workflows), once per
    ``name`` per process, in every process that may run or recover its workflows.

    Args:
        provider: The real provider (wrapped in :class:`DBOSProvider` per execution).
        tools: The real tools (wrapped in :class:`DBOSTool` per execution).
        name: Workflow name prefix; the workflow is registered as ``"<name>.run"``.
        resend_unrecorded_model_call: When this process recovers a workflow whose model call
            was sent without a recorded response, send it again (the host opts in); by default
            the workflow ends with :class:`~robota.core.journal.ReconciliationError`.
        accept_state_drift: When this process recovers a workflow whose runtime state (model
            id, system prompt, offered tools, deferred tools, the agent's settings, gate
            fingerprints) differs from the one it started with, go on; by default the
            workflow ends with ``ReconciliationError`` (``state_drift``).
        wait_poll_seconds: How long one ``DBOS.recv`` of a durable wait lasts before it waits
            again (a wait has no deadline).
        **agent_options: Further :class:`~robota.core.agent.Agent` keyword arguments (model,
            system prompt, settings, max rounds, gates, sinks, ...). ``journal`` is not
            accepted: DBOS is the journal. ``gates`` are wrapped in one
            :class:`~robota.durable.dbos.DBOSGates`; ``max_parallel_tools`` is always 1 (DBOS
            must see the same step order on every execution).

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
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
        wait_poll_seconds: float = 3600.0,
        **agent_options: Any,
    ) -> None:
        if "journal" in agent_options:
            raise ValueError("a DBOSAgent is journaled by DBOS; do not pass journal=")
        self.provider = provider
        self.tools = tuple(tools)
        self.agent_options = agent_options
        self.workflow_name = f"{name}.run"
        self.resend_unrecorded_model_call = resend_unrecorded_model_call
        self.accept_state_drift = accept_state_drift
        self.wait_poll_seconds = wait_poll_seconds

        async def workflow(
            prompt: str, history: JsonValue, loaded: list[str] | None = None
        ) -> JsonValue:
            return await self._execute(prompt, history, loaded or [])

        self._workflow: Callable[..., Coroutine[Any, Any, JsonValue]] = DBOS.workflow(
            name=self.workflow_name
        )(workflow)

    def build_agent(self, history: Sequence[Message], nonce: str) -> Agent:
        """The agent one workflow execution runs (fresh per execution).

        Args:
            history: The conversation before the run.
            nonce: The execution nonce (see :class:`DBOSTool` and :class:`DBOSProvider`).
        """
        options = dict(self.agent_options)
        gates = tuple(options.pop("gates", ()))
        options["max_parallel_tools"] = 1
        return Agent(
            self.durable_provider(nonce),
            tools=[self.durable_tool(t, nonce) for t in self.tools],
            gates=(DBOSGates(gates),) if gates else (),
            history=history,
            **options,
        )

    def durable_provider(self, nonce: str) -> Provider:
        """The provider of one execution (:class:`DBOSProvider` around :attr:`provider`)."""
        return DBOSProvider(
            self.provider, nonce, resend_unrecorded_model_call=self.resend_unrecorded_model_call
        )

    def durable_tool(self, tool: Tool, nonce: str) -> Tool:
        """One tool of one execution (:class:`DBOSTool` around ``tool``)."""
        return DBOSTool(tool, nonce)

    async def _execute(self, prompt: str, history: JsonValue, loaded: Sequence[str]) -> JsonValue:
        nonce = uuid.uuid4().hex  # new for every execution of the workflow function
        messages = load_messages(json.dumps(history))
        agent = self.build_agent(messages, nonce)
        agent.catalog.restore(loaded)
        workflow_id = DBOS.workflow_id or f"run_{nonce}"
        live = runtime_state(agent)
        saved: Any = await DBOS.run_step_async({"name": RUNTIME_STATE_STEP}, _recorded, live)
        differences = [
            StateDifference(what=key, saved=saved.get(key), live=value)
            for key, value in live.items()
            if saved.get(key) != value
        ]
        if differences and not self.accept_state_drift:
            raise ReconciliationError.drift(workflow_id, differences)
        outcome = await agent.run_until_pause(prompt, run_id=workflow_id)
        appended: list[Message] = []
        while isinstance(outcome, RunPaused):
            appended.extend(outcome.new_messages)
            decisions = await self._wait(outcome)
            outcome = await agent.resume(outcome.state, decisions)
        appended.extend(outcome.new_messages)
        new: Any = json.loads(dump_messages(appended))
        return {
            "workflow_id": workflow_id,
            "text": outcome.text,
            "new_messages": new,
            "interrupted": outcome.interrupted,
            "loaded": list(agent.catalog.loaded),
        }

    async def _wait(self, paused: RunPaused) -> dict[str, Decision]:
        """Save every pending request, then wait for each response (durably)."""
        for p in paused.pending:
            await DBOS.set_event_async(WAIT_PREFIX + p.request_id, p.request())
        decisions: dict[str, Decision] = {}
        for p in paused.pending:
            message: Any = None
            while message is None:
                message = await DBOS.recv_async(
                    WAIT_PREFIX + p.request_id, timeout_seconds=self.wait_poll_seconds
                )
            decisions[p.key] = load_decisions(message)[p.request_id]
            await DBOS.set_event_async(ANSWERED_EVENT_PREFIX + p.request_id, message)
        return decisions

    async def start(
        self,
        prompt: str,
        *,
        history: Sequence[Message] = (),
        workflow_id: str | None = None,
        loaded: Sequence[str] = (),
    ) -> str:
        """Start ``prompt`` as a workflow and return its id without waiting (a run that waits
        for outside responses is answered with :meth:`respond`, its result read with
        :meth:`result`).

        Args:
            prompt: The user prompt.
            history: The conversation before the run (system messages are dropped).
            workflow_id: The workflow id (None: DBOS picks one). Starting an id that already
                exists does not run it again (DBOS idempotency).
            loaded: Deferred tools loaded when the run starts (``DurableRunResult.loaded`` of
                the conversation's previous run).
        """
        handle = await self._start(prompt, history, workflow_id, loaded)
        return handle.get_workflow_id()

    async def _start(
        self,
        prompt: str,
        history: Sequence[Message],
        workflow_id: str | None,
        loaded: Sequence[str],
    ) -> Any:
        document: Any = json.loads(dump_messages(history))
        names = list(loaded)
        if workflow_id is not None:
            with SetWorkflowID(workflow_id):
                return await DBOS.start_workflow_async(self._workflow, prompt, document, names)
        return await DBOS.start_workflow_async(self._workflow, prompt, document, names)

    async def run(
        self,
        prompt: str,
        *,
        history: Sequence[Message] = (),
        workflow_id: str | None = None,
        loaded: Sequence[str] = (),
    ) -> DurableRunResult:
        """Run ``prompt`` as a workflow and wait for its result (see :meth:`start`).

        The result is awaited on the workflow's own task in this process (no polling of the
        system database; issue #20: polling once a second added up to a second per run).

        Raises:
            RobotaError: what the agent run raised.
        """
        handle = await self._start(prompt, history, workflow_id, loaded)
        return DurableRunResult.from_json(await handle.get_result())

    async def requests(self, workflow_id: str) -> dict[str, JsonValue]:
        """The requests workflow ``workflow_id`` saved and has not used a response for yet, by
        request id (each a ``PendingCall.request()`` document)."""
        events: Any = await DBOS.get_all_events_async(workflow_id)
        answered = {
            k[len(ANSWERED_EVENT_PREFIX) :] for k in events if k.startswith(ANSWERED_EVENT_PREFIX)
        }
        return {
            k[len(WAIT_PREFIX) :]: v
            for k, v in events.items()
            if k.startswith(WAIT_PREFIX) and k[len(WAIT_PREFIX) :] not in answered
        }

    async def respond(self, workflow_id: str, request_id: str, decision: Decision) -> bool:
        """Send ``decision`` as the response to request ``request_id`` of workflow
        ``workflow_id`` (seed 000: a response answers only its own request and is saved before
        it is used). DBOS stores the message; the waiting workflow consumes it.

        Returns:
            True when sent now, False when the workflow already used the same response. A
            second response sent before the first was used is dropped (one message per
            request: DBOS idempotency key).

        Raises:
            WaitResponseError: the workflow saved no request ``request_id``
                (``unknown_request``), the decision's kind does not fit the request
                (``mismatched``), or the workflow used a different response
                (``already_answered``).
        """
        request: Any = await DBOS.get_event_async(
            workflow_id, WAIT_PREFIX + request_id, timeout_seconds=0
        )
        if not isinstance(request, dict):
            raise WaitResponseError(
                f"workflow {workflow_id} saved no request {request_id!r}; a response answers "
                "only its own request",
                reason="unknown_request",
                run_id=workflow_id,
                request_id=request_id,
            )
        execution = request.get("execution")
        if (execution == "external" and isinstance(decision, Approve)) or (
            execution == "approval" and isinstance(decision, ExternalResult)
        ):
            raise WaitResponseError(
                f"request {request_id!r} of workflow {workflow_id} cannot take a "
                f"{decision.kind} response",
                reason="mismatched",
                run_id=workflow_id,
                request_id=request_id,
            )
        document = dump_decisions({request_id: decision})
        used: Any = await DBOS.get_event_async(
            workflow_id, ANSWERED_EVENT_PREFIX + request_id, timeout_seconds=0
        )
        if used is not None:
            if load_decisions(used)[request_id] == decision:
                return False
            raise WaitResponseError(
                f"request {request_id!r} of workflow {workflow_id} was answered with a "
                "different response; a used response is never replaced",
                reason="already_answered",
                run_id=workflow_id,
                request_id=request_id,
            )
        await DBOS.send_async(
            workflow_id,
            document,
            topic=WAIT_PREFIX + request_id,
            idempotency_key=f"{WAIT_PREFIX}{workflow_id}/{request_id}",
        )
        return True

    async def result(self, workflow_id: str) -> DurableRunResult:
        """Wait for workflow ``workflow_id`` (for example one being recovered) and return its
        result.

        Raises:
            DBOSNonExistentWorkflowError: no such workflow.
        """
        handle = await DBOS.retrieve_workflow_async(workflow_id)
        return DurableRunResult.from_json(await handle.get_result())


def runtime_state(agent: Agent) -> dict[str, JsonValue]:
    """What decides an execution beyond its input: model id, system prompt, offered and
    deferred tools, the agent's settings and the gates' fingerprints (JSON)."""
    offered = [t.name for t in agent.catalog.offered() if all(g.offers(t) for g in agent.gates)]
    state: Any = {
        "model": agent.model,
        "system prompt": agent.system_prompt,
        "offered tools": sorted(offered),
        "deferred tools": sorted(agent.catalog.deferred),
        "agent settings": settings_json(agent.settings),
        "gates": gate_fingerprints(agent.gates),
    }
    return json.loads(json.dumps(state, default=str))


async def _recorded(state: dict[str, JsonValue]) -> JsonValue:
    # the step's checkpoint is the state the first execution saw
    value: Any = state
    return value
