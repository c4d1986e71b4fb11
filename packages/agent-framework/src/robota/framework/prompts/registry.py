"""The shared prompt registry (seed 003, "Prompt/permission settlement is first-wins and
fail-closed").

A session exposes no per-session approval callback. Instead :attr:`PromptRegistry.approver` is
handed to the permission layer (``PermissionContext.approver``); every ask becomes a
:class:`~robota.framework.prompts.events.PromptRequested` event and an open entry that any
attached surface — or any code holding the request id — can settle. The first settlement wins
and emits exactly one :class:`~robota.framework.prompts.events.PromptResolved`; every later one
returns False. Every path that could leave a request open resolves it to deny instead: a surface
callback that raises, the waiting run being cancelled, no surface attached, the last surface
detaching.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import anyio
from robota.core.events import Event, EventSink, emit_all
from robota.core.permissions import Approval, Approver, PermissionRequest
from robota.framework.prompts.events import PromptRequested, PromptResolved, ResolutionSource

__all__ = ["PendingPrompt", "PromptRegistry", "PromptSurface"]


@dataclass(frozen=True, kw_only=True, slots=True)
class PendingPrompt:
    """An open permission question.

    Attributes:
        request_id: The key for :meth:`PromptRegistry.settle`.
        request: What to show the person.
    """

    request_id: str
    request: PermissionRequest


PromptSurface = Callable[[PendingPrompt], Awaitable[Approval]]
"""An attached surface: asked every new question, answers with an
:class:`~robota.core.permissions.Approval`. Raising (or returning something else) settles the
question as deny. It is cancelled once another settlement won."""


@dataclass(kw_only=True, slots=True)
class _Open:
    prompt: PendingPrompt
    done: anyio.Event
    approval: Approval | None = None


_DENY_TEXT: dict[ResolutionSource, str] = {
    "surface_failed": "The approval prompt failed, so the call was denied.",
    "cancelled": "The run was cancelled while waiting for approval.",
    "no_surface": "No one is available to approve this call, so it was denied.",
    "detached": "Every approval surface left before answering, so the call was denied.",
}


class PromptRegistry:
    """Open permission questions, settled first-wins by any surface.

    Args:
        sinks: Receive :class:`PromptRequested` / :class:`PromptResolved`.
        wait_without_surface: When no surface is attached at ask time, wait for
            :meth:`settle` instead of denying at once (for hosts that answer through events
            only). Then a question stays open until settled or its run is cancelled.

    Example:
        >>> import anyio
        >>> from robota.core.permissions import Approval
        >>> registry = PromptRegistry()
        >>> async def always_once(prompt: PendingPrompt) -> Approval:
        ...     return Approval(kind="allow_once")
        >>> detach = registry.attach(always_once)
        >>> callable(registry.approver)
        True
    """

    def __init__(
        self, *, sinks: Sequence[EventSink] = (), wait_without_surface: bool = False
    ) -> None:
        self._sinks: list[EventSink] = list(sinks)
        self._surfaces: list[PromptSurface] = []
        self._open: dict[str, _Open] = {}
        self.wait_without_surface = wait_without_surface

    # --- wiring ---------------------------------------------------------------------------

    @property
    def approver(self) -> Approver:
        """The :data:`~robota.core.permissions.Approver` to put on a ``PermissionContext``."""
        return self._approve

    def subscribe(self, sink: EventSink) -> Callable[[], None]:
        """Add an event sink; returns a function removing it."""
        self._sinks.append(sink)
        return lambda: self._sinks.remove(sink) if sink in self._sinks else None

    def attach(self, surface: PromptSurface) -> Callable[[], None]:
        """Attach a surface; it is asked every question opened from now on (questions already
        open are listed by :meth:`pending` and settled with :meth:`settle`).

        Returns:
            A function detaching it. Detaching the last surface denies every open question
            (``source="detached"``) unless ``wait_without_surface`` is set: a passive observer
            never keeps a request alive (seed 003, "Local peer status is display-only").
        """
        self._surfaces.append(surface)

        def detach() -> None:
            if surface not in self._surfaces:
                return
            self._surfaces.remove(surface)
            if not self._surfaces and not self.wait_without_surface:
                for request_id in list(self._open):
                    self._deny(request_id, "detached")

        return detach

    def pending(self) -> tuple[PendingPrompt, ...]:
        """Every open question, oldest first."""
        return tuple(entry.prompt for entry in self._open.values())

    def settle(self, request_id: str, approval: Approval) -> bool:
        """Answer an open question.

        Returns:
            True when this settlement won; False when the question was already settled or the
            id is unknown (nothing is emitted then).
        """
        return self._settle(request_id, approval, "settle")

    # --- internals ------------------------------------------------------------------------

    def _emit(self, event: Event) -> None:
        emit_all(tuple(self._sinks), event)

    def _settle(self, request_id: str, approval: Approval, source: ResolutionSource) -> bool:
        entry = self._open.pop(request_id, None)
        if entry is None:
            return False
        entry.approval = approval
        self._emit(PromptResolved(request_id=request_id, approval=approval, source=source))
        entry.done.set()
        return True

    def _deny(self, request_id: str, source: ResolutionSource) -> bool:
        return self._settle(request_id, Approval(kind="deny", message=_DENY_TEXT[source]), source)

    async def _approve(self, request: PermissionRequest) -> Approval:
        request_id = f"prompt_{uuid.uuid4().hex[:16]}"
        entry = _Open(
            prompt=PendingPrompt(request_id=request_id, request=request), done=anyio.Event()
        )
        self._open[request_id] = entry
        self._emit(PromptRequested(request_id=request_id, request=request))
        surfaces = tuple(self._surfaces)
        if not surfaces and not self.wait_without_surface:
            self._deny(request_id, "no_surface")
        try:
            async with anyio.create_task_group() as group:
                for surface in surfaces:
                    group.start_soon(self._ask, surface, entry)
                await entry.done.wait()
                group.cancel_scope.cancel()
        except BaseException:
            # cancellation of the waiting run (or any failure here) never leaves it open
            self._deny(request_id, "cancelled")
            raise
        assert entry.approval is not None
        return entry.approval

    async def _ask(self, surface: PromptSurface, entry: _Open) -> None:
        request_id = entry.prompt.request_id
        try:
            answer: object = await surface(entry.prompt)
        except anyio.get_cancelled_exc_class():
            raise
        except Exception:
            self._deny(request_id, "surface_failed")
            return
        if isinstance(answer, Approval):
            self._settle(request_id, answer, "surface")
        else:
            self._deny(request_id, "surface_failed")
