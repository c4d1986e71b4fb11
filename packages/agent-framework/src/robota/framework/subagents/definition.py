"""Agent definitions: a markdown file whose YAML front matter names the agent and whose body is
its system prompt (seed 003, "Agent definitions resolve through three precedence tiers").

File shape::

    ---
    name: code-reviewer
    description: Reviews a diff for bugs.
    tools: [read_file, grep]          # allowlist; a comma-separated string also works
    disallowed_tools: [shell]         # denylist (``disallowedTools`` is accepted too)
    model: small-model                # optional; omitted or ``inherit`` uses the parent's
    ---
    You review code. Report bugs only.

Omitting ``tools`` means "every tool the parent has" (after the other filters); an explicit
empty list means no tools — restriction must be asked for, and is honoured when asked (seed 003,
"Restriction must be asked for; extension may be assumed").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from robota.core.errors import ErrorCategory, RobotaError

__all__ = ["AgentDefinition", "AgentDefinitionError", "DefinitionTier", "parse_agent_definition"]

DefinitionTier = Literal["disk", "injected", "builtin"]
"""Where a definition came from, highest precedence first."""

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_FENCE = "---"


class AgentDefinitionError(RobotaError):
    """An agent definition file cannot be used (no front matter, bad YAML, missing name or
    description, wrong field types).

    Attributes:
        source: The file, when the definition came from one.
    """

    code = "agent_definition_invalid"
    default_category = ErrorCategory.USER

    def __init__(self, message: str, *, source: Path | None = None) -> None:
        super().__init__(message if source is None else f"{source}: {message}")
        self.source = source


@dataclass(frozen=True, kw_only=True, slots=True)
class AgentDefinition:
    """One subagent a parent may spawn.

    Attributes:
        name: Identifier the model passes to the spawn tool (``^[a-zA-Z0-9_-]{1,64}$``).
        description: When to use it (shown to the parent model).
        prompt: The child's system prompt.
        tools: Allowlist of tool names, or None for every tool.
        disallowed_tools: Denylist of tool names (applied before the allowlist).
        model: Model id for the child, or None to use the parent's.
        tier: Where it came from.
        source: The file it was read from, if any.
    """

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] = ()
    model: str | None = None
    tier: DefinitionTier = "injected"
    source: Path | None = None


def parse_agent_definition(
    text: str, *, source: Path | None = None, tier: DefinitionTier = "disk"
) -> AgentDefinition:
    """Parse a definition file's text.

    Args:
        text: The whole file.
        source: The file (for error messages and :attr:`AgentDefinition.source`).
        tier: The tier to record.

    Raises:
        AgentDefinitionError: see the class.

    Example:
        >>> d = parse_agent_definition("---\\nname: scout\\ndescription: Finds files.\\n"
        ...     "tools: read_file, grep\\n---\\nYou find files.\\n")
        >>> d.name, d.tools, d.prompt
        ('scout', ('read_file', 'grep'), 'You find files.')
    """
    # split on "\n" only: str.splitlines() also splits on \x1c-\x1e, \x85, \u2028 and would
    # rewrite a prompt that contains them
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != _FENCE:
        raise AgentDefinitionError(
            "the file does not start with a '---' front matter block", source=source
        )
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == _FENCE)
    except StopIteration:
        raise AgentDefinitionError(
            "the front matter block is not closed by '---'", source=source
        ) from None
    try:
        meta: Any = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        raise AgentDefinitionError(
            f"the front matter is not valid YAML: {exc}", source=source
        ) from exc
    if not isinstance(meta, dict):
        raise AgentDefinitionError("the front matter must be a mapping", source=source)
    fields: dict[str, Any] = {str(k): v for k, v in meta.items()}  # pyright: ignore[reportUnknownVariableType]
    name = fields.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise AgentDefinitionError(
            "'name' must be a string of letters, digits, '_' or '-' (1-64 characters)",
            source=source,
        )
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        raise AgentDefinitionError("'description' must be a non-empty string", source=source)
    model = fields.get("model")
    if model is not None and not isinstance(model, str):
        raise AgentDefinitionError("'model' must be a string", source=source)
    raw_tools = fields.get("tools")
    denied = fields.get("disallowed_tools", fields.get("disallowedTools"))
    return AgentDefinition(
        name=name,
        description=description.strip(),
        prompt="\n".join(lines[end + 1 :]).strip(),
        tools=None if raw_tools is None else _names(raw_tools, "tools", source),
        disallowed_tools=() if denied is None else _names(denied, "disallowed_tools", source),
        model=None if model in (None, "", "inherit") else model,
        tier=tier,
        source=source,
    )


def _names(value: object, key: str, source: Path | None) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list):
        items: list[object] = list(value)  # pyright: ignore[reportUnknownArgumentType]
        if all(isinstance(item, str) for item in items):
            return tuple(str(item).strip() for item in items)
    raise AgentDefinitionError(
        f"'{key}' must be a list of tool names or a comma-separated string", source=source
    )
