"""Shell line parsing for the command matcher (seed 000, "Permission Argument Registry").

A command line is parsed with ``bashlex`` (a port of bash's own grammar) into every simple
command the line would run: the commands joined by ``;``, ``&&``, ``||``, ``|``, ``&`` and
newlines, the commands inside ``$(…)``, backticks, ``<(…)``/``>(…)``, subshells, brace groups,
``if``/``for``/``while`` bodies and function bodies, and the commands a wrapper runs.

Wrappers unwrapped (the wrapped command is listed in addition to the wrapper itself):
``env`` (options, ``NAME=VALUE`` words, ``-S STRING`` parsed as a line), ``command`` (not with
``-v``/``-V``), ``builtin``, ``exec``, ``nohup``, ``time``, ``nice``, ``timeout``, ``stdbuf``,
``sudo``, ``doas``, ``busybox``, ``xargs`` (its arguments come from stdin, so they are
unknown), ``find … -exec/-execdir/-ok/-okdir … ;`` (arguments unknown), ``eval`` (its words
joined and parsed), and the shells ``sh``/``bash``/``zsh``/``dash``/``ksh``/``ash``: ``-c STRING``
is parsed as a line; a here-document or here-string fed to a shell is parsed as a line; a shell
reading its script from any other stdin (``… | bash``) runs code this parser cannot see, which
marks the line *opaque*.

Not unwrapped (the command name is the wrapper's): ``ssh``, ``watch``, ``parallel``, ``su -c``,
``script``, interpreters (``python -c``, ``perl -e``), ``source``/``.`` and script files. Aliases
are not expanded (non-interactive bash does not expand them); ``\\rm`` is the word ``rm``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import bashlex  # pyright: ignore[reportMissingTypeStubs]

__all__ = ["ParsedLine", "SimpleCommand", "parse_line"]

_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_./+:@%,=-]+$")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "busybox-sh"})
_MAX_DEPTH = 8


@dataclass(frozen=True, kw_only=True, slots=True)
class SimpleCommand:
    """One simple command the line runs.

    Attributes:
        words: The command's words after quote removal (assignments and redirections excluded).
        certain: Per word, False when the word holds an expansion (``$X``, ``$(…)``, ``~``,
            backticks) whose value is unknown before the shell runs.
        args_from_stdin: True when more arguments arrive at run time (``xargs``, ``find -exec``).
        redirected: True when the command has a redirection (``>``, ``<``, ``2>&1``, here-doc).
        assignments: ``NAME=VALUE`` prefixes, as written.
        via: How the command was reached: ``"line"`` for a command of the line itself,
            otherwise e.g. ``"substitution"``, ``"compound"``, ``"wrapper:env"``, ``"bash -c"``.
    """

    words: tuple[str, ...]
    certain: tuple[bool, ...]
    args_from_stdin: bool = False
    redirected: bool = False
    assignments: tuple[str, ...] = ()
    via: str = "line"

    @property
    def text(self) -> str:
        """The words joined by single spaces (what patterns are matched against)."""
        return " ".join(self.words)

    @property
    def name_certain(self) -> bool:
        """True when the command name is a known plain word (no expansion, glob or brace)."""
        return bool(self.words) and self.certain[0] and bool(_PLAIN_NAME.match(self.words[0]))

    @property
    def all_certain(self) -> bool:
        """True when every word is known and no argument arrives at run time."""
        return all(self.certain) and not self.args_from_stdin


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedLine:
    """A parsed command line.

    Attributes:
        source: The line as given.
        commands: Every simple command the line runs, wrappers unwrapped (outermost first).
        single: The line's one simple command when the whole line is exactly one command with
            no operator, substitution, redirection, assignment, compound or expansion; else None.
        opaque: True when the line runs code the parser cannot see (a shell reading stdin,
            ``eval``/``sh -c`` of an unknown string, a nested string that does not parse).
        has_substitution: Any ``$(…)``, backtick or process substitution.
        has_compound: Any subshell, group, ``if``/``for``/``while`` or function definition.
    """

    source: str
    commands: tuple[SimpleCommand, ...]
    single: SimpleCommand | None
    opaque: bool
    has_substitution: bool
    has_compound: bool


@dataclass(kw_only=True, slots=True)
class _Walk:
    commands: list[SimpleCommand] = field(default_factory=list[SimpleCommand])
    opaque: bool = False
    substitution: bool = False
    compound: bool = False


def parse_line(source: str) -> ParsedLine | None:
    """Parse ``source`` as a bash command line.

    Args:
        source: One command line (may hold newlines, here-documents).

    Returns:
        The parsed line, or None when bashlex cannot parse it (the caller treats that as
        unevaluable: never allowed, asked when a deny/ask rule could apply).
    """
    walk = _Walk()
    trees = _parse(source)
    if trees is None:
        return None
    for tree in trees:
        _visit(tree, walk, via="line", depth=0)
    single: SimpleCommand | None = None
    if (
        len(trees) == 1
        and getattr(trees[0], "kind", "") == "command"
        and len(walk.commands) == 1
        and not walk.substitution
        and not walk.compound
        and not walk.opaque
    ):
        only = walk.commands[0]
        plain = only.all_certain and only.name_certain
        if plain and not only.redirected and not only.assignments:
            single = only
    return ParsedLine(
        source=source,
        commands=tuple(walk.commands),
        single=single,
        opaque=walk.opaque,
        has_substitution=walk.substitution,
        has_compound=walk.compound,
    )


def _parse(source: str) -> list[Any] | None:
    if "\x00" in source:
        return None
    if not source.strip():
        return []
    try:
        return list(bashlex.parse(source))  # pyright: ignore[reportUnknownMemberType]
    except Exception:  # bashlex raises ParsingError, NotImplementedError, IndexError, ...
        return None


def _visit(node: Any, walk: _Walk, *, via: str, depth: int) -> None:
    kind: str = getattr(node, "kind", "")
    if kind == "command":
        _command(node, walk, via=via, depth=depth)
        return
    if kind in ("commandsubstitution", "processsubstitution"):
        walk.substitution = True
        _visit(node.command, walk, via="substitution", depth=depth)
        return
    if kind == "parameter" and any(mark in str(getattr(node, "value", "")) for mark in ("$(", "`")):
        walk.opaque = True  # bashlex does not parse code inside ${...}: it cannot be seen
        return
    if kind in ("compound", "if", "for", "while", "until", "function"):
        walk.compound = True
        via = "compound"
    for child in _children(node):
        _visit(child, walk, via=via, depth=depth)


def _children(node: Any) -> list[Any]:
    out: list[Any] = []
    for attr in ("parts", "list"):
        value = getattr(node, attr, None)
        if isinstance(value, list):
            out.extend(value)
    for attr in ("command", "output", "heredoc"):
        value = getattr(node, attr, None)
        if value is not None and hasattr(value, "kind"):
            out.append(value)
    return out


def _command(node: Any, walk: _Walk, *, via: str, depth: int) -> None:
    words: list[str] = []
    certain: list[bool] = []
    assignments: list[str] = []
    redirected = False
    stdin_text: str | None = None
    for part in node.parts:
        kind = getattr(part, "kind", "")
        if kind == "word":
            words.append(part.word)
            certain.append(not getattr(part, "parts", None))
        elif kind == "assignment":
            assignments.append(part.word)
        elif kind == "redirect":
            redirected = True
            if part.type == "<<<" and hasattr(part.output, "word"):
                stdin_text = part.output.word if not getattr(part.output, "parts", None) else None
            heredoc = getattr(part, "heredoc", None)
            if heredoc is not None:
                stdin_text = _heredoc_body(heredoc.value)
        for child in _children(part):
            _visit(child, walk, via=via, depth=depth)
    command = SimpleCommand(
        words=tuple(words),
        certain=tuple(certain),
        redirected=redirected,
        assignments=tuple(assignments),
        via=via,
    )
    _add(command, walk, depth=depth, stdin_text=stdin_text)


def _heredoc_body(value: str) -> str:
    lines = value.split("\n")
    return "\n".join(lines[:-1]) if len(lines) > 1 else value


def _add(
    command: SimpleCommand,
    walk: _Walk,
    *,
    depth: int,
    stdin_text: str | None = None,
) -> None:
    if not command.words:
        if command.assignments or command.redirected:
            walk.commands.append(command)
        return
    walk.commands.append(command)
    if depth >= _MAX_DEPTH:
        walk.opaque = True
        return
    if not command.name_certain:
        return
    name = command.words[0].rsplit("/", 1)[-1]
    if name in _SHELLS:
        _shell(command, walk, depth=depth, stdin_text=stdin_text)
        return
    if name == "eval":
        if all(command.certain[1:]):
            _nested(" ".join(command.words[1:]), walk, via="eval", depth=depth)
        else:
            walk.opaque = True
        return
    if name == "find":
        for inner in _find_exec(command):
            _add(inner, walk, depth=depth + 1)
        return
    inner = _unwrap(command, walk, depth=depth)
    if inner is not None:
        _add(inner, walk, depth=depth + 1)


def _nested(text: str, walk: _Walk, *, via: str, depth: int) -> None:
    trees = _parse(text)
    if trees is None:
        walk.opaque = True
        return
    inner = _Walk()
    for tree in trees:
        _visit(tree, inner, via=via, depth=depth + 1)
    walk.commands.extend(inner.commands)
    walk.opaque = walk.opaque or inner.opaque
    walk.substitution = walk.substitution or inner.substitution
    walk.compound = walk.compound or inner.compound


def _shell(
    command: SimpleCommand,
    walk: _Walk,
    *,
    depth: int,
    stdin_text: str | None,
) -> None:
    words = command.words
    index = 1
    while index < len(words) and words[index].startswith(("-", "+")) and words[index] != "--":
        option = words[index]
        if not option.startswith("--") and "c" in option[1:]:
            if index + 1 >= len(words) or not command.certain[index + 1]:
                walk.opaque = True
                return
            _nested(words[index + 1], walk, via=f"{words[0]} -c", depth=depth)
            return
        if option in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 1
        index += 1
    if index < len(words) and words[index] == "--":
        index += 1
    if index < len(words):
        return  # runs a script file: as visible as running the file directly
    if stdin_text is not None:
        _nested(stdin_text, walk, via=f"{words[0]} stdin", depth=depth)
        return
    walk.opaque = True  # reads its program from a pipe, a redirected file or the terminal


def _unwrap(command: SimpleCommand, walk: _Walk, *, depth: int) -> SimpleCommand | None:
    words = command.words
    name = words[0].rsplit("/", 1)[-1]
    start: int | None = None
    from_stdin = command.args_from_stdin
    if name == "env":
        start = _after_env(command, walk, depth=depth)
    elif name == "command":
        if any(w in ("-v", "-V") for w in words[1:3]):
            return None
        start = _skip(words, 1, flags={"-p"}, with_value=set())
    elif name in ("builtin", "nohup", "busybox"):
        start = 1
    elif name == "exec":
        start = _skip(words, 1, flags={"-c", "-l", "-cl", "-lc"}, with_value={"-a"})
    elif name == "time":
        start = _skip(words, 1, flags={"-p"}, with_value=set())
    elif name == "nice":
        start = _skip(words, 1, flags=set(), with_value={"-n"}, numeric=True)
    elif name == "stdbuf":
        start = _skip(words, 1, flags=set(), with_value={"-i", "-o", "-e"}, attached=True)
    elif name == "timeout":
        start = _skip(
            words,
            1,
            flags={"--preserve-status", "--foreground", "-v", "--verbose"},
            with_value={"-s", "-k"},
            attached=True,
        )
        start = start + 1 if start is not None else None  # the duration
    elif name in ("sudo", "doas"):
        start = _skip(
            words,
            1,
            flags=set(),
            with_value={"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "-c"},
            attached=True,
            any_flag=True,
        )
    elif name == "xargs":
        start = _skip(
            words,
            1,
            flags=set(),
            with_value={"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"},
            attached=True,
            any_flag=True,
        )
        from_stdin = True
        if start is not None and start >= len(words):
            return SimpleCommand(
                words=("echo",), certain=(True,), args_from_stdin=True, via="wrapper:xargs"
            )
    if start is None or start >= len(words):
        return None
    return SimpleCommand(
        words=words[start:],
        certain=command.certain[start:],
        args_from_stdin=from_stdin,
        via=f"wrapper:{name}",
    )


def _skip(
    words: tuple[str, ...],
    index: int,
    *,
    flags: set[str],
    with_value: set[str],
    attached: bool = False,
    numeric: bool = False,
    any_flag: bool = False,
) -> int | None:
    while index < len(words):
        word = words[index]
        if word == "--":
            return index + 1
        if not word.startswith("-") or word == "-":
            return index
        if word in with_value:
            index += 2
            continue
        if word.startswith("--") and "=" in word:
            index += 1
            continue
        if attached and word[:2] in with_value:
            index += 1
            continue
        if numeric and word[1:].lstrip("-").isdigit():
            index += 1
            continue
        if word in flags or any_flag or word.startswith("--"):
            index += 1
            continue
        return None  # an option this table does not know: cannot tell where the command starts
    return index


def _after_env(command: SimpleCommand, walk: _Walk, *, depth: int) -> int | None:
    words = command.words
    index = 1
    while index < len(words):
        word = words[index]
        if word in ("-S", "--split-string") or word.startswith(("-S", "--split-string=")):
            if word in ("-S", "--split-string"):
                text = words[index + 1] if index + 1 < len(words) else ""
                known = index + 1 < len(words) and command.certain[index + 1]
                rest = words[index + 2 :]
            else:
                text = word.split("=", 1)[1] if word.startswith("--") else word[2:]
                known = command.certain[index]
                rest = words[index + 1 :]
            if not known:
                walk.opaque = True
                return None
            _nested(" ".join((text, *rest)), walk, via="env -S", depth=depth)
            return None
        if word in ("-u", "-C", "--unset", "--chdir"):
            index += 2
        elif (word.startswith("-") and word != "-") or ("=" in word and not word.startswith("=")):
            index += 1
        else:
            return index
    return index


def _find_exec(command: SimpleCommand) -> list[SimpleCommand]:
    words = command.words
    found: list[SimpleCommand] = []
    index = 0
    while index < len(words):
        if words[index] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(words) and words[end] not in (";", "+"):
                end += 1
            if end > index + 1:
                found.append(
                    SimpleCommand(
                        words=words[index + 1 : end],
                        certain=command.certain[index + 1 : end],
                        args_from_stdin=True,
                        via="wrapper:find",
                    )
                )
            index = end
        index += 1
    return found
