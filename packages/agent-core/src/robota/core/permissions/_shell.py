"""Shell line parsing for the command matcher (seed 000, "Permission Argument Registry").

A command line is parsed with ``bashlex`` (a port of bash's own grammar) into every simple
command the line would run: the commands joined by ``;``, ``&&``, ``||``, ``|``, ``&`` and
newlines, the commands inside ``$(…)``, backticks, ``<(…)``/``>(…)`` (also in redirections of
compound commands), ``$(…)``/backticks in unquoted here-document bodies, subshells, brace groups,
``if``/``for``/``while`` bodies and function bodies, and the commands a wrapper runs. Each word is
re-read from its source span (:mod:`robota.core.permissions._words`): a word is *certain* only
when bash passes it on exactly as written (no expansion, no unquoted glob, brace or tilde).

**Parsed recursively** (when the text is a literal known before the shell runs; otherwise the
line is *opaque*): ``eval`` (its words joined), ``trap ACTION``, ``sh``/``bash``/``dash``/``ash``
``-c TEXT`` (also ``-c`` followed by more options), a here-document or here-string fed to a
shell, ``env -S``, ``su``/``runuser``/``flock``/``script`` ``-c TEXT``, ``watch``/``ssh``/``sg``
words, ``ssh -o ProxyCommand=…``, ``git -c alias.X=!TEXT`` and ``git -c core.pager|core.editor|
sequence.editor|core.sshCommand|pager.X=TEXT`` (also through ``git config``), and
``PAGER``/``EDITOR``/``VISUAL``/``GIT_PAGER``/``GIT_EDITOR``/``GIT_SEQUENCE_EDITOR``/
``GIT_SSH_COMMAND``/``MANPAGER``/``SYSTEMD_PAGER``/``SUDO_EDITOR`` assignments. ``zsh``/``ksh``/
``mksh``/``yash``/``fish``/``csh``/``tcsh`` ``-c TEXT`` is parsed as bash *and* marks the line
opaque (their grammar differs).

**Wrappers unwrapped** (:mod:`robota.core.permissions._wrappers` has the option tables): ``env``,
``command`` (not ``-v``/``-V``), ``builtin``, ``exec``, ``nohup``, GNU ``time``, ``nice``,
``timeout``, ``stdbuf``, ``setsid``, ``ionice``, ``taskset``, ``flock``, ``chroot``, ``chrt``,
``unshare``, ``nsenter``, ``prlimit``, ``runuser``, ``su``, ``sg``, ``setpriv``,
``systemd-run``, ``strace``, ``ltrace``, ``watch``, ``script``, ``xargs`` (arguments arrive on
stdin), ``sudo``, ``doas``, ``busybox``, ``fakeroot``, ``xvfb-run``, ``dbus-run-session``,
``setarch``/``linux32``/``linux64``, ``entr``, ``ssh``, ``at``/``batch``, and
``find -exec/-execdir/-ok/-okdir … ;|+`` (arguments unknown). A wrapper whose options are not
understood is treated as an unknown command.

**Unknown commands** (not a wrapper above and not in :data:`PASSIVE_COMMANDS`, which never run
their arguments) may run their arguments: an argument word naming a shell, a wrapper, ``rm``,
``find``, ``git`` or ``rsync`` starts a *candidate* command (``uv run bash -c 'rm x'``), and an
argument word that reads as a shell line (``tmux send-keys 'rm -rf x'``) is parsed into
*tentative* candidates (or kept as unparsed text); an argument whose value the line spells out
(``x=rm; uv run $x …``, ``uv run $(echo rm) …``) is tried with that value. Candidates are judged
by the deny side and the catastrophic-removal check, never by the allow side.

**Process views and the loader**: a command name under ``/dev`` or ``/proc`` (lexically or
through a symlink, :func:`process_view`: ``/dev/fd/3``, ``/proc/self/fd/0``, ``/dev/stdin``)
runs a program this parser cannot know: opaque (``/proc/self/exe`` is bash, read as a shell).
The dynamic loader (``ld.so``, ``ld-linux*.so*``…) is a wrapper whose first non-option word is
the program; opaque when that word is not literal or an option changes the code loaded.
Programs in :data:`COMMAND_RUNNERS` (``ed``, ``ex``/``vi``/``vim``…, ``gdb``, ``expect``,
``run-parts``) run shell commands from their input: opaque. Every literal redirection target is
kept (:attr:`ParsedLine.redirect_paths`): ``3</usr/bin/rm`` lets ``/dev/fd/3`` or a link to it
run ``rm``.

**Opaque** (bash would run text this parser cannot see): a shell, ``at``/``batch`` or a
login/``-s`` wrapper reading its program from stdin; ``source``/``.``; ``alias``/``unalias``
with arguments; ``shopt -s/-u``; ``enable``; ``compgen``; ``complete``; ``bind``; ``fc``;
``hash -p``; ``let``; ``set -k``/``-o keyword``; ``mapfile``/``readarray -C``; ``((…))``;
``declare``/``typeset``/``local -i``/``-n``, or a value bash may read as an array literal
(``-a``/``-A``, a ``(…)`` value, or a run-time value given to ``declare``/``typeset``/
``local``); a variable name that is not a plain identifier, or an array subscript that is not a
literal number, given to ``declare``/``typeset``/``local``/``export``/``readonly``/``unset``/
``read``/``mapfile``/``readarray``/``printf -v``/``test -v``/``[ -v``/``getopts``/``wait -p``/
``for`` or as ``NAME[…]=``/``{NAME}>`` (arithmetic on a subscript runs ``$(…)`` inside it);
assigning a variable of :data:`~robota.core.permissions._words.SENSITIVE_VARIABLES` (``PATH``,
``BASH_ENV``, ``IFS``, ``LD_*``, ``GIT_*``, ``PS4``, ``HOME``…) by prefix, standalone,
``export``/``declare``/``read``/``printf -v``/``for``/``env``/``sudo``/``systemd-run -E``; a
function definition named like a command this parser knows (``ls() {…}``) or
``command_not_found_handle``; ``git -c`` with a key not known to be harmless, ``git
--exec-path=``/``--config-env``; ``make -f -``/``--eval``/``SHELL=``; a word whose ``${…}``
can evaluate (``${x@P}``, ``${!x}``, a non-literal subscript or substring offset, code inside
``${…}``, ``$[…]``); a line that runs a file it also writes (``echo … > s.sh; bash s.sh``,
``cp /bin/rm x; ./x``); nesting deeper than eight. A candidate's opacity makes the line opaque
but leaves :attr:`ParsedLine.single` set.

A line bashlex cannot parse (``[[ … ]]``, ``case``, ``$((…))``, arrays ``a=(…)``, ``time``,
``select``, ``coproc``, quoted here-document delimiters…) gives None: unevaluable; so does a
``${`` left open inside single quotes, on which bashlex would loop forever.
Aliases are not expanded (non-interactive bash does not, and every way to turn them on is
opaque); ``\\rm`` is the word ``rm``.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

import bashlex  # pyright: ignore[reportMissingTypeStubs]
from robota.core.permissions._words import (
    WordFacts,
    dollar_spans,
    is_identifier,
    is_sensitive_variable,
    parameter_danger,
    scan_word,
)
from robota.core.permissions._wrappers import WRAPPERS, unwrap

__all__ = [
    "COMMAND_RUNNERS",
    "PASSIVE_COMMANDS",
    "POSIX_SHELLS",
    "ParsedLine",
    "SimpleCommand",
    "base_name",
    "git_subcommand_index",
    "parse_line",
    "process_view",
]

_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_./+:@%,=-]+$")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[([^\]]*)\])?\+?=")
_LITERAL_INDEX = re.compile(r"\s*-?[0-9]+\s*\Z")
_NAMED_FD = re.compile(r"\{([^}]*)\}\Z")
_CODE_CHARS = frozenset(" \t\n;|&<>()$`")
_MAX_DEPTH = 8
_MAX_CANDIDATES = 64

POSIX_SHELLS = frozenset({"sh", "bash", "dash", "ash", "rbash", "posh", "busybox-sh"})
"""Shells whose ``-c`` text is bash enough to be parsed by bashlex."""

_OTHER_SHELLS = frozenset(
    {"zsh", "ksh", "ksh93", "mksh", "lksh", "oksh", "pdksh", "yash", "fish", "csh", "tcsh",
     "pwsh", "powershell", "nu", "xonsh", "elvish", "rc", "es", "osh", "ysh"}
)  # fmt: skip

PASSIVE_COMMANDS = frozenset(
    {
        "echo", "printf", "cat", "ls", "grep", "egrep", "fgrep", "head", "tail", "wc", "cut",
        "tr", "uniq", "pwd", "true", "false", ":", "touch", "mkdir", "cp", "mv", "ln", "chmod",
        "chown", "chgrp", "basename", "dirname", "realpath", "readlink", "stat", "file",
        "which", "whereis", "type", "whoami", "id", "uname", "date", "sleep", "diff", "cmp",
        "comm", "du", "df", "tree", "md5sum", "sha1sum", "sha256sum", "sha512sum", "base64",
        "od", "xxd", "hexdump", "strings", "tee", "seq", "yes", "nl", "fold", "paste", "join",
        "rev", "tac", "column", "expand", "unexpand", "printenv", "hostname", "ps", "kill",
        "jq", "test", "[", "cd", "pushd", "popd", "dirs", "rm", "rmdir", "unlink", "mktemp",
        "wait", "shift", "exit", "return", "break", "continue", "umask", "ulimit", "jobs",
        "export", "readonly", "declare", "typeset", "local", "unset", "read", "mapfile",
        "readarray", "getopts", "set", "hash", "history", "times", "caller", "help", "logout",
        "disown", "suspend", "fg", "bg", "compopt", "shopt", "alias", "unalias", "enable",
    }
)  # fmt: skip
"""Commands known never to run their arguments as commands (``printf -v``, ``read``… are
checked for the names they assign, see the module docstring)."""

_RUNNERS = frozenset(
    {*WRAPPERS, *POSIX_SHELLS, *_OTHER_SHELLS, "find", "rm", "git", "rsync", "xargs"}
)

_PROGRAM_VARIABLES = frozenset(
    {"PAGER", "EDITOR", "VISUAL", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
     "GIT_SSH_COMMAND", "MANPAGER", "SYSTEMD_PAGER", "SUDO_EDITOR"}
)  # fmt: skip
_GIT_PASSIVE = frozenset(
    {
        "status", "log", "diff", "show", "add", "commit", "branch", "checkout", "switch", "tag",
        "stash", "reset", "restore", "rm", "mv", "init", "rev-parse", "ls-files", "ls-tree",
        "cat-file", "blame", "describe", "shortlog", "reflog", "cherry-pick", "revert", "merge",
        "apply", "am", "format-patch", "notes", "worktree", "gc", "fsck", "remote", "show-ref",
        "symbolic-ref", "update-index", "rev-list", "for-each-ref", "merge-base", "name-rev",
        "range-diff", "whatchanged", "count-objects", "version", "check-ignore", "hash-object",
        "stripspace", "var", "clean", "sparse-checkout", "maintenance",
    }
)  # fmt: skip
_GIT_HARMLESS_KEYS = re.compile(
    r"(user|color|advice|column|i18n|status|init|pull|push|fetch|branch|merge|rebase|log|tag"
    r"|commit|format|gc|help|http|protocol\.version|safe)\.[a-z0-9.-]*\Z"
    r"|core\.(quotepath|autocrlf|safecrlf|filemode|ignorecase|eol|abbrev|whitespace)\Z"
)
_GIT_PROGRAM_KEYS = re.compile(
    r"(core\.(pager|editor|sshcommand)|sequence\.editor|pager\.[a-z0-9-]+)\Z"
)
_GIT_UNSAFE_IN_HARMLESS = re.compile(r"(merge|diff)\.[^.]+\.(driver|command|textconv)\Z")
_GIT_VALUE_OPTIONS = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})

_LOADER = re.compile(r"(ld(-[A-Za-z0-9_.-]+|64)?|libc)\.so(\.[0-9]+)*\Z")
"""Base names of the dynamic loader (``ld.so``, ``ld-linux-x86-64.so.2``, ``ld64.so.2``,
``ld-musl-x86_64.so.1``; musl's ``libc.so`` is its loader too)."""
_LOADER_FLAGS = frozenset({"--list", "--verify", "--inhibit-cache", "--help", "--version"})
_LOADER_VALUES = frozenset({"--argv0"})

COMMAND_RUNNERS = frozenset(
    {
        "ed", "red", "ex", "vi", "vim", "nvim", "view", "rvim", "rview", "vimdiff", "gvim",
        "gview", "evim", "nex", "nvi", "elvis", "vim.basic", "vim.tiny", "vim.nox", "vim.gtk3",
        "gdb", "gdb-multiarch", "lldb", "expect", "run-parts",
    }
)  # fmt: skip
"""Programs that run shell commands read from their input or chosen at run time (``ed``'s
``!cmd``, ``vim -c '!cmd'``, ``gdb``'s ``shell``, ``expect``'s ``spawn``, ``run-parts`` over a
directory): any use makes the line opaque."""

_PROCESS_VIEWS = ("/proc", "/dev")
_MAX_LINKS = 40


def process_view(path: str) -> bool:
    """True when ``path`` passes through ``/proc`` or ``/dev`` (lexically or through a symlink
    met on the way): a view whose meaning depends on the process resolving it
    (``/proc/self/cwd``, ``/dev/fd/3``, ``/dev/stdin``), so this process cannot judge it.

    Args:
        path: An absolute path (a relative one is judged by its ``..``/``dev``/``proc`` parts
            only: it could climb to ``/``).
    """
    if not path.startswith("/"):
        parts = path.split("/")
        return ".." in parts and any(part in ("dev", "proc") for part in parts)
    pending: deque[str] = deque(path.split("/"))
    current = "/"
    links = 0
    while pending:
        name = pending.popleft()
        if name in ("", "."):
            continue
        if name == "..":
            current = posixpath.dirname(current)
            continue
        candidate = posixpath.join(current, name)
        if candidate in _PROCESS_VIEWS:
            return True
        try:
            info = os.lstat(candidate)
        except OSError:
            current = candidate
            continue
        if stat.S_ISLNK(info.st_mode):
            links += 1
            if links > _MAX_LINKS:
                return True
            try:
                target = os.readlink(candidate)
            except OSError:
                return True
            if target.startswith("/"):
                current = "/"
            pending.extendleft(reversed(target.split("/")))
            continue
        current = candidate
    return current in _PROCESS_VIEWS


@dataclass(frozen=True, kw_only=True, slots=True)
class SimpleCommand:
    """One simple command the line runs (or, for a candidate, may run).

    Attributes:
        words: The command's words after quote removal (assignments and redirections excluded).
        certain: Per word, False when bash changes the word at run time: parameter, command,
            arithmetic or process substitution, tilde, unquoted glob (``*``, ``?``, ``[…]``),
            extglob, brace expansion, ``$'…'``/``$"…"``.
        args_from_stdin: True when more arguments arrive at run time (``xargs``, ``find -exec``).
        redirected: True when the command has a redirection (``>``, ``<``, ``2>&1``, here-doc).
        assignments: ``NAME=VALUE`` prefixes, as written.
        via: How the command was reached: ``"line"`` for a command of the line itself,
            otherwise e.g. ``"substitution"``, ``"compound"``, ``"wrapper:env"``, ``"bash -c"``,
            ``"trap"``, ``"argument of uv"``.
        facts: Per word, what bash does to it (:class:`~robota.core.permissions._words.WordFacts`).
        directory: Where the command runs relative to the line's working directory when a
            wrapper changed it (``"."`` unchanged, ``"/x"``, ``"~"``, ``"sub"``), None unknown.
        may_run_arguments: The command is not known, so its arguments may start commands.
        tentative: A candidate parsed out of an argument word of an unknown command: a guess.
    """

    words: tuple[str, ...]
    certain: tuple[bool, ...]
    args_from_stdin: bool = False
    redirected: bool = False
    assignments: tuple[str, ...] = ()
    via: str = "line"
    facts: tuple[WordFacts, ...] = ()
    directory: str | None = "."
    may_run_arguments: bool = False
    tentative: bool = False

    @property
    def text(self) -> str:
        """The words joined by single spaces (what patterns are matched against)."""
        return " ".join(self.words)

    @property
    def name(self) -> str:
        """The command name's last path segment (``/bin/rm`` → ``rm``), or ``""``."""
        return base_name(self.words[0]) if self.words else ""

    @property
    def name_certain(self) -> bool:
        """True when the command name is a known plain word (no expansion, glob or brace)."""
        if not self.words or not self.certain[0]:
            return False
        return bool(_PLAIN_NAME.match(self.words[0])) or self.words[0] == "["

    @property
    def all_certain(self) -> bool:
        """True when every word is known and no argument arrives at run time."""
        return all(self.certain) and not self.args_from_stdin

    def fact(self, index: int) -> WordFacts:
        """The facts of word ``index`` (derived from ``certain`` when none were recorded)."""
        if index < len(self.facts):
            return self.facts[index]
        return WordFacts(literal=self.words[index], runtime=not self.certain[index])

    def tail(self, start: int, **changes: Any) -> SimpleCommand:
        """The command made of the words from ``start`` on (for a wrapped command)."""
        facts = self.facts[start:] if self.facts else ()
        base = replace(
            self,
            words=self.words[start:],
            certain=self.certain[start:],
            facts=facts,
            redirected=False,
            assignments=(),
            may_run_arguments=False,
        )
        return replace(base, **changes) if changes else base


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedLine:
    """A parsed command line.

    Attributes:
        source: The line as given.
        commands: Every simple command the line runs, wrappers unwrapped (outermost first).
        single: The line's one simple command when the whole line is exactly one command with
            no operator, substitution, redirection, assignment, compound or expansion, and no
            opaque part of its own; else None. (A candidate's opacity — ``git sg`` may run
            ``sg`` reading stdin — leaves ``single`` set but ``opaque`` True.)
        opaque: True when the line, or a candidate, runs code the parser cannot see (see the
            module docstring).
        has_substitution: Any ``$(…)``, backtick or process substitution.
        has_compound: Any subshell, group, ``if``/``for``/``while`` or function definition.
        candidates: Commands an unknown command of the line may run through its arguments.
        texts: Argument words of unknown commands that may be code but did not parse as a
            line (``python -c …``): judged by the words they mention.
        directories: Literal directories the line changes to (``cd``/``pushd``) anywhere, or
            None when one is only known at run time (``cd "$d"``, ``cd -``).
        opaque_reasons: Why the line is opaque (empty when it is not).
        redirect_paths: The literal targets of the line's redirections (``3</usr/bin/rm``
            opens ``/usr/bin/rm``: a program run through a descriptor or a link to it).
    """

    source: str
    commands: tuple[SimpleCommand, ...]
    single: SimpleCommand | None
    opaque: bool
    has_substitution: bool
    has_compound: bool
    candidates: tuple[SimpleCommand, ...] = ()
    texts: tuple[str, ...] = ()
    directories: tuple[str, ...] | None = ()
    opaque_reasons: tuple[str, ...] = ()
    redirect_paths: tuple[str, ...] = ()


@dataclass(kw_only=True, slots=True)
class _Walk:
    commands: list[SimpleCommand] = field(default_factory=list[SimpleCommand])
    candidates: list[SimpleCommand] = field(default_factory=list[SimpleCommand])
    texts: list[str] = field(default_factory=list[str])
    reasons: list[str] = field(default_factory=list[str])
    candidate_reasons: list[str] = field(default_factory=list[str])
    directories: list[str] | None = field(default_factory=list[str])
    redirects: list[str] = field(default_factory=list[str])
    written: list[tuple[str | None, int]] = field(default_factory=list[tuple[str | None, int]])
    executed: list[tuple[str, int]] = field(default_factory=list[tuple[str, int]])
    command_id: int = 0
    next_id: int = 0
    literals: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    unresolved: list[tuple[SimpleCommand, int, _Context]] = field(
        default_factory=list[tuple[SimpleCommand, int, "_Context"]]
    )

    def write(self, name: str | None) -> None:
        self.written.append((name, self.command_id))

    def run(self, name: str) -> None:
        self.executed.append((name, self.command_id))

    def runs_what_it_writes(self) -> bool:
        return any(
            (written is None or written == executed) and writer != runner
            for written, writer in self.written
            for executed, runner in self.executed
        )

    substitution: bool = False
    compound: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class _Context:
    source: str
    via: str = "line"
    depth: int = 0
    directory: str | None = "."
    candidate: bool = False
    tentative: bool = False
    origin: str = ""

    def deeper(self, **changes: Any) -> _Context:
        return replace(self, depth=self.depth + 1, **changes)


def base_name(word: str) -> str:
    """The last path segment of a command word (``/usr/bin/rm`` → ``rm``)."""
    stripped = word.rstrip("/")
    return stripped.rsplit("/", 1)[-1] if stripped else word


def parse_line(source: str) -> ParsedLine | None:
    """Parse ``source`` as a bash command line.

    Args:
        source: One command line (may hold newlines, here-documents).

    Returns:
        The parsed line, or None when bashlex cannot parse it (the caller treats that as
        unevaluable: never allowed, asked when a deny/ask rule could apply, and a possible
        catastrophic removal).
    """
    trees = _parse(source)
    if trees is None:
        return None
    walk = _Walk()
    context = _Context(source=source)
    for tree in trees:
        _visit(tree, walk, context)
    _resolve_unknown_words(walk)
    if walk.runs_what_it_writes():
        walk.reasons.append("the line runs a file it also writes")
    single: SimpleCommand | None = None
    if (
        len(trees) == 1
        and getattr(trees[0], "kind", "") == "command"
        and len(walk.commands) == 1
        and not walk.substitution
        and not walk.compound
        and not walk.reasons
    ):
        only = walk.commands[0]
        plain = only.all_certain and only.name_certain
        if plain and not only.redirected and not only.assignments:
            single = only
    reasons = walk.reasons + walk.candidate_reasons
    return ParsedLine(
        source=source,
        commands=tuple(walk.commands),
        single=single,
        opaque=bool(reasons),
        has_substitution=walk.substitution,
        has_compound=walk.compound,
        candidates=tuple(walk.candidates),
        texts=tuple(dict.fromkeys(walk.texts)),
        directories=tuple(walk.directories) if walk.directories is not None else None,
        opaque_reasons=tuple(dict.fromkeys(reasons)),
        redirect_paths=tuple(dict.fromkeys(walk.redirects)),
    )


def _parse(source: str) -> list[Any] | None:
    if "\x00" in source:
        return None
    if not source.strip():
        return []
    if _hangs_bashlex(source):
        return None
    try:
        return list(bashlex.parse(source))  # pyright: ignore[reportUnknownMemberType]
    except Exception:  # bashlex raises ParsingError, NotImplementedError, IndexError, ...
        return None


def _hangs_bashlex(source: str) -> bool:
    """True for a ``${`` inside single quotes with no ``}`` after it in those quotes: bashlex
    reads single-quoted text as unquoted there and loops forever on the open ``${``."""
    if "${" not in source:
        return False
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
        elif char == "'":
            end = source.find("'", index + 1)
            if end < 0:
                return False
            segment = source[index + 1 : end]
            start = segment.find("${")
            while start >= 0:
                if segment.find("}", start + 2) < 0:
                    return True
                start = segment.find("${", start + 2)
            index = end + 1
        elif char == '"':
            index += 1
            while index < len(source) and source[index] != '"':
                index += 2 if source[index] == "\\" else 1
            index += 1
        else:
            index += 1
    return False


def _opaque(walk: _Walk, context: _Context, reason: str) -> None:
    if context.tentative:
        walk.texts.append(context.origin)
    elif context.candidate:
        walk.candidate_reasons.append(reason)
    else:
        walk.reasons.append(reason)


def _raw(node: Any, context: _Context) -> str:
    start, end = node.pos
    return context.source[start:end]


def _facts(node: Any, context: _Context) -> WordFacts:
    return scan_word(_raw(node, context), parsed=str(node.word))


def _visit(node: Any, walk: _Walk, context: _Context) -> None:
    kind: str = getattr(node, "kind", "")
    if kind == "command":
        _command(node, walk, context)
        return
    if kind in ("commandsubstitution", "processsubstitution"):
        if not context.candidate:
            walk.substitution = True
        _visit(node.command, walk, replace(context, via="substitution"))
        return
    if kind == "redirect":
        _redirect(node, walk, context)
        return
    if kind == "word":
        facts = _facts(node, context)
        if facts.danger is not None:
            _opaque(walk, context, facts.danger)
    if kind == "list" and _chain(node, walk, context):
        return
    if kind == "compound":
        if not context.candidate:
            walk.compound = True
        start = node.pos[0]
        if context.source[start : start + 2] == "((":
            _opaque(walk, context, "an arithmetic command ((…)) evaluates its text")
    if kind in ("if", "for", "while", "until", "function"):
        if not context.candidate:
            walk.compound = True
        context = replace(context, via="compound")
    if kind == "for":
        _for_variable(node, walk, context)
    if kind == "function":
        _function(node, walk, context)
    for child in _children(node):
        _visit(child, walk, context)


def _chain(node: Any, walk: _Walk, context: _Context) -> bool:
    """Visit ``a && b && c`` of simple commands with each ``cd``/``pushd`` applied to the
    commands after it (they run only when it succeeded); False for any other list."""
    parts: list[Any] = list(node.parts)
    operators = [part for part in parts if getattr(part, "kind", "") == "operator"]
    commands = [part for part in parts if getattr(part, "kind", "") != "operator"]
    if not operators or any(getattr(op, "op", "") != "&&" for op in operators):
        return False
    if any(getattr(part, "kind", "") != "command" for part in commands):
        return False
    directory = context.directory
    for part in commands:
        _visit(part, walk, replace(context, directory=directory))
        words = [word for word in part.parts if getattr(word, "kind", "") == "word"]
        if words and str(words[0].word) in ("cd", "pushd"):
            directory = _chained_directory(words, directory, context)
    return True


def _chained_directory(words: list[Any], directory: str | None, context: _Context) -> str | None:
    operands = [
        word
        for word in words[1:]
        if not (str(word.word).startswith(("-", "+")) and len(str(word.word)) > 1)
    ]
    if not operands:
        return _join(directory, "~") if str(words[0].word) == "cd" else directory
    facts = _facts(operands[0], context)
    if facts.runtime or (facts.pattern and not facts.tilde) or str(operands[0].word) == "-":
        return None
    return _join(directory, str(operands[0].word))


def _children(node: Any) -> list[Any]:
    out: list[Any] = []
    for attr in ("parts", "list", "redirects"):
        value = getattr(node, attr, None)
        if isinstance(value, list):
            out.extend(value)
    for attr in ("command", "output", "heredoc"):
        value = getattr(node, attr, None)
        if value is not None and hasattr(value, "kind"):
            out.append(value)
    return out


def _for_variable(node: Any, walk: _Walk, context: _Context) -> None:
    words = [part for part in node.parts if getattr(part, "kind", "") == "word"]
    if words:
        name = _raw(words[0], context)
        if not is_identifier(name) or is_sensitive_variable(name):
            _opaque(walk, context, f"a for loop assigns {name}")


def _function(node: Any, walk: _Walk, context: _Context) -> None:
    words = [part for part in node.parts if getattr(part, "kind", "") == "word"]
    if not words:
        return
    name = str(words[0].word)
    shadows = {
        *PASSIVE_COMMANDS,
        *_RUNNERS,
        *_BUILTINS,
        "make",
        "gmake",
        "command_not_found_handle",
    }
    if base_name(name) in shadows or "/" in name:
        _opaque(walk, context, f"a function named {name} shadows a command")


_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


@dataclass(frozen=True, kw_only=True, slots=True)
class _Redirection:
    stdin: str | None = None  # the text fed to stdin, when known
    raw: str | None = None  # the text fed to stdin as written (here-string, here-document)


def _redirect(node: Any, walk: _Walk, context: _Context) -> _Redirection:
    """Visit one redirection: its substitutions, what it writes, what it feeds to stdin."""
    kind = getattr(node, "type", "")
    target = getattr(node, "output", None)
    heredoc = getattr(node, "heredoc", None)
    if heredoc is not None and target is not None and hasattr(target, "pos"):
        body = _heredoc_body(str(heredoc.value))
        delimiter = _raw(target, context)
        if any(char in delimiter for char in "'\"\\"):
            return _Redirection(stdin=body, raw=body)
        return _Redirection(stdin=_heredoc_expansions(body, walk, context), raw=body)
    if target is None or not hasattr(target, "kind"):
        return _Redirection()
    facts = _facts(target, context)
    if facts.danger is not None:
        _opaque(walk, context, facts.danger)
    for child in _children(target):
        _visit(child, walk, context)
    if kind in _WRITES and not context.tentative:
        walk.write(base_name(str(target.word)) if facts.certain else None)
    if facts.certain and kind != "<<<":
        walk.redirects.append(str(target.word))
    if kind == "<<<":
        return _Redirection(stdin=str(target.word) if facts.certain else None, raw=facts.raw)
    return _Redirection()


def _heredoc_body(value: str) -> str:
    lines = value.split("\n")
    return "\n".join(lines[:-1]) if len(lines) > 1 else value


def _heredoc_expansions(body: str, walk: _Walk, context: _Context) -> str | None:
    """Parse the ``$(…)`` and backticks of an unquoted here-document body (bash runs them);
    return the body when it holds no expansion at all."""
    try:
        spans = dollar_spans(body)
    except ValueError:
        _opaque(walk, context, "a here-document body this reader cannot follow")
        return None
    for start, end in spans:
        group = body[start:end]
        if group.startswith("${"):
            reason = parameter_danger(group[2:-1])
            if reason is not None:
                _opaque(walk, context, reason)
        elif group.startswith("$["):
            _opaque(walk, context, "arithmetic expansion $[…] evaluates its text")
        elif group.startswith("$(("):
            _opaque(walk, context, "arithmetic expansion $((…)) evaluates its text")
        elif group.startswith("$("):
            _nested(group[2:-1], walk, context, via="here-document")
        else:
            text = re.sub(r"\\([\\`$])", r"\1", group[1:-1])
            _nested(text, walk, context, via="here-document")
    if spans or re.search(r"\$[A-Za-z_0-9@*#?$!-]", body):
        return None
    return body


def _command(node: Any, walk: _Walk, context: _Context) -> None:
    outer = walk.command_id
    walk.next_id += 1
    walk.command_id = walk.next_id
    try:
        _simple_command(node, walk, context)
    finally:
        walk.command_id = outer


def _simple_command(node: Any, walk: _Walk, context: _Context) -> None:
    parts: list[Any] = list(node.parts)
    words: list[str] = []
    facts: list[WordFacts] = []
    assignments: list[str] = []
    redirected = False
    stdin_text: str | None = None
    stdin_raw: str | None = None
    for index, part in enumerate(parts):
        kind = getattr(part, "kind", "")
        if kind == "word":
            raw = _raw(part, context)
            following = parts[index + 1] if index + 1 < len(parts) else None
            named = _NAMED_FD.match(raw)
            if (
                named
                and following is not None
                and getattr(following, "kind", "") == "redirect"
                and following.pos[0] == part.pos[1]
            ):
                name = named.group(1)
                if not is_identifier(name) or is_sensitive_variable(name):
                    _opaque(walk, context, f"a redirection assigns {name}")
                continue
            if not words and _ASSIGNMENT.match(raw):
                assignments.append(raw)
                _assignment(raw, walk, context)
            else:
                word_facts = scan_word(raw, parsed=str(part.word))
                if word_facts.danger is not None:
                    _opaque(walk, context, word_facts.danger)
                words.append(str(part.word))
                facts.append(word_facts)
            for child in _children(part):
                _visit(child, walk, context)
        elif kind == "assignment":
            raw = _raw(part, context)
            assignments.append(raw)
            _assignment(raw, walk, context)
            for child in _children(part):
                _visit(child, walk, context)
        elif kind == "redirect":
            redirected = True
            redirection = _redirect(part, walk, context)
            if getattr(part, "type", "") in ("<", "<<", "<<-", "<<<", "<&"):
                stdin_text, stdin_raw = redirection.stdin, redirection.raw
    command = SimpleCommand(
        words=tuple(words),
        certain=tuple(fact.certain for fact in facts),
        facts=tuple(facts),
        redirected=redirected,
        assignments=tuple(assignments),
        via=context.via,
        directory=context.directory,
        tentative=context.tentative,
    )
    _add(command, walk, context, stdin_text=stdin_text, stdin_raw=stdin_raw)


def _assignment(raw: str, walk: _Walk, context: _Context, *, declared: bool = False) -> None:
    """Check one ``NAME=VALUE`` / ``NAME[SUB]=VALUE`` (prefix, standalone or declared)."""
    match = _ASSIGNMENT.match(raw)
    if match is None:
        _opaque(walk, context, f"an assignment this reader cannot follow ({raw})")
        return
    name, subscript = match.group(1), match.group(3)
    value = raw[match.end() :]
    if subscript is not None and not _LITERAL_INDEX.match(subscript):
        _opaque(walk, context, f"the subscript of {name}[…] is evaluated as arithmetic")
    facts = scan_word(value, assignment=True)
    if facts.danger is not None:
        _opaque(walk, context, facts.danger)
    if facts.certain and subscript is None:
        walk.literals.setdefault(name, []).append(facts.literal)
    if value.startswith("(") and not declared:
        _opaque(walk, context, f"an array assignment to {name}")
    if name in _PROGRAM_VARIABLES:
        if facts.runtime:
            _opaque(walk, context, f"{name} names a program known only at run time")
        else:
            _nested(facts.literal, walk, context, via=f"${name}")
        return
    if is_sensitive_variable(name):
        _opaque(walk, context, f"assigning {name} changes how commands start or resolve")


def _add(
    command: SimpleCommand,
    walk: _Walk,
    context: _Context,
    *,
    stdin_text: str | None = None,
    stdin_raw: str | None = None,
) -> None:
    target = walk.candidates if context.candidate else walk.commands
    if not command.words:
        if command.assignments or command.redirected:
            target.append(command)
        return
    if context.candidate and len(walk.candidates) >= _MAX_CANDIDATES:
        _opaque(walk, context, "too many candidate commands")
        return
    position = len(target)
    target.append(command)
    if context.depth >= _MAX_DEPTH:
        _opaque(walk, context, "commands nested too deep")
        return
    if not context.tentative:
        _record_files(command, walk)
    unknown = _dispatch(command, walk, context, stdin_text)
    if unknown:
        target[position] = replace(command, may_run_arguments=True)
        _scan_arguments(target[position], walk, context, stdin_raw=stdin_raw)


_COPIES = frozenset({"cp", "mv", "install", "ln", "tee", "curl", "wget", "dd", "rsync", "scp"})


def _record_files(command: SimpleCommand, walk: _Walk) -> None:
    """Remember files the line writes and files it runs (a line that runs a file it also
    writes is opaque: ``echo 'rm -rf x' > s.sh; bash s.sh``, ``cp /bin/rm y; ./y``)."""
    first = command.words[0]
    if command.name_certain and "/" in first:
        walk.run(base_name(first))
    if command.name in _COPIES:
        for index in range(1, len(command.words)):
            word = command.words[index]
            if not command.certain[index]:
                walk.write(None)
            elif not word.startswith("-") or word.startswith(("-o", "-O", "of=")):
                walk.write(base_name(word.split("=", 1)[-1]))


def _dispatch(
    command: SimpleCommand, walk: _Walk, context: _Context, stdin_text: str | None
) -> bool:
    """Follow what ``command`` runs; return True when the command is not known."""
    if not command.name_certain:
        return True
    first = command.words[0]
    name = command.name
    if name in POSIX_SHELLS or name in _OTHER_SHELLS or _is_proc_exe(first):
        _shell(command, walk, context, stdin_text)
        return False
    if "/" in first and process_view(first):
        _opaque(walk, context, f"{first} is a process view: the program it runs is unknown")
        return True
    if name in COMMAND_RUNNERS:
        _opaque(walk, context, f"{name} runs shell commands this reader cannot see")
        return True
    if _LOADER.match(name):
        _loader(command, walk, context)
        return False
    if "/" not in first:
        handler = _BUILTINS.get(first)
        if handler is not None:
            handler(command, walk, context)
            return False
    if name == "find":
        _find(command, walk, context)
        return False
    if name == "git":
        return _git(command, walk, context)
    if name in ("make", "gmake"):
        _make(command, walk, context)
        return True
    if name in WRAPPERS:
        return _wrapper(command, walk, context, stdin_text)
    return name not in PASSIVE_COMMANDS


def _is_proc_exe(word: str) -> bool:
    """``/proc/self/exe`` run by bash is bash itself (another process's ``exe`` is not)."""
    return bool(re.match(r"/proc/(self|thread-self)/exe\Z", word))


def _loader(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    """The dynamic loader runs its first non-option argument as the program: unwrapped when
    that word is literal, opaque otherwise or with an option that changes the code loaded
    (``--preload``, ``--library-path``, ``--audit``…)."""
    words = command.words
    index = 1
    argv0: str | None = None
    while index < len(words):
        word = words[index]
        if not command.certain[index]:
            _opaque(walk, context, f"{command.name} runs a program known only at run time")
            return
        if word == "--":
            index += 1
            break
        if not word.startswith("-"):
            break
        if word in _LOADER_FLAGS:
            index += 1
            continue
        if word in _LOADER_VALUES and index + 1 < len(words):
            if not command.certain[index + 1]:
                _opaque(walk, context, f"{command.name} {word} is only known at run time")
                return
            argv0 = words[index + 1]
            index += 2
            continue
        _opaque(walk, context, f"{command.name} {word} changes what code runs")
        return
    if index >= len(words):
        return
    if not command.certain[index]:
        _opaque(walk, context, f"{command.name} runs a program known only at run time")
        return
    inner = command.tail(index, via="loader")
    _add(inner, walk, context.deeper(via="loader"))
    if argv0 is not None:  # a multi-call program (busybox) picks what it does by argv[0]
        renamed = replace(inner, words=(argv0, *inner.words[1:]), facts=())
        _add(renamed, walk, context.deeper(via="loader", candidate=True))


def _nested(text: str, walk: _Walk, context: _Context, *, via: str) -> None:
    trees = _parse(text)
    if trees is None:
        _opaque(walk, context, f"text run by {via} does not parse")
        return
    inner = replace(context, source=text, via=via, depth=context.depth + 1)
    if context.depth + 1 > _MAX_DEPTH:
        _opaque(walk, context, "commands nested too deep")
        return
    for tree in trees:
        _visit(tree, walk, inner)


def _scan_arguments(
    command: SimpleCommand, walk: _Walk, context: _Context, *, stdin_raw: str | None = None
) -> None:
    """An unknown command may run its arguments (or code fed to its stdin): follow the likely
    ones, and keep every code-like argument text for the deny side's word check."""
    owner = command.name or "an unknown command"
    for index in range(1, len(command.words)):
        word = command.words[index]
        facts = command.fact(index)
        raw = facts.raw or word
        if _looks_like_code(raw):
            walk.texts.append(raw)
        if not command.certain[index]:
            if facts.runtime and len(walk.unresolved) < _MAX_CANDIDATES:
                walk.unresolved.append((command, index, context))
            continue
        if not context.tentative and not word.startswith("-"):
            walk.run(base_name(word))
        if base_name(word) in _RUNNERS:
            inner = command.tail(index, via=f"argument of {owner}")
            _add(inner, walk, context.deeper(candidate=True, via=f"argument of {owner}"))
        for text in _code_texts(word):
            _tentative(text, walk, context)
    if stdin_raw is not None and _looks_like_code(stdin_raw):
        walk.texts.append(stdin_raw)
        _tentative(stdin_raw, walk, context)


_SIMPLE_PARAMETER = re.compile(r'"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?\Z')
_SIMPLE_SUBSTITUTION = re.compile(r'"?(?:\$\((.*)\)|`(.*)`)"?\Z', re.DOTALL)


def _resolve_unknown_words(walk: _Walk) -> None:
    """An unknown command's argument whose value the line itself spells out (``x=rm; uv run
    $x …``, ``uv run $(echo rm) …``) is tried with that value as a candidate command."""
    pending, walk.unresolved = walk.unresolved, []
    for command, index, context in pending:
        for value in _word_values(command.fact(index).raw, walk):
            words = tuple(value.split()) or ("",)
            tail = command.tail(index + 1)
            inner = replace(
                tail,
                words=(*words, *tail.words),
                certain=(*(True for _ in words), *tail.certain),
                facts=(),
                via=f"argument of {command.name or 'an unknown command'}",
            )
            _add(inner, walk, context.deeper(candidate=True, via=inner.via))


def _word_values(raw: str, walk: _Walk) -> list[str]:
    parameter = _SIMPLE_PARAMETER.match(raw)
    if parameter is not None:
        return walk.literals.get(parameter.group(1), [])
    substitution = _SIMPLE_SUBSTITUTION.match(raw)
    if substitution is None:
        return []
    inner = parse_line(substitution.group(1) or substitution.group(2) or "")
    if inner is None or inner.single is None:
        return []
    name, args = inner.single.words[0], list(inner.single.words[1:])
    if name == "echo" and args and not args[0].startswith("-"):
        return [" ".join(args)]
    if name == "printf" and len(args) == 1 and "%" not in args[0] and "\\" not in args[0]:
        return args
    return []


def _looks_like_code(text: str) -> bool:
    return any(char in _CODE_CHARS or char in "\\'\"!=" for char in text)


def _code_texts(word: str) -> list[str]:
    if not any(char in _CODE_CHARS for char in word):
        return []
    texts = [word]
    if word.startswith("-") and len(word) > 2 and word[1] != "-":
        texts.append(word[2:])
    position = word.find("=")
    while position >= 0:
        texts.append(word[position + 1 :])
        position = word.find("=", position + 1)
    return texts


def _tentative(text: str, walk: _Walk, context: _Context) -> None:
    if context.depth + 1 > _MAX_DEPTH:
        walk.texts.append(text)
        return
    trees = _parse(text)
    if trees is None:
        walk.texts.append(text)
        return
    inner = _Context(
        source=text,
        via="argument text",
        depth=context.depth + 1,
        directory=context.directory,
        candidate=True,
        tentative=True,
        origin=context.origin if context.tentative else text,
    )
    for tree in trees:
        _visit(tree, walk, inner)


def _shell(command: SimpleCommand, walk: _Walk, context: _Context, stdin_text: str | None) -> None:
    words = command.words
    name = command.name
    posix = name in POSIX_SHELLS
    index = 1
    from_string = False
    from_stdin = False
    while index < len(words):
        word = words[index]
        if not command.certain[index]:
            break
        if word in ("--", "-"):
            index += 1
            break
        if word.startswith("--"):
            if word.split("=", 1)[0] in ("--rcfile", "--init-file"):
                # the named file is sourced as start-up code before anything else runs
                _opaque(walk, context, f"{name} {word.split('=', 1)[0]} runs a start-up file")
                return
            index += 1
            continue
        if word[0] in "-+" and len(word) > 1:
            letters = word[1:]
            from_string = from_string or (word[0] == "-" and "c" in letters)
            from_stdin = from_stdin or (word[0] == "-" and ("s" in letters or "i" in letters))
            index += 2 if ("o" in letters or "O" in letters) else 1
            continue
        break
    via = f"{name} -c"
    if from_string:
        if index >= len(words):
            return
        if not command.certain[index]:
            _opaque(walk, context, f"{name} -c runs text only known at run time")
            return
        _nested(words[index], walk, context, via=via)
        if not posix:
            _opaque(walk, context, f"{name} -c text is not bash")
        return
    if index < len(words) and not from_stdin:
        script = words[index]
        if not command.certain[index]:
            _opaque(walk, context, f"{name} runs a script only known at run time")
            return
        if not re.match(r"/dev/(stdin|fd/\d+)\Z|/proc/[^/]+/fd/\d+\Z", script):
            if not context.tentative:
                walk.run(base_name(script))
            return  # runs a script file: as visible as running the file directly
    if stdin_text is not None:
        _nested(stdin_text, walk, context, via=f"{name} stdin")
        if not posix:
            _opaque(walk, context, f"{name} stdin is not bash")
        return
    _opaque(walk, context, f"{name} reads its program from stdin")


def _wrapper(
    command: SimpleCommand, walk: _Walk, context: _Context, stdin_text: str | None
) -> bool:
    name = command.name
    result = unwrap(name, command.words, command.certain)
    for text, known in result.assignments:
        if known:
            _assignment(text, walk, context)
        elif is_identifier(text.split("=", 1)[0]):
            _assignment(text.split("=", 1)[0] + "=", walk, context)
        else:
            _opaque(walk, context, f"{name} sets an environment known only at run time")
    if result.unknown:
        return True
    directory = _join(context.directory, result.directory)
    for text, known in result.texts:
        if known:
            _nested(text, walk, context.deeper(directory=directory), via=f"{name} text")
        else:
            _opaque(walk, context, f"{name} runs text only known at run time")
    if result.stdin_shell:
        if stdin_text is not None:
            _nested(stdin_text, walk, context.deeper(directory=directory), via=f"{name} stdin")
        else:
            _opaque(walk, context, f"{name} runs a shell reading its program from stdin")
    if result.start is None:
        return False
    if result.start >= len(command.words):  # xargs with no command runs echo
        inner = SimpleCommand(words=("echo",), certain=(True,), args_from_stdin=True)
    else:
        inner = command.tail(result.start)
    if result.shell_arguments:
        inner = SimpleCommand(
            words=("sh", *inner.words),
            certain=(True, *inner.certain),
            facts=(WordFacts(literal="sh"), *inner.facts) if inner.facts else (),
        )
    if result.expands_dollar:
        certain = tuple(
            known and "$" not in word
            for word, known in zip(inner.words, inner.certain, strict=True)
        )
        inner = replace(inner, certain=certain, facts=())
    inner = replace(
        inner,
        via=f"wrapper:{name}",
        args_from_stdin=inner.args_from_stdin or result.from_stdin,
        directory=directory,
        tentative=context.tentative,
    )
    _add(inner, walk, context.deeper(via=f"wrapper:{name}", directory=directory))
    return False


def _join(base: str | None, path: str | None) -> str | None:
    if base is None or path is None:
        return None
    if path == ".":
        return base
    if path.startswith(("/", "~")) or base == ".":
        return path
    return posixpath.join(base, path)


def _find(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    words = command.words
    index = 0
    while index < len(words):
        if words[index] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(words) and words[end] not in (";", "+"):
                end += 1
            if end > index + 1:
                segment = command.tail(index + 1)
                size = end - index - 1
                certain = tuple(
                    known and ("{}" not in word or word == "{}")
                    for word, known in zip(
                        segment.words[:size], segment.certain[:size], strict=True
                    )
                )
                inner = replace(
                    segment,
                    words=segment.words[:size],
                    certain=certain,
                    facts=(),
                    args_from_stdin=True,
                    via="find -exec",
                )
                _add(inner, walk, context.deeper(via="find -exec"))
            index = end
        index += 1


def _make(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    """``make`` runs recipes from makefiles (files); a makefile read from stdin or given as
    text (``-f -``, ``--eval``) or a ``SHELL=`` override is code this parser cannot see."""
    words = command.words
    for index in range(1, len(words)):
        word = words[index]
        following = words[index + 1] if index + 1 < len(words) else ""
        stdin_file = word in ("-f", "--file", "--makefile") and following in ("-", "/dev/stdin")
        if stdin_file or word in ("-f-", "--file=-", "--makefile=-", "-f/dev/stdin"):
            _opaque(walk, context, "make reads a makefile from stdin")
        elif word.startswith(("-E", "--eval")):
            _opaque(walk, context, "make --eval evaluates makefile text")
        elif word.split("=", 1)[0] in ("SHELL", ".SHELLFLAGS", "MAKEFILES", "MAKEFLAGS"):
            _opaque(walk, context, f"make {word.split('=', 1)[0]}= changes what recipes run")


def git_subcommand_index(words: tuple[str, ...]) -> int | None:
    """Index of git's subcommand in ``words`` (after its global options), or None."""
    index = 1
    while index < len(words):
        word = words[index]
        if word == "-c" or word in _GIT_VALUE_OPTIONS:
            index += 2
        elif word.startswith("-"):
            index += 1
        else:
            return index
    return None


def _git(command: SimpleCommand, walk: _Walk, context: _Context) -> bool:
    words = command.words
    index = 1
    while index < len(words):
        word = words[index]
        if not command.certain[index]:
            return True
        if word == "-c":
            if index + 1 >= len(words):
                return False
            _git_config(words[index + 1], command.certain[index + 1], walk, context)
            index += 2
        elif word in _GIT_VALUE_OPTIONS:
            index += 2
        elif word.startswith(("--exec-path=", "--config-env")):
            _opaque(walk, context, f"git {word.split('=', 1)[0]} changes what git runs")
            index += 1
        elif word.startswith("-"):
            index += 1
        else:
            break
    if index >= len(words):
        return False
    subcommand = words[index]
    if subcommand == "config":
        _git_config_command(command, index, walk, context)
        return False
    return subcommand not in _GIT_PASSIVE


def _git_config(setting: str, known: bool, walk: _Walk, context: _Context) -> None:
    key, _, value = setting.partition("=")
    _git_key(key.lower(), value, known, walk, context)


def _git_key(key: str, value: str, known: bool, walk: _Walk, context: _Context) -> None:
    if key.startswith("alias."):
        if known and value.startswith("!"):
            _nested(value[1:], walk, context, via=f"git {key}")
        elif not (known and re.fullmatch(r"[A-Za-z0-9_ .-]*", value)):
            _opaque(walk, context, f"git {key} is an alias this reader cannot follow")
        return
    if _GIT_PROGRAM_KEYS.match(key):
        if known:
            _nested(value, walk, context, via=f"git {key}")
        else:
            _opaque(walk, context, f"git {key} names a program known only at run time")
        return
    if _GIT_HARMLESS_KEYS.match(key) and not _GIT_UNSAFE_IN_HARMLESS.match(key):
        return
    _opaque(walk, context, f"git -c {key} may name a program git runs")


def _git_config_command(command: SimpleCommand, index: int, walk: _Walk, context: _Context) -> None:
    args = [
        (word, known)
        for word, known in zip(
            command.words[index + 1 :], command.certain[index + 1 :], strict=True
        )
        if not word.startswith("-")
    ]
    if len(args) >= 2:
        (key, key_known), (value, value_known) = args[0], args[1]
        if not key_known:
            _opaque(walk, context, "git config sets a key known only at run time")
            return
        lowered = key.lower()
        if lowered.startswith("alias.") or _GIT_PROGRAM_KEYS.match(lowered):
            _git_key(lowered, value, value_known, walk, context)


# ---- builtins -------------------------------------------------------------------------------


def _eval(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    if all(command.certain[1:]):
        _nested(" ".join(command.words[1:]), walk, context, via="eval")
    else:
        _opaque(walk, context, "eval runs text only known at run time")


def _source(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    del command
    _opaque(walk, context, "source runs a file inside this shell")


def _trap(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    args = list(zip(command.words[1:], command.certain[1:], strict=True))
    if args and args[0][0] in ("-p", "-l", "-P"):
        return
    if args and args[0][0] == "--":
        args = args[1:]
    if len(args) < 2:
        return  # `trap SIG` resets a signal
    action, known = args[0]
    if action in ("-", ""):
        return
    if known:
        _nested(action, walk, context, via="trap")
    else:
        _opaque(walk, context, "trap runs text only known at run time")


def _always_opaque(reason: str) -> Any:
    def handler(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
        del command
        _opaque(walk, context, reason)

    return handler


def _with_arguments(reason: str) -> Any:
    def handler(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
        if any(not word.startswith("-") for word in command.words[1:]) or not all(command.certain):
            _opaque(walk, context, reason)

    return handler


def _alias(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    if any("=" in word for word in command.words[1:]) or not all(command.certain):
        _opaque(walk, context, "alias defines a command name")


def _shopt(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    options = "".join(word[1:] for word in command.words[1:] if word.startswith("-"))
    if any(letter in options for letter in "suo") or not all(command.certain):
        _opaque(walk, context, "shopt changes how bash reads later lines")


def _enable(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    if any(word not in ("-a", "-p", "-s") for word in command.words[1:]):
        _opaque(walk, context, "enable loads or hides builtins")


def _hash(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    for word, known in zip(command.words[1:], command.certain[1:], strict=True):
        if not known or (word.startswith("-") and "p" in word):
            _opaque(walk, context, "hash -p makes a name run another program")
            return


def _set(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    words = command.words[1:]
    for position, word in enumerate(words):
        if word == "--":
            return
        if word[:1] in "-+" and "k" in word[1:] and not word.startswith("--"):
            _opaque(walk, context, "set -k passes assignments anywhere to commands")
        if word in ("-o", "+o") and position + 1 < len(words) and words[position + 1] == "keyword":
            _opaque(walk, context, "set -o keyword passes assignments anywhere to commands")


def _name_argument(word: str, known: bool, walk: _Walk, context: _Context, *, builtin: str) -> None:
    if not known or not is_identifier(word) or is_sensitive_variable(word):
        _opaque(walk, context, f"{builtin} assigns a variable this reader cannot check ({word})")


def _subscript_smuggling(command: SimpleCommand, walk: _Walk, context: _Context) -> bool:
    """An unknown word could be an option that makes a literal ``name[…]`` word a name."""
    if all(command.certain[1:]):
        return False
    for word, known in zip(command.words[1:], command.certain[1:], strict=True):
        if known and re.match(r"[A-Za-z_][A-Za-z0-9_]*\[", word):
            _opaque(walk, context, f"{command.name} with a word known only at run time")
            return True
    return False


def _options_then_names(
    command: SimpleCommand,
    walk: _Walk,
    context: _Context,
    *,
    flags: str,
    values: str,
    names: str,
    opaque_options: str = "",
) -> list[tuple[str, bool]]:
    """Parse builtin options; check option values that name variables; return operands."""
    words = command.words
    index = 1
    while index < len(words):
        word, known = words[index], command.certain[index]
        if not known:
            _opaque(walk, context, f"{command.name} with an option known only at run time")
            return []
        if word == "--":
            index += 1
            break
        if not word.startswith("-") or word == "-":
            break
        position = 1
        while position < len(word):
            letter = word[position]
            if letter in opaque_options:
                _opaque(walk, context, f"{command.name} -{letter} runs or evaluates text")
            if letter in values or letter in names or letter in opaque_options:
                value = word[position + 1 :]
                value_known = known
                if not value and index + 1 < len(words):
                    index += 1
                    value, value_known = words[index], command.certain[index]
                if letter in names:
                    _name_argument(value, value_known, walk, context, builtin=command.name)
                break
            if letter not in flags:
                _opaque(walk, context, f"{command.name} -{letter} is not known to this reader")
                return []
            position += 1
        index += 1
    return list(zip(words[index:], command.certain[index:], strict=True))


def _read(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    operands = _options_then_names(command, walk, context, flags="ers", values="dinNptu", names="a")
    for word, known in operands:
        _name_argument(word, known, walk, context, builtin="read")


def _mapfile(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    operands = _options_then_names(
        command, walk, context, flags="t", values="dnOsuc", names="", opaque_options="C"
    )
    for word, known in operands[:1]:
        _name_argument(word, known, walk, context, builtin=command.name)


def _printf(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    if _subscript_smuggling(command, walk, context):
        return
    words = command.words
    if len(words) > 1 and words[1].startswith("-v"):
        if words[1] == "-v":
            if len(words) > 2:
                _name_argument(words[2], command.certain[2], walk, context, builtin="printf -v")
        else:
            _name_argument(words[1][2:], command.certain[1], walk, context, builtin="printf -v")
    elif len(words) > 1 and not command.certain[1]:
        _opaque(walk, context, "printf with an option known only at run time")


def _test(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    if _subscript_smuggling(command, walk, context):
        return
    words = command.words
    for index in range(1, len(words) - 1):
        if words[index] == "-v":
            _name_argument(words[index + 1], command.certain[index + 1], walk, context,
                           builtin="test -v")  # fmt: skip


def _unset(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    operands = _options_then_names(command, walk, context, flags="fvn", values="", names="")
    for word, known in operands:
        if not known or not is_identifier(word):
            _opaque(walk, context, f"unset of a name this reader cannot check ({word})")


def _getopts(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    if len(command.words) > 2:
        _name_argument(command.words[2], command.certain[2], walk, context, builtin="getopts")


def _wait(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    _options_then_names(command, walk, context, flags="fn", values="", names="p")


def _declare(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    name = command.name
    words = command.words
    index = 1
    letters = ""
    while index < len(words):
        word, known = words[index], command.certain[index]
        raw = command.fact(index).raw or word
        if not raw.startswith(("-", "+")):
            break
        if not known:
            _opaque(walk, context, f"{name} with an option known only at run time")
            return
        if word == "--":
            index += 1
            break
        letters += word[1:]
        index += 1
    if any(letter in letters for letter in "in"):
        _opaque(walk, context, f"{name} -i/-n evaluates or redirects later assignments")
        return
    arrays = any(letter in letters for letter in "aA")
    reinterprets = name in ("declare", "typeset", "local") or arrays
    for position in range(index, len(words)):
        word = words[position]
        raw = command.fact(position).raw or word
        match = _ASSIGNMENT.match(raw)
        if match is None:
            if not command.certain[position] or not is_identifier(word):
                _opaque(walk, context, f"{name} of a name this reader cannot check ({raw})")
            continue
        variable, subscript = match.group(1), match.group(3)
        value = scan_word(raw[match.end() :], assignment=True)
        if subscript is not None and not _LITERAL_INDEX.match(subscript):
            _opaque(walk, context, f"{name} of {variable}[…]: the subscript is evaluated")
        if value.danger is not None:
            _opaque(walk, context, value.danger)
        if value.runtime and reinterprets:
            _opaque(walk, context, f"{name} may read a run-time value as an array literal")
        if value.literal.startswith("(") and reinterprets:
            _opaque(walk, context, f"{name} may read {value.literal[:20]!r} as an array literal")
        if variable in _PROGRAM_VARIABLES:
            if value.runtime:
                _opaque(walk, context, f"{variable} names a program known only at run time")
            else:
                _nested(value.literal, walk, context, via=f"${variable}")
        elif is_sensitive_variable(variable):
            _opaque(walk, context, f"{name} assigns {variable}")


def _cd(command: SimpleCommand, walk: _Walk, context: _Context) -> None:
    if context.tentative:
        return
    name = command.words[0]
    operands = [
        (word, command.fact(index))
        for index, word in enumerate(command.words[1:], start=1)
        if not (word.startswith(("-", "+")) and len(word) > 1 and command.certain[index])
    ]
    if name == "popd":
        return
    if not operands:
        if name == "cd":
            _directory(walk, context, "~")
        return
    word, facts = operands[0]
    if word == "-" or facts.runtime or (facts.pattern and not facts.tilde):
        walk.directories = None
        return
    _directory(walk, context, word)


def _directory(walk: _Walk, context: _Context, path: str) -> None:
    if walk.directories is None:
        return
    joined = _join(context.directory, path)
    if joined is None:
        walk.directories = None
        return
    walk.directories.append(joined)


_BUILTINS: dict[str, Any] = {
    "eval": _eval,
    "source": _source,
    ".": _source,
    "trap": _trap,
    "alias": _alias,
    "unalias": _with_arguments("unalias changes what a command name runs"),
    "shopt": _shopt,
    "enable": _enable,
    "compgen": _always_opaque("compgen runs functions, commands and expansions"),
    "complete": _always_opaque("complete registers commands to run"),
    "bind": _always_opaque("bind -x binds commands"),
    "fc": _always_opaque("fc runs commands from history"),
    "hash": _hash,
    "let": _always_opaque("let evaluates arithmetic (which can run array subscripts)"),
    "set": _set,
    "read": _read,
    "mapfile": _mapfile,
    "readarray": _mapfile,
    "printf": _printf,
    "test": _test,
    "[": _test,
    "unset": _unset,
    "getopts": _getopts,
    "wait": _wait,
    "declare": _declare,
    "typeset": _declare,
    "local": _declare,
    "export": _declare,
    "readonly": _declare,
    "cd": _cd,
    "pushd": _cd,
    "popd": _cd,
}
