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
``sh -c`` strings and wrappers; a command spelled with a path (``/bin/rm``) is also tried by its
base name. The answer is *unevaluable* when the line does not parse, runs code the parser
cannot see (``… | bash``, ``eval "$x"``), or holds a command whose name is unknown (``$CMD``,
``r*``, ``{rm,-rf,/}``) or whose name fits the pattern while an argument is unknown (``rm $X``
against ``rm -rf /``).
"""

from __future__ import annotations

from dataclasses import dataclass

from robota.core.permissions._outcome import Direction, Match
from robota.core.permissions._shell import ParsedLine, SimpleCommand, parse_line
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
    for command in line.commands:
        answer = _deny_command(spec, command)
        if answer is Match.YES:
            return Match.YES
        unevaluable = unevaluable or answer is Match.UNEVALUABLE
    return Match.UNEVALUABLE if unevaluable else Match.NO


def _deny_command(spec: CommandPattern, command: SimpleCommand) -> Match:
    if not command.words:
        return Match.NO
    if not command.name_certain:
        return Match.UNEVALUABLE
    variants = [command.words]
    name = command.words[0]
    if "/" in name.rstrip("/"):
        variants.append((name.rstrip("/").rsplit("/", 1)[-1], *command.words[1:]))
    for words in variants:
        if _matches(spec, words):
            return Match.YES
    if command.all_certain:
        return Match.NO
    for words in variants:
        if fnmatch.fnmatch(words[0], spec.head, flags=_FLAGS):
            return Match.UNEVALUABLE
    return Match.NO


def _matches(spec: CommandPattern, words: tuple[str, ...]) -> bool:
    if spec.prefix is not None:
        if len(words) < len(spec.prefix):
            return False
        return all(
            fnmatch.fnmatch(word, part, flags=_FLAGS)
            for word, part in zip(words, spec.prefix, strict=False)
        )
    return fnmatch.fnmatch(" ".join(words), spec.glob, flags=_FLAGS)
