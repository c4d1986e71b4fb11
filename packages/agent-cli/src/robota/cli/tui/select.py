"""Which printer a command uses: the ``rich`` one on a terminal, the plain one otherwise."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from robota.cli.line_input import LineSource
from robota.cli.prompt_input import PromptLineReader
from robota.cli.render import EventPrinter
from robota.cli.tui.printer import RichEventPrinter
from robota.cli.tui.status_line import StatusLine

__all__ = ["choose_printer", "show_status", "wants_rich"]


def wants_rich(
    *,
    json_mode: bool,
    no_color: bool,
    out: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> bool:
    """True when the answer goes to a terminal, without ``--json``, ``--no-color`` or a
    non-empty ``NO_COLOR`` (https://no-color.org) — and ``TERM`` is not ``dumb``."""
    source = os.environ if env is None else env
    stream = out or sys.stdout
    if json_mode or no_color or source.get("NO_COLOR") or source.get("TERM") == "dumb":
        return False
    return stream.isatty()


def choose_printer(
    *,
    json_mode: bool,
    no_color: bool,
    workspace: Path | None,
    provider_type: str | None = None,
    model: str = "",
) -> EventPrinter:
    """A :class:`~robota.cli.tui.printer.RichEventPrinter` when :func:`wants_rich`, else the
    plain :class:`~robota.cli.render.EventPrinter` (pipes, files, ``--json``: plain text and
    machine-readable lines).

    Args:
        json_mode: ``--json``.
        no_color: ``--no-color``.
        workspace: The workspace root, for the diffs of file edits.
        provider_type: Given (``robota chat``): the rich printer prints a
            :class:`~robota.cli.tui.status_line.StatusLine` after each turn, priced for this
            provider type; its ``text`` is also what a line editor's toolbar can show.
        model: The model the status line names until the printer follows a session.
    """
    if not wants_rich(json_mode=json_mode, no_color=no_color):
        return EventPrinter(json_mode=json_mode)
    printer = RichEventPrinter(workspace=workspace)
    if provider_type is not None:
        printer.status = StatusLine(
            provider_type=provider_type, usage=lambda: printer.usage_by_model, model=model
        )
    return printer


def show_status(printer: EventPrinter, lines: LineSource | None) -> None:
    """Show the rich printer's status line as the line editor's bottom toolbar (then it is no
    longer printed after each turn); nothing for the plain printer or a plain line source."""
    if not isinstance(printer, RichEventPrinter) or printer.status is None:
        return
    if isinstance(lines, PromptLineReader):
        lines.status = printer.status.text
        printer.print_status = False
