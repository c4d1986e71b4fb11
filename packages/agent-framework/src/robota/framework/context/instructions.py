"""Instruction-file discovery and system-prompt assembly (seed 003, context loading and "Fork vs.
resume is exactly one bit of difference").

``AGENTS.md`` / ``CLAUDE.md`` files are read only from the roots the host names (no walking up
from the cwd, no home-directory inference), and only when the host marks the workspace trusted
(the caller decides; this module reads what it is given). The assembled prompt is rendered once
per session: a plain resume rebuilds it from the files as they are now; a fork reuses the
parent's assembled prompt verbatim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

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
    roots: Sequence[str | Path], *, names: Sequence[str] = DEFAULT_NAMES
) -> list[InstructionFile]:
    """Read instruction files from each root (in order), skipping missing ones and duplicates
    (the same file reached through two roots or a symlink). Unreadable files are skipped: an
    instruction file is advisory content, not configuration."""
    found: list[InstructionFile] = []
    seen: set[Path] = set()
    for root in roots:
        for name in names:
            path = Path(root) / name
            try:
                real = path.resolve(strict=True)
            except (FileNotFoundError, RuntimeError, OSError):
                continue
            if real in seen or not real.is_file():
                continue
            seen.add(real)
            try:
                data = real.read_bytes()
            except OSError:
                continue
            truncated = len(data) > MAX_BYTES
            text = data[:MAX_BYTES].decode("utf-8", errors="replace")
            found.append(InstructionFile(path=path, text=text, truncated=truncated))
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
