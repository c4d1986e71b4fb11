"""Which command lines only look around (seed 000, "Permission System": a command tool whose
call runs only built-in read-only commands, naming nothing outside the workspace once symlinks
are followed, is decided as inspect).

A line is read-only when it parses; has no substitution, compound, redirection, assignment,
unknown expansion or opaque part; every command is one of :data:`READ_ONLY_COMMANDS` spelled by
its bare name (joined by ``|``, ``;``, ``&&``, ``||`` are fine); the command passes its extra
check (``find`` without ``-exec``/``-delete``/``-fprint``…; ``git`` only ``status``, ``log``,
``diff``, ``show`` with no ``--output``/``--ext-diff``; ``rg`` without ``--pre``); and every
argument that is not an option — and every option value holding ``/`` or ``~`` — resolves inside
the workspace (``echo``/``printf``/``pwd``/``true``/``false``/``whoami``/``id``/``uname`` read no
files and are not path-checked).
"""

from __future__ import annotations

from pathlib import Path

from robota.core.permissions._shell import ParsedLine, SimpleCommand
from robota.core.permissions.match_path import path_inside

__all__ = ["READ_ONLY_COMMANDS", "is_read_only_line"]

READ_ONLY_COMMANDS = frozenset(
    {
        "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "find", "git",
        "pwd", "echo", "printf", "true", "false", "which", "file", "stat", "du", "tree",
        "basename", "dirname", "realpath", "readlink", "diff", "cmp", "whoami", "id", "uname",
    }
)  # fmt: skip
"""Commands that read and print only (with the extra checks in the module docstring)."""

_NO_FILES = frozenset({"echo", "printf", "pwd", "true", "false", "whoami", "id", "uname"})
_FIND_ACTIONS = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
_GIT_READS = frozenset({"status", "log", "diff", "show"})


def is_read_only_line(line: ParsedLine | None, *, workspace: Path, home: Path) -> bool:
    """Return True when ``line`` runs only read-only commands over workspace paths.

    Args:
        line: The parsed line (None: did not parse → False).
        workspace: Canonical workspace root (the command's working directory).
        home: Home directory for ``~``.
    """
    if line is None or line.opaque or line.has_substitution or line.has_compound:
        return False
    if not line.commands:
        return False
    return all(_read_only(command, workspace=workspace, home=home) for command in line.commands)


def _read_only(command: SimpleCommand, *, workspace: Path, home: Path) -> bool:
    if command.via != "line" or command.redirected or command.assignments:
        return False
    if not command.words or not command.all_certain:
        return False
    name, args = command.words[0], command.words[1:]
    if name not in READ_ONLY_COMMANDS:
        return False
    if name == "find" and any(arg in _FIND_ACTIONS for arg in args):
        return False
    if name == "git":
        if not args or args[0] not in _GIT_READS:
            return False
        if any(arg.startswith(("--output", "--ext-diff", "-o")) for arg in args):
            return False
        args = args[1:]
    if name == "rg" and any(arg.startswith("--pre") for arg in args):
        return False
    if name in _NO_FILES:
        return True
    for arg in args:
        value = arg
        if arg.startswith("-"):
            if "/" not in arg and "~" not in arg:
                continue
            value = arg.split("=", 1)[1] if "=" in arg else ""
            if not value:
                return False
        if not path_inside(value, workspace=workspace, home=home):
            return False
    return True
