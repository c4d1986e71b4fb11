"""MCP prompts as ``/mcp__<server>__<prompt>`` slash commands and the ``/mcp resources`` /
``/mcp prompts`` listings of ``robota chat`` (issue #18): argument binding, the usage line and
the dynamic lookup in the command table. The real command against a real MCP server is in
tests-integration/test_mcp_resources_prompts.py."""

from __future__ import annotations

import doctest

import pytest
from robota.cli import mcp_prompts
from robota.cli.chat_commands import COMMAND_TABLE
from robota.cli.mcp_prompts import (
    PromptUsageError,
    bind_arguments,
    prompt_lines,
    prompt_usage,
    resource_lines,
    split_prompt_command,
)
from robota.framework.mcp import McpPrompt, McpPromptArgument, McpResource

REVIEW = McpPrompt(
    server="docs",
    name="review",
    description="Ask for a review.",
    arguments=(
        McpPromptArgument(name="code", required=True),
        McpPromptArgument(name="language"),
    ),
)
ONE = McpPrompt(server="docs", name="explain", arguments=(McpPromptArgument(name="topic"),))


def test_the_docstring_examples_run() -> None:
    result = doctest.testmod(mcp_prompts)
    assert result.attempted > 0
    assert result.failed == 0


def test_words_fill_the_arguments_in_order_or_by_name() -> None:
    assert bind_arguments(REVIEW, ["x", "go"]) == {"code": "x", "language": "go"}
    assert bind_arguments(REVIEW, ["LANGUAGE=go", "x"]) == {"language": "go", "code": "x"}
    assert bind_arguments(REVIEW, ["a=b"]) == {"code": "a=b"}  # 'a' is no argument: a value
    assert bind_arguments(REVIEW, ["code=", "go"]) == {"code": "", "language": "go"}
    assert bind_arguments(ONE, ["why", "is", "it"]) == {"topic": "why is it"}
    assert bind_arguments(ONE, []) == {}


def test_a_missing_or_extra_word_is_a_usage_error() -> None:
    with pytest.raises(PromptUsageError, match=r"^missing code$"):
        bind_arguments(REVIEW, ["language=go"])
    with pytest.raises(PromptUsageError, match=r"^3 values for 2 argument\(s\)"):
        bind_arguments(REVIEW, ["a", "b", "c"])
    assert prompt_usage(REVIEW) == "/mcp__docs__review CODE [LANGUAGE]"


def test_the_command_table_finds_prompt_commands_and_keeps_its_rows() -> None:
    row = COMMAND_TABLE.find("/MCP__docs__Review")
    assert row is not None
    assert row.name == "/mcp__docs__Review"  # the prefix folded, the prompt's name as typed
    assert row.max_args is None
    assert COMMAND_TABLE.find("/mcp__") is None
    panel = COMMAND_TABLE.find("/mcp")
    assert panel is not None
    assert panel.usage == "/mcp [resources|prompts]"
    assert all(not c.name.startswith("/mcp__") for c in COMMAND_TABLE.commands)
    assert "/mcp [resources|prompts]" in COMMAND_TABLE.summary()
    assert split_prompt_command("/mcp__docs") is None
    assert split_prompt_command("/mcp__docs__") is None


def test_the_listings() -> None:
    resources = [
        McpResource(server="docs", uri="notes://a", name="a"),
        McpResource(server="docs", uri="img://b\x1b[2J", name="b", title="Bee"),
    ]
    assert resource_lines(resources) == [
        "SERVER  URI             NAME",
        "docs    notes://a       a",
        "docs    img://b\\x1b[2J  Bee",
        "(attach one to a message with @SERVER:URI)",
    ]
    assert prompt_lines([REVIEW, ONE]) == [
        "  /mcp__docs__review CODE [LANGUAGE]  Ask for a review.",
        "  /mcp__docs__explain [TOPIC]",
    ]
    assert resource_lines([]) == ["no MCP resources (none of the connected servers offers any)"]
