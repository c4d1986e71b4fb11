"""Resolving agent definitions through three precedence tiers (seed 003, "Agent definitions
resolve through three precedence tiers, highest to lowest: discovered definitions on disk, then
definitions injected by the composition root, then the built-in set (or its full
replacement)").

The injected and built-in tiers are concatenated into one list and deduplicated keeping the
first entry per name, so an injected definition shadows a built-in of the same name without
producing two roster entries; a definition on disk then overrides either. Discovery reads only
the roots the host passes (an omitted root means no discovery; seed 003, "Every user- and
project-scoped location is host-supplied").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from robota.framework.subagents.definition import (
    AgentDefinition,
    AgentDefinitionError,
    parse_agent_definition,
)

__all__ = ["BUILTIN_AGENTS", "AgentRoster", "DefinitionIssue", "load_agent_definitions"]

BUILTIN_AGENTS: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        name="general-purpose",
        description=(
            "General-purpose agent for researching questions and carrying out multi-step "
            "tasks. It has the parent's tools except agent spawning."
        ),
        prompt=(
            "You are a subagent working on one task for another agent. Use the tools you have "
            "to complete the task, then reply with a concise, complete report of what you found "
            "or did. Your final message is all the other agent will see."
        ),
        tier="builtin",
    ),
)
"""The framework's built-in definitions (replace them with ``builtins=``)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class DefinitionIssue:
    """A definition file that was skipped.

    Attributes:
        path: The file.
        message: Why (the :class:`AgentDefinitionError` or ``OSError`` text).
    """

    path: Path
    message: str


@dataclass(frozen=True, kw_only=True, slots=True)
class AgentRoster:
    """The resolved definitions.

    Attributes:
        definitions: One per name: disk definitions first (in discovery order), then the
            remaining injected/built-in ones (in their combined order).
        issues: Files that could not be used; the rest of the roster still loads.
    """

    definitions: tuple[AgentDefinition, ...] = ()
    issues: tuple[DefinitionIssue, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every name, roster order."""
        return tuple(d.name for d in self.definitions)

    def get(self, name: str) -> AgentDefinition | None:
        """The definition named ``name``, or None."""
        return next((d for d in self.definitions if d.name == name), None)


def _first_per_name(definitions: Iterable[AgentDefinition]) -> list[AgentDefinition]:
    seen: set[str] = set()
    kept: list[AgentDefinition] = []
    for definition in definitions:
        if definition.name not in seen:
            seen.add(definition.name)
            kept.append(definition)
    return kept


def load_agent_definitions(
    roots: Sequence[Path] = (),
    *,
    injected: Sequence[AgentDefinition] = (),
    builtins: Sequence[AgentDefinition] | None = None,
) -> AgentRoster:
    """Resolve the roster.

    Args:
        roots: Host-supplied directories holding ``*.md`` definition files (not searched
            recursively), highest precedence first: a name found in an earlier root wins. A
            root that does not exist contributes nothing.
        injected: Definitions from the composition root.
        builtins: Replaces :data:`BUILTIN_AGENTS` when given (an empty sequence means no
            built-ins).

    Returns:
        The roster; unusable files are listed in :attr:`AgentRoster.issues`, never silently
        dropped.
    """
    disk: list[AgentDefinition] = []
    issues: list[DefinitionIssue] = []
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.glob("*.md")):
            if not path.is_file():
                continue
            try:
                disk.append(parse_agent_definition(path.read_text(encoding="utf-8"), source=path))
            except (AgentDefinitionError, OSError, UnicodeDecodeError) as exc:
                issues.append(DefinitionIssue(path=path, message=str(exc)))
    combined = _first_per_name([*injected, *(BUILTIN_AGENTS if builtins is None else builtins)])
    on_disk = _first_per_name(disk)
    shadowed = {d.name for d in on_disk}
    return AgentRoster(
        definitions=(*on_disk, *(d for d in combined if d.name not in shadowed)),
        issues=tuple(issues),
    )
