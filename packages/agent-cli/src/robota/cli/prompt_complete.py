"""Completion for the ``robota chat`` prompt: slash commands, and ``@path`` file references
inside the workspace.

A line that starts with ``/`` completes the command name (its one-line help shown beside it).
A word starting with ``@`` completes a path relative to the workspace folder, one folder level
at a time: folders end with ``/``, and a path with a space is quoted, ``@"my notes.txt"`` (the
syntax the chat reads attachments from). Completion never lists outside the workspace (no
absolute paths, no ``..``, no symbolic link leading out of it) nor in a private folder (the
Robota home, when the workspace holds it), skips version-control and virtual-environment
folders, names that are not UTF-8 or hold a non-printable character (a control character, a
line separator, a bidirectional override: nothing the prompt could show or send as typed), and
looks at no more than :data:`SCAN_LIMIT` entries of a folder. A folder that cannot be looked at
(a symlink loop, a NUL pasted into the line) completes nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

__all__ = ["SCAN_LIMIT", "SKIPPED_FOLDERS", "ChatCompleter", "reference", "table_commands"]

SCAN_LIMIT = 2000
"""Entries of one folder looked at for an ``@path`` completion (a huge folder is cut there)."""
SKIPPED_FOLDERS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".jj",
        ".bzr",
        "_darcs",
        "CVS",
        ".venv",
        "venv",
        "__pycache__",
        "node_modules",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
"""Folders never offered: version control, virtual environments and caches."""

_SHOWN = 200  # completions offered at most for one folder
# The word being typed: `@"partial` (quoted, may hold spaces) or `@partial`, at a word start.
_REFERENCE = re.compile(r'(?:^|(?<=\s))@(?:"(?P<quoted>[^"]*)|(?P<plain>[^\s"]*))$')

CommandRows = Callable[[], Iterable[tuple[str, str]]]
"""Returns ``(name, help)`` per slash command, ``name`` as typed (``/model``)."""


def table_commands() -> list[tuple[str, str]]:
    """The chat's slash commands and aliases with their one-line help, from
    :data:`robota.cli.chat_commands.COMMAND_TABLE` (imported here, when first completed:
    the table's module imports the session setup, which creates the line editor)."""
    from robota.cli.chat_commands import COMMAND_TABLE

    rows: list[tuple[str, str]] = []
    for command in COMMAND_TABLE.commands:
        rows.append((command.name, command.help))
        rows.extend((alias, command.help) for alias in command.aliases)
    return rows


def reference(path: str, *, folder: bool) -> str:
    """``@path`` as typed at the prompt: quoted when it holds whitespace (``@"a b.txt"``); a
    folder ends with ``/`` and keeps its quote open, so its entries can be completed next.

    Example:
        >>> reference("docs/a b.txt", folder=False), reference("my dir/", folder=True)
        ('@"docs/a b.txt"', '@"my dir/')
    """
    if not any(c.isspace() for c in path):
        return f"@{path}"
    return f'@"{path}' if folder else f'@"{path}"'


class ChatCompleter(Completer):
    """Slash commands at the start of the line and ``@path`` references anywhere.

    Args:
        root: The workspace folder; ``@`` paths are relative to it and stay inside it.
        commands: The slash commands as ``(name, help)`` rows (default: the chat's table).
        private: Folders never offered nor listed, even inside the workspace (the Robota home).
    """

    def __init__(
        self,
        root: Path,
        commands: CommandRows = table_commands,
        *,
        private: Collection[Path] = (),
    ) -> None:
        self._root = root.resolve()
        self._commands = commands
        self._private = tuple(folder.resolve() for folder in private)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        """The completions for the text before the cursor (see the class docstring)."""
        before = document.text_before_cursor
        if before.startswith("/") and not before.startswith("//") and " " not in before:
            yield from self._slash(before)
            return
        match = _REFERENCE.search(before)
        if match is not None:
            quoted = match.group("quoted")
            typed = quoted if quoted is not None else match.group("plain")
            yield from self._paths(typed, replace=len(match.group(0)))

    def _slash(self, typed: str) -> Iterator[Completion]:
        wanted = typed.lower()
        for name, help_text in self._commands():
            if name.startswith(wanted):
                yield Completion(name, start_position=-len(typed), display_meta=help_text)

    def _allowed(self, real: Path) -> bool:
        """``real`` (symlinks resolved) is inside the root and in no private folder."""
        return real.is_relative_to(self._root) and not any(
            real.is_relative_to(folder) for folder in self._private
        )

    def _inside(self, path: Path) -> bool:
        """``path``, its symlinks resolved, may be offered (False when it cannot be resolved:
        a symlink loop, a NUL byte)."""
        try:
            return self._allowed(path.resolve())
        except (OSError, RuntimeError, ValueError):
            return False

    def _folder(self, relative: str) -> Path | None:
        """The folder ``relative`` names inside the root (resolved), or None when it is not
        one."""
        if relative.startswith(("/", "~")) or ".." in relative.split("/"):
            return None
        try:
            folder = (self._root / relative).resolve()
            if not self._allowed(folder) or not folder.is_dir():
                return None
        except (OSError, RuntimeError, ValueError):
            return None
        return folder

    def _paths(self, typed: str, *, replace: int) -> Iterator[Completion]:
        parent, _, name = typed.rpartition("/")
        prefix = f"{parent}/" if parent else ""
        real = self._folder(parent)
        if real is None:
            return
        found: list[tuple[str, bool]] = []
        try:
            with os.scandir(real) as entries:
                for count, entry in enumerate(entries):
                    if count >= SCAN_LIMIT:
                        break
                    if not entry.name.startswith(name):
                        continue
                    if entry.name.startswith(".") and not name.startswith("."):
                        continue  # hidden entries once a dot is typed
                    if not entry.name.isprintable():
                        continue  # not UTF-8 (surrogates), or a control character
                    try:
                        is_folder = entry.is_dir()
                        link = entry.is_symlink()
                    except OSError:
                        continue
                    path = Path(entry.path)
                    if not (self._inside(path) if link else self._allowed(real / entry.name)):
                        continue  # a link leading out of the workspace, or a private folder
                    if is_folder and entry.name in SKIPPED_FOLDERS:
                        continue
                    found.append((entry.name, is_folder))
        except OSError:
            return
        found.sort(key=lambda item: (not item[1], item[0]))
        for entry_name, is_folder in found[:_SHOWN]:
            path = f"{prefix}{entry_name}{'/' if is_folder else ''}"
            yield Completion(
                reference(path, folder=is_folder),
                start_position=-replace,
                display=entry_name + ("/" if is_folder else ""),
            )
