"""The slash-command table of ``robota chat`` (issue #18): every row has a handler (or is
``/exit``), ``/help`` lists every row, a mistyped name gets the command it most likely meant,
and the views ``/context``, ``/tools`` and ``/resume`` print what the values say. The real
command is driven end to end in ``tests-integration/test_cli_slash18.py``."""

from __future__ import annotations

import doctest
import io
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest
from robota.cli import context_view, hosted, resume_picker, slash
from robota.cli.chat import COMMANDS
from robota.cli.chat_commands import COMMAND_TABLE
from robota.cli.context_view import hosted_line, print_context, tool_rows
from robota.cli.resume_picker import match_session, picker_lines
from robota.cli.slash import CommandTable, SlashCommand
from robota.core.capabilities import HostedTool
from robota.core.tools import tool
from robota.framework.interactive.breakdown import ContextBreakdown
from robota.session import SessionSummary

ISSUE_COMMANDS = [
    "/context",
    "/cost",
    "/model",
    "/permissions",
    "/tools",
    "/compact",
    "/fork",
    "/rewind",
    "/resume",
    "/help",
    "/web-search",
    "/exit",
]


def test_every_command_of_the_issue_is_in_the_table_with_a_handler() -> None:
    names = [c.name for c in COMMAND_TABLE.commands]
    assert sorted(set(ISSUE_COMMANDS) - set(names)) == []
    for command in COMMAND_TABLE.commands:
        assert (command.run is None) == (command.name == "/exit"), command.name
    assert COMMAND_TABLE.find("/quit") is COMMAND_TABLE.find("/exit")
    assert COMMAND_TABLE.find("/MODEL") is COMMAND_TABLE.find("/model")


def test_help_has_one_line_per_command_in_table_order() -> None:
    lines = COMMAND_TABLE.help_lines()
    assert len(lines) == len(COMMAND_TABLE.commands)
    assert [line.split()[0].rstrip(",") for line in lines] == [
        c.name for c in COMMAND_TABLE.commands
    ]
    model = next(line for line in lines if line.lstrip().startswith("/model"))
    assert model.lstrip().startswith("/model [NAME]  ")
    assert "show the model; with NAME, use that model from the next turn on" in model
    assert COMMANDS.startswith("/help /context /tools /cost /model [NAME] /permissions [MODE]")
    assert COMMANDS.endswith("/resume [ID] /exit")


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("/contxt", "/context"),
        ("/cont", "/context"),
        ("/resum", "/resume"),
        ("/tool", "/tools"),
        ("/modle", "/model"),
        ("/permission", "/permissions"),
        ("/websearch", "/web-search"),
        ("/qui", "/exit"),
        ("/frobnicate", None),
    ],
)
def test_a_mistyped_command_gets_a_suggestion(typed: str, meant: str | None) -> None:
    assert COMMAND_TABLE.suggest(typed) == meant


def test_an_ambiguous_prefix_suggests_the_closest_name_only() -> None:
    table = CommandTable(
        [SlashCommand(name="/compact", help="c"), SlashCommand(name="/context", help="x")]
    )
    assert table.suggest("/co") is None  # both start with it; neither is close enough
    assert table.unknown("/co") == (
        "unknown command '/co'; /help lists the commands (start a message with // to send a "
        "literal /)"
    )
    with pytest.raises(ValueError, match="two slash commands are named /context"):
        CommandTable(
            [SlashCommand(name="/context", help="a"), SlashCommand(name="/context", help="b")]
        )


def test_context_without_a_known_window_shares_of_the_total() -> None:
    breakdown = ContextBreakdown(
        system_prompt=250,
        tools=250,
        conversation=500,
        total=1000,
        context_window=None,
        free=None,
        last_reported_input=None,
    )
    err = io.StringIO()
    print_context(breakdown, model="local", rich=False, err=err)
    assert err.getvalue().splitlines() == [
        "context of local: 1,000 tokens (estimated); the model's context window is unknown",
        "  system prompt     250  25.0%",
        "  tool definitions  250  25.0%",
        "  conversation      500  50.0%",
    ]


def test_context_as_a_rich_table() -> None:
    pytest.importorskip("rich")
    breakdown = ContextBreakdown(
        system_prompt=100,
        tools=300,
        conversation=600,
        total=1000,
        context_window=8000,
        free=7000,
        last_reported_input=950,
    )
    err = io.StringIO()
    print_context(breakdown, model="m", rich=True, err=err)
    text = err.getvalue()
    assert "context of m: 1,000 of 8,000 tokens (12.5%), 7,000 free (estimated)" in text
    assert "share of window" in text
    assert re.search(r"free space +│ +7,000 │ +87\.5%", text)
    assert "last request: 950 input tokens (reported by the provider)" in text


def test_tool_rows_name_the_mcp_server() -> None:
    @tool
    def read_notes(path: str) -> str:
        """Read the notes file.

        More detail that is not shown.
        """
        return path

    @tool
    def find(query: str) -> str:
        """Search the docs server for a phrase and return matching passages with titles and
        the URLs they came from, newest first."""
        return query

    find.name = "mcp__docs__find"
    find.server = "docs"  # pyright: ignore[reportAttributeAccessIssue]
    rows = tool_rows([read_notes, find])
    assert [(r.name, r.source) for r in rows] == [
        ("mcp__docs__find", "MCP docs"),
        ("read_notes", "built-in"),
    ]
    assert rows[1].description == "Read the notes file."
    assert len(rows[0].description) == 72
    assert rows[0].description.endswith("…")


def test_the_hosted_line_says_on_off_and_whether_the_model_offers_web_search() -> None:
    search = frozenset({HostedTool.WEB_SEARCH})
    assert hosted_line(search, search) == (
        "hosted tools: web_search on; web search: on (/web-search off to stop)"
    )
    assert hosted_line(frozenset(), frozenset()) == (
        "hosted tools: none on; web search: off (the model does not offer it)"
    )
    assert hosted_line(frozenset(), None) == (
        "hosted tools: none on; web search: off (not stated whether the model offers it: "
        "/web-search on to try)"
    )


def _summary(session_id: str, title: str | None, minutes: int, messages: int) -> SessionSummary:
    now = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
    return SessionSummary(
        id=session_id,
        title=title,
        model="m",
        updated_at=now - timedelta(minutes=minutes),
        message_count=messages,
        parent_id=None,
    )


def test_the_picker_numbers_recent_sessions_with_title_age_and_messages() -> None:
    now = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
    rows = [_summary("ses_1", "Fix the parser", 5, 4), _summary("ses_2", None, 60 * 26, 1)]
    assert picker_lines(rows, now) == [
        "   1. Fix the parser — 5 min ago, 4 messages  (ses_1)",
        "   2. (untitled) — 1 day ago, 1 message  (ses_2)",
    ]


def test_an_id_prefix_must_name_one_session() -> None:
    rows = [_summary("ses_abc", None, 1, 2), _summary("ses_abd", None, 1, 2)]
    assert match_session(rows, "ses_abd") == rows[1]
    assert match_session(rows, "ses_abc") == rows[0]
    assert match_session(rows, "ses_x") == "no session 'ses_x' (robota sessions list shows them)"
    assert match_session(rows, "ses_ab") == (
        "'ses_ab' matches 2 sessions (ses_abc, ses_abd); give more of the id"
    )


@pytest.mark.parametrize("module", [slash, context_view, hosted, resume_picker])
def test_the_docstring_examples_run(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0


def test_the_readme_and_the_cli_guide_list_every_command() -> None:
    root = Path(__file__).resolve().parents[3]
    for page in (root / "packages/agent-cli/README.md", root / "docs/guides/cli.md"):
        text = page.read_text(encoding="utf-8").replace("\\|", "|")
        for command in COMMAND_TABLE.commands:
            assert f"| `{command.usage}`" in text, (page.name, command.usage)
