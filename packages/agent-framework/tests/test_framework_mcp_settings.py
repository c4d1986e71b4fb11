"""MCP servers as a settings key (issue #18): parsing at the edge, the per-layer merge and its
trust rules, ``${VAR}`` references, definition digests and the owner-only approvals store."""

from __future__ import annotations

import doctest
import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from robota.framework.mcp import (
    McpApprovalError,
    McpApprovalStore,
    McpHub,
    McpVariableError,
    expand,
    expand_server,
    referenced_variables,
    server_digest,
)
from robota.framework.settings import (
    HttpMcpServer,
    Settings,
    SettingsFileError,
    StdioMcpServer,
    UntrustedSettingError,
    load_layer,
    load_settings,
    merge_layers,
)


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_entries_are_typed_by_url_or_command() -> None:
    settings = Settings.model_validate(
        {
            "mcp_servers": {
                "files": {"command": "mcp-files", "args": ["."], "env": {"A": "b"}},
                "issues": {"url": "https://mcp.example.com/mcp", "headers": {"X": "y"}},
                "typed": {"type": "stdio", "command": "x", "enabled": False},
            }
        }
    )
    files, issues, typed = settings.mcp_servers.values()
    assert isinstance(files, StdioMcpServer)
    assert files.args == (".",)
    assert isinstance(issues, HttpMcpServer)
    assert issues.headers == {"X": "y"}
    assert isinstance(typed, StdioMcpServer)
    assert typed.enabled is False


@pytest.mark.parametrize(
    ("servers", "message"),
    [
        ({"a": {"command": "x", "bogus": 1}}, "mcp_servers.a.stdio.bogus: Extra inputs"),
        ({"a__b": {"command": "x"}}, "single '_'"),
        ({"a": {"type": "sse", "url": "http://h"}}, "does not match any of the expected tags"),
        ({"a": {"url": "ftp://h"}}, "mcp_servers.a.http.url"),
        ({"a": {"command": ""}}, "mcp_servers.a.stdio.command"),
        ({"a": {"command": "x", "call_timeout": 0}}, "call_timeout"),
    ],
)
def test_a_malformed_entry_is_refused_naming_the_file(
    tmp_path: Path, servers: dict[str, Any], message: str
) -> None:
    path = _write(tmp_path / "settings.json", {"mcp_servers": servers})
    with pytest.raises(SettingsFileError) as caught:
        load_layer(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_layers_merge_per_server_and_a_project_cannot_replace_a_user_server(
    tmp_path: Path,
) -> None:
    user = _write(
        tmp_path / "home" / "settings.json",
        {"mcp_servers": {"shared": {"command": "user-srv"}, "mine": {"url": "http://u/mcp"}}},
    )
    project = _write(
        tmp_path / "ws" / ".robota" / "settings.json",
        {"mcp_servers": {"shared": {"command": "evil"}, "proj": {"command": "p"}}},
    )
    local = _write(
        tmp_path / "ws" / ".robota" / "settings.local.json",
        {"mcp_servers": {"proj": {"command": "p-local"}}},
    )
    merged = load_settings(user=user, project=project, local=local, trusted=True)
    assert {n: getattr(s, "command", None) for n, s in merged.mcp_servers.items()} == {
        "shared": "user-srv",
        "mine": None,
        "proj": "p-local",
    }
    assert [merged.mcp_scope(n) for n in merged.mcp_servers] == ["user", "user", "project"]
    untrusted = load_settings(user=user, project=project, local=local, trusted=False)
    assert list(untrusted.mcp_servers) == ["shared", "mine"]
    assert Settings().mcp_scope("anything") == "host"


def test_a_scope_cannot_be_claimed_in_a_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.json", {"_mcp_scopes": {"x": "user"}})
    with pytest.raises(SettingsFileError):
        load_layer(path)


def test_a_project_may_not_declare_tool_risk(tmp_path: Path) -> None:
    project = _write(
        tmp_path / ".robota" / "settings.json",
        {"mcp_servers": {"p": {"command": "p", "tool_risk": {"rm": "inspect"}}}},
    )
    with pytest.raises(UntrustedSettingError) as caught:
        load_settings(project=project, trusted=True)
    assert caught.value.key == "mcp_servers.p.tool_risk"
    assert caught.value.path == project
    user = Settings.model_validate(
        {"mcp_servers": {"p": {"command": "p", "tool_risk": {"rm": "inspect"}}}}
    )
    assert merge_layers([user]).mcp_servers["p"].tool_risk["rm"].value == "inspect"


def test_variables_expand_with_defaults_and_an_unset_one_is_named() -> None:
    assert expand("a ${X} ${Y:-dflt} $Z ${Z", {"X": "1"}) == "a 1 dflt $Z ${Z"
    assert expand("${E:-fallback}", {"E": ""}) == "fallback"
    with pytest.raises(McpVariableError) as caught:
        expand("Bearer ${TOKEN}", {})
    assert caught.value.variable == "TOKEN"
    assert "TOKEN is not set" in str(caught.value)
    server = HttpMcpServer(url="https://${HOST}/mcp", headers={"Authorization": "Bearer ${T}"})
    expanded = expand_server(server, {"HOST": "h.example", "T": "tok"})
    assert isinstance(expanded, HttpMcpServer)
    assert (expanded.url, expanded.headers) == (
        "https://h.example/mcp",
        {"Authorization": "Bearer tok"},
    )
    assert referenced_variables(["${A} ${B:-x}", "${A}"]) == ("A", "B")


def test_the_digest_follows_what_runs_not_the_filters() -> None:
    base = StdioMcpServer(command="srv", args=("a",), env={"K": "${V}"})
    same = base.model_copy(update={"disabled_tools": ("x",), "enabled": False, "call_timeout": 5})
    assert server_digest(base) == server_digest(same)
    for change in ({"command": "srv2"}, {"args": ("b",)}, {"env": {"K": "${W}"}}, {"cwd": "sub"}):
        assert server_digest(base) != server_digest(base.model_copy(update=change))


def test_the_approvals_store_is_owner_only_and_refuses_an_unsafe_file(tmp_path: Path) -> None:
    store = McpApprovalStore(path=tmp_path / "home" / "mcp-approvals.json")
    assert store.get("ws#1", "srv", "d1") is None
    store.set("ws#1", "srv", "d1", "approved")
    store.set("ws#2", "srv", "d1", "denied")
    assert store.get("ws#1", "srv", "d1") == "approved"
    assert store.get("ws#1", "srv", "d2") is None  # another definition: not answered
    assert store.get("ws#2", "srv", "d1") == "denied"
    assert oct(store.path.stat().st_mode & 0o777) == "0o600"
    os.chmod(store.path, 0o644)
    with pytest.raises(McpApprovalError) as caught:
        store.get("ws#1", "srv", "d1")
    assert str(store.path) in str(caught.value)
    os.chmod(store.path, 0o600)
    store.path.write_text("[1, 2]")
    with pytest.raises(McpApprovalError, match="not an approvals map"):
        store.get("ws#1", "srv", "d1")


def test_first_states_before_anything_starts(tmp_path: Path) -> None:
    project = _write(
        tmp_path / ".robota" / "settings.json",
        {
            "mcp_servers": {
                "approved": {"command": "a"},
                "refused": {"command": "r"},
                "new": {"command": "n"},
                "off": {"command": "o", "enabled": False},
            }
        },
    )
    settings = load_settings(project=project, trusted=True)
    store = McpApprovalStore(path=tmp_path / "home" / "approvals.json")
    servers = settings.mcp_servers
    store.set("ws", "approved", server_digest(servers["approved"]), "approved")
    store.set("ws", "refused", server_digest(servers["refused"]), "denied")
    hub = McpHub(settings, trusted=True, workspace=tmp_path, workspace_id="ws", approvals=store)
    assert {s.name: s.state for s in hub.servers} == {
        "approved": "pending",
        "refused": "denied",
        "new": "awaiting-approval",
        "off": "disabled",
    }
    untrusted = McpHub(settings, trusted=False, workspace=tmp_path, workspace_id="ws")
    assert {s.state for s in untrusted.servers} == {"untrusted", "disabled"}


@pytest.mark.parametrize(
    "module",
    [
        "robota.framework.settings.mcp",
        "robota.framework.mcp.variables",
        "robota.framework.mcp.approvals",
    ],
)
def test_the_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0
    assert result.failed == 0
