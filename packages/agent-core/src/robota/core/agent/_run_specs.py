"""What a run needs from the agent's options: the :class:`~robota.core.agent.spec.RunSpec` of
one run, the checkpoint a journaled run records before its first model call, and the live
state a continuation compares with a checkpoint (seed 000, "Execution Journal and
Continuation").

:class:`RunSpecBuilder` is a base of :class:`~robota.core.agent.agent.Agent`; it holds no state
of its own (the agent sets the attributes declared here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from robota.core.agent.retries import with_retries
from robota.core.agent.spec import RunSpec

if TYPE_CHECKING:
    from robota.core.agent.context import ContextTracker
    from robota.core.agent.history import History
    from robota.core.agent.output import OutputSpec, OutputValidator
    from robota.core.agent.pairing import HistoryProcessor
    from robota.core.agent.spec import RunControl
    from robota.core.agent.texts import AgentTexts
    from robota.core.capabilities import HostedTool
    from robota.core.events import Event, OwnerPath
    from robota.core.gate import ToolGate
    from robota.core.journal.checkpoint import Checkpoint
    from robota.core.journal.port import Journal, JournalRun
    from robota.core.journal.reconcile import RuntimeState
    from robota.core.messages import UserMessage
    from robota.core.provider import PayloadCallback, Provider
    from robota.core.residency import ToolCatalog
    from robota.core.retry import RetryPolicy
    from robota.core.settings import ModelSettings
    from robota.core.tools.base import Tool

__all__ = ["RunSpecBuilder"]


class RunSpecBuilder:
    """Builds per-run values from the agent's options (see the module docstring)."""

    provider: Provider
    model: str
    settings: ModelSettings
    gates: tuple[ToolGate, ...]
    deps: Any
    texts: AgentTexts
    max_parallel_tools: int
    output_retries: int
    max_identical_tool_calls: int
    unknown_tool_rounds: int
    context_threshold: float
    tool_result_threshold: float
    journal: Journal | None
    history_processors: tuple[HistoryProcessor, ...]
    on_payload: PayloadCallback | None
    retry: RetryPolicy | None
    accept_truncated: bool
    hosted_tools: frozenset[HostedTool]
    output_type: Any
    output_validators: tuple[OutputValidator, ...]
    _agent_output: tuple[Any, tuple[OutputValidator, ...], OutputSpec]
    _catalog: ToolCatalog
    _control: RunControl
    _owner: OwnerPath
    _history: History
    _tracker: ContextTracker

    if TYPE_CHECKING:

        def _emit(self, event: Event) -> None: ...

    def _offered_tools(self) -> Sequence[Tool]:
        """The tools offered to the model this round: the catalog's offer (resident, loaded,
        and ``tool_search`` while anything is withheld) that every gate offers. Read fresh every
        round, so a tool loaded by ``tool_search`` in round N is callable in round N+1."""
        return [tool for tool in self._catalog.offered() if all(g.offers(tool) for g in self.gates)]

    def _checkpoint(self, spec: RunSpec, prompt: UserMessage) -> Checkpoint:
        """What a journaled run records before its first model call: the history it starts
        from, ``prompt`` and the options it runs with."""
        from robota.core.journal.checkpoint import Checkpoint  # journaled runs only
        from robota.core.journal.reconcile import gate_fingerprints

        return Checkpoint(
            history=self._history.body,
            system_prompt=self._history.system_prompt,
            prompt=prompt,
            model=self.model,
            max_rounds=spec.max_rounds,
            settings=spec.settings,
            output_schema=spec.output.schema if spec.output is not None else None,
            tools=tuple(sorted(t.name for t in self._offered_tools())),
            loaded=self._catalog.loaded,
            deferred=tuple(sorted(self._catalog.deferred)),
            agent_settings=self.settings,
            gates=gate_fingerprints(self.gates),
        )

    def _runtime_state(self, loaded: tuple[str, ...]) -> RuntimeState:
        """The live state a continuation compares with a checkpoint, with ``loaded`` as the
        residency."""
        from robota.core.journal.reconcile import RuntimeState, gate_fingerprints

        offered = [t for t in self._catalog.offered(loaded) if all(g.offers(t) for g in self.gates)]
        return RuntimeState(
            model=self.model,
            system_prompt=self._history.system_prompt,
            offered=tuple(sorted(t.name for t in offered)),
            deferred=tuple(sorted(self._catalog.deferred)),
            agent_settings=self.settings,
            gates=gate_fingerprints(self.gates),
        )

    def _output_spec(self, output_type: Any) -> OutputSpec | None:
        """The run's output spec: the run's own type (no validators), else the agent's type
        with the agent's validators, else None (the output is the final text).

        The agent's spec is built once (``Agent.__init__`` calls this, so an output type
        pydantic cannot use fails there, before any run) and rebuilt only when
        :attr:`output_type` or :attr:`output_validators` were replaced since.

        Raises:
            TypeError: the output type cannot be used (see ``OutputSpec.of``).
        """
        if output_type is None and self.output_type is None:
            return None  # the output is the final text: no structured-output machinery
        from robota.core.agent.output import OutputSpec

        if output_type is not None:
            return OutputSpec.of(output_type)
        cached = getattr(self, "_agent_output", None)
        if (
            cached is not None
            and cached[0] is self.output_type
            and cached[1] == self.output_validators
        ):
            return cached[2]
        spec = OutputSpec.of(self.output_type, validators=self.output_validators)
        self._agent_output = (self.output_type, self.output_validators, spec)
        return spec

    def _spec(
        self,
        *,
        output: OutputSpec | None,
        settings: ModelSettings,
        max_rounds: int,
        deps: Any,
        run_id: str | None,
        recorded: JournalRun | None = None,
        accept_truncated: bool | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
        hosted_tools: frozenset[HostedTool] | None = None,
    ) -> RunSpec:
        """One run's spec from the agent's options and the run's own (``hosted_tools`` None:
        the agent's)."""
        return RunSpec(
            provider=with_retries(self.provider, self.retry),
            model=self.model,
            history=self._history,
            tracker=self._tracker,
            offered_tools=self._offered_tools,
            gates=self.gates,
            texts=self.texts,
            emit=self._emit,
            owner=self._owner,
            settings=settings,
            output=output,
            output_retries=self.output_retries,
            max_rounds=max_rounds,
            deps=self.deps if deps is None else deps,
            max_parallel_tools=self.max_parallel_tools,
            identical_limit=self.max_identical_tool_calls or None,
            unknown_tool_rounds=self.unknown_tool_rounds,
            context_threshold=self.context_threshold,
            tool_result_threshold=self.tool_result_threshold,
            run_id=run_id,
            journal=self.journal,
            recorded=recorded,
            history_processors=self.history_processors,
            on_payload=self.on_payload,
            control=self._control,
            accept_truncated=(
                self.accept_truncated if accept_truncated is None else accept_truncated
            ),
            residency=self._catalog,
            resend_unrecorded_model_call=resend_unrecorded_model_call,
            accept_state_drift=accept_state_drift,
            hosted_tools=self.hosted_tools if hosted_tools is None else hosted_tools,
        )
