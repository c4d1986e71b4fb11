"""Which printer a command uses: the ``rich`` one on a terminal, the plain one otherwise."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from rich.console import Console
from robota.cli.line_input import LineSource
from robota.cli.prompt_input import PromptLineReader
from robota.cli.render import EventPrinter
from robota.cli.tui.printer import RichEventPrinter
from robota.cli.tui.status_line import StatusLine

__all__ = ["choose_printer", "show_status", "wants_color", "wants_rich"]


def wants_rich(
    *,
    json_mode: bool,
    no_color: bool,
    out: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> bool:
    """True when the answer goes to a terminal, without ``--json``, and ``TERM`` is not
    ``dumb``. ``--no-color`` and a non-empty ``NO_COLOR`` (https://no-color.org) keep the
    rich rendering, without colours (:func:`wants_color`); ``no_color`` is accepted for the
    callers that pass it and changes nothing here."""
    del no_color  # colour is not the rendering: see wants_color
    source = os.environ if env is None else env
    stream = out or sys.stdout
    if json_mode or source.get("TERM") == "dumb":
        return False
    return stream.isatty()


def wants_color(*, no_color: bool, env: Mapping[str, str] | None = None) -> bool:
    """False with ``--no-color`` or a non-empty ``NO_COLOR`` (https://no-color.org): the
    terminal rendering (Markdown, cards, the prompt) is drawn without colours."""
    source = os.environ if env is None else env
    return not (no_color or source.get("NO_COLOR"))


def choose_printer(
    *,
    json_mode: bool,
    no_color: bool,
    workspace: Path | None,
    provider_type: str | None = None,
    model: str = "",
) -> EventPrinter:
    """A :class:`~robota.cli.tui.printer.RichEventPrinter` when :func:`wants_rich` (its
    consoles without colours unless :func:`wants_color`), else the plain
    :class:`~robota.cli.render.EventPrinter` (pipes, files, ``--json``, ``TERM=dumb``: plain
    text and machine-readable lines).

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
    plain = not wants_color(no_color=no_color)
    printer = RichEventPrinter(
        out=Console(file=sys.stdout, no_color=plain or None),
        err=Console(file=sys.stderr, no_color=plain or None),
        workspace=workspace,
    )
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
