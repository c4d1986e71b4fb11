"""Remembered consent (seed 000, "Permission System"; seed 003, permission prompting).

When a person answers an ask with "allow for this session", the answer is remembered as a
:class:`ConsentGrant` scoped to the tool and either the exact argument the person saw or a
pattern the person accepted (read in the allow direction, like an allow rule). A grant answers
later calls only at the allow-rule step: it never answers a deny, a ceiling refusal or an
always-ask case (unevaluable rule, explicit ask rule, catastrophic removal, trust-widening
write), because a remembered scope is wide enough to cover the next such call too.

Grants live per session id in a :class:`ConsentStore`; nothing is written to disk.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ConsentGrant", "ConsentStore"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ConsentGrant:
    """One remembered "allow for this session".

    Attributes:
        tool: The exact tool name the grant is for.
        argument: The exact argument value accepted (e.g. the command line), or None.
        pattern: A pattern accepted instead (``npm run test:*``), or None. With neither set,
            every call of the tool is covered.
    """

    tool: str
    argument: str | None = None
    pattern: str | None = None

    def __post_init__(self) -> None:
        if self.argument is not None and self.pattern is not None:
            raise ValueError("a consent grant names an exact argument or a pattern, not both")


class ConsentStore:
    """Remembered consent, kept per session id (in memory).

    Example:
        >>> store = ConsentStore()
        >>> store.remember("s1", ConsentGrant(tool="Bash", argument="make test"))
        >>> store.grants("s1")
        (ConsentGrant(tool='Bash', argument='make test', pattern=None),)
        >>> store.grants("s2")
        ()
    """

    def __init__(self) -> None:
        self._grants: dict[str, list[ConsentGrant]] = {}

    def remember(self, session_id: str, grant: ConsentGrant) -> None:
        """Record ``grant`` for ``session_id`` (a repeated grant is stored once)."""
        grants = self._grants.setdefault(session_id, [])
        if grant not in grants:
            grants.append(grant)

    def grants(self, session_id: str) -> tuple[ConsentGrant, ...]:
        """Every grant remembered for ``session_id``, oldest first."""
        return tuple(self._grants.get(session_id, ()))

    def forget(self, session_id: str) -> None:
        """Drop every grant of ``session_id`` (e.g. when the session ends)."""
        self._grants.pop(session_id, None)
