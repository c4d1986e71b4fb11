"""Command-kind patterns: the one kind whose answer differs by direction (seed 000,
"Permission Argument Registry").

The line is parsed by ``bashlex`` (see :mod:`robota.core.permissions._shell` for which wrappers
are unwrapped). A pattern is either

* a glob over a command's words joined by single spaces (``git status``, ``git log *``,
  ``rm -rf *``); ``*`` matches any characters, spaces included; or
* Claude Code's prefix form ``words:*`` (``npm run test:*``): the command's first words equal
  the prefix words (each may be a glob), followed by anything or nothing.

Allow direction (narrow): the pattern matches only a line that is exactly one simple command —
no ``;``, ``&&``, ``||``, ``|``, ``&``, newline, ``$(…)``, backticks, process substitution,
redirection, ``NAME=value`` prefix, compound or unknown expansion outside quotes — whose words
match. Quoting is honoured (``git "status"`` is ``git status``; ``echo 'a;b'`` is one command).

Deny direction (broad, also used for ask rules): the pattern is tried against the whole line
and against each command the line runs, including commands inside substitutions, subshells,
``sh -c`` strings, ``trap``/``eval`` texts and wrappers (:mod:`robota.core.permissions._shell`
lists them); a command spelled with a path (``/bin/rm``) is also tried by its base name, and
``git`` also without its global options (``git -C x push`` is tried as ``git push``). A
command this parser does not know may run its arguments: an argument word equal (by base name)
to the pattern's first word starts a command that is tried too (``foo --opt rm -rf x`` is tried
as ``rm -rf x``), except for commands known never to run their arguments (``echo``, ``cat``,
``grep``…; ``git`` with a subcommand that runs nothing). A command only *guessed* from an
argument word that reads as a shell line (``tmux send-keys 'rm -rf x'``) answers unevaluable
rather than yes; so does an unparsed argument text (``python -c …``) that mentions the pattern's
first word as a word, and a line that names the denied program's binary by path
(``cp /bin/rm x``), opens it in a redirection (``./x 3</usr/bin/rm``) or captures its path
(``$(which rm)``).

The answer is *unevaluable* when the line does not parse, runs code the parser cannot see
(``… | bash``, ``eval "$x"``, ``trap "$x" EXIT``, ``source``, ``${x@P}``, arithmetic, a
``PATH``/``BASH_ENV``/``IFS``… assignment, see :mod:`robota.core.permissions._shell`), or
holds a command whose name is unknown (``$CMD``, ``r*``, ``{rm,-rf,/}``, ``$'rm'``, a name
under ``/dev`` or ``/proc`` such as ``/dev/fd/3``, see :func:`~._shell.process_view`) or whose
name fits the pattern while an argument is unknown (``rm $X`` or ``rm *.o`` against
``rm -rf /``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from robota.core.permissions._outcome import Direction, Match
from robota.core.permissions._shell import (
    ParsedLine,
    SimpleCommand,
    base_name,
    git_subcommand_index,
    parse_line,
)
from wcmatch import fnmatch

__all__ = ["CommandPattern", "match_command", "parse_command_pattern"]

_FLAGS = fnmatch.CASE | fnmatch.DOTMATCH


@dataclass(frozen=True, kw_only=True, slots=True)
class CommandPattern:
    """A parsed command pattern.

    Attributes:
        glob: The glob over joined words (for the prefix form: ``prefix *``).
        prefix: The prefix words of the ``words:*`` form, or None.
    """

    glob: str
    prefix: tuple[str, ...] | None

    @property
    def head(self) -> str:
        """The pattern's first word (the command name it is about; may be a glob)."""
        if self.prefix is not None:
            return self.prefix[0]
        return self.glob.split()[0] if self.glob.split() else "*"


def parse_command_pattern(pattern: str) -> CommandPattern | None:
    """Parse a command pattern; None when it is empty."""
    text = " ".join(pattern.split())
    if not text:
        return None
    if text.endswith(":*"):
        words = tuple(text[:-2].split())
        if not words:
            return None
        return CommandPattern(glob=" ".join(words) + "*", prefix=words)
    return CommandPattern(glob=text, prefix=None)


def match_command(
    pattern: str, value: object, *, direction: Direction, parsed: ParsedLine | None = None
) -> Match:
    """Match a command pattern against a command-line argument.

    Args:
        pattern: The pattern from ``Tool(pattern)``.
        value: The command line.
        direction: :attr:`Direction.ALLOW` (narrow) or :attr:`Direction.DENY` (broad; ask rules
            use it too).
        parsed: The line already parsed by the caller (saves a second parse).

    Returns:
        :attr:`Match.YES`, :attr:`Match.NO` or :attr:`Match.UNEVALUABLE` (see module docstring).

    Example:
        >>> match_command("git status", "git status; rm -rf /", direction=Direction.ALLOW)
        <Match.NO: 'no'>
        >>> match_command("rm *", "git status; rm -rf /", direction=Direction.DENY)
        <Match.YES: 'yes'>
    """
    spec = parse_command_pattern(pattern)
    if not isinstance(value, str) or spec is None:
        return Match.UNEVALUABLE
    line = parsed if parsed is not None else parse_line(value)
    if line is None:
        return Match.UNEVALUABLE
    if direction is Direction.ALLOW:
        if line.single is None:
            return Match.NO
        return Match.YES if _matches(spec, line.single.words) else Match.NO
    if fnmatch.fnmatch(" ".join(value.split()), spec.glob, flags=_FLAGS):
        return Match.YES
    unevaluable = line.opaque
    for command in (*line.commands, *line.candidates):
        answer = _deny_command(spec, command)
        if answer is Match.YES and not command.tentative:
            return Match.YES
        unevaluable = unevaluable or answer is not Match.NO
    if any(_mentions(text, spec.head) for text in line.texts):
        unevaluable = True
    if _redirects_binary(spec, line):
        unevaluable = True
    return Match.UNEVALUABLE if unevaluable else Match.NO


def _deny_command(spec: CommandPattern, command: SimpleCommand) -> Match:
    if not command.words:
        return Match.NO
    if not command.name_certain:
        return Match.NO if command.tentative else Match.UNEVALUABLE
    variants = _variants(command)
    for words in variants:
        if _matches(spec, words):
            return Match.YES
    answer = Match.NO
    if command.may_run_arguments:
        answer = _arguments(spec, command)
        if answer is Match.YES:
            return Match.YES
    if not command.all_certain:
        for words in variants:
            if fnmatch.fnmatch(words[0], spec.head, flags=_FLAGS):
                return Match.UNEVALUABLE
    if _names_binary(spec, command):
        return Match.UNEVALUABLE
    return answer


def _variants(command: SimpleCommand) -> list[tuple[str, ...]]:
    words = command.words
    variants = [words]
    name = base_name(words[0])
    if name != words[0]:
        variants.append((name, *words[1:]))
    if name == "git":
        index = git_subcommand_index(words)
        if index is not None and index > 1:
            variants.append(("git", *words[index:]))
    return variants


def _arguments(spec: CommandPattern, command: SimpleCommand) -> Match:
    """Try every argument word that names the pattern's command as the start of a command."""
    answer = Match.NO
    for index in range(1, len(command.words)):
        word = command.words[index]
        if not command.certain[index]:
            continue
        names = {base_name(word), base_name(word.rsplit("=", 1)[-1])}
        names = {name for name in names if fnmatch.fnmatch(name, spec.head, flags=_FLAGS)}
        if not names:
            continue
        rest = command.words[index + 1 :]
        if any(_matches(spec, (name, *rest)) for name in names) or _matches(spec, (word, *rest)):
            return Match.YES
        if not all(command.certain[index:]) or command.args_from_stdin:
            answer = Match.UNEVALUABLE
    return answer


_LOOKUPS = frozenset({"which", "whereis", "type", "command", "hash", "realpath", "readlink"})


def _names_binary(spec: CommandPattern, command: SimpleCommand) -> bool:
    """The line copies, links or looks up the denied program's binary (``cp /bin/rm x``)."""
    head = spec.head
    if any(char in head for char in "*?[{"):
        return False
    lookup = command.name in _LOOKUPS and command.via == "substitution"
    for word, known in zip(command.words[1:], command.certain[1:], strict=True):
        if not known:
            continue
        if ("/" in word or lookup) and base_name(word) == head:
            return True
    return False


def _redirects_binary(spec: CommandPattern, line: ParsedLine) -> bool:
    """A redirection opens the denied program's binary (``3</usr/bin/rm``): a descriptor, or
    a link to ``/dev/fd/3``, can then run it under any name."""
    head = spec.head
    if any(char in head for char in "*?[{"):
        return False
    return any("/" in path and base_name(path) == head for path in line.redirect_paths)


def _mentions(text: str, head: str) -> bool:
    tokens = re.split(r"[^A-Za-z0-9_./+-]+", text)
    return any(token and fnmatch.fnmatch(base_name(token), head, flags=_FLAGS) for token in tokens)


def _matches(spec: CommandPattern, words: tuple[str, ...]) -> bool:
    if spec.prefix is not None:
        if len(words) < len(spec.prefix):
            return False
        return all(
            fnmatch.fnmatch(word, part, flags=_FLAGS)
            for word, part in zip(words, spec.prefix, strict=False)
        )
    return fnmatch.fnmatch(" ".join(words), spec.glob, flags=_FLAGS)
