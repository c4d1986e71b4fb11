"""Events of the model fallback chain (seed 003, "A model fallback chain ...")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from robota.core.events import Event

__all__ = ["FallbackEntrySkipped", "FallbackSwitched"]


@dataclass(frozen=True, kw_only=True, slots=True)
class FallbackSwitched(Event):
    """A request moved from one chain entry to the next after a switchable failure.

    Attributes:
        from_model: The model that failed.
        to_model: The model the request moves to.
        error_code: The failure's :attr:`~robota.core.errors.RobotaError.error_code`
            (e.g. ``"overloaded"``).
        status: The failure's HTTP status, if it had one.
    """

    type: ClassVar[str] = "fallback.switched"
    from_model: str
    to_model: str
    error_code: str
    status: int | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class FallbackEntrySkipped(Event):
    """A chain entry could not be built and was passed over.

    Attributes:
        model: The entry's model.
        error: ``ExceptionType: message`` of the build failure.
    """

    type: ClassVar[str] = "fallback.entry_skipped"
    model: str
    error: str
