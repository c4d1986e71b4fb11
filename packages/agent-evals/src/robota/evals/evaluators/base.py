"""The evaluator interface (seed 002, "Evaluations"): an evaluator reads one case's
:class:`EvaluatorContext` and returns a verdict.

A verdict is an **assertion** (``bool``: pass or fail), a **score** (a finite ``float``/``int``)
or a **label** (``str``), optionally with a reason (:class:`EvaluationReason`). Built-in and
user evaluators share this interface: subclass :class:`Evaluator` (or :class:`TraceEvaluator`
for checks over the run's spans), or wrap a plain function with :func:`evaluator`.
``evaluate`` may be sync or async.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, TypeAlias

from robota.core.messages import AssistantMessage, Message, ToolCallPart
from robota.core.usage import Usage
from robota.evals.case import Case
from robota.evals.spans import SpanTree
from typing_extensions import TypeVar

__all__ = [
    "EvaluationReason",
    "EvaluationValue",
    "Evaluator",
    "EvaluatorContext",
    "EvaluatorReturn",
    "FunctionEvaluator",
    "TraceEvaluator",
    "evaluator",
    "run_evaluator",
]

InputsT = TypeVar("InputsT", default=Any)
OutputT = TypeVar("OutputT", default=Any)

EvaluationValue: TypeAlias = bool | int | float | str
"""An assertion (bool), a score (int/float) or a label (str)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class EvaluationReason:
    """A verdict with the reason for it.

    Attributes:
        value: The assertion, score or label.
        reason: Why, in a sentence (None: no reason given).
    """

    value: EvaluationValue
    reason: str | None = None


EvaluatorReturn: TypeAlias = EvaluationValue | EvaluationReason
"""What ``evaluate`` returns (or its awaitable resolves to)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class EvaluatorContext(Generic[InputsT, OutputT]):
    """What an evaluator sees of one case repetition (a read-only view).

    In a run, ``case`` is the repetition's own deep copy of the dataset's case (its metadata a
    read-only mapping), and ``output`` is the task's output itself, shared by the
    repetition's evaluators in turn; the report records the output as it was before any
    evaluator ran.

    Attributes:
        case: The case (name, inputs, expected output, metadata).
        case_index: Its position in the dataset (0-based).
        repetition: Which repetition of the case this is (0-based).
        output: What the task returned (for an ``Agent`` task, ``RunResult.output``).
        duration: Seconds the successful task attempt took.
        usage: Token usage of the run (empty for a task that reports none).
        messages: The run's new messages (empty for a plain function task).
        attempts: Task attempts it took (1 = first try).
    """

    case: Case[InputsT, Any]
    case_index: int
    repetition: int
    output: OutputT
    duration: float
    usage: Usage = field(default_factory=Usage)
    messages: tuple[Message, ...] = ()
    attempts: int = 1

    @property
    def inputs(self) -> InputsT:
        """The case's inputs."""
        return self.case.inputs

    @property
    def expected_output(self) -> Any:
        """The case's expected output (None: none)."""
        return self.case.expected_output

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The case's metadata, read-only (assigning a key raises ``TypeError``). In a run,
        each case repetition's evaluators see a deep copy of it, so nothing they do reaches
        the dataset or another repetition."""
        metadata = self.case.metadata
        return metadata if isinstance(metadata, MappingProxyType) else MappingProxyType(metadata)

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        """Every tool call the model asked for, in order (hosted ones included)."""
        return tuple(
            part
            for message in self.messages
            if isinstance(message, AssistantMessage)
            for part in message.parts
            if isinstance(part, ToolCallPart)
        )

    @property
    def model(self) -> str | None:
        """The model that answered last (None: unknown)."""
        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage) and message.model:
                return message.model
        return None


class Evaluator(ABC, Generic[InputsT, OutputT]):
    """A check of one case repetition.

    Subclasses implement :meth:`evaluate`; :attr:`name` (default: the class name) is the key
    reports, comparisons and dataset files use, so two evaluators of one dataset must not share
    a name (a dataset refuses that).
    """

    @property
    def name(self) -> str:
        """The evaluator's name in reports (default: the class name)."""
        return type(self).__name__

    @abstractmethod
    def evaluate(
        self, ctx: EvaluatorContext[InputsT, OutputT]
    ) -> EvaluatorReturn | Awaitable[EvaluatorReturn]:
        """The verdict on ``ctx`` (sync or async).

        Raises:
            Exception: any error is recorded in the report as the evaluator's error (after the
                evaluator retry policy), and the case does not pass.
        """


class TraceEvaluator(ABC, Generic[InputsT, OutputT]):
    """A check over the spans one case repetition produced (seed 002: trace evaluators get the
    ordinary context and the owned span slice). A dataset with trace evaluators tees the
    agent's OpenTelemetry exporter while each case runs."""

    @property
    def name(self) -> str:
        """The evaluator's name in reports (default: the class name)."""
        return type(self).__name__

    @abstractmethod
    def evaluate(
        self, ctx: EvaluatorContext[InputsT, OutputT], spans: SpanTree
    ) -> EvaluatorReturn | Awaitable[EvaluatorReturn]:
        """The verdict on ``ctx`` and its ``spans`` (sync or async)."""


class FunctionEvaluator(Evaluator[InputsT, OutputT]):
    """An evaluator made of a function ``(ctx) -> verdict`` (sync or async); see
    :func:`evaluator`."""

    def __init__(
        self,
        function: Callable[
            [EvaluatorContext[InputsT, OutputT]], EvaluatorReturn | Awaitable[EvaluatorReturn]
        ],
        *,
        name: str | None = None,
    ) -> None:
        self._function = function
        self._name = name or getattr(function, "__name__", type(self).__name__)

    @property
    def name(self) -> str:
        """The function's name, or the name given."""
        return self._name

    def evaluate(
        self, ctx: EvaluatorContext[InputsT, OutputT]
    ) -> EvaluatorReturn | Awaitable[EvaluatorReturn]:
        """Calls the function."""
        return self._function(ctx)


def evaluator(
    function: Callable[
        [EvaluatorContext[InputsT, OutputT]], EvaluatorReturn | Awaitable[EvaluatorReturn]
    ],
    /,
    *,
    name: str | None = None,
) -> FunctionEvaluator[InputsT, OutputT]:
    """Make an evaluator of a function ``(ctx) -> bool | float | str | EvaluationReason``.

    Example:
        >>> short = evaluator(lambda ctx: len(str(ctx.output)) < 200, name="short")
        >>> short.name
        'short'
    """
    return FunctionEvaluator(function, name=name)


async def run_evaluator(
    check: Evaluator[Any, Any] | TraceEvaluator[Any, Any],
    ctx: EvaluatorContext[Any, Any],
    spans: SpanTree | None = None,
) -> EvaluationReason:
    """Run one evaluator once and normalise its verdict.

    Raises:
        TypeError: the evaluator returned something that is not a verdict. (A non-finite score
            is a verdict: reports keep it and statistics leave it out.)
        Exception: whatever the evaluator raised.
    """
    if isinstance(check, TraceEvaluator):
        produced = check.evaluate(ctx, spans if spans is not None else SpanTree())
    else:
        produced = check.evaluate(ctx)
    if inspect.isawaitable(produced):
        produced = await produced
    verdict = (
        produced if isinstance(produced, EvaluationReason) else EvaluationReason(value=produced)
    )
    value = verdict.value
    if not isinstance(value, bool | int | float | str):
        raise TypeError(
            f"evaluator {check.name!r} returned {type(value).__name__}; a verdict is a bool, "
            "a number, a str or an EvaluationReason"
        )
    return verdict
