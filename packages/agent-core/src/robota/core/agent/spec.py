"""What one run needs, built by ``Agent`` per run, and the host-side handles on a running run
(steering, cancelling one tool)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the run machinery loads with the run (import cost)
    from robota.core.agent.batch import ToolRunner
    from robota.core.agent.context import ContextTracker
    from robota.core.agent.history import History
    from robota.core.agent.output import OutputSpec
    from robota.core.agent.pairing import HistoryProcessor
    from robota.core.agent.texts import AgentTexts
    from robota.core.cancellation import CancelToken
    from robota.core.capabilities import HostedTool
    from robota.core.events import Event, OwnerPath
    from robota.core.gate import ToolGate
    from robota.core.journal.checkpoint import Checkpoint
    from robota.core.journal.port import Journal, JournalRun
    from robota.core.journal.replay import Residency
    from robota.core.provider import PayloadCallback, Provider
    from robota.core.settings import ModelSettings
    from robota.core.tools.base import Tool

__all__ = ["RunControl", "RunSpec"]


@dataclass(kw_only=True, slots=True)
class RunControl:
    """Host-side handles on the running run: steering messages and the active tool runner.

    One object per agent, shared by its runs (one at a time): a run opens it when it starts and
    closes it when it ends, so nothing queued for one run reaches the next (seed 004, steer).

    Attributes:
        steering: User texts queued by ``Agent.steer``, read before the next model call.
        runner: The running run's tool runner (for ``Agent.cancel_tool``), or None.
        streaming: True while a stream consumer reads the run: the loop then lets the consumer
            run after every text delta, so the first delta reaches it at once even when the
            provider's response is already buffered.
        cancel: The running run's cancellation signal, or None between runs.
        accepting: True while the running run still reads steering texts (from its start until
            its loop ends or it makes its forced last call).
    """

    steering: list[str] = field(default_factory=list[str])
    runner: ToolRunner | None = None
    streaming: bool = False
    cancel: CancelToken | None = None
    accepting: bool = False

    def open(self, runner: ToolRunner, cancel: CancelToken) -> None:
        """A run starts: it takes steering texts until :meth:`stop_steering`."""
        self.steering.clear()
        self.runner, self.cancel, self.accepting = runner, cancel, True

    def steer(self, text: str) -> bool:
        """Queue ``text`` for the running run. Returns False (and queues nothing) when no run
        is in flight, its cancellation was requested, or it reads no more steering."""
        if not self.accepting or self.cancel is None or self.cancel.cancelled:
            return False
        self.steering.append(text)
        return True

    def take_steering(self) -> list[str]:
        """Remove and return the queued steering texts."""
        taken, self.steering[:] = list(self.steering), []
        return taken

    def stop_steering(self) -> None:
        """The run reads no more steering: refuse new texts and drop any still queued."""
        self.accepting = False
        self.steering.clear()

    def close(self) -> None:
        """The run ended (completed, interrupted, paused or failed)."""
        self.stop_steering()
        self.runner, self.cancel = None, None


@dataclass(kw_only=True, slots=True)
class RunSpec:
    """Everything one run needs (built by ``Agent`` per run).

    Attributes:
        provider: The provider to call.
        model: Model id.
        history: The agent's history (the run appends to it).
        tracker: The agent's context tracker.
        offered_tools: Returns the tools offered this round (read fresh every round).
        gates: Gates in order.
        texts: Model-facing texts.
        emit: Delivers an event to sinks and the stream consumer.
        owner: The agent's owner path.
        settings: Merged settings of the run.
        output: The structured output, if asked.
        output_retries: Validation retries after the first attempt.
        max_rounds: Round budget (0: no cap).
        deps: Dependencies for tool bodies.
        max_parallel_tools: Bound on concurrently running tool bodies.
        identical_limit: Byte-identical tool invocations allowed per run (None/0: no limit).
        unknown_tool_rounds: Consecutive rounds with unknown tool calls that trip the loop guard.
        context_threshold: Fraction of the context window above which a request is refused.
        tool_result_threshold: Fraction above which later results of a batch are replaced.
        run_id: The run's id (None: a fresh ``run_<hex>`` id).
        journal: The execution journal (None: the run is not journaled).
        checkpoint: What a fresh journaled run records with ``start_run``.
        recorded: What the journal holds for this run (continuation), else None.
        history_processors: Applied in order to the provider-facing view of every request.
        on_payload: Native payload callback put on every ``ModelRequest``.
        control: Steering queue and active-runner handle shared with the agent.
        accept_truncated: Use an answer cut off at the output token limit (finish reason
            ``length``) instead of failing with
            :class:`~robota.core.errors.TruncatedResponseError`.
        residency: The agent's residency state (its tool catalog): a journaled run records the
            loads a call made and a continuation restores them.
        resend_unrecorded_model_call: A continuation sends again a model call recorded as sent
            without a recorded response (the host opted in).
        accept_state_drift: A continuation does not refuse a replayed model call whose request
            differs from the recorded one (the host opted in).
        hosted_tools: Vendor-run tools put on every normal round's request (checked against
            the model's stated capabilities before the first request).
    """

    provider: Provider
    model: str
    history: History
    tracker: ContextTracker
    offered_tools: Callable[[], Sequence[Tool]]
    gates: Sequence[ToolGate]
    texts: AgentTexts
    emit: Callable[[Event], None]
    owner: OwnerPath
    settings: ModelSettings
    output: OutputSpec | None
    output_retries: int
    max_rounds: int
    deps: Any
    max_parallel_tools: int
    identical_limit: int | None
    unknown_tool_rounds: int
    context_threshold: float
    tool_result_threshold: float
    run_id: str | None = None
    journal: Journal | None = None
    checkpoint: Checkpoint | None = None
    recorded: JournalRun | None = None
    history_processors: Sequence[HistoryProcessor] = ()
    on_payload: PayloadCallback | None = None
    control: RunControl = field(default_factory=RunControl)
    accept_truncated: bool = False
    residency: Residency | None = None
    resend_unrecorded_model_call: bool = False
    accept_state_drift: bool = False
    hosted_tools: frozenset[HostedTool] = frozenset()
