"""The in-process hook executor: ``type="callable"`` runs ``hook.handler`` (an
``async def handler(input: HookInput) -> HookResult``) in the caller's task.

The handler is bounded by ``hook.timeout`` seconds (error ``timed out after <n>s``). An exception
it raises is an error ``handler raised <Type>: <message>``; a return value that is not a
:data:`~robota.core.hooks.outcome.HookResult` is an error too — never coerced into a verdict.
Cancellation propagates.
"""

from __future__ import annotations

import anyio
from robota.core.hooks.config import HookConfig
from robota.core.hooks.events import HookInput
from robota.core.hooks.executors.base import HookExecutor, format_seconds
from robota.core.hooks.outcome import HookAllow, HookAsk, HookDeny, HookError, HookResult

__all__ = ["CallableHookExecutor"]


class CallableHookExecutor(HookExecutor):
    """Runs in-process Python handlers."""

    def check(self, hook: HookConfig) -> str | None:
        """A callable hook needs a ``handler``."""
        return None if hook.handler is not None else "a callable hook needs 'handler'"

    async def run(self, hook: HookConfig, payload: HookInput) -> HookResult:
        """Await the handler within the timeout; see the module docstring."""
        handler = hook.handler
        if handler is None:
            return HookError(reason="no handler")
        result: object = None
        with anyio.move_on_after(hook.timeout) as scope:
            try:
                result = await handler(payload)
            except Exception as exc:  # the handler's own failure is a named error
                return HookError(reason=f"handler raised {type(exc).__name__}: {exc}")
        if scope.cancelled_caught:
            return HookError(reason=f"timed out after {format_seconds(hook.timeout)}")
        if not isinstance(result, HookAllow | HookDeny | HookAsk | HookError):
            return HookError(
                reason=f"invalid output: handler returned {type(result).__name__}, not a HookResult"
            )
        return result
