"""Text-kind patterns: a plain glob over the whole argument (seed 000, "Permission Argument
Registry").

``*`` matches any run of characters (including ``/``), ``?`` one character, ``[abc]`` a set;
``{a,b}`` alternatives. Matching is case-sensitive and anchored at both ends. Implemented with
:func:`wcmatch.fnmatch.fnmatch`.
"""

from __future__ import annotations

from robota.core.permissions._outcome import Match
from wcmatch import fnmatch

__all__ = ["match_text"]

_FLAGS = fnmatch.CASE | fnmatch.DOTMATCH | fnmatch.BRACE


def match_text(pattern: str, value: object) -> Match:
    """Match a text pattern against an argument value.

    Args:
        pattern: The glob from ``Tool(pattern)``.
        value: The argument; anything but a string is unevaluable.

    Returns:
        :attr:`Match.YES` / :attr:`Match.NO`, or :attr:`Match.UNEVALUABLE` when ``value`` is not
        a string.

    Example:
        >>> match_text("deploy-*", "deploy-prod")
        <Match.YES: 'yes'>
    """
    if not isinstance(value, str):
        return Match.UNEVALUABLE
    return Match.YES if fnmatch.fnmatch(value, pattern, flags=_FLAGS) else Match.NO
