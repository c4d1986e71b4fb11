"""Hook event names, their JSON inputs and their enforcement posture (seed 000, "Hook System").

The names are Claude Code's hook event names, the field's de-facto standard
(https://docs.claude.com/en/docs/claude-code/hooks), so a hook script written for one host runs
under another. Every event has a typed input; :meth:`HookInput.to_json` gives the JSON object a
command hook reads on stdin and an HTTP hook receives as its POST body. Every input carries
``hook_event_name``, ``session_id`` and ``cwd`` (plus ``transcript_path`` and
``permission_mode`` when the host knows them); the per-event fields are listed on each class.

Posture: two questions per event, recorded in :data:`POSTURE`. *Can the fire site act on a
block?* (:func:`can_block`): a hook's explicit deny stops the operation only where the fire
site awaits and inspects the result — ``PreToolUse`` (the tool body does not run),
``PermissionRequest`` (the question is answered "deny" instead of reaching a person) and
``UserPromptSubmit`` (the turn is refused before the model is called). *Does an error fail
closed?* (:func:`enforces`): only the tool-use gating events, ``PreToolUse`` and
``PermissionRequest``. Every other event is advisory: errors are logged and reported as
``hook.completed`` events and never block; a deny there is reported and changes nothing.
:func:`enforces` and :func:`can_block` are the published predicates; consumers must not
re-derive the rules from the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, ClassVar

from robota.core.messages import JsonValue

__all__ = [
    "POSTURE",
    "HookEventName",
    "HookInput",
    "NotificationInput",
    "PermissionRequestInput",
    "PostToolUseFailureInput",
    "PostToolUseInput",
    "Posture",
    "PreCompactInput",
    "PreToolUseInput",
    "SessionEndInput",
    "SessionStartInput",
    "StopInput",
    "SubagentStartInput",
    "SubagentStopInput",
    "UserPromptSubmitInput",
    "can_block",
    "enforces",
]


class HookEventName(StrEnum):
    """The lifecycle points a hook can attach to (Claude Code's names)."""

    PRE_TOOL_USE = "PreToolUse"
    """Before a tool body runs; may block or substitute the result."""
    POST_TOOL_USE = "PostToolUse"
    """After a tool body (or a substitute) produced a successful result."""
    POST_TOOL_USE_FAILURE = "PostToolUseFailure"
    """After a tool call produced an error result."""
    USER_PROMPT_SUBMIT = "UserPromptSubmit"
    """A user prompt is about to be sent to the model."""
    SESSION_START = "SessionStart"
    """A session started or resumed."""
    SESSION_END = "SessionEnd"
    """A session ended."""
    STOP = "Stop"
    """The agent finished answering (end of a run)."""
    SUBAGENT_START = "SubagentStart"
    """A subagent was started."""
    SUBAGENT_STOP = "SubagentStop"
    """A subagent finished."""
    PRE_COMPACT = "PreCompact"
    """History compaction is about to run."""
    NOTIFICATION = "Notification"
    """The host shows the user a notification (e.g. waiting for input)."""
    PERMISSION_REQUEST = "PermissionRequest"
    """A permission question is about to be put to a person; a hook may answer it."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Posture:
    """One row of the posture table.

    Attributes:
        enforcing: True when an error outcome blocks (fails closed). Implies ``blocks``.
        blocks: True when the fire site awaits and inspects the result, so a hook's explicit
            deny stops the operation.
        fire_site: Where the event is fired and what that site does with the result (the
            reason the row may or may not block or enforce).
    """

    enforcing: bool
    blocks: bool
    fire_site: str


POSTURE: Mapping[HookEventName, Posture] = {
    HookEventName.PRE_TOOL_USE: Posture(
        enforcing=True,
        blocks=True,
        fire_site="HookGate.before_tool: awaited and inspected before the tool body runs",
    ),
    HookEventName.PERMISSION_REQUEST: Posture(
        enforcing=True,
        blocks=True,
        fire_site="hooked_approver (robota.core.hooks.permission): awaited before a person is "
        "asked; a deny or an error answers deny, a stated allow answers allow",
    ),
    HookEventName.USER_PROMPT_SUBMIT: Posture(
        enforcing=False,
        blocks=True,
        fire_site="InteractiveSession turn start: awaited before the model is called; a deny "
        "refuses the turn (PromptBlockedError), an error is only reported",
    ),
    HookEventName.POST_TOOL_USE: Posture(
        enforcing=False,
        blocks=False,
        fire_site="HookGate.after_tool: the body already ran; can only annotate or replace",
    ),
    HookEventName.POST_TOOL_USE_FAILURE: Posture(
        enforcing=False,
        blocks=False,
        fire_site="HookGate.after_tool: the body already failed; can only annotate or replace",
    ),
    HookEventName.SESSION_START: Posture(
        enforcing=False, blocks=False, fire_site="InteractiveSession start/resume/fork"
    ),
    HookEventName.SESSION_END: Posture(
        enforcing=False, blocks=False, fire_site="InteractiveSession.shutdown (after the fact)"
    ),
    HookEventName.STOP: Posture(
        enforcing=False, blocks=False, fire_site="InteractiveSession after each turn"
    ),
    HookEventName.SUBAGENT_START: Posture(
        enforcing=False,
        blocks=False,
        fire_site="SpawnAgentTool before the child runs (observational)",
    ),
    HookEventName.SUBAGENT_STOP: Posture(
        enforcing=False,
        blocks=False,
        fire_site="SpawnAgentTool after the child ended (after the fact)",
    ),
    HookEventName.PRE_COMPACT: Posture(
        enforcing=False, blocks=False, fire_site="InteractiveSession compaction (observational)"
    ),
    HookEventName.NOTIFICATION: Posture(
        enforcing=False,
        blocks=False,
        fire_site="hooked_approver when a person is about to be asked (permission_prompt)",
    ),
}
"""Per-event posture (seed 000, "Per-event enforcement posture"). Read it through
:func:`enforces`."""


def enforces(event_name: HookEventName | str) -> bool:
    """Return True when a hook *error* on ``event_name`` blocks the operation (fails closed).

    Args:
        event_name: A :class:`HookEventName` or its string value (e.g. ``"PreToolUse"``).
            Unknown names are advisory (False).

    Returns:
        True only for ``PreToolUse`` and ``PermissionRequest``.
    """
    try:
        name = HookEventName(event_name)
    except ValueError:
        return False
    return POSTURE[name].enforcing


def can_block(event_name: HookEventName | str) -> bool:
    """Return True when a hook's explicit deny on ``event_name`` stops the operation.

    Args:
        event_name: A :class:`HookEventName` or its string value. Unknown names: False.

    Returns:
        True only for ``PreToolUse``, ``PermissionRequest`` and ``UserPromptSubmit``.
    """
    try:
        name = HookEventName(event_name)
    except ValueError:
        return False
    return POSTURE[name].blocks


def _json_of(value: Any) -> JsonValue:
    if isinstance(value, Mapping):
        return {str(k): _json_of(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list | tuple):
        return [_json_of(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


@dataclass(frozen=True, kw_only=True, slots=True)
class HookInput:
    """Fields every hook input carries.

    Attributes:
        session_id: The session (or run, when there is no session) the event belongs to.
        cwd: The working directory of the session (absolute path).
        transcript_path: Path of the session transcript, when the host keeps one.
        permission_mode: The active permission mode name, when known.
    """

    event: ClassVar[HookEventName]
    subject_field: ClassVar[str | None] = None
    """Name of the field a hook's matcher is tested against, or None (matcher ignored)."""

    session_id: str = ""
    cwd: str = ""
    transcript_path: str | None = None
    permission_mode: str | None = None

    @property
    def subject(self) -> str | None:
        """The value the matcher is tested against (tool name, source, trigger...), or None
        when this event has no matcher subject (every hook of the event runs)."""
        name = type(self).subject_field
        if name is None:
            return None
        value = getattr(self, name)
        return None if value is None else str(value)

    def to_json(self) -> dict[str, JsonValue]:
        """The JSON object sent to command hooks (stdin) and HTTP hooks (POST body).

        ``hook_event_name`` comes first; fields that are None are omitted.
        """
        out: dict[str, JsonValue] = {"hook_event_name": type(self).event.value}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = _json_of(value)
        return out


@dataclass(frozen=True, kw_only=True, slots=True)
class PreToolUseInput(HookInput):
    """``PreToolUse`` input. Matcher subject: ``tool_name``.

    Attributes:
        tool_name: The tool the model called.
        tool_input: The (validated) arguments, a JSON object.
        tool_use_id: The provider's call id.
        call_id: Robota's unique id of the call.
        run_id: The run's id.
    """

    event: ClassVar[HookEventName] = HookEventName.PRE_TOOL_USE
    subject_field: ClassVar[str | None] = "tool_name"
    tool_name: str
    tool_input: Mapping[str, JsonValue] = field(default_factory=dict[str, JsonValue])
    tool_use_id: str = ""
    call_id: str = ""
    run_id: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class PostToolUseInput(HookInput):
    """``PostToolUse`` input. Matcher subject: ``tool_name``.

    Attributes:
        tool_name, tool_input, tool_use_id, call_id, run_id: As for :class:`PreToolUseInput`.
        tool_response: ``{"content": <text of the result>, "is_error": false}``.
    """

    event: ClassVar[HookEventName] = HookEventName.POST_TOOL_USE
    subject_field: ClassVar[str | None] = "tool_name"
    tool_name: str
    tool_input: Mapping[str, JsonValue] = field(default_factory=dict[str, JsonValue])
    tool_response: JsonValue = None
    tool_use_id: str = ""
    call_id: str = ""
    run_id: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class PostToolUseFailureInput(HookInput):
    """``PostToolUseFailure`` input. Matcher subject: ``tool_name``.

    Attributes:
        tool_name, tool_input, tool_use_id, call_id, run_id: As for :class:`PreToolUseInput`.
        error: The error text the model will see.
    """

    event: ClassVar[HookEventName] = HookEventName.POST_TOOL_USE_FAILURE
    subject_field: ClassVar[str | None] = "tool_name"
    tool_name: str
    tool_input: Mapping[str, JsonValue] = field(default_factory=dict[str, JsonValue])
    error: str = ""
    tool_use_id: str = ""
    call_id: str = ""
    run_id: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionRequestInput(HookInput):
    """``PermissionRequest`` input. Matcher subject: ``tool_name``.

    Attributes:
        tool_name, tool_input, tool_use_id: The call a person would be asked about.
        reason: Why permission evaluation asks (the rule or mode that asked), if known.
    """

    event: ClassVar[HookEventName] = HookEventName.PERMISSION_REQUEST
    subject_field: ClassVar[str | None] = "tool_name"
    tool_name: str
    tool_input: Mapping[str, JsonValue] = field(default_factory=dict[str, JsonValue])
    tool_use_id: str = ""
    reason: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class UserPromptSubmitInput(HookInput):
    """``UserPromptSubmit`` input (no matcher subject).

    Attributes:
        prompt: The user's prompt text.
    """

    event: ClassVar[HookEventName] = HookEventName.USER_PROMPT_SUBMIT
    prompt: str


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionStartInput(HookInput):
    """``SessionStart`` input. Matcher subject: ``source``.

    Attributes:
        source: ``"startup"``, ``"resume"``, ``"clear"`` or ``"compact"``.
    """

    event: ClassVar[HookEventName] = HookEventName.SESSION_START
    subject_field: ClassVar[str | None] = "source"
    source: str = "startup"


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionEndInput(HookInput):
    """``SessionEnd`` input. Matcher subject: ``reason``.

    Attributes:
        reason: Why the session ended, e.g. ``"clear"``, ``"logout"``, ``"other"``.
    """

    event: ClassVar[HookEventName] = HookEventName.SESSION_END
    subject_field: ClassVar[str | None] = "reason"
    reason: str = "other"


@dataclass(frozen=True, kw_only=True, slots=True)
class StopInput(HookInput):
    """``Stop`` input (no matcher subject).

    Attributes:
        stop_hook_active: True when the agent is already continuing because of a Stop hook
            (lets a hook avoid looping forever).
    """

    event: ClassVar[HookEventName] = HookEventName.STOP
    stop_hook_active: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentStartInput(HookInput):
    """``SubagentStart`` input. Matcher subject: ``agent_type``.

    Attributes:
        agent_id: The subagent's id.
        agent_type: The subagent's kind/name (e.g. ``"explore"``).
    """

    event: ClassVar[HookEventName] = HookEventName.SUBAGENT_START
    subject_field: ClassVar[str | None] = "agent_type"
    agent_id: str
    agent_type: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentStopInput(HookInput):
    """``SubagentStop`` input. Matcher subject: ``agent_type``.

    Attributes:
        agent_id: The subagent's id.
        agent_type: The subagent's kind/name.
        stop_hook_active: As for :class:`StopInput`.
    """

    event: ClassVar[HookEventName] = HookEventName.SUBAGENT_STOP
    subject_field: ClassVar[str | None] = "agent_type"
    agent_id: str
    agent_type: str = ""
    stop_hook_active: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class PreCompactInput(HookInput):
    """``PreCompact`` input. Matcher subject: ``trigger``.

    Attributes:
        trigger: ``"manual"`` or ``"auto"``.
        custom_instructions: The user's instructions for a manual compaction, if any.
    """

    event: ClassVar[HookEventName] = HookEventName.PRE_COMPACT
    subject_field: ClassVar[str | None] = "trigger"
    trigger: str = "auto"
    custom_instructions: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class NotificationInput(HookInput):
    """``Notification`` input. Matcher subject: ``notification_type``.

    Attributes:
        message: The notification text.
        notification_type: Its kind, e.g. ``"permission_prompt"``, ``"idle_prompt"``.
    """

    event: ClassVar[HookEventName] = HookEventName.NOTIFICATION
    subject_field: ClassVar[str | None] = "notification_type"
    message: str
    notification_type: str = ""
