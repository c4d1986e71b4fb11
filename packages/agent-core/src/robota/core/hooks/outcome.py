"""What a hook run decides (seed 000, "Hook System", "Outcome contract").

One hook execution yields a :data:`HookResult`: a verdict (:class:`HookAllow`,
:class:`HookDeny`, :class:`HookAsk`) or :class:`HookError` — the *absence* of a verdict, with the
reason none could be decoded. Errors are never coerced into allow or deny by an executor; the
runner applies the event's posture (:func:`robota.core.hooks.events.enforces`).

The runner combines every matching hook of an event into one :class:`HookOutcome`,
deterministically: deny > ask > substitute > allow, and on an enforcing event an error counts as
a deny named after the hook (``hook 'x' failed: timed out after 5s``). Ties are broken by the
hooks' declaration order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from robota.core.errors import ErrorCategory, RobotaError
from robota.core.tools.base import ToolReturn

__all__ = [
    "HookAllow",
    "HookAsk",
    "HookDecision",
    "HookDeny",
    "HookError",
    "HookOutcome",
    "HookResult",
    "HookRun",
    "PromptBlockedError",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class HookAllow:
    """The hook lets the operation proceed.

    Attributes:
        output: Plain output of the hook (a command's stdout), for logs and transcripts.
        substitute: For tool events: a result to use instead of running the body
            (``PreToolUse``) or instead of the produced result (``PostToolUse*``).
        additional_context: Text the hook asks to add to what the model sees.
        stated: True when the hook said "allow" outright (``"allow": true``,
            ``permissionDecision: "allow"``, ...), not merely exited 0 with nothing to say.
            Only a stated allow answers a ``PermissionRequest`` (a hook that is silent never
            approves a call on a person's behalf). An in-process handler sets it itself.
            Not part of equality (two allows with the same effect compare equal).
    """

    kind: Literal["allow"] = "allow"
    output: str = ""
    substitute: ToolReturn | None = None
    additional_context: str | None = None
    stated: bool = field(default=False, compare=False)


@dataclass(frozen=True, kw_only=True, slots=True)
class HookDeny:
    """The hook refuses the operation.

    Attributes:
        reason: Why; shown to the model as ``Blocked: <reason>`` on ``PreToolUse``.
    """

    kind: Literal["deny"] = "deny"
    reason: str


@dataclass(frozen=True, kw_only=True, slots=True)
class HookAsk:
    """The hook wants a person to confirm (Claude Code's ``permissionDecision: "ask"``).

    Resolves to a person where an approver is attached and to a denial where none is (seed 000,
    "Permission System").

    Attributes:
        reason: What to tell the person.
    """

    kind: Literal["ask"] = "ask"
    reason: str


@dataclass(frozen=True, kw_only=True, slots=True)
class HookError:
    """No verdict could be obtained from the hook.

    Attributes:
        reason: A named reason, e.g. ``"timed out after 5s"``, ``"exited with status 1: ..."``,
            ``"killed by signal SIGKILL"``, ``"failed to start: ..."``,
            ``"invalid output: ..."``, ``"HTTP 500"``.
    """

    kind: Literal["error"] = "error"
    reason: str


class PromptBlockedError(RobotaError):
    """A ``UserPromptSubmit`` hook refused the prompt; the model was not called and nothing was
    added to the conversation (seed 000, "Hook System": a decision the hook stated outright is
    honoured where the fire site can act).

    Attributes:
        reason: The hook's reason (what to show the user).
        outcome: The combined hook outcome.
    """

    code = "prompt_blocked"
    default_category = ErrorCategory.USER
    default_recoverable = True

    def __init__(self, reason: str, *, outcome: HookOutcome) -> None:
        super().__init__(f"prompt blocked by a UserPromptSubmit hook: {reason}")
        self.reason = reason
        self.outcome = outcome


HookResult = HookAllow | HookDeny | HookAsk | HookError
"""What one executor returns for one hook run."""

HookDecision = Literal["allow", "deny", "ask", "substitute"]
"""The combined decision of every hook that ran for one event."""


@dataclass(frozen=True, kw_only=True, slots=True)
class HookRun:
    """One hook's run within a dispatch.

    Attributes:
        hook_name: The hook's display name (its id, or derived from command/url/handler).
        hook_type: The executor type (``"command"``, ``"http"``, ``"callable"``, ...).
        result: What the executor returned.
    """

    hook_name: str
    hook_type: str
    result: HookResult


@dataclass(frozen=True, kw_only=True, slots=True)
class HookOutcome:
    """The combined result of dispatching one event.

    Attributes:
        event_name: The event dispatched (e.g. ``"PreToolUse"``).
        decision: ``"deny"`` if any hook denied (or, on an enforcing event, errored);
            else ``"ask"`` if any asked; else ``"substitute"`` if any allowed with a substitute;
            else ``"allow"`` (also when no hook matched).
        reason: For deny/ask: the reason of the first such hook in declaration order (errors on
            an enforcing event read ``hook '<name>' failed: <reason>``); else None.
        substitute: For ``"substitute"`` (and for ``"ask"``, to apply once approved): the first
            substitute in declaration order; else None.
        additional_context: Every allowing hook's additional context, in declaration order.
        runs: Every hook that ran, in declaration order.
        enforcing: Whether the event enforces (errors failed closed).
        approved: True when the decision is ``"allow"``/``"substitute"`` and at least one hook
            stated its allow outright (:attr:`HookAllow.stated`); a ``PermissionRequest`` fire
            site answers the question only then.
    """

    event_name: str
    decision: HookDecision = "allow"
    reason: str | None = None
    substitute: ToolReturn | None = None
    additional_context: tuple[str, ...] = ()
    runs: tuple[HookRun, ...] = ()
    enforcing: bool = False
    approved: bool = False

    @property
    def blocked(self) -> bool:
        """True when the decision is ``"deny"``."""
        return self.decision == "deny"

    @property
    def errors(self) -> tuple[HookRun, ...]:
        """The runs that produced no verdict."""
        return tuple(r for r in self.runs if isinstance(r.result, HookError))


def combine(event_name: str, runs: tuple[HookRun, ...], *, enforcing: bool) -> HookOutcome:
    """Combine hook runs (in declaration order) into one :class:`HookOutcome`.

    Rule: deny > ask > substitute > allow; on an enforcing event an error is a deny with reason
    ``hook '<name>' failed: <reason>``; on an advisory event errors do not change the decision.
    """
    deny: str | None = None
    ask: str | None = None
    substitute: ToolReturn | None = None
    context: list[str] = []
    for run in runs:
        result = run.result
        if isinstance(result, HookDeny):
            deny = deny if deny is not None else result.reason
        elif isinstance(result, HookError):
            if enforcing and deny is None:
                deny = f"hook '{run.hook_name}' failed: {result.reason}"
        elif isinstance(result, HookAsk):
            ask = ask if ask is not None else result.reason
        else:
            if result.substitute is not None and substitute is None:
                substitute = result.substitute
            if result.additional_context:
                context.append(result.additional_context)
    if deny is not None:
        return HookOutcome(
            event_name=event_name, decision="deny", reason=deny, runs=runs, enforcing=enforcing
        )
    if ask is not None:
        return HookOutcome(
            event_name=event_name,
            decision="ask",
            reason=ask,
            substitute=substitute,
            additional_context=tuple(context),
            runs=runs,
            enforcing=enforcing,
        )
    return HookOutcome(
        event_name=event_name,
        decision="substitute" if substitute is not None else "allow",
        substitute=substitute,
        additional_context=tuple(context),
        runs=runs,
        enforcing=enforcing,
        approved=any(isinstance(r.result, HookAllow) and r.result.stated for r in runs),
    )
