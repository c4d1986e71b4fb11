"""Calls that always reach a person (seed 000, "Permission System": catastrophic removals and
writes into locations that widen trust).

**Catastrophic removal** (command-kind arguments): any command the line runs (wrappers and
``sh -c`` unwrapped) that is ``rm`` with ``-r``/``-R``/``--recursive`` and a target that is ``/``,
a top-level directory (``/usr``, ``/etc``, ...), the home directory or one of its ancestors,
the workspace root or one of its ancestors, or a glob over any of those (``*`` and ``.`` in the
workspace, ``~/*``, ``/*``); or whose target is unknown before the shell runs (``"$DIR"/``,
``$(…)``, targets read by ``xargs``/``find -exec``). Targets are judged both as spelled and with
symlinks resolved. A command line that does not parse counts as catastrophic too: it cannot be
shown not to be one.

**Trust-widening write** (path-kind arguments of a call that is not inspect-class): the path,
spelled or canonical, lies in one of :data:`TRUST_WIDENING_PATTERNS` at any depth — agent and
tool settings, hooks, MCP server lists, git hooks and config, direnv files and shell start-up
files. A shell command writing to those places is the containment seam's concern, not this
module's (seed 000).
"""

from __future__ import annotations

import os
from pathlib import Path

from robota.core.host.errors import InvalidPathError
from robota.core.host.paths import canonical_path
from robota.core.permissions._shell import ParsedLine, SimpleCommand
from wcmatch import glob

__all__ = ["TRUST_WIDENING_PATTERNS", "catastrophic_removal", "widens_trust"]

TRUST_WIDENING_PATTERNS: tuple[str, ...] = (
    "**/.robota/**",
    "**/.claude/**",
    "**/.mcp.json",
    "**/.git/hooks/**",
    "**/.git/config",
    "**/.husky/**",
    "**/.envrc",
    "**/.bashrc",
    "**/.bash_profile",
    "**/.bash_login",
    "**/.bash_logout",
    "**/.profile",
    "**/.zshrc",
    "**/.zshenv",
    "**/.zprofile",
    "**/.zlogin",
    "**/.kshrc",
    "**/.cshrc",
    "**/.tcshrc",
    "**/.config/fish/**",
    "**/.ssh/authorized_keys",
    "**/.ssh/config",
    "**/.config/robota/**",
)
"""Glob patterns (over absolute paths) of locations whose contents later turns, child sessions
or the user's shell will trust."""

_FLAGS = glob.GLOBSTAR | glob.DOTGLOB | glob.FORCEUNIX
_MAGIC = frozenset("*?[{")


def widens_trust(paths: tuple[str, str]) -> str | None:
    """Return the matching pattern when a write to ``paths`` would widen trust, else None.

    Args:
        paths: ``(spelled absolute path, canonical path)`` of the argument.
    """
    for path in paths:
        for pattern in TRUST_WIDENING_PATTERNS:
            if glob.globmatch(path, pattern, flags=_FLAGS):
                return pattern
    return None


def catastrophic_removal(line: ParsedLine | None, *, workspace: Path, home: Path) -> str | None:
    """Return a reason when the line could remove something whose loss is catastrophic.

    Args:
        line: The parsed line, or None for a line that did not parse.
        workspace: Canonical workspace root (the command's working directory).
        home: Canonical home directory.

    Returns:
        A sentence naming the command and target, or None.
    """
    if line is None:
        return "the command line could not be parsed, so a destructive removal cannot be ruled out"
    for command in line.commands:
        reason = _removal(command, workspace=workspace, home=home)
        if reason is not None:
            return reason
    return None


def _removal(command: SimpleCommand, *, workspace: Path, home: Path) -> str | None:
    if not command.words or not command.name_certain:
        return None
    if command.words[0].rstrip("/").rsplit("/", 1)[-1] != "rm":
        return None
    recursive = False
    targets: list[tuple[str, bool]] = []
    options_done = False
    for word, known in zip(command.words[1:], command.certain[1:], strict=True):
        if not options_done and word == "--":
            options_done = True
        elif not options_done and word.startswith("--"):
            recursive = recursive or word == "--recursive"
        elif not options_done and word.startswith("-") and len(word) > 1:
            recursive = recursive or "r" in word[1:] or "R" in word[1:]
        else:
            targets.append((word, known))
    if not recursive:
        return None
    if command.args_from_stdin:
        return f"{command.text!r} removes recursively targets that are only known at run time"
    for word, known in targets:
        if not known:
            return f"{command.text!r} removes recursively a target only known at run time"
        if _critical(word, workspace=workspace, home=home):
            return f"{command.text!r} would remove {word!r} recursively"
    return None


def _critical(word: str, *, workspace: Path, home: Path) -> bool:
    text = str(home) + word[1:] if word == "~" or word.startswith("~/") else word
    parts = text.split("/")
    literal: list[str] = []
    for part in parts:
        if any(char in _MAGIC for char in part):
            break
        literal.append(part)
    base = "/".join(literal) if literal != [""] else "/"
    lexical = os.path.normpath(os.path.join(str(workspace), base or "."))
    candidates = {lexical}
    try:
        candidates.add(str(canonical_path(lexical)))
    except InvalidPathError:
        return True
    protected = {str(workspace), str(home)}
    for candidate in candidates:
        if candidate == "/" or candidate.count("/") == 1:
            return True
        for root in protected:
            if candidate == root or root.startswith(candidate.rstrip("/") + "/"):
                return True
    return False
