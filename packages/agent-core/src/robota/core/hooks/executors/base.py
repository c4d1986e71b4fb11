"""The executor seam: how a hook of one ``type`` is run (seed 000, "Hook System"; seed 003,
"Hook executor registration is replace-vs-extend").

An executor turns (hook, input) into a :data:`~robota.core.hooks.outcome.HookResult`. It never
raises for a hook's own failure (a crash, timeout, bad output): that is a
:class:`~robota.core.hooks.outcome.HookError` with a named reason. Cancellation propagates.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from robota.core.hooks.config import HookConfig
from robota.core.hooks.events import HookInput
from robota.core.hooks.outcome import HookResult

__all__ = ["HookExecutor", "format_seconds"]


def format_seconds(seconds: float) -> str:
    """``5.0`` → ``"5s"``, ``0.5`` → ``"0.5s"`` (for ``timed out after <n>s`` reasons)."""
    return f"{seconds:g}s"


class HookExecutor(ABC):
    """Runs hooks of one type."""

    def check(self, hook: HookConfig) -> str | None:
        """Return a problem with ``hook``'s fields for this executor (e.g. a missing
        ``command``), or None when it can run. Called once at :class:`HookRunner`
        construction."""
        return None

    @abstractmethod
    async def run(self, hook: HookConfig, payload: HookInput) -> HookResult:
        """Run ``hook`` for ``payload``, bounded by ``hook.timeout`` seconds.

        Returns:
            The decoded result; a failure of the hook itself is a ``HookError``.
        """

    async def aclose(self) -> None:  # noqa: B027 - optional hook, default no-op
        """Release resources (best-effort; must not raise)."""
