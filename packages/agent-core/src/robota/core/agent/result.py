"""The result of one run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic

from robota.core.errors import OutputUnavailableError
from robota.core.messages import FinishReason, Message
from robota.core.usage import Usage
from typing_extensions import TypeVar

__all__ = ["NO_OUTPUT", "RunResult"]

OutputT = TypeVar("OutputT", default=str, covariant=True)


class _NoOutput:
    """The marker of a run that ended without a validated output (interrupted)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_OUTPUT"

    def __reduce__(self) -> str:
        """Pickle as the module global, so an unpickled result still holds the one marker."""
        return "NO_OUTPUT"

    def __copy__(self) -> _NoOutput:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _NoOutput:
        return self


NO_OUTPUT: Any = _NoOutput()
"""``RunResult(value=NO_OUTPUT)``: the run has no validated output (it was interrupted before
one); reading :attr:`RunResult.output` then raises :class:`OutputUnavailableError`. A singleton:
pickle, ``copy`` and ``deepcopy`` give back this same object."""


@dataclass(frozen=True, kw_only=True, slots=True)
class RunResult(Generic[OutputT]):
    """What ``Agent.run`` returns; ``RunResult[Weather]`` for ``output_type=Weather``.

    Attributes:
        run_id: Robota's id of the run.
        text: The final assistant text (the text committed before cancellation when
            ``interrupted``; the fallback text when a forced summary produced none).
        value: The run's output as stored (read it through :attr:`output`, which is typed);
            :data:`NO_OUTPUT` when the run ended without one.
        new_messages: The messages this run appended to history, in order.
        usage: Usage summed over the run's provider requests.
        interrupted: True when cancellation ended the run.
        rounds: Provider rounds made, the forced summary included.
        finish_reason: Normalized finish reason of the run's final response (``stop``,
            ``length`` for a truncated answer the caller accepted with ``accept_truncated``,
            ``tool_calls``, ``content_filter``, ``other``); the reason of the last complete
            response when the run was interrupted, None when it was interrupted before any
            (seed 002, "Model contract": successful results expose the final reason).
        raw_finish_reason: The vendor's own finish reason of that response (e.g.
            ``"end_turn"``, ``"max_tokens"``), if it gave one.
    """

    run_id: str
    text: str
    value: Any = NO_OUTPUT
    new_messages: tuple[Message, ...] = ()
    usage: Usage = field(default_factory=Usage)
    interrupted: bool = False
    rounds: int = 0
    finish_reason: FinishReason | None = None
    raw_finish_reason: str | None = None

    @property
    def output(self) -> OutputT:
        """The run's output: the validated value of the requested output type (a model
        instance, a dataclass, a list…, or what the output function returned), or the final
        text (``str``) when the run asked for no output type.

        Raises:
            OutputUnavailableError: the run was interrupted before a structured output
                validated (``interrupted`` is True); :attr:`text` holds what was committed.
        """
        if self.value is NO_OUTPUT:
            raise OutputUnavailableError(
                f"run {self.run_id} has no validated output: it was interrupted before one "
                "(read RunResult.text for what the model said)"
            )
        value: OutputT = self.value
        return value
