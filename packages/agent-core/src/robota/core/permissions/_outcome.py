"""The three answers a pattern matcher gives (seed 000, "Permission Argument Registry")."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Direction", "Match"]


class Match(StrEnum):
    """Result of matching one pattern against one argument.

    ``UNEVALUABLE`` is distinct from ``NO`` (seed 000): a pattern or argument that cannot be
    judged in its declared kind. On the deny/ask side it routes to an ask; on the allow side it
    never grants.
    """

    YES = "yes"
    NO = "no"
    UNEVALUABLE = "unevaluable"


class Direction(StrEnum):
    """Which list a pattern came from: allow patterns are read narrowly, deny and ask patterns
    broadly (both mean "stop and check")."""

    ALLOW = "allow"
    DENY = "deny"
