"""``robota-agent-tools[mcp]``: robota.tools works without the MCP SDK; robota.tools.mcp names
the extra when it is missing (issue 16, "Heavy optional parts become extras")."""

from __future__ import annotations

from importlib.metadata import metadata, requires

from robota.core.testing.extras import run_without

MESSAGE = (
    "'mcp' is not installed; robota-agent-tools needs its 'mcp' extra for this: "
    'pip install "robota-agent-tools[mcp]"'
)


def run_hidden(hidden: set[str], code: str) -> list[str]:
    done = run_without(hidden, code)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_mcp_is_an_extra_not_a_requirement() -> None:
    assert "mcp" in (metadata("robota-agent-tools").get_all("Provides-Extra") or [])
    unconditional = [r for r in requires("robota-agent-tools") or [] if "extra ==" not in r]
    assert not [r for r in unconditional if r.startswith("mcp")]


def test_without_mcp_the_builtin_tools_work_and_robota_tools_mcp_names_the_extra() -> None:
    out = run_hidden(
        {"mcp"},
        """
        import sys, tempfile
        from pathlib import Path
        from robota.core import Agent
        from robota.core.testing.scripted import ScriptedProvider, tool_call
        from robota.tools import Workspace, default_tools

        root = Path(tempfile.mkdtemp())
        (root / "notes.txt").write_text("launch code 7319\\n")
        provider = ScriptedProvider(
            [[tool_call("c1", "read_file", {"path": "notes.txt"})], "7319"]
        )
        result = Agent(provider, tools=default_tools(Workspace.at(root))).run_sync("code?")
        print(result.text, "7319" in result.new_messages[2].results[0].text)
        for statement in ("import robota.tools.mcp", "from robota.tools.mcp import McpToolset"):
            try:
                exec(statement)
            except ImportError as error:
                print(type(error).__name__, "|", error)
        print("mcp loaded:", any(m == "mcp" or m.startswith("mcp.") for m in sys.modules))
        """,
    )
    assert out == [
        "7319 True",
        f"MissingExtraError | {MESSAGE}",
        f"MissingExtraError | {MESSAGE}",
        "mcp loaded: False",
    ]


def test_with_mcp_installed_robota_tools_mcp_imports() -> None:
    import robota.tools.mcp

    assert robota.tools.mcp.McpToolset.__name__ == "McpToolset"
