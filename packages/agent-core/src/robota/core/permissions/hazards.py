"""Calls that always reach a person (seed 000, "Permission System": catastrophic removals and
writes into locations that widen trust).

**Catastrophic removal** (command-kind arguments): any command the line runs — wrappers,
``sh -c``/``trap``/``eval`` texts unwrapped, and the candidates an unknown command may run
(:mod:`robota.core.permissions._shell`) — that is

* ``rm`` recursive in any GNU spelling (``-r``, ``-R``, any cluster such as ``-vrf``/``-Rf``,
  any unambiguous prefix of ``--recursive`` such as ``--r``/``--rec``, options after operands)
  with a *critical* target, or with a target (or option) only known at run time: recursion is
  also assumed when a run-time word could supply it (an unquoted ``$X`` may split into
  ``-rf /``; two run-time words; one run-time word beside a critical target); ``xargs rm -r``;
* ``find`` whose start path (none means ``.``) is critical or only known at run time, with
  ``-delete`` or ``-exec``/``-execdir``/``-ok``/``-okdir`` running ``rm``, ``unlink``,
  ``rmdir``, ``shred``, a shell, ``xargs``, or a command whose name is only known at run time;
* ``git clean`` with ``-f``/``--force`` (any abbreviation) and without ``-n``/``--dry-run``
  whose pathspec (none means the working directory, ``git -C`` honoured) is critical: untracked
  work would be lost;
* ``rsync`` with any ``--del…`` option into a local destination that is critical;
* ``tar --remove-files`` (any abbreviation) or ``zip -m``/``--move`` with ``-r``/``-R``/``-@``
  packing a critical operand (judged also from every folder a word names: ``tar -C DIR``);
* ``git rm`` with ``-r`` or a pathspec glob (git matches ``'*'`` across folders), without
  ``--cached``/``-n``, of a critical pathspec (``git -C`` honoured, ``:`` magic counts);
* a command whose name is only known at run time used like recursive ``rm`` (``$RM -rf ~``), or
  — when the line names an ``rm`` binary by path or looks one up (``cp /bin/rm x``,
  ``$(command -v rm)``) or opens it in a redirection (``./x -rf ~ 3</usr/bin/rm``) — any
  unknown command used like recursive ``rm`` (``./x -rf ~``);
* an argument text that did not parse as a line (``python -c …``) mentioning ``rm`` with a
  recursive option, or ``rmtree``/``rm_rf``/``rimraf``/``remove_dir_all``.

A target is *critical* when, as spelled and with symlinks resolved, it is ``/``, a top-level
directory (``/usr``, ``/etc``…), the home directory or one of its ancestors, the workspace
root or one of its ancestors, or a glob or brace expansion over any of those (``*``, ``.*``,
``./*``, ``?*``, ``{a,b}`` in the workspace, ``~/*``, ``/*``, ``..``), and any path through
``/proc`` or ``/dev`` (``/proc/self/cwd``: what it names depends on the process). ``~`` is the home
directory, ``~user`` is unknown. Relative targets are judged from the call's working
directory, from every literal directory the line ``cd``/``pushd``-es to (in any order, since a
failed ``cd`` leaves the directory unchanged), and from the directory a wrapper moves to
(``env -C``, ``sudo -D``, ``unshare --wd``); after ``cd "$d"``/``cd -``, ``chroot``, ``su -``
or ``systemd-run`` (no ``--same-dir``) every relative target counts as critical.

A command line that does not parse, or that runs code the parser cannot see (an *opaque* line),
counts too: it cannot be shown not to be one. Not covered: removal by other programs
(``mv ~ /tmp``, ``truncate``, ``dd``, interpreters beyond the words above), non-recursive ``rm``
of files (nor ``shred -u *``, ``zip -m z.zip *``), ``git reset --hard``/``checkout .``, ``git
stash -u``/``--all`` (recoverable with ``git stash pop``), ``CDPATH`` from the environment.

**Trust-widening write** (path-kind arguments of a call that is not inspect-class): the path,
spelled or canonical, lies in one of :data:`TRUST_WIDENING_PATTERNS` at any depth — agent and
tool settings, hooks, MCP server lists, git hooks and config, direnv files and shell start-up
files. A shell command writing to those places is the containment seam's concern, not this
module's (seed 000).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from robota.core.host.errors import InvalidPathError
from robota.core.host.paths import canonical_path
from robota.core.permissions._shell import (
    POSIX_SHELLS,
    ParsedLine,
    SimpleCommand,
    base_name,
    git_subcommand_index,
    process_view,
)
from robota.core.permissions._words import WordFacts
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


def catastrophic_removal(
    line: ParsedLine | None, *, workspace: Path, home: Path, cwd: Path | None = None
) -> str | None:
    """Return a reason when the line could remove something whose loss is catastrophic.

    Args:
        line: The parsed line, or None for a line that did not parse.
        workspace: Canonical workspace root.
        home: Canonical home directory.
        cwd: Canonical working directory of the call (default: the workspace root); relative
            targets are resolved from it.

    Returns:
        A sentence naming the command and target, or None.
    """
    if line is None:
        return "the command line could not be parsed, so a destructive removal cannot be ruled out"
    if line.opaque:
        why = line.opaque_reasons[0] if line.opaque_reasons else "hidden code"
        return (
            f"the command line runs code that cannot be inspected ({why}), "
            "so a destructive removal cannot be ruled out"
        )
    judge = _Judge(
        workspace=workspace,
        home=home,
        bases=_bases(str(cwd if cwd is not None else workspace), home, line.directories),
        copies_rm=_names_removal_binary(line),
    )
    for command in (*line.commands, *line.candidates):
        reason = judge.command(command)
        if reason is not None:
            return reason
    for text in line.texts:
        if _text_removes(text):
            return f"{text[:80]!r} may remove files recursively"
    return None


_REMOVERS = frozenset({"rm", "unlink", "rmdir", "shred", "srm", "xargs", "find", "rsync"})
_LOOKUPS = frozenset({"which", "whereis", "type", "command", "hash", "realpath", "readlink"})
_RECURSIVE_TOKEN = re.compile(r"-[A-Za-z]*[rR][A-Za-z]*\Z|--re?c?u?r?s?i?v?e?\Z")
_TREE_REMOVERS = frozenset({"rmtree", "rm_rf", "rimraf", "remove_dir_all", "deltree"})
_MAX_BASES = 64


def _bases(cwd: str, home: Path, directories: tuple[str, ...] | None) -> list[str] | None:
    if directories is None or len(directories) > 8:
        return None
    bases = {os.path.normpath(cwd)}
    for _ in range(len(directories)):
        grown = {_resolve(base, directory, home) for base in bases for directory in directories}
        if grown <= bases:
            break
        bases |= grown
        if len(bases) > _MAX_BASES:
            return None
    return sorted(bases)


def _resolve(base: str, path: str, home: Path) -> str:
    if path == "~" or path.startswith("~/"):
        return os.path.normpath(str(home) + path[1:])
    return os.path.normpath(os.path.join(base, path))


def _names_removal_binary(line: ParsedLine) -> bool:
    if any("/" in path and base_name(path) in ("rm", "busybox") for path in line.redirect_paths):
        return True  # ``./x -rf ~ 3</usr/bin/rm``: a link to /dev/fd/3 runs rm
    for command in (*line.commands, *line.candidates):
        lookup = command.name in _LOOKUPS and command.via == "substitution"
        for word, known in zip(command.words[1:], command.certain[1:], strict=True):
            if known and ("/" in word or lookup) and base_name(word) in ("rm", "busybox"):
                return True
    return False


def _brace_names(word: str) -> set[str]:
    """The base names a brace expansion of ``word`` could produce as separate words
    (``{rm,-rf,*}`` → ``rm``, ``-rf``, ``*``; ``{r,}m`` is judged through its pieces too)."""
    if "{" not in word:
        return set()
    pieces = {base_name(piece) for piece in re.split(r"[{},\s]+", word) if piece}
    joined = re.sub(r"[{},]", "", word)
    return pieces | {base_name(joined)}


def _text_removes(text: str) -> bool:
    tokens = [token for token in re.split(r"[^A-Za-z0-9_./+:@%,=-]+", text) if token]
    names = {base_name(token).rsplit(".", 1)[-1] for token in tokens}
    if names & _TREE_REMOVERS:
        return True
    return "rm" in names and any(_RECURSIVE_TOKEN.match(token) for token in tokens)


class _Judge:
    """Applies the rules of the module docstring to one command at a time."""

    def __init__(
        self, *, workspace: Path, home: Path, bases: list[str] | None, copies_rm: bool
    ) -> None:
        self.workspace = workspace
        self.home = home
        self.bases = bases
        self.copies_rm = copies_rm

    def command(self, command: SimpleCommand) -> str | None:
        if not command.words:
            return None
        bases = self._bases_for(command.directory)
        if not command.name_certain:
            if command.certain[0] or command.tentative:
                return None
            braced = _brace_names(command.words[0])
            if braced & _REMOVERS:
                return (
                    f"{command.words[0]!r} expands to a command line that may remove files "
                    f"({', '.join(sorted(braced & _REMOVERS))})"
                )
            return self._rm(command, bases, explicit_only=True)
        name = command.name
        if name == "rm":
            return self._rm(command, bases, explicit_only=False)
        if name == "find":
            return self._find(command, bases)
        if name == "git":
            return self._git(command, bases)
        if name == "rsync":
            return self._rsync(command, bases)
        if name in ("tar", "gtar", "bsdtar"):
            return self._tar(command, bases)
        if name == "zip":
            return self._zip(command, bases)
        if command.may_run_arguments and self.copies_rm:
            return self._rm(command, bases, explicit_only=True)
        return None

    def _bases_for(self, directory: str | None) -> list[str] | None:
        if directory is None:
            return None
        if directory == ".":
            return self.bases
        if directory.startswith(("/", "~")):
            return [_resolve("/", directory, self.home)]
        if self.bases is None:
            return None
        return [_resolve(base, directory, self.home) for base in self.bases]

    def _rm(
        self, command: SimpleCommand, bases: list[str] | None, *, explicit_only: bool
    ) -> str | None:
        recursive = False
        options_done = False
        targets: list[tuple[str, WordFacts]] = []
        unknown: list[WordFacts] = []
        for index in range(1, len(command.words)):
            word, facts = command.words[index], command.fact(index)
            if facts.runtime:
                unknown.append(facts)
            elif not options_done and word == "--":
                options_done = True
            elif not options_done and word.startswith("--") and len(word) > 2:
                option = word[2:].split("=", 1)[0]
                recursive = recursive or "recursive".startswith(option)
            elif not options_done and word.startswith("-") and len(word) > 1:
                recursive = recursive or "r" in word[1:] or "R" in word[1:]
            elif command.via == "find -exec" and "{}" in word:
                continue  # the files find passes: judged with find's start paths
            else:
                targets.append((word, facts))
        text = command.text
        if command.args_from_stdin and command.via != "find -exec" and recursive:
            return f"{text!r} removes recursively targets that are only known at run time"
        critical = [word for word, facts in targets if self._critical(word, facts, bases)]
        if recursive:
            if unknown:
                return f"{text!r} removes recursively a target only known at run time"
            if critical:
                return f"{text!r} would remove {critical[0]!r} recursively"
            return None
        if explicit_only or not unknown:
            return None
        if any(facts.splits for facts in unknown) or len(unknown) >= 2 or critical:
            return f"{text!r} removes with options or targets only known at run time"
        return None

    def _find(self, command: SimpleCommand, bases: list[str] | None) -> str | None:
        words = command.words
        index = 1
        while index < len(words) and (
            words[index] in ("-H", "-L", "-P") or words[index].startswith("-O")
        ):
            index += 1
        if index < len(words) and words[index] == "-D":
            index += 2
        starts: list[tuple[str, WordFacts]] = []
        while index < len(words) and not (
            words[index].startswith("-") or words[index] in ("(", "!", ")", ",")
        ):
            starts.append((words[index], command.fact(index)))
            index += 1
        expression = words[index:]
        if not ("-delete" in expression or self._exec_removes(command, index)):
            return None
        if not starts:
            starts = [(".", WordFacts(literal=".", raw="."))]
        for word, facts in starts:
            if facts.runtime:
                return f"{command.text!r} removes under a start path only known at run time"
            if self._critical(word, facts, bases):
                return f"{command.text!r} would remove everything it finds under {word!r}"
        return None

    def _exec_removes(self, command: SimpleCommand, start: int) -> bool:
        words = command.words
        index = start
        while index < len(words):
            if words[index] in ("-exec", "-execdir", "-ok", "-okdir"):
                index += 1
                if index < len(words) and not command.certain[index]:
                    return True
                while index < len(words) and words[index] not in (";", "+"):
                    name = base_name(words[index])
                    if name in _REMOVERS or name in POSIX_SHELLS or name.endswith("sh"):
                        return True
                    index += 1
            index += 1
        return False

    def _git(self, command: SimpleCommand, bases: list[str] | None) -> str | None:
        words = command.words
        index = git_subcommand_index(words)
        if index is None:
            return None
        for position in range(1, index):
            # `git -c alias.x='clean -fdx' x`: the subcommand is only known through the alias
            value = words[position + 1] if words[position] == "-c" and position + 1 < index else ""
            if value.lower().startswith("alias.") or words[position].lower().startswith(
                ("-calias.", "--config-env")
            ):
                return (
                    f"{command.text!r} defines a git alias on the line; what it runs is not checked"
                )
        if words[index] not in ("clean", "rm"):
            return None
        for position in range(1, index):
            if words[position] == "-C" and position + 1 < index:
                if not command.certain[position + 1]:
                    bases = None
                else:
                    bases = self._bases_below(bases, words[position + 1])
            elif words[position].startswith(("--work-tree", "--git-dir")):
                bases = None
        if words[index] == "rm":
            return self._git_rm(command, index, bases)
        force = False
        paths: list[tuple[str, WordFacts]] = []
        options_done = False
        skip = False
        for position in range(index + 1, len(words)):
            word, facts = words[position], command.fact(position)
            if skip:
                skip = False
            elif not options_done and word == "--":
                options_done = True
            elif not options_done and word.startswith("--") and len(word) > 2:
                option = word[2:].split("=", 1)[0]
                if "dry-run".startswith(option):
                    return None
                force = force or "force".startswith(option)
                skip = option == "exclude" and "=" not in word
            elif not options_done and word.startswith("-") and len(word) > 1:
                # A short-option cluster: `-e` takes the rest of the cluster (or the next word)
                # as its pattern, so `-fden` is -f -d -e n, not a dry run.
                letters = word[1:]
                cut = letters.find("e")
                flags = letters if cut < 0 else letters[:cut]
                if "n" in flags:
                    return None
                force = force or "f" in flags
                skip = cut == len(letters) - 1
            else:
                paths.append((word, facts))
        # Without -f, git refuses only while clean.requireForce is true; a repository's own
        # config (or the user's) may turn it off, so a clean that is not a dry run is judged
        # as forced.
        del force
        for word, facts in paths or [(".", WordFacts(literal=".", raw="."))]:
            if facts.runtime or self._critical(word, facts, bases):
                return f"{command.text!r} would delete untracked work under {word!r}"
        return None

    def _git_rm(self, command: SimpleCommand, index: int, bases: list[str] | None) -> str | None:
        """``git rm -r`` (or a pathspec glob, which git matches across folders) of a critical
        pathspec; ``--cached`` and ``-n`` remove nothing from the working tree."""
        words = command.words
        recursive = False
        options_done = False
        paths: list[tuple[str, WordFacts]] = []
        for position in range(index + 1, len(words)):
            word, facts = words[position], command.fact(position)
            if facts.runtime:
                paths.append((word, facts))
            elif not options_done and word == "--":
                options_done = True
            elif not options_done and word.startswith("--") and len(word) > 2:
                option = word[2:].split("=", 1)[0]
                if option in ("cached", "dry-run") or (
                    len(option) >= 2 and "cached".startswith(option)
                ):
                    return None
                if option.startswith("pathspec-from"):
                    return f"{command.text!r} removes pathspecs only known at run time"
            elif not options_done and word.startswith("-") and len(word) > 1:
                if "n" in word[1:]:
                    return None
                recursive = recursive or "r" in word[1:]
            else:
                paths.append((word, facts))
        for word, facts in paths:
            if facts.runtime:
                if recursive:
                    return f"{command.text!r} removes a pathspec only known at run time"
                continue
            magic = word.startswith(":") or any(char in _MAGIC for char in word)
            if not (recursive or magic):
                continue
            if word.startswith(":"):
                return f"{command.text!r} removes a magic pathspec ({word!r})"
            pathspec = WordFacts(literal=word, raw=word, pattern=facts.pattern or magic)
            if self._critical(word, pathspec, bases):
                return f"{command.text!r} would remove tracked work under {word!r}"
        return None

    def _tar(self, command: SimpleCommand, bases: list[str] | None) -> str | None:
        """``tar --remove-files`` (any unambiguous abbreviation) deletes what it packs: every
        operand is judged, from the call's folders and from every folder a word names
        (``-C DIR`` moves before the operands that follow)."""
        words = command.words
        if not any(
            word.startswith("--rem") and "remove-files".startswith(word[2:].split("=", 1)[0])
            for word in words[1:]
        ):
            return None
        return self._packer(command, bases, what="tar --remove-files")

    def _zip(self, command: SimpleCommand, bases: list[str] | None) -> str | None:
        """``zip -m``/``--move`` deletes what it packs; recursive with ``-r``/``-R``, or with
        names read from stdin (``-@``)."""
        words = command.words
        move = recursive = False
        for word in words[1:]:
            if word.startswith("--") and len(word) > 2:
                option = word[2:].split("=", 1)[0]
                move = move or "move".startswith(option)
                recursive = recursive or option.startswith("recurse")
            elif word.startswith("-") and len(word) > 1:
                move = move or "m" in word[1:]
                recursive = recursive or any(char in word[1:] for char in "rR@")
        if not (move and recursive):
            return None
        if any(word.startswith("-") and "@" in word for word in words[1:]):
            return f"{command.text!r} moves into an archive files named at run time"
        return self._packer(command, bases, what="zip -m")

    def _packer(self, command: SimpleCommand, bases: list[str] | None, *, what: str) -> str | None:
        operands: list[tuple[str, WordFacts]] = []
        for index in range(1, len(command.words)):
            word, facts = command.words[index], command.fact(index)
            if facts.runtime:
                return f"{command.text!r} ({what}) deletes files only known at run time"
            if word.startswith("-"):
                value = word.split("=", 1)[1] if "=" in word else ""
                if value:
                    operands.append((value, facts))
                continue
            operands.append((word, facts))
        folders: list[str] | None = None
        if bases is not None:
            named = [word for word, _ in operands]
            named += [word[2:] for word in command.words[1:] if word[:1] == "-" != word[1:2]]
            folders = [*bases]
            for word in named:
                if word:
                    folders.extend(_resolve(base, word, self.home) for base in bases)
        for word, facts in operands:
            if self._critical(word, facts, folders):
                return f"{command.text!r} ({what}) would delete {word!r} after packing it"
        return None

    def _bases_below(self, bases: list[str] | None, directory: str) -> list[str] | None:
        if directory.startswith(("/", "~")):
            return [_resolve("/", directory, self.home)]
        if bases is None:
            return None
        return [_resolve(base, directory, self.home) for base in bases]

    def _rsync(self, command: SimpleCommand, bases: list[str] | None) -> str | None:
        words = command.words
        if not any(word.startswith("--del") for word in words[1:]):
            return None
        operands = [
            (word, command.fact(index))
            for index, word in enumerate(words[1:], start=1)
            if not word.startswith("-")
        ]
        if len(operands) < 2:
            return None
        word, facts = operands[-1]
        if facts.runtime:
            return f"{command.text!r} deletes in a destination only known at run time"
        if ":" in word.split("/", 1)[0]:
            return None  # a remote destination
        if self._critical(word, facts, bases):
            return f"{command.text!r} would delete what is not in the source from {word!r}"
        return None

    def _critical(self, word: str, facts: WordFacts, bases: list[str] | None) -> bool:
        if word.startswith("~"):
            if not (word == "~" or word.startswith("~/")):
                return True  # another user's home
            text = str(self.home) + word[1:]
        else:
            text = word
        if facts.pattern:
            literal: list[str] = []
            for part in text.split("/"):
                if any(char in _MAGIC for char in part):
                    break
                literal.append(part)
            text = "/".join(literal) if literal != [""] else "/"
        if text.startswith("/"):
            spelled = [text]
        elif bases is None:
            return True
        else:
            spelled = [os.path.join(base, text or ".") for base in bases]
        if any(process_view(path) for path in spelled):
            return True  # /proc/self/cwd, /dev/fd/N: what they name depends on the process
        return any(self._critical_path(os.path.normpath(path)) for path in spelled)

    def _critical_path(self, lexical: str) -> bool:
        candidates = {lexical}
        try:
            candidates.add(str(canonical_path(lexical)))
        except (InvalidPathError, OSError):
            return True
        protected = {str(self.workspace), str(self.home)}
        for candidate in candidates:
            if candidate == "/" or candidate.count("/") == 1:
                return True
            for root in protected:
                if candidate == root or root.startswith(candidate.rstrip("/") + "/"):
                    return True
        return False
