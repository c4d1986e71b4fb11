"""What a caller passes to the evaluator (seed 000, "Permission System": the interactive
session, background tasks and subagents differ only in the context they pass, never in the
order)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robota.core.permissions.consent import ConsentStore
from robota.core.permissions.decision import Approver
from robota.core.permissions.modes import PermissionMode
from robota.core.permissions.rules import PermissionRule, RuleBehavior, parse_rules
from robota.core.tools.base import PermissionArgument, RiskClass, Tool

__all__ = ["PermissionCall", "PermissionCeiling", "PermissionContext"]


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionCeiling:
    """The most a caller (a background task, a subagent) may ever be allowed.

    A call is inside the ceiling when its effective risk class is in ``risks`` or it matches
    one of ``rules`` (read in the allow direction: a compound command line never matches). A
    call outside is refused, never asked (seed 000).

    Attributes:
        risks: Risk classes allowed, e.g. ``{RiskClass.INSPECT}`` for a read-only subagent.
        rules: Allow-grammar rules naming further calls that stay inside.
        name: How reasons name it, e.g. ``"background task policy"``.
    """

    risks: frozenset[RiskClass] = frozenset()
    rules: tuple[PermissionRule, ...] = ()
    name: str = "ceiling"

    @classmethod
    def of(
        cls,
        *,
        risks: Sequence[RiskClass | str] = (),
        rules: Sequence[str] = (),
        name: str = "ceiling",
    ) -> PermissionCeiling:
        """Build a ceiling from risk-class names and allow-rule strings.

        Raises:
            PermissionRuleError: A rule string is malformed.
            ValueError: An unknown risk class name.
        """
        return cls(
            risks=frozenset(RiskClass(r) for r in risks),
            rules=parse_rules(tuple(rules), RuleBehavior.ALLOW),
            name=name,
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionContext:
    """Everything a caller contributes to a decision.

    Attributes:
        workspace: Workspace root; relative path arguments and patterns are taken from it.
        mode: The permission mode (:class:`PermissionMode`).
        allow: Allow rules (behavior ``allow``).
        deny: Deny rules.
        ask: Ask rules.
        ceiling: The caller's ceiling, or None for none.
        ask_everything: True to put every call that passes deny/ceiling to the approver (modes,
            allow rules and consent do not answer).
        approver: Who answers an ask, or None (an ask is then a denial).
        consent: Remembered consent, or None to remember nothing.
        session_id: Key into ``consent``.
        home: Home directory for ``~`` (None: the current user's).
    """

    workspace: Path
    mode: PermissionMode = PermissionMode.DEFAULT
    allow: tuple[PermissionRule, ...] = ()
    deny: tuple[PermissionRule, ...] = ()
    ask: tuple[PermissionRule, ...] = ()
    ceiling: PermissionCeiling | None = None
    ask_everything: bool = False
    approver: Approver | None = None
    consent: ConsentStore | None = None
    session_id: str = "session"
    home: Path | None = None

    @classmethod
    def from_rules(
        cls,
        workspace: Path | str,
        *,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        ask: Sequence[str] = (),
        **options: Any,
    ) -> PermissionContext:
        """Build a context from settings-style rule strings.

        Args:
            workspace: Workspace root.
            allow: Allow rule strings, e.g. ``["Bash(git status)", "Edit(src/**)"]``.
            deny: Deny rule strings.
            ask: Ask rule strings.
            **options: Any other field of :class:`PermissionContext`.

        Raises:
            PermissionRuleError: A rule string is malformed.
        """
        return cls(
            workspace=Path(workspace),
            allow=parse_rules(tuple(allow), RuleBehavior.ALLOW),
            deny=parse_rules(tuple(deny), RuleBehavior.DENY),
            ask=parse_rules(tuple(ask), RuleBehavior.ASK),
            **options,
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionCall:
    """One call as the evaluator sees it: the tool's declarations and the arguments.

    Attributes:
        tool_name: The tool's name (decisions are by name only).
        risk: The declared risk class, or None.
        argument: The declared permission argument, or None.
        arguments: The call's arguments.
        parameters: Names of the tool's declared parameters (decides whether ``name:`` in a
            deny/ask pattern names a parameter).
    """

    tool_name: str
    risk: RiskClass | None = None
    argument: PermissionArgument | None = None
    arguments: Mapping[str, Any] = field(default_factory=lambda: {})
    parameters: frozenset[str] = frozenset()

    @classmethod
    def of(cls, tool: Tool, arguments: Mapping[str, Any]) -> PermissionCall:
        """The call of ``tool`` with ``arguments``."""
        properties = tool.parameters.get("properties", {})
        names = frozenset(str(k) for k in properties) if isinstance(properties, Mapping) else None
        return cls(
            tool_name=tool.canonical_name,
            risk=tool.risk,
            argument=tool.permission_argument,
            arguments=arguments,
            parameters=names or frozenset(),
        )

    @property
    def value(self) -> object | None:
        """The declared argument's value, or None when undeclared or absent."""
        if self.argument is None:
            return None
        return self.arguments.get(self.argument.key)

    @property
    def value_text(self) -> str | None:
        """The declared argument's value as text (JSON for non-strings), or None."""
        value = self.value
        if value is None:
            return None
        return value if isinstance(value, str) else json.dumps(value, default=str)
