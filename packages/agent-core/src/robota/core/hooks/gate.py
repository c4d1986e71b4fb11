"""Wiring ``PreToolUse`` / ``PostToolUse`` hooks into the agent loop as a :class:`ToolGate`
(seed 000, "Hook System"; seed 004, tool gate semantics).

Place the :class:`HookGate` *after* the permission gate (``Agent(gates=(permissions, hooks))``):
the loop stops at the first deny, so a permission deny always beats a hook's allow or ask, and a
hook allow can never re-allow a call a permission rule refused — it is simply a later gate in the
chain.

``before_tool`` dispatches ``PreToolUse`` and answers:

* deny (a hook denied, or any hook erred — ``PreToolUse`` fails closed) →
  ``Deny(message="Blocked: <reason>")``; the body never runs;
* ask → a person through ``approve`` (denied when no approver is attached or the call is a
  direct invocation);
* substitute → ``Substitute(result=...)``; the body is skipped, ``after_tool`` still runs;
* allow → ``Allow()``.

``after_tool`` dispatches ``PostToolUse`` (successful result) or ``PostToolUseFailure`` (error
result). Both are advisory: errors are only logged and reported. A hook's ``substituteResult``
replaces the result (e.g. rewriting an error for the model), a block directive's reason and
``additionalContext`` are appended as text the model sees. ``additionalContext`` from a
``PreToolUse`` hook is not forwarded (the gate seam has no channel for it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from robota.core.gate import Allow, Deny, GateVerdict, Substitute, ToolCallRequest, ToolGate
from robota.core.hooks.config import HookConfig
from robota.core.hooks.events import (
    HookEventName,
    HookInput,
    PostToolUseFailureInput,
    PostToolUseInput,
    PreToolUseInput,
)
from robota.core.hooks.runner import HookRunner
from robota.core.messages import JsonValue, TextPart, ToolResultPart

__all__ = ["BLOCKED_PREFIX", "Approver", "HookGate"]

BLOCKED_PREFIX = "Blocked: "
"""The fixed prefix of a hook refusal as the model sees it (seed 004)."""

Approver = Callable[[ToolCallRequest, str], Awaitable[bool]]
"""Asks a person about a call a hook wants confirmed: ``(request, reason) -> approved``."""


def _json_arguments(arguments: Mapping[str, Any]) -> dict[str, JsonValue]:
    return {str(k): v for k, v in arguments.items()}


def _safe_url(url: str | None) -> str | None:
    """The URL without credentials, query or fragment (they may carry secrets)."""
    if url is None:
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", ""))
    except ValueError:
        return "<invalid url>"


def _hook_fingerprint(hook: HookConfig) -> dict[str, JsonValue]:
    """What identifies one hook: event, type, matcher, id, command / URL / handler name, and
    the *names* (never the values) of its environment variables and headers."""
    handler = hook.handler
    handler_name: str | None = None
    if handler is not None:
        module = getattr(handler, "__module__", None) or ""
        qualname = getattr(handler, "__qualname__", None) or type(handler).__qualname__
        handler_name = f"{module}.{qualname}" if module else str(qualname)
    env_names: list[JsonValue] = [*sorted(str(k) for k in hook.env)]
    header_names: list[JsonValue] = [*sorted(str(k).lower() for k in hook.headers)]
    return {
        "event": str(hook.event.value),
        "type": hook.type,
        "matcher": hook.matcher,
        "id": hook.id,
        "command": hook.command,
        "shell": hook.shell,
        "url": _safe_url(hook.url),
        "handler": handler_name,
        "env": env_names,
        "headers": header_names,
    }


class HookGate(ToolGate):
    """Runs tool-use hooks around every tool call.

    Args:
        runner: The hook runner.
        session_id: ``session_id`` for hook inputs (``request.metadata["session_id"]`` wins;
            the run id is used when neither is set).
        cwd: ``cwd`` for hook inputs (``request.metadata["cwd"]`` wins).
        approve: Who answers a hook's ``ask``; None denies every ask.
    """

    def __init__(
        self,
        runner: HookRunner,
        *,
        session_id: str = "",
        cwd: str = "",
        approve: Approver | None = None,
    ) -> None:
        self._runner = runner
        self._session_id = session_id
        self._cwd = cwd
        self._approve = approve

    def journal_state(self) -> JsonValue:
        """The tool-use hooks (``PreToolUse``, ``PostToolUse``, ``PostToolUseFailure``) in
        declaration order — event, matcher, type, id, command, URL (without credentials or
        query), callable's qualified name, env/header *names* — and whether an approver is
        attached: what a continuation compares with the journaled run's checkpoint. Secrets
        (env values, header values, URL credentials) are never fingerprinted."""
        tool_events = {
            HookEventName.PRE_TOOL_USE,
            HookEventName.POST_TOOL_USE,
            HookEventName.POST_TOOL_USE_FAILURE,
        }
        hooks: list[JsonValue] = [
            _hook_fingerprint(h) for h in self._runner.hooks if h.event in tool_events
        ]
        return {"hooks": hooks, "approver": self._approve is not None}

    def _common(self, request: ToolCallRequest) -> dict[str, Any]:
        meta = request.metadata
        session_id = meta.get("session_id") or self._session_id or request.run_id
        cwd = meta.get("cwd") or self._cwd
        return {
            "session_id": str(session_id),
            "cwd": str(cwd),
            "tool_name": request.tool.canonical_name,
            "tool_input": _json_arguments(request.arguments),
            "tool_use_id": request.call.id,
            "call_id": request.call_id,
            "run_id": request.run_id,
        }

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        """Dispatch ``PreToolUse`` and translate the outcome (see the module docstring)."""
        if not self._runner.has_hooks(HookEventName.PRE_TOOL_USE):
            return Allow()
        outcome = await self._runner.dispatch(
            HookEventName.PRE_TOOL_USE,
            PreToolUseInput(**self._common(request)),
            owner=request.owner,
            emit=request.emit,
        )
        if outcome.decision == "deny":
            return Deny(message=f"{BLOCKED_PREFIX}{outcome.reason}")
        if outcome.decision == "ask":
            reason = outcome.reason or "hook asks for confirmation"
            if self._approve is None or request.direct:
                return Deny(
                    message=f"{BLOCKED_PREFIX}{reason} (a hook asked for confirmation and no "
                    "approver is attached)"
                )
            if not await self._approve(request, reason):
                return Deny(message=f"{BLOCKED_PREFIX}{reason}")
        if outcome.substitute is not None:
            return Substitute(
                result=ToolResultPart(
                    call_id=request.call.id,
                    name=request.call.name,
                    content=outcome.substitute.content,
                    is_error=outcome.substitute.is_error,
                )
            )
        return Allow()

    async def after_tool(self, request: ToolCallRequest, result: ToolResultPart) -> ToolResultPart:
        """Dispatch ``PostToolUse`` / ``PostToolUseFailure``; may replace or annotate."""
        common = self._common(request)
        payload: HookInput
        if result.is_error:
            if not self._runner.has_hooks(HookEventName.POST_TOOL_USE_FAILURE):
                return result
            payload = PostToolUseFailureInput(**common, error=result.text)
        else:
            if not self._runner.has_hooks(HookEventName.POST_TOOL_USE):
                return result
            payload = PostToolUseInput(
                **common, tool_response={"content": result.text, "is_error": False}
            )
        outcome = await self._runner.dispatch(
            type(payload).event, payload, owner=request.owner, emit=request.emit
        )
        content = result.content
        is_error = result.is_error
        if outcome.substitute is not None:
            content = outcome.substitute.content
            is_error = outcome.substitute.is_error
        notes: list[str] = []
        if outcome.decision == "deny" and outcome.reason:
            notes.append(f"{type(payload).event.value} hook feedback: {outcome.reason}")
        notes.extend(outcome.additional_context)
        if not notes and outcome.substitute is None:
            return result
        return ToolResultPart(
            call_id=result.call_id,
            name=result.name,
            content=(*content, *(TextPart(text=n) for n in notes)),
            is_error=is_error,
        )

    async def aclose(self) -> None:
        """Nothing to release: the runner is shared (e.g. with the session layer's
        ``dispatch`` calls) and closed by whoever created it."""
