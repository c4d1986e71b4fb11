"""Lines of the CLI's own text (the chat's greeting, ``/help``) wrapped by words at the
terminal's width, so a row never breaks inside a word (``bypa`` / ``ss``) the way a terminal
cuts a line too long for it. Output that is not a terminal keeps one line per row (what a
pipe or a log reads, and ``grep`` finds)."""

from __future__ import annotations

import os
import textwrap
from typing import TextIO

__all__ = ["terminal_columns", "wrapped", "write_wrapped"]


def terminal_columns(stream: TextIO) -> int | None:
    """The width of the terminal ``stream`` writes to, in columns; None when it is no terminal.

    ``$COLUMNS`` wins when it holds a positive number (as :func:`shutil.get_terminal_size`);
    else the terminal is asked. Never raises (a closed or fake stream is no terminal).
    """
    try:
        if not stream.isatty():
            return None
        fileno = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(fileno).columns or None
    except OSError:
        return None


def wrapped(line: str, width: int | None, *, indent: int = 0) -> list[str]:
    """``line`` as rows of at most ``width`` columns, broken between words; the rows after the
    first start with ``indent`` spaces (a hanging indent: a help text's column, the text after
    a ``robota:`` prefix).

    A word longer than a row is not broken (the terminal cuts it). One character is one
    column: the CLI's own text is ASCII.

    Args:
        line: One line of text (no ``\\n``).
        width: The terminal's columns; None (not a terminal) or too narrow for the indent plus
            a few columns keeps ``line`` as one row.
        indent: Spaces before each continuation row.

    Returns:
        The rows, without line ends.

    Example:
        >>> wrapped("robota: session ses_1 — /help /web-search [on|off] /exit", 30, indent=8)
        ['robota: session ses_1 — /help', '        /web-search [on|off]', '        /exit']
        >>> wrapped("one row", None)
        ['one row']
    """
    if width is None or width < indent + 10 or len(line) <= width:
        return [line]
    return textwrap.wrap(
        line,
        width=width,
        subsequent_indent=" " * indent,
        break_long_words=False,
        break_on_hyphens=False,
        drop_whitespace=True,
    ) or [line]


def write_wrapped(stream: TextIO, line: str, *, indent: int = 0) -> None:
    """Write ``line`` to ``stream``: wrapped by words at its width when it is a terminal
    (:func:`wrapped`, continuation rows indented by ``indent`` spaces), else as one line."""
    stream.write(
        "".join(f"{row}\n" for row in wrapped(line, terminal_columns(stream), indent=indent))
    )
    stream.flush()
