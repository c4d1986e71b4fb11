"""The chat's look on a terminal, drawn with ``rich``: the answer as streamed Markdown, tool cards
with a live status, unified diffs of file edits, the status line, and the full call in a
permission question. Outside a terminal the plain :class:`~robota.cli.render.EventPrinter`
prints instead."""

from robota.cli.tui.call_view import bounded_arguments, call_view
from robota.cli.tui.diffs import read_workspace_file, unified_diff
from robota.cli.tui.markdown_stream import MarkdownStream
from robota.cli.tui.printer import RichEventPrinter
from robota.cli.tui.select import choose_printer, wants_rich
from robota.cli.tui.status_line import StatusLine
from robota.cli.tui.tool_cards import ToolCards

__all__ = [
    "MarkdownStream",
    "RichEventPrinter",
    "StatusLine",
    "ToolCards",
    "bounded_arguments",
    "call_view",
    "choose_printer",
    "read_workspace_file",
    "unified_diff",
    "wants_rich",
]
