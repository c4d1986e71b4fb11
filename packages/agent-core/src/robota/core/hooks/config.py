"""Hook configuration values and matchers (seed 000, "Hook System"; seed 003, "Settings layers").

A :class:`HookConfig` is one hook: the event it attaches to, a matcher, its executor ``type``
and that type's fields (``command`` for ``"command"``, ``url`` for ``"http"``, ``handler`` for
``"callable"``), a ``timeout`` in seconds and an optional ``id`` (so a settings layer can
disable it by id). :func:`hooks_from_settings` reads Claude Code's settings shape::

    {"hooks": {"PreToolUse": [
        {"matcher": "Bash|Write", "id": "guard",
         "hooks": [{"type": "command", "command": "python3 guard.py", "timeout": 30}]}
    ]}}

Matchers (:class:`Matcher`): empty or ``*`` matches everything; a pattern made only of
``[A-Za-z0-9_-]`` and ``|`` is a list of exact names (``Bash|Write``); anything else is a Python
regular expression that must match the *whole* subject (``mcp__.*``, ``Notebook(Edit|Read)``).
The subject is the tool name for tool events, the ``source`` of ``SessionStart``, the
``trigger`` of ``PreCompact`` and so on (:attr:`HookInput.subject`); events without a subject
(``UserPromptSubmit``, ``Stop``) ignore the matcher.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from robota.core.errors import ConfigurationError
from robota.core.hooks.events import HookEventName, HookInput
from robota.core.hooks.outcome import HookResult

__all__ = [
    "DEFAULT_TIMEOUT",
    "HookConfig",
    "HookConfigurationError",
    "HookHandler",
    "Matcher",
    "hooks_from_settings",
]

DEFAULT_TIMEOUT = 60.0
"""Default per-hook timeout in seconds (Claude Code's command-hook default)."""

HookHandler = Callable[[HookInput], Awaitable[HookResult]]
"""An in-process hook: ``async def handler(input: HookInput) -> HookResult``."""

_SIMPLE = re.compile(r"[A-Za-z0-9_\-|]+")


class HookConfigurationError(ConfigurationError):
    """A hook cannot work as configured; raised at construction, before the first turn.

    Attributes:
        hook_name: The hook's display name.
        hook_type: Its executor type.
    """

    code = "hook_configuration"

    def __init__(self, message: str, *, hook_name: str, hook_type: str) -> None:
        super().__init__(message)
        self.hook_name = hook_name
        self.hook_type = hook_type


@dataclass(frozen=True, slots=True)
class Matcher:
    """A compiled matcher (see the module docstring for the syntax).

    Attributes:
        pattern: The source text.
        kind: ``"all"``, ``"names"`` (exact alternatives) or ``"regex"`` (full match).
        names: The exact names for ``"names"``.
        regex: The compiled expression for ``"regex"``.
    """

    pattern: str
    kind: Literal["all", "names", "regex"]
    names: frozenset[str] = frozenset()
    regex: re.Pattern[str] | None = None

    @classmethod
    def compile(cls, pattern: str) -> Matcher:
        """Compile ``pattern``.

        Raises:
            re.error: ``pattern`` is neither simple names nor a valid regular expression.
        """
        text = pattern.strip()
        if text in ("", "*"):
            return cls(pattern=pattern, kind="all")
        if _SIMPLE.fullmatch(text):
            names = frozenset(n for n in text.split("|") if n)
            return cls(pattern=pattern, kind="names", names=names)
        return cls(pattern=pattern, kind="regex", regex=re.compile(text))

    def matches(self, subject: str | None) -> bool:
        """True when a hook with this matcher runs for ``subject`` (None: always)."""
        if subject is None or self.kind == "all":
            return True
        if self.kind == "names":
            return subject in self.names
        assert self.regex is not None
        return self.regex.fullmatch(subject) is not None


@dataclass(frozen=True, kw_only=True, slots=True)
class HookConfig:
    """One configured hook.

    Attributes:
        event: The event it attaches to.
        type: Executor type: ``"command"``, ``"http"``, ``"callable"`` or a type the host
            registered an executor for.
        matcher: See :class:`Matcher`.
        command: For ``"command"``: the command line.
        shell: For ``"command"``: True (default) runs ``/bin/sh -c <command>`` (pipes,
            ``$VARS``, ``&&`` work, as in Claude Code); False splits it with :func:`shlex.split`
            and executes the first word directly (no shell).
        env: Extra environment variables for a command hook (added to a fresh copy of the
            host's environment).
        url: For ``"http"``: the URL the input is POSTed to.
        headers: For ``"http"``: extra request headers.
        handler: For ``"callable"``: the in-process handler (:data:`HookHandler`).
        timeout: Seconds before the run is abandoned (error ``timed out after <n>s``); > 0.
        id: Optional stable id (display name; lets settings layers disable it).

    Raises:
        HookConfigurationError: ``matcher`` is an invalid regular expression or ``timeout`` is
            not positive.
    """

    event: HookEventName
    type: str = "command"
    matcher: str = ""
    command: str | None = None
    shell: bool = True
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    handler: HookHandler | None = None
    timeout: float = DEFAULT_TIMEOUT
    id: str | None = None
    compiled: Matcher = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            compiled = Matcher.compile(self.matcher)
        except re.error as exc:
            raise HookConfigurationError(
                f"hook {self.name!r}: invalid matcher {self.matcher!r}: {exc}",
                hook_name=self.name,
                hook_type=self.type,
            ) from exc
        if not self.timeout > 0:
            raise HookConfigurationError(
                f"hook {self.name!r}: timeout must be > 0 seconds, got {self.timeout!r}",
                hook_name=self.name,
                hook_type=self.type,
            )
        object.__setattr__(self, "compiled", compiled)

    @property
    def name(self) -> str:
        """Display name: the id, else the command, URL or handler's qualified name."""
        if self.id:
            return self.id
        if self.command:
            return self.command
        if self.url:
            return self.url
        if self.handler is not None:
            return getattr(self.handler, "__qualname__", repr(self.handler))
        return f"{self.type} hook"

    def matches(self, payload: HookInput) -> bool:
        """True when this hook runs for ``payload`` (same event and matcher accepts)."""
        return type(payload).event == self.event and self.compiled.matches(payload.subject)


class _HookEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    type: str
    command: str | None = None
    shell: bool = True
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    id: str | None = None


class _HookGroup(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    matcher: str = ""
    id: str | None = None
    hooks: list[_HookEntry]


def hooks_from_settings(settings: Mapping[str, Any]) -> tuple[HookConfig, ...]:
    """Read hooks from Claude Code's settings shape.

    Args:
        settings: Either ``{"hooks": {<EventName>: [group, ...]}}`` or the inner mapping.
            A group is ``{"matcher": str, "id": str?, "hooks": [entry, ...]}``; an entry is
            ``{"type": str, "command"|"url": str, "timeout": seconds, "id": str?, ...}``. An
            entry without its own id inherits the group's id (suffixed ``#<n>`` when the group
            has several entries).

    Returns:
        The hooks in declaration order.

    Raises:
        HookConfigurationError: Unknown event name, unknown field, wrong type, bad matcher.
    """
    inner_raw = settings.get("hooks", settings)
    if not isinstance(inner_raw, Mapping):
        raise HookConfigurationError("'hooks' must be an object", hook_name="", hook_type="")
    out: list[HookConfig] = []
    for event_key, groups_raw in dict(inner_raw).items():  # pyright: ignore[reportUnknownArgumentType]
        try:
            event = HookEventName(str(event_key))
        except ValueError:
            raise HookConfigurationError(
                f"unknown hook event {event_key!r}", hook_name="", hook_type=""
            ) from None
        try:
            groups = [_HookGroup.model_validate(g) for g in groups_raw]
        except (ValidationError, TypeError) as exc:
            raise HookConfigurationError(
                f"invalid hooks for {event.value}: {exc}", hook_name="", hook_type=""
            ) from exc
        for group in groups:
            for n, entry in enumerate(group.hooks):
                hook_id = entry.id
                if hook_id is None and group.id is not None:
                    hook_id = group.id if len(group.hooks) == 1 else f"{group.id}#{n + 1}"
                out.append(
                    HookConfig(
                        event=event,
                        type=entry.type,
                        matcher=group.matcher,
                        command=entry.command,
                        shell=entry.shell,
                        env=dict(entry.env),
                        url=entry.url,
                        headers=dict(entry.headers),
                        timeout=entry.timeout,
                        id=hook_id,
                    )
                )
    return tuple(out)
