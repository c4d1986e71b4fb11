"""Rule strings: Tool, Tool(pattern), mcp__server__tool; malformed rules are typed errors."""

from __future__ import annotations

import pytest
from robota.core.errors import ConfigurationError
from robota.core.permissions import PermissionRuleError, RuleBehavior, parse_rule


def test_bare_tool_rule_matches_every_call() -> None:
    rule = parse_rule("Bash", "deny")
    assert (rule.tool, rule.pattern, rule.matches_everything) == ("Bash", None, True)


def test_pattern_rule_keeps_inner_parentheses() -> None:
    rule = parse_rule("Bash(echo (hi))", "allow")
    assert (rule.tool, rule.pattern) == ("Bash", "echo (hi)")
    assert not rule.matches_everything


def test_star_pattern_matches_everything() -> None:
    assert parse_rule("Edit(**)", "deny").matches_everything


def test_mcp_names() -> None:
    server = parse_rule("mcp__github", "allow")
    assert server.names_tool("mcp__github__create_issue")
    assert not server.names_tool("mcp__gitlab__create_issue")
    star = parse_rule("mcp__github__*", "allow")
    assert star.names_tool("mcp__github__list")
    assert not star.names_tool("mcp__githubx__list")
    exact = parse_rule("mcp__github__list", "deny")
    assert exact.names_tool("mcp__github__list")
    assert not exact.names_tool("mcp__github__list2")


def test_tool_name_glob_is_for_deny_and_ask_only() -> None:
    assert parse_rule("*", "deny").names_tool("Anything")
    assert parse_rule("Web*", "ask").names_tool("WebFetch")
    with pytest.raises(PermissionRuleError, match="mcp__<server>__"):
        parse_rule("Web*", "allow")
    with pytest.raises(PermissionRuleError):
        parse_rule("*", "allow")


@pytest.mark.parametrize(
    "text",
    ["", "   ", "Bash(", "Bash)", "Bash()", "Bash(a))", "(x)", "Bash(x)y", "Ba sh", "Bash(a(b)"],
)
def test_malformed_rules_raise_a_typed_error(text: str) -> None:
    with pytest.raises(PermissionRuleError) as info:
        parse_rule(text, RuleBehavior.DENY)
    assert isinstance(info.value, ConfigurationError)
    assert info.value.error_code == "invalid_permission_rule"
    assert info.value.rule == text
