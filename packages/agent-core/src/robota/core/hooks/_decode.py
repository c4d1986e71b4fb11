"""Decoding a hook's JSON answer into a :data:`HookResult` (the documented output schema).

The schema (shared by command hooks' stdout and HTTP hooks' response body; every field optional
unless stated)::

    {
      "continue": true | false,             # false = stop (Claude Code's common field)
      "stopReason": "<text>",               # reason for continue:false
      "decision": "block" | "approve",      # "block" = explicit block directive
      "reason": "<text>",                   # reason for block / allow:false
      "allow": true | false,                # the verdict field (required for HTTP hooks)
      "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow" | "deny" | "ask",
        "permissionDecisionReason": "<text>",
        "decision": {"behavior": "allow" | "deny", "message": "<text>"},  # PermissionRequest
        "additionalContext": "<text>",
        "substituteResult": "<text>" | {"text": "<text>", "isError": false}
      }
    }

These are Claude Code's hook output fields (https://docs.claude.com/en/docs/claude-code/hooks),
so a script written for that host is understood here; other fields (``suppressOutput``,
``systemMessage``, ...) are ignored.

Order of decoding (seed 000, "Outcome contract"):

1. An explicit block directive wins even beside otherwise undecodable fields:
   ``continue`` being exactly ``false``, ``decision == "block"``,
   ``hookSpecificOutput.permissionDecision == "deny"``,
   ``hookSpecificOutput.decision.behavior == "deny"`` or ``allow`` being exactly ``false``.
2. Any present field of the wrong type or value is an error (no verdict), e.g. ``"allow":
   "true"`` (a string), ``"decision": "maybe"``, ``"continue": "no"``.
3. When a verdict is required (HTTP) and ``allow`` is not exactly ``true``: error.
4. ``permissionDecision == "ask"``: ask. Otherwise allow, with ``substituteResult`` and
   ``additionalContext`` when given; the allow is *stated* (:attr:`HookAllow.stated`) when the
   body said so outright (``"allow": true``, ``"decision": "approve"``,
   ``permissionDecision == "allow"`` or ``decision.behavior == "allow"``). Only a stated allow
   answers a ``PermissionRequest``; silence never approves anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from robota.core.hooks.outcome import HookAllow, HookAsk, HookDeny, HookError, HookResult
from robota.core.tools.base import ToolReturn

__all__ = ["DEFAULT_BLOCK_REASON", "decode_answer", "decode_json_text"]

DEFAULT_BLOCK_REASON = "blocked by hook"

_DECISIONS = frozenset({"block", "approve"})
_PERMISSION_DECISIONS = frozenset({"allow", "deny", "ask"})


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _substitute(value: object) -> ToolReturn | str:
    """The substitute result, or a problem description (str) when malformed."""
    if isinstance(value, str):
        return ToolReturn.text(value)
    if isinstance(value, Mapping):
        body = cast(Mapping[str, Any], value)
        text = body.get("text")
        is_error = body.get("isError", False)
        if not isinstance(text, str):
            return "'substituteResult.text' must be a string"
        if not isinstance(is_error, bool):
            return "'substituteResult.isError' must be true or false"
        return ToolReturn.text(text, is_error=is_error)
    return "'substituteResult' must be a string or an object"


def decode_answer(body: object, *, require_verdict: bool, output: str = "") -> HookResult:
    """Decode a parsed JSON answer.

    Args:
        body: The parsed JSON value.
        require_verdict: True for HTTP hooks: ``allow`` must be exactly true or false (unless a
            block directive is present).
        output: The raw text, carried on an allow as :attr:`HookAllow.output`.

    Returns:
        The decoded :data:`HookResult` (never raises).
    """
    if not isinstance(body, Mapping):
        return HookError(reason="invalid output: JSON answer is not an object")
    answer = cast(Mapping[str, Any], body)
    reason = _text(answer.get("reason"))
    specific_raw = answer.get("hookSpecificOutput")
    specific: Mapping[str, Any] = (
        cast(Mapping[str, Any], specific_raw) if isinstance(specific_raw, Mapping) else {}
    )
    permission = specific.get("permissionDecision")
    permission_reason = _text(specific.get("permissionDecisionReason"))
    request_raw = specific.get("decision")
    request: Mapping[str, Any] = (
        cast(Mapping[str, Any], request_raw) if isinstance(request_raw, Mapping) else {}
    )
    behavior = request.get("behavior")
    request_message = _text(request.get("message"))

    # 1. explicit block directives win.
    if answer.get("continue") is False:
        stop = _text(answer.get("stopReason"))
        return HookDeny(reason=stop or reason or permission_reason or DEFAULT_BLOCK_REASON)
    if behavior == "deny":
        return HookDeny(reason=request_message or reason or DEFAULT_BLOCK_REASON)
    if answer.get("decision") == "block":
        return HookDeny(reason=reason or permission_reason or DEFAULT_BLOCK_REASON)
    if permission == "deny":
        return HookDeny(reason=permission_reason or reason or DEFAULT_BLOCK_REASON)
    allow = answer.get("allow")
    if allow is False:
        return HookDeny(reason=reason or permission_reason or DEFAULT_BLOCK_REASON)

    # 2. malformed fields mean no verdict.
    problems: list[str] = []
    if "decision" in answer and answer.get("decision") not in _DECISIONS:
        problems.append('\'decision\' must be "block" or "approve"')
    if "allow" in answer and not isinstance(allow, bool):
        problems.append("'allow' must be exactly true or false")
    if "reason" in answer and not isinstance(answer.get("reason"), str):
        problems.append("'reason' must be a string")
    if "continue" in answer and not isinstance(answer.get("continue"), bool):
        problems.append("'continue' must be exactly true or false")
    if "stopReason" in answer and not isinstance(answer.get("stopReason"), str):
        problems.append("'stopReason' must be a string")
    if request_raw is not None and not isinstance(request_raw, Mapping):
        problems.append("'hookSpecificOutput.decision' must be an object")
    elif request_raw is not None and behavior not in ("allow", "deny"):
        problems.append('\'hookSpecificOutput.decision.behavior\' must be "allow" or "deny"')
    if specific_raw is not None and not isinstance(specific_raw, Mapping):
        problems.append("'hookSpecificOutput' must be an object")
    if "permissionDecision" in specific and permission not in _PERMISSION_DECISIONS:
        problems.append('\'permissionDecision\' must be "allow", "deny" or "ask"')
    context = specific.get("additionalContext")
    if context is not None and not isinstance(context, str):
        problems.append("'additionalContext' must be a string")
    substitute: ToolReturn | None = None
    if "substituteResult" in specific:
        decoded = _substitute(specific.get("substituteResult"))
        if isinstance(decoded, str):
            problems.append(decoded)
        else:
            substitute = decoded
    if problems:
        return HookError(reason="invalid output: " + "; ".join(problems))

    # 3. HTTP hooks must state the verdict outright.
    if require_verdict and allow is not True:
        return HookError(reason="invalid output: no 'allow' verdict (must be exactly true/false)")

    # 4. ask, else allow.
    if permission == "ask":
        return HookAsk(reason=permission_reason or reason or "hook asks for confirmation")
    stated = (
        allow is True
        or answer.get("decision") == "approve"
        or permission == "allow"
        or behavior == "allow"
    )
    return HookAllow(
        output=output,
        substitute=substitute,
        additional_context=context if isinstance(context, str) and context else None,
        stated=stated,
    )


def decode_json_text(text: str, *, require_verdict: bool) -> HookResult:
    """Parse ``text`` as JSON and decode it; unparsable text is an error (no verdict)."""
    try:
        body = json.loads(text)
    except ValueError as exc:
        return HookError(reason=f"invalid output: not JSON ({exc.__class__.__name__}: {exc})")
    return decode_answer(body, require_verdict=require_verdict, output=text)
