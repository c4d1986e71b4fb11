"""What output functions and output validators receive."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias

from robota.core.messages import Message
from typing_extensions import TypeVar

__all__ = ["OutputContext", "OutputValidator"]

DepsT = TypeVar("DepsT")


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputContext(Generic[DepsT]):
    """The run's state as an output function or output validator sees it.

    An output function takes it by annotating its first parameter ``OutputContext[Deps]``; an
    output validator takes it as the first of two positional parameters.

    Attributes:
        run_id: Robota's id of the run.
        deps: The dependencies the host gave the agent/run.
        attempt: 1-based output attempt (a retry after a ``ModelRetry`` or an invalid answer
            is the next attempt); for a partial value, the attempt being streamed.
        partial: True when called on a partial value while the answer streams (a validator
            should then accept what may still be incomplete; a ``ModelRetry`` only suppresses
            that snapshot).
        messages: The conversation so far (the answer being validated is the last message,
            except for a partial value, whose message is not committed yet).
    """

    run_id: str
    deps: DepsT
    attempt: int
    partial: bool = False
    messages: Sequence[Message] = ()


ValueT = TypeVar("ValueT", default=Any)

OutputValidator: TypeAlias = (
    Callable[[ValueT], ValueT]
    | Callable[[ValueT], Awaitable[ValueT]]
    | Callable[[OutputContext[Any], ValueT], ValueT]
    | Callable[[OutputContext[Any], ValueT], Awaitable[ValueT]]
)
"""``(value) -> value`` or ``(ctx, value) -> value``, sync or async: returns the (possibly
transformed) value, or raises :class:`~robota.core.errors.ModelRetry`. ``OutputValidator[T]``
validates values of type ``T`` (``Agent(output_validators=...)`` takes validators of the
agent's output type, so a type checker reports one of another type); bare, ``T`` is ``Any``."""
