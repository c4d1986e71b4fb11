"""Events of permission prompting (seed 003, "Prompt/permission settlement is first-wins and
fail-closed": requests are transport-neutral events; settlement emits exactly one resolution
event)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from robota.core.events import Event
from robota.core.permissions import Approval, PermissionRequest

__all__ = ["PromptRequested", "PromptResolved", "ResolutionSource"]

ResolutionSource = Literal[
    "surface", "settle", "surface_failed", "cancelled", "no_surface", "detached"
]
"""What settled a prompt: an attached surface's answer, a direct :meth:`settle` call, a surface
that raised (deny), the waiting run being cancelled (deny), no surface attached (deny), or the
last surface detaching while it was open (deny)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PromptRequested(Event):
    """A permission question is open; any surface may settle it by ``request_id``.

    Attributes:
        request_id: ``prompt_`` + 16 hex digits; the key for ``PromptRegistry.settle``.
        request: What the approver is shown (tool, argument, reason, call id, session id).
    """

    type: ClassVar[str] = "permission.prompt_requested"
    request_id: str
    request: PermissionRequest


@dataclass(frozen=True, kw_only=True, slots=True)
class PromptResolved(Event):
    """A permission question was settled (exactly once per request).

    Attributes:
        request_id: The request's id.
        approval: The answer that won.
        source: What settled it (:data:`ResolutionSource`).
    """

    type: ClassVar[str] = "permission.prompt_resolved"
    request_id: str
    approval: Approval
    source: ResolutionSource
