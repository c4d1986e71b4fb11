"""Which command lines only look around: the read-only ("inspect") classification of a shell
line (seed 000, "Permission System": a command tool whose call runs only built-in read-only
commands, naming nothing outside the workspace once symlinks are followed, is decided as
inspect; "Path Containment": the answer is taken on canonical paths).

An inspect call is allowed without asking in default mode, so this classification must hold on
its own (the read-only, network-less sandbox the call then runs in is a second wall, and it
does not stop reads outside the workspace). It fails closed: anything not understood is not
inspect. :func:`is_read_only_line` is True only when **all** of this holds:

1. **The line.** It parses; nothing in it is opaque; it has no substitution, compound,
   redirection, assignment or wrapper (every command is reached through the line itself,
   joined only by ``|``, ``;``, ``&&``, ``||``, ``&`` or newlines), and no ``!`` pipeline.
   ``BASH_ENV``, ``ENV`` and ``POSIXLY_CORRECT`` are not set in the environment (the first two
   run a file before the line; the last changes where options end). The parser's guesses
   about what an *unknown* command might run through its arguments (``candidates``,
   ``may_run_arguments``: ``rg 'def foo'`` looks as if it could run ``def``) are not
   consulted: every command accepted here is known, and none of its allowlisted options runs
   an argument (that is what the allowlists are for).
2. **Every word is a literal.** The parser says it is certain, *and* an independent reading of
   the word's source text finds no unquoted ``$ ` * ? [ ] { }``, no unquoted ``~`` starting
   the word or following ``=``/``:``, and no ``$`` or backtick
   inside double quotes: bash would pass the word exactly as written. Globs, brace, tilde,
   parameter, arithmetic, command expansion, ``$'…'`` and array subscripts are all refused
   (a file named ``--pre=sh`` turned ``rg pattern *`` into ``rg --pre=sh``; measured).
3. **The command** is one of :data:`~._readonly_options.COMMANDS`, ``find`` or ``git``,
   spelled by its bare name, and the program ``PATH`` finds for it is not inside the workspace
   (a relative ``PATH`` entry refuses). ``printf`` is not read-only (``printf -v`` assigns,
   and a subscript holds arithmetic that runs commands; measured).
4. **Every option is on that command's own allowlist** (exact spelling, see
   :mod:`._readonly_options` for what is left out and why).
5. **Every file it names resolves inside the workspace** after symlinks, taken from the call's
   working directory: every operand of a file-reading command (not the pattern of
   ``grep``/``rg``) and every option value that names a file (``grep -f``, ``rg
   --ignore-file``, ``find -newer``, ``diff --from-file``…). ``echo``, ``pwd``, ``true``,
   ``false``, ``which``, ``whoami``, ``id``, ``uname``, ``basename``, ``dirname`` open no file
   and are not path-checked. A path that passes through ``/proc`` or ``/dev``, as spelled
   or through a symlink met on the way (``/proc/self/cwd/..``, ``/dev/fd/0``, ``/dev/stdin``),
   never counts as inside: the shell resolves it in its own process. The recursive walkers allowed (``grep -r``, ``rg``, ``find``,
   ``du``, ``tree``, ``ls -R``) do not follow symlinks met inside the tree; ``diff`` does, so a
   directory operand needs ``--no-dereference``.
6. **git** runs only a reading subcommand with allowlisted options, and the repository it
   would open from the call's cwd passes :func:`~._git_repo.inspect_repository` (inside the
   workspace, no configuration key outside a harmless allowlist, no hook a reader runs, no
   ``GIT_*`` variable that redirects it). ``git diff`` paths must lie in the working tree (else
   git silently switches to ``--no-index`` and compares any two files); ``git diff
   --no-index`` takes no directory.

Limits: the answer holds for the filesystem as it was when checked (seed 000 "Path
Containment", TOCTOU); the environment judged is this process's (``os.environ``), which the
shell tool is expected to pass on; the user's global and system git configuration are trusted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import bashlex  # pyright: ignore[reportMissingTypeStubs]
from robota.core.host.errors import InvalidPathError
from robota.core.host.paths import canonical_path, is_inside
from robota.core.permissions._git_repo import inspect_repository
from robota.core.permissions._readonly_options import COMMANDS, CommandPlan, command_plan
from robota.core.permissions._shell import ParsedLine, SimpleCommand, process_view

__all__ = ["READ_ONLY_COMMANDS", "is_read_only_line", "literal_word"]

READ_ONLY_COMMANDS = frozenset({*COMMANDS, "find", "git"})
"""Commands that can be read-only, by bare name (each still needs its options allowlisted)."""

_LINE_ENVIRONMENT = (
    "BASH_ENV",
    "ENV",
    "POSIXLY_CORRECT",
    "SHELLOPTS",
    "BASHOPTS",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "GCONV_PATH",
    "MAGIC",
)
"""Variables that change what the listed commands load or do (a shell start-up file, a
preloaded library, file's magic database); set at all, the line is not judged read-only.
(``RIPGREP_CONFIG_PATH`` and ``GREP_OPTIONS`` are judged per command: ``rg --no-config``
ignores the former.)"""
_CONFIG_HOMES = ("XDG_CONFIG_HOME", "HOME")
"""Folders programs read their configuration from (git: ``$XDG_CONFIG_HOME/git/config``,
``~/.gitconfig``); inside the workspace, the workspace would configure the command."""
_UNQUOTED_SPECIAL = frozenset("$`*?[]{}()<>|&; \t\n")
"""Characters bash acts on when unquoted anywhere in a word (``~`` only starts a tilde prefix
at the start of a word or after ``=``/``:``, checked apart so ``HEAD~1`` stays a literal)."""
_DOUBLE_QUOTE_ESCAPES = frozenset('$`"\\\n')
_OPERATORS = frozenset({";", "&&", "||", "&", "\n"})


def is_read_only_line(
    line: ParsedLine | None,
    *,
    workspace: Path,
    home: Path,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> bool:
    """Return True when ``line`` runs only read-only commands over workspace paths.

    Args:
        line: The parsed line (None: it did not parse → False).
        workspace: Canonical workspace root.
        home: Home directory. Unused for paths: a word starting with ``~`` is refused, since
            bash rewrites it.
        cwd: Canonical directory the line runs in (the shell tool's cwd); None: the workspace.
            Relative paths, ``PATH`` lookups and git's repository discovery start here.
        environ: The environment the line runs with; None: :data:`os.environ`.

    Returns:
        True only when every condition of the module docstring holds.
    """
    del home  # tilde words are refused, never resolved
    if line is None or line.opaque or line.has_substitution or line.has_compound:
        return False
    if not line.commands:
        return False
    env: Mapping[str, str] = os.environ if environ is None else environ
    if any(name in env for name in _LINE_ENVIRONMENT):
        return False
    if any(name.startswith("BASH_FUNC_") for name in env):
        return False  # an exported function replaces the command of the same name
    try:
        workspace = canonical_path(workspace)
        base = canonical_path(cwd) if cwd is not None else workspace
        homes = [canonical_path(env[name]) for name in _CONFIG_HOMES if env.get(name)]
    except InvalidPathError:
        return False
    if any(is_inside(workspace, home_dir) for home_dir in homes):
        return False
    if not is_inside(workspace, base) or not base.is_dir():
        return False
    raw = _raw_commands(line.source)
    if raw is None or len(raw) != len(line.commands):
        return False
    return all(
        _command_read_only(command, words, workspace=workspace, base=base, env=env)
        for command, words in zip(line.commands, raw, strict=True)
    )


def _raw_commands(source: str) -> list[list[str]] | None:
    """The source text of each word of each command, when the line is only simple commands
    joined by pipes and list operators (None otherwise)."""
    try:
        trees: list[Any] = list(bashlex.parse(source))  # pyright: ignore[reportUnknownMemberType]
    except Exception:  # bashlex raises ParsingError, NotImplementedError, IndexError, ...
        return None
    found: list[list[str]] = []

    def visit(node: Any) -> bool:
        kind: str = getattr(node, "kind", "")
        if kind == "command":
            words: list[str] = []
            for part in node.parts:
                if getattr(part, "kind", "") != "word":
                    return False
                start, end = part.pos
                words.append(source[start:end])
            found.append(words)
            return True
        if kind in ("list", "pipeline"):
            return all(visit(part) for part in node.parts)
        if kind == "operator":
            return getattr(node, "op", "") in _OPERATORS
        if kind == "pipe":
            return getattr(node, "pipe", "") == "|"
        return False

    if not all(visit(tree) for tree in trees):
        return None
    return found


def literal_word(raw: str) -> str | None:
    """Return the word bash would pass for ``raw`` (its source text) when bash changes nothing
    at run time; None when it would (an unquoted ``$ ` * ? [ ] { }``, an unquoted ``~`` at the
    start or after ``=``/``:``, ``$``/backtick in double quotes, an unterminated quote).

    Args:
        raw: The word as written in the line, quotes included.
    """
    out: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == "'":
            end = raw.find("'", index + 1)
            if end < 0:
                return None
            out.append(raw[index + 1 : end])
            index = end + 1
        elif char == '"':
            index += 1
            while True:
                if index >= len(raw):
                    return None
                char = raw[index]
                if char == '"':
                    index += 1
                    break
                if char in "$`":
                    return None
                if (
                    char == "\\"
                    and index + 1 < len(raw)
                    and raw[index + 1] in (_DOUBLE_QUOTE_ESCAPES)
                ):
                    if raw[index + 1] != "\n":
                        out.append(raw[index + 1])
                    index += 2
                    continue
                out.append(char)
                index += 1
        elif char == "\\":
            if index + 1 >= len(raw):
                return None
            if raw[index + 1] != "\n":
                out.append(raw[index + 1])
            index += 2
        elif char in _UNQUOTED_SPECIAL or (char == "~" and (index == 0 or raw[index - 1] in "=:")):
            return None
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _command_read_only(
    command: SimpleCommand,
    raw: list[str],
    *,
    workspace: Path,
    base: Path,
    env: Mapping[str, str],
) -> bool:
    if command.via != "line" or command.redirected or command.assignments:
        return False
    if command.args_from_stdin or not command.words:
        return False
    if getattr(command, "directory", ".") != "." or getattr(command, "tentative", False):
        return False
    if not command.all_certain or not command.name_certain:
        return False
    if len(raw) != len(command.words):
        return False
    if any(literal_word(text) != word for text, word in zip(raw, command.words, strict=True)):
        return False
    plan = command_plan(command.words[0], command.words[1:])
    if plan is None:
        return False
    return _plan_holds(plan, workspace=workspace, base=base, env=env)


def _plan_holds(plan: CommandPlan, *, workspace: Path, base: Path, env: Mapping[str, str]) -> bool:
    if any(name in env for name in plan.environment):
        return False
    if not all(_program_outside(name, env=env, workspace=workspace) for name in plan.runs):
        return False
    places: list[Path] = []
    for word in plan.paths:
        place = _resolve(word, base=base, workspace=workspace)
        if place is None or (plan.no_directories and place.is_dir()):
            return False
        places.append(place)
    if plan.git_subcommand is None:
        return True
    repository = inspect_repository(base, workspace=workspace, environ=env)
    if repository is None:
        return False
    if plan.git_subcommand == "diff" and not plan.git_no_index:
        worktree = repository.worktree
        if worktree is None or not is_inside(worktree, base):
            return False
        return all(is_inside(worktree, place) for place in places)
    return True


def _resolve(word: str, *, base: Path, workspace: Path) -> Path | None:
    """The canonical path ``word`` names from ``base`` when it lies inside the workspace
    (symlinks followed, ``..`` applied after them as the kernel does)."""
    if "\x00" in word:
        return None
    spelled = os.path.join(base, word)
    if process_view(spelled):
        return None  # /proc/self/cwd, /dev/fd/0: the shell resolves them in its own process
    try:
        place = canonical_path(spelled)
    except (InvalidPathError, OSError):
        return None
    return place if is_inside(workspace, place) else None


def _program_outside(name: str, *, env: Mapping[str, str], workspace: Path) -> bool:
    """True when the program bash finds for ``name`` through ``PATH`` is not in the workspace
    (not found at all is fine: nothing runs)."""
    search = env.get("PATH")
    if search is None:
        return True  # bash's default PATH names system directories only
    for entry in search.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            return False  # resolved from the cwd, which is inside the workspace
        candidate = os.path.join(entry, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            try:
                program = canonical_path(candidate)
            except InvalidPathError:
                return False
            return not is_inside(workspace, program)
    return True
