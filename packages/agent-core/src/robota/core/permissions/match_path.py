"""Path-kind patterns: globs over canonical paths (seed 000, "Permission Argument Registry",
"Path Containment").

The argument is made absolute (relative to the workspace root; a leading ``~/`` is the home
directory) and canonicalized with :func:`robota.core.host.paths.canonical_path`, so a symlink
is followed to where the tool would really read or write. Pattern forms:

==================  ==========================================================================
``src/**``          Relative with a ``/``: anchored at the workspace root.
``.env``, ``*.pem`` Relative without a ``/``: matches at any depth below the workspace root
                    (gitignore's rule).
``/etc/**``         Absolute filesystem path.
``//etc/**``        Also absolute (Claude Code's spelling; Robota reads ``/x`` as absolute too,
                    unlike Claude Code, where a single leading ``/`` is settings-relative).
``~/.ssh/**``       Below the home directory.
==================  ==========================================================================

A pattern also covers everything below what it names (``Read(secrets)`` covers
``secrets/key``), as in gitignore. Globs use :func:`wcmatch.glob.globmatch` with ``GLOBSTAR``
(``**`` crosses directories), ``DOTGLOB`` (``*`` matches dot files) and ``BRACE``. The literal
leading part of a pattern is canonicalized too, so ``/tmp/**`` still matches on a system
where ``/tmp`` is a link.

Directions: a deny or ask pattern matches when the spelled path *or* its canonical form
matches; an allow pattern must match the canonical form. Case is significant.
"""

from __future__ import annotations

import os
from pathlib import Path

from robota.core.host.errors import InvalidPathError
from robota.core.host.paths import canonical_path, is_inside
from robota.core.permissions._outcome import Direction, Match
from wcmatch import glob

__all__ = ["argument_paths", "match_path", "path_inside"]

_FLAGS = glob.GLOBSTAR | glob.DOTGLOB | glob.BRACE | glob.FORCEUNIX
_MAGIC = frozenset("*?[{")


def argument_paths(value: object, *, workspace: Path, home: Path) -> tuple[str, str] | None:
    """Return the spelled absolute path and the canonical path of a path argument.

    Args:
        value: The tool's argument.
        workspace: The workspace root (relative arguments are taken from it).
        home: The home directory (for a leading ``~/``).

    Returns:
        ``(lexical, canonical)`` absolute POSIX paths, or None when the value is not a non-empty
        string, holds a NUL byte, or runs into a symlink loop.
    """
    if not isinstance(value, str) or not value or "\x00" in value:
        return None
    text = value
    if text == "~" or text.startswith("~/"):
        text = str(home) + text[1:]
    joined = os.path.join(str(workspace), text)
    lexical = os.path.normpath(joined)
    try:
        # Canonicalized from the joined spelling, not the normalized one: ``hop/../x`` with
        # ``hop`` a symlink leaving the root is ``<hop's target>/../x`` to the kernel.
        canonical = str(canonical_path(joined))
    except InvalidPathError:
        return None
    return lexical, canonical


def path_inside(value: object, *, workspace: Path, home: Path) -> bool:
    """True when a path argument's canonical path lies inside the workspace root."""
    paths = argument_paths(value, workspace=workspace, home=home)
    return paths is not None and is_inside(workspace, paths[1])


def match_path(
    pattern: str, value: object, *, workspace: Path, home: Path, direction: Direction
) -> Match:
    """Match a path pattern against a path argument.

    Args:
        pattern: The pattern from ``Tool(pattern)`` (forms in the module docstring).
        value: The tool's argument.
        workspace: Workspace root.
        home: Home directory for ``~/``.
        direction: Allow patterns must match the canonical path; deny/ask patterns match the
            spelled or the canonical path.

    Returns:
        :attr:`Match.YES`/:attr:`Match.NO`; :attr:`Match.UNEVALUABLE` when the argument is not a
        usable path or the pattern's literal part cannot be canonicalized.
    """
    paths = argument_paths(value, workspace=workspace, home=home)
    patterns = _pattern_forms(pattern, workspace=workspace, home=home)
    if paths is None or patterns is None:
        return Match.UNEVALUABLE
    lexical, canonical = paths
    candidates = (canonical,) if direction is Direction.ALLOW else (lexical, canonical)
    for candidate in candidates:
        for form in patterns:
            if glob.globmatch(candidate, form, flags=_FLAGS):
                return Match.YES
    return Match.NO


def _pattern_forms(pattern: str, *, workspace: Path, home: Path) -> tuple[str, ...] | None:
    text = pattern.strip()
    if not text or "\x00" in text:
        return None
    if text.startswith("//"):
        absolute = text[1:]
    elif text.startswith("/"):
        absolute = text
    elif text == "~" or text.startswith("~/"):
        absolute = glob.escape(str(home)) + text[1:]
    else:
        relative = text[2:] if text.startswith("./") else text
        root = glob.escape(str(workspace))
        anchored = "/" in relative.rstrip("/")
        absolute = f"{root}/{relative}" if anchored else f"{root}/**/{relative}"
    absolute = absolute.rstrip("/") or "/"
    canonical = _canonical_prefix(absolute)
    if canonical is None:
        return None
    forms: list[str] = []
    for form in dict.fromkeys((absolute, canonical)):
        forms.append(form)
        forms.append("/**" if form == "/" else f"{form}/**")
    return tuple(forms)


def _canonical_prefix(absolute: str) -> str | None:
    parts = absolute.split("/")
    literal: list[str] = []
    for part in parts:
        if any(char in _MAGIC for char in part) or "\\" in part:
            break
        literal.append(part)
    prefix = "/".join(literal) or "/"
    rest = parts[len(literal) :]
    try:
        resolved = str(canonical_path(prefix))
    except InvalidPathError:
        return None
    joined = "/".join([glob.escape(resolved).rstrip("/"), *rest]) if rest else glob.escape(resolved)
    return joined or "/"
