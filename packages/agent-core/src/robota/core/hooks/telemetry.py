"""Events every hook run emits (seed 000, "Event Architecture"): ``hook.started`` before an
executor runs and ``hook.completed`` with the run's outcome after it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from robota.core.events import Event

__all__ = ["HookCompleted", "HookStarted"]


@dataclass(frozen=True, kw_only=True, slots=True)
class HookStarted(Event):
    """A hook is about to run.

    Attributes:
        event_name: The hook event (e.g. ``"PreToolUse"``).
        hook_name: The hook's display name.
        hook_type: Its executor type.
    """

    type: ClassVar[str] = "hook.started"
    event_name: str
    hook_name: str
    hook_type: str


@dataclass(frozen=True, kw_only=True, slots=True)
class HookCompleted(Event):
    """A hook finished.

    Attributes:
        event_name: The hook event.
        hook_name: The hook's display name.
        hook_type: Its executor type.
        outcome: ``"allow"``, ``"deny"``, ``"ask"`` or ``"error"`` (no verdict).
        reason: The deny/ask/error reason, else None.
        substituted: True when the hook allowed with a substitute result.
        enforcing: True when the event fails closed, i.e. an error here blocks.
        duration: Wall-clock seconds the run took.
    """

    type: ClassVar[str] = "hook.completed"
    event_name: str
    hook_name: str
    hook_type: str
    outcome: Literal["allow", "deny", "ask", "error"]
    reason: str | None = None
    substituted: bool = False
    enforcing: bool = False
    duration: float = 0.0
