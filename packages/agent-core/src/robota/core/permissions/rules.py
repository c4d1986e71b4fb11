"""Permission rule strings: ``Tool``, ``Tool(pattern)``, ``mcp__server__tool`` (seed 000,
"Permission Argument Registry"; grammar after Claude Code's settings rules).

A rule names a tool and, optionally, a pattern over the argument the tool declared
(:class:`~robota.core.tools.base.PermissionArgument`). The pattern's meaning depends on that
argument's kind and is only interpreted at evaluation time (see ``match_*.py``); here the
string is split into its parts and checked for shape.

Grammar::

    rule      := tool [ "(" pattern ")" ]
    tool      := name | "mcp__" server "__" ( name | "*" ) | "mcp__" server | glob (deny/ask only)
    name      := [A-Za-z0-9_-]{1,64}
    pattern   := any text, parentheses balanced; "*" / "**" alone match every call

Allow rules follow a narrower grammar than deny and ask rules (seed 000): a tool-name glob is
accepted in an allow rule only behind a literal MCP server prefix (``mcp__github__*``), never as
``*`` or ``Edit*``, because an allow would then grant tools the operator never saw.
``mcp__server`` alone means every tool of that server (Claude Code's form).

The parameter form ``Tool(name:glob)`` (a glob over one named parameter) is a deny/ask form
only. In an allow rule it is refused at parse time (:class:`PermissionRuleError`) rather than
read as a plain pattern over the declared argument, which is not what its author meant. Three
spellings that look alike stay accepted because they are patterns of their own kinds: the
command prefix form ``words:*`` (``Bash(npm:*)``), the URL host form ``domain:host`` and an
URL with a scheme (``https://...``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from robota.core.errors import ConfigurationError
from wcmatch import fnmatch

__all__ = [
    "PermissionRule",
    "PermissionRuleError",
    "RuleBehavior",
    "parse_rule",
    "parse_rules",
]

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_GLOB_NAME = re.compile(r"^[A-Za-z0-9_*?\-]{1,64}$")
_MCP = re.compile(r"^mcp__([A-Za-z0-9_-]+?)(?:__([A-Za-z0-9_*-]+))?$")
_PARAMETER_FORM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):(.*)$", re.DOTALL)
"""``name:glob``: the deny/ask parameter form (same shape the evaluator reads)."""


class RuleBehavior(StrEnum):
    """What a matching rule says (seed 000, "Permission System")."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"


class PermissionRuleError(ConfigurationError):
    """A permission rule string is malformed.

    Attributes:
        rule: The rule text as given.
        behavior: The list it came from (``allow``/``deny``/``ask``).
    """

    code = "invalid_permission_rule"

    def __init__(self, message: str, *, rule: str, behavior: RuleBehavior) -> None:
        super().__init__(message)
        self.rule = rule
        self.behavior = behavior


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionRule:
    """One parsed rule.

    Attributes:
        behavior: allow, deny or ask.
        tool: The tool-name part as written (a name, an MCP name, or a glob for deny/ask).
        pattern: The text between the parentheses, or None for a bare ``Tool`` rule.
        text: The rule as written (shown to users in decision reasons).
    """

    behavior: RuleBehavior
    tool: str
    pattern: str | None
    text: str

    @property
    def matches_everything(self) -> bool:
        """True for a bare ``Tool`` rule or ``Tool(*)`` / ``Tool(**)``: every call matches."""
        return self.pattern is None or self.pattern.strip() in ("*", "**")

    def names_tool(self, tool_name: str) -> bool:
        """Return True when this rule's tool part covers ``tool_name``.

        ``mcp__server`` covers every ``mcp__server__*`` tool; ``*``/``?`` in the tool part are
        glob wildcards (case-sensitive).
        """
        if self.tool == tool_name:
            return True
        mcp = _MCP.match(self.tool)
        if mcp is not None and mcp.group(2) is None:
            return tool_name.startswith(f"mcp__{mcp.group(1)}__")
        if "*" in self.tool or "?" in self.tool:
            return fnmatch.fnmatch(tool_name, self.tool, flags=fnmatch.CASE)
        return False


def parse_rule(text: str, behavior: RuleBehavior | str) -> PermissionRule:
    """Parse one rule string.

    Args:
        text: ``"Tool"``, ``"Tool(pattern)"``, ``"mcp__server__tool"``, ``"mcp__server__*"``.
        behavior: The list the rule belongs to.

    Returns:
        The parsed :class:`PermissionRule`.

    Raises:
        PermissionRuleError: Empty text, an invalid tool name, unbalanced or empty parentheses,
            text after the closing parenthesis, a tool-name glob in an allow rule without a
            literal ``mcp__server__`` prefix, or the parameter form ``Tool(name:glob)`` in an
            allow rule.
    """
    kind = RuleBehavior(behavior)
    stripped = text.strip()
    if not stripped:
        raise PermissionRuleError("empty permission rule", rule=text, behavior=kind)
    pattern: str | None = None
    tool = stripped
    if "(" in stripped or ")" in stripped:
        open_at = stripped.find("(")
        if open_at <= 0 or not stripped.endswith(")"):
            raise PermissionRuleError(
                f"rule {text!r} must read Tool or Tool(pattern)", rule=text, behavior=kind
            )
        tool = stripped[:open_at].strip()
        pattern = stripped[open_at + 1 : -1]
        if not _balanced(pattern):
            raise PermissionRuleError(
                f"rule {text!r} has unbalanced parentheses", rule=text, behavior=kind
            )
        if not pattern.strip():
            raise PermissionRuleError(
                f"rule {text!r} has an empty pattern; write {tool!r} to match every call",
                rule=text,
                behavior=kind,
            )
    _check_tool(tool, text, kind)
    if kind is RuleBehavior.ALLOW and pattern is not None and _is_parameter_form(pattern):
        raise PermissionRuleError(
            f"allow rule {text!r}: the parameter form Tool(name:glob) is accepted only in deny "
            "and ask rules; an allow rule's pattern is read against the tool's declared "
            "argument, so write that argument's pattern instead",
            rule=text,
            behavior=kind,
        )
    return PermissionRule(behavior=kind, tool=tool, pattern=pattern, text=stripped)


def parse_rules(
    texts: list[str] | tuple[str, ...], behavior: RuleBehavior | str
) -> tuple[PermissionRule, ...]:
    """Parse a list of rule strings of one behavior.

    Raises:
        PermissionRuleError: For the first malformed rule.
    """
    return tuple(parse_rule(text, behavior) for text in texts)


def _is_parameter_form(pattern: str) -> bool:
    """True for ``name:glob`` that is not a command prefix (``npm:*``), a ``domain:`` URL
    pattern or a URL with a scheme (``https://``)."""
    found = _PARAMETER_FORM.match(pattern.strip())
    if found is None:
        return False
    name, rest = found.group(1), found.group(2)
    if rest == "*":
        return False  # Claude Code's command prefix form: Bash(npm:*)
    if name == "domain":
        return False  # URL host form: WebFetch(domain:example.com)
    return not rest.startswith("//")  # an URL: WebFetch(https://example.com/**)


def _balanced(pattern: str) -> bool:
    depth = 0
    for char in pattern:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _check_tool(tool: str, text: str, kind: RuleBehavior) -> None:
    if _NAME.match(tool):
        return
    mcp = _MCP.match(tool)
    if mcp is not None:
        leaf = mcp.group(2)
        if leaf is None or leaf == "*" or _NAME.match(leaf):
            return
        if kind is not RuleBehavior.ALLOW and _GLOB_NAME.match(leaf):
            return
    elif kind is not RuleBehavior.ALLOW and _GLOB_NAME.match(tool):
        return
    if kind is RuleBehavior.ALLOW and _GLOB_NAME.match(tool):
        raise PermissionRuleError(
            f"allow rule {text!r}: a tool-name wildcard is allowed only as mcp__<server>__*",
            rule=text,
            behavior=kind,
        )
    raise PermissionRuleError(
        f"rule {text!r}: {tool!r} is not a tool name ([A-Za-z0-9_-]{{1,64}})",
        rule=text,
        behavior=kind,
    )
