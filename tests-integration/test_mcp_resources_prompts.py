"""MCP resources and prompts as attachable context (issue #18), against a real stdio MCP server
written with the official ``mcp`` SDK (``mcp_servers/context_server.py``: two text resources,
a PNG, a zip blob and four prompts, listed two per page): through :class:`McpToolset`, through
an :class:`InteractiveSession` and through the real ``robota chat`` command, whose request to
the local model server is checked for the prompt's text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from robota.core.errors import RobotaError
from robota.core.host.sandbox import NoSandbox
from robota.core.messages import MediaPart, TextPart, UserMessage
from robota.core.testing.cassette import Interaction
from robota.core.testing.scripted import ScriptedProvider, text
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.mcp import McpPrompt, McpPromptArgument, McpServerUnavailable
from robota.framework.settings import Settings, merge_layers
from robota.tools.mcp import (
    McpPromptArgumentsError,
    McpPromptNotFound,
    McpResourceNotFound,
    McpToolset,
    McpUnknownServer,
    StdioServerConfig,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]
from test_cli_e2e import (  # pyright: ignore[reportImplicitRelativeImport]
    ROBOTA,
    Host,
    host_fixture,  # noqa: F401  # pyright: ignore[reportUnusedImport]
)

pytestmark = [pytest.mark.integration]

HERE = Path(__file__).resolve().parent
SERVER = HERE / "mcp_servers" / "context_server.py"
TOOLS_ONLY = HERE / "mcp_servers" / "outsider18_raw_server.py"  # advertises tools only
PNG_HEAD = b"\x89PNG\r\n\x1a\n"
README = "[resource notes://readme]\n# Notes\nThe launch code word is MARMALADE."


def _stdio(name: str = "ctx", script: Path = SERVER, **env: str) -> StdioServerConfig:
    return StdioServerConfig(
        name=name, command=sys.executable, args=(str(script),), env=env or None
    )


# --- the tools layer ------------------------------------------------------------------------


@pytest.mark.anyio
async def test_toolset_lists_every_page_and_reads_text_and_image(tmp_path: Path) -> None:
    async with McpToolset([_stdio()]) as toolset:
        resources = await toolset.list_resources("ctx")
        prompts = await toolset.list_prompts("ctx")
        readme = await toolset.read_resource("ctx", "notes://readme")
        [pixel] = await toolset.read_resource("ctx", "image://pixel")
        [archive] = await toolset.read_resource("ctx", "data://archive")
    assert [str(r.uri) for r in resources] == [
        "notes://readme",
        "image://pixel",
        "data://archive",
        "notes://big",
    ]  # two pages of two
    assert [p.name for p in prompts] == ["review", "hello", "debate", "picture"]
    assert readme == [TextPart(text=README)]
    assert isinstance(pixel, MediaPart)
    assert (pixel.media_kind, pixel.media_type, pixel.name) == (
        "image",
        "image/png",
        "image://pixel",
    )
    assert pixel.data is not None
    assert pixel.data.startswith(PNG_HEAD)
    assert archive == TextPart(
        text="[resource data://archive: application/zip, 64 bytes, not attached "
        "(only text and PNG, JPEG, GIF or WebP images are)]"
    )


@pytest.mark.anyio
async def test_toolset_fills_prompts_with_their_arguments() -> None:
    async with McpToolset([_stdio()]) as toolset:
        review = await toolset.get_prompt("ctx", "review", {"code": "x = 1", "language": "go"})
        default = await toolset.get_prompt("ctx", "review", {"code": "y"})
        debate = await toolset.get_prompt("ctx", "debate", {"topic": "tea"})
        picture = await toolset.get_prompt("ctx", "picture")
    assert review == [TextPart(text="Please review this go code:\nx = 1")]
    assert default == [TextPart(text="Please review this python code:\ny")]
    assert debate == [
        TextPart(text="[user] Argue for tea."),
        TextPart(text="[assistant] I will argue for tea."),
    ]
    assert picture[0] == TextPart(text="Describe this picture:")
    assert isinstance(picture[1], MediaPart)
    assert picture[1].media_type == "image/png"


@pytest.mark.anyio
async def test_an_oversized_resource_is_cut_with_a_notice() -> None:
    async with McpToolset([_stdio(BIG_CHARS="250000")]) as toolset:
        parts = await toolset.read_resource("ctx", "notes://big")
        small = await toolset.read_resource("ctx", "notes://big", max_chars=1000)
    header = "[resource notes://big]\n"
    first, note = parts
    assert isinstance(first, TextPart)
    assert isinstance(note, TextPart)
    assert len(first.text) == 100_000
    assert first.text.startswith(header + "yyy")
    omitted = 250_000 + len(header) - 100_000
    assert note.text == (
        f"[{omitted} characters omitted: the MCP resource was over 100000 characters]"
    )
    assert small[-1] == TextPart(
        text=f"[{250_000 + len(header) - 1000} characters omitted: the MCP resource was over "
        "1000 characters]"
    )


@pytest.mark.anyio
async def test_unknown_server_uri_prompt_and_arguments_are_typed_errors() -> None:
    async with McpToolset([_stdio()]) as toolset:
        with pytest.raises(McpResourceNotFound) as missing:
            await toolset.read_resource("ctx", "notes://nope")
        with pytest.raises(McpUnknownServer):
            await toolset.read_resource("zzz", "notes://readme")
        with pytest.raises(McpPromptNotFound) as no_prompt:
            await toolset.get_prompt("ctx", "nope")
        with pytest.raises(McpPromptArgumentsError) as bad:
            await toolset.get_prompt("ctx", "review", {"language": "go", "colour": "red"})
        still = await toolset.read_resource("ctx", "notes://readme")  # the server carries on
    assert (missing.value.server, missing.value.uri) == ("ctx", "notes://nope")
    assert missing.value.error_code == "mcp_resource_not_found"
    assert no_prompt.value.prompt == "nope"
    assert (bad.value.missing, bad.value.unknown) == (("code",), ("colour",))
    assert still == [TextPart(text=README)]


@pytest.mark.anyio
async def test_a_server_without_resources_or_prompts_lists_none(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    config = _stdio("raw", TOOLS_ONLY, RECORD_FILE=str(record))
    async with McpToolset([config]) as toolset:
        assert await toolset.list_resources("raw") == []
        assert await toolset.list_prompts("raw") == []
        with pytest.raises(McpResourceNotFound):
            await toolset.read_resource("raw", "file:///etc/passwd")
        with pytest.raises(McpPromptNotFound):
            await toolset.get_prompt("raw", "anything")
        assert "mcp__raw__huge" in {t.name for t in await toolset.tools()}  # tools still work
    assert [line.split()[0] for line in record.read_text().splitlines()] == ["start"]


# --- the session ----------------------------------------------------------------------------


def _session_config(tmp_path: Path, provider: ScriptedProvider, **env: str) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    server: dict[str, Any] = {"command": sys.executable, "args": [str(SERVER)], "env": env}
    tools_only = {
        "command": sys.executable,
        "args": [str(TOOLS_ONLY)],
        "env": {"RECORD_FILE": str(tmp_path / "raw.txt")},
    }
    layer = {"mcp_servers": {"ctx": server, "raw": tools_only, "off": {**server, "enabled": False}}}
    return SessionConfig(
        provider=provider,
        model="m",
        workspace=workspace,
        settings=merge_layers([Settings.model_validate(layer)]),
        title=False,
        sandbox=NoSandbox("test"),
    )


@pytest.mark.anyio
async def test_the_session_lists_reads_and_sends_a_prompt_as_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider([[text("reviewed")]])
    async with await InteractiveSession.start(_session_config(tmp_path, provider)) as session:
        assert [s.state for s in session.mcp_servers] == ["pending", "pending", "disabled"]
        resources = await session.mcp_resources()  # connects lazily, as a first turn does
        prompts = await session.mcp_prompts()
        readme = await session.read_mcp_resource("ctx", "notes://readme")
        parts = await session.get_mcp_prompt("ctx", "review", {"code": "x = 1"})
        result = await session.submit([*parts, *readme])
        states = [s.state for s in session.mcp_servers]
    assert states == ["connected", "connected", "disabled"]
    assert [(r.server, r.uri, r.name) for r in resources] == [
        ("ctx", "notes://readme", "readme"),
        ("ctx", "image://pixel", "pixel"),
        ("ctx", "data://archive", "archive"),
        ("ctx", "notes://big", "big"),
    ]
    assert resources[0].reference == "@ctx:notes://readme"
    review = next(p for p in prompts if p.name == "review")
    assert review == McpPrompt(
        server="ctx",
        name="review",
        description="Ask for a code review.",
        arguments=(
            McpPromptArgument(name="code", required=True),
            McpPromptArgument(name="language", required=False),
        ),
    )
    assert review.command == "/mcp__ctx__review"
    assert result.text == "reviewed"
    [request] = provider.requests
    [user] = [m for m in request.messages if isinstance(m, UserMessage)]
    assert [p.text for p in user.parts if isinstance(p, TextPart)] == [
        "Please review this python code:\nx = 1",
        README,
    ]


@pytest.mark.anyio
async def test_the_session_errors_for_servers_it_cannot_use(tmp_path: Path) -> None:
    provider = ScriptedProvider([])
    async with await InteractiveSession.start(_session_config(tmp_path, provider)) as session:
        with pytest.raises(McpServerUnavailable) as unknown:
            await session.read_mcp_resource("nope", "notes://readme")
        with pytest.raises(McpServerUnavailable) as disabled:
            await session.get_mcp_prompt("off", "hello", {})
        with pytest.raises(McpResourceNotFound):
            await session.read_mcp_resource("ctx", "notes://missing")
        with pytest.raises(McpResourceNotFound):
            await session.read_mcp_resource("raw", "notes://readme")
    assert str(unknown.value) == "no MCP server is named 'nope'"
    assert (disabled.value.server, disabled.value.state) == ("off", "disabled")
    assert isinstance(disabled.value, RobotaError)


@pytest.mark.anyio
async def test_a_session_without_mcp_servers_has_no_resources(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = SessionConfig(
        provider=ScriptedProvider([]),
        model="m",
        workspace=workspace,
        settings=merge_layers([Settings()]),
        title=False,
        sandbox=NoSandbox("test"),
    )
    async with await InteractiveSession.start(config) as session:
        assert await session.mcp_resources() == []
        assert await session.mcp_prompts() == []
        with pytest.raises(McpServerUnavailable):
            await session.read_mcp_resource("ctx", "notes://readme")


# --- the robota command ---------------------------------------------------------------------


def _answer(reply: str) -> Interaction:
    """A Chat Completions streamed text answer."""
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": reply}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = "".join(
        "data: "
        + json.dumps({"id": "c1", "object": "chat.completion.chunk", "model": "m", **chunk})
        + "\n\n"
        for chunk in chunks
    )
    return Interaction(
        method="POST",
        uri="http://127.0.0.1/v1/chat/completions",
        request_body=None,
        status=200,
        headers={"content-type": "text/event-stream"},
        body=(body + "data: [DONE]\n\n").encode(),
    )


def _chat(host: Host, url: str, stdin: str) -> subprocess.CompletedProcess[str]:
    profile = {"type": "openai-chat", "base_url": url + "/v1", "api_key": "t", "model": "m"}
    server = {"command": sys.executable, "args": [str(SERVER)]}
    settings = {"providers": {"rec": profile}, "provider": "rec", "mcp_servers": {"ctx": server}}
    (host.home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return subprocess.run(
        [str(ROBOTA), "chat", "--no-title"],
        env=host.env,
        cwd=host.workspace,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _user_texts(body: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
        else:
            texts.extend(p["text"] for p in content if p.get("type") == "text")
    return texts


def test_a_prompt_slash_command_is_sent_as_the_users_turn(host: Host) -> None:
    stdin = '/mcp__ctx__review "x = 1" language=go\n/mcp__ctx__review\n/mcp__ctx__nope\n'
    with ReplayServer(interactions=[_answer("Looks fine.")]) as server:
        chat = _chat(host, server.url, stdin)
        bodies = [r.json() for r in server.received]
    assert chat.returncode == 0, chat.stderr
    assert chat.stdout.strip() == "Looks fine."
    [body] = bodies  # the two wrong commands sent nothing
    assert _user_texts(body) == ["Please review this go code:\nx = 1"]
    lines = chat.stderr.splitlines()
    assert "robota: MCP prompt review of ctx: 33 characters" in lines
    assert "robota: missing code; usage: /mcp__ctx__review CODE [LANGUAGE]" in lines
    assert "robota: no MCP prompt 'nope' on server 'ctx'; /mcp prompts lists them" in lines
    assert "Traceback" not in chat.stderr


def test_a_prompt_with_an_image_reaches_the_model_as_an_image(host: Host) -> None:
    with ReplayServer(interactions=[_answer("A dot.")]) as server:
        chat = _chat(host, server.url, "/MCP__ctx__Picture\n")
        [body] = [r.json() for r in server.received]
    assert chat.returncode == 0, chat.stderr
    [user] = [m for m in body["messages"] if m["role"] == "user"]
    kinds = [p["type"] for p in user["content"]]
    assert kinds == ["text", "image_url"]
    assert user["content"][1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


def test_the_mcp_panel_counts_and_lists_resources_and_prompts(host: Host) -> None:
    with ReplayServer(interactions=[]) as server:
        chat = _chat(host, server.url, "/mcp\n/mcp resources\n/mcp prompts\n/mcp bogus\n")
    assert chat.returncode == 0, chat.stderr
    lines = chat.stderr.splitlines()
    [header] = [line for line in lines if line.startswith("NAME ")]
    assert header.split()[:7] == [
        "NAME",
        "SCOPE",
        "TRANSPORT",
        "STATUS",
        "TOOLS",
        "RESOURCES",
        "PROMPTS",
    ]
    [row] = [line for line in lines if line.startswith("ctx ") and " stdio " in line]
    assert row.split()[1:7] == ["user", "stdio", "connected", "0", "4", "4"]
    [readme] = [line for line in lines if "notes://readme" in line]
    assert readme.split() == ["ctx", "notes://readme", "readme"]
    assert "(attach one to a message with @SERVER:URI)" in lines
    [review] = [line for line in lines if line.lstrip().startswith("/mcp__ctx__review")]
    assert review.split() == [
        "/mcp__ctx__review",
        "CODE",
        "[LANGUAGE]",
        "Ask",
        "for",
        "a",
        "code",
        "review.",
    ]
    assert "robota: usage: /mcp [resources|prompts]" in lines
