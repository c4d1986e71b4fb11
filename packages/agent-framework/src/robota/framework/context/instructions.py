"""Instruction-file discovery and system-prompt assembly (seed 003, context loading and "Fork vs.
resume is exactly one bit of difference").

``AGENTS.md`` / ``CLAUDE.md`` files are read only from the roots the host names (no walking up
from the cwd, no home-directory inference), and only when the host marks the workspace trusted
(the caller decides; this module reads what it is given). Each file is opened through a rooted
handle of its root (:class:`robota.tools.rooted.RootedDir`): a symlink leading out of the root
(to ``/proc/self/environ``, to the user's settings) or a special file is skipped, never read —
a trusted project chooses instructions, not which of the user's files reach the model (issue
#13). The assembled prompt is rendered once
per session: a plain resume rebuilds it from the files as they are now; a fork reuses the
parent's assembled prompt verbatim.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from robota.core.errors import RobotaError
from robota.core.host.paths import canonical_path
from robota.tools.rooted import RootedDir

__all__ = ["DEFAULT_NAMES", "InstructionFile", "assemble_system_prompt", "discover_instructions"]

DEFAULT_NAMES: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md")
"""File names looked for in each root, in this order."""

MAX_BYTES = 64 * 1024
"""A file larger than this is cut, with a note (bytes)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class InstructionFile:
    """One discovered instruction file.

    Attributes:
        path: Where it was read from.
        text: Its content (cut at :data:`MAX_BYTES`).
        truncated: True when cut.
    """

    path: Path
    text: str
    truncated: bool = False


def discover_instructions(
    roots: Sequence[str | Path], *, names: Sequence[str] = DEFAULT_NAMES, contained: bool = True
) -> list[InstructionFile]:
    """Read instruction files from each root (in order), skipping missing ones and duplicates
    (the same file reached through two roots or a symlink).

    Args:
        roots: Folders to look in.
        names: File names looked for in each root, in order.
        contained: True (a project's roots): each file is opened through a rooted handle of
            its root, so a symlink leading out of the root, a FIFO or a device is skipped,
            never read. False (the user's own roots, e.g. ``~/.robota`` whose ``AGENTS.md``
            may link into a dotfiles folder): symlinks are followed; still regular files only.

    Returns:
        The files found; an unreadable or refused file is skipped (an instruction file is
        advisory content, not configuration).
    """
    found: list[InstructionFile] = []
    seen: set[tuple[int, int]] = set()
    for root in roots:
        try:
            handle = RootedDir(canonical_path(root) if contained else "/")
        except (RobotaError, OSError):
            continue
        with handle:
            for name in names:
                try:
                    where = name if contained else os.fspath(canonical_path(Path(root) / name))
                    with handle.open(where, expect="file") as entry:
                        identity = (entry.info.st_dev, entry.info.st_ino)
                        if identity in seen:
                            continue
                        seen.add(identity)
                        data = entry.read_head(MAX_BYTES + 1)
                except (RobotaError, OSError):
                    continue
                truncated = len(data) > MAX_BYTES
                text = data[:MAX_BYTES].decode("utf-8", errors="replace")
                found.append(
                    InstructionFile(path=Path(root) / name, text=text, truncated=truncated)
                )
    return found


def assemble_system_prompt(base: str | None, files: Sequence[InstructionFile]) -> str | None:
    """The session's system prompt: ``base`` followed by each instruction file in a labelled
    section. Returns None when there is nothing at all."""
    sections: list[str] = []
    if base:
        sections.append(base.strip())
    for file in files:
        body = file.text.strip()
        if file.truncated:
            body += f"\n[truncated at {MAX_BYTES} bytes]"
        sections.append(f"# Instructions from {file.path.name} ({file.path.parent})\n\n{body}")
    return "\n\n".join(sections) if sections else None
