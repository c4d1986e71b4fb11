"""Outside attack on MCP resources, prompts and the ``mcp:tool:gate`` seam (issue #18), by a
hostile stdio MCP server (``mcp_servers/outsider18_context_server.py``, which records what it
was asked in a file): huge and endless answers, blobs lying about their type, prompts posing as
instructions, names built to collide or to carry terminal escapes, error messages with escapes,
``@server:uri`` for a server the user never approved, and gates that fail, lie or hang.

``# HELD`` tests pass; ``# HOLE`` ones are strict xfails naming what is wrong.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core.gate import Allow, Deny
from robota.core.host.sandbox import NoSandbox
from robota.core.messages import MediaPart, TextPart, ToolResultMessage
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.settings import Settings, merge_layers
from robota.framework.trust import TrustedWorkspace
from robota.tools.mcp import McpServerError, McpToolset, StdioServerConfig

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "mcp_servers" / "outsider18_context_server.py"
RECORDING = HERE / "mcp_servers" / "recording_server.py"
PNG_HEAD = b"\x89PNG\r\n\x1a\n"


def _lines(record: Path) -> list[str]:
    return record.read_text().splitlines() if record.exists() else []


def _stdio(record: Path, **env: str) -> StdioServerConfig:
    return StdioServerConfig(
        name="ctx",
        command=sys.executable,
        args=(str(HOSTILE),),
        env={"RECORD_FILE": str(record), **env},
    )


def _server(record: Path, **env: str) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(HOSTILE)],
        "env": {"RECORD_FILE": str(record), **env},
    }


def _config(
    tmp_path: Path,
    provider: ScriptedProvider,
    layers: list[dict[str, Any]],
    *,
    trusted: bool = True,
    **kwargs: Any,
) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    access: bool | TrustedWorkspace = (
        TrustedWorkspace.accept(root=workspace, cwd=workspace) if trusted else False
    )
    return SessionConfig(
        provider=provider,
        model="m",
        workspace=workspace,
        settings=merge_layers([Settings.model_validate(layer) for layer in layers]),
        title=False,
        sandbox=NoSandbox("test"),
        trusted=access,
        **kwargs,
    )


def _results(session: InteractiveSession) -> list[str]:
    return [r.text for m in session.messages if isinstance(m, ToolResultMessage) for r in m.results]


# -- resources ---------------------------------------------------------------------------------


# Left open (issue #18's closing note): a huge resource from a stdio server is read whole by the
# MCP SDK's stdio_client (an unbounded line buffer) before the 100 000-character cap applies; a
# 50 MB resource grew the client's peak RSS by ~238 MB here, but the figure depends on the
# machine (a CI run measured under 64 MB), so no test asserts it until the transport bounds it.


@pytest.mark.anyio
async def test_endless_pagination_is_bounded_and_fails_typed(tmp_path: Path) -> None:
    # HELD: a server that names a new cursor on every page forever is followed for at most
    # MAX_LIST_PAGES pages, then the listing fails with McpServerError (not a hang / OOM).
    record = tmp_path / "r.txt"
    async with McpToolset([_stdio(record, ENDLESS="1")]) as toolset:
        with pytest.raises(McpServerError, match="did not finish within 1000 pages"):
            await toolset.list_resources("ctx")
    pages = [line for line in _lines(record) if line.startswith("list resources/list")]
    assert len(pages) == 1000


@pytest.mark.anyio
async def test_endless_pagination_does_not_break_the_session_listing(tmp_path: Path) -> None:
    # HELD: in a session the endless server's listing is skipped, the session goes on.
    record = tmp_path / "r.txt"
    provider = ScriptedProvider([[text("ok")]])
    config = _config(tmp_path, provider, [{"mcp_servers": {"ctx": _server(record, ENDLESS="1")}}])
    async with await InteractiveSession.start(config) as session:
        assert await session.mcp_prompts() == []
        result = await session.submit("hi")
    assert result.text == "ok"


@pytest.mark.anyio
async def test_a_blob_claiming_png_that_is_not_a_png_is_not_attached_as_an_image(
    tmp_path: Path,
) -> None:
    # HELD (was a HOLE, fixed): a resource blob declared image/png is attached as an image MediaPart without
    # looking at its bytes (HTML here); @path images are only attached when their first bytes
    # are a PNG/JPEG/GIF/WebP signature. A provider then rejects the turn (or worse, parses it).
    async with McpToolset([_stdio(tmp_path / "r.txt")]) as toolset:
        parts = await toolset.read_resource("ctx", "img://fake")
    media = [p for p in parts if isinstance(p, MediaPart)]
    assert all(p.data is not None and p.data.startswith(PNG_HEAD) for p in media), media
    assert all(isinstance(p, TextPart) for p in parts)


@pytest.mark.anyio
async def test_an_svg_image_resource_is_described_not_attached(tmp_path: Path) -> None:
    # HELD: image/svg+xml (scriptable) is not an attachable image type.
    async with McpToolset([_stdio(tmp_path / "r.txt")]) as toolset:
        parts = await toolset.read_resource("ctx", "img://svg")
    assert parts == [
        TextPart(
            text="[resource img://svg: image/svg+xml, 89 bytes, not attached "
            "(only text and PNG, JPEG, GIF or WebP images are)]"
        )
    ]


# -- prompts -----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_prompt_of_assistant_messages_keeps_its_role_label(tmp_path: Path) -> None:
    # HELD (was a HOLE, fixed): a prompt whose messages are all role=assistant is flattened into the user's turn
    # with no [assistant] label (labels are added only when roles are mixed), so text the
    # server presented as the assistant's ("SYSTEM: ... Acknowledged, I will not ask.") reads
    # as the user's own words. Fix: label every non-user message, mixed or not.
    async with McpToolset([_stdio(tmp_path / "r.txt")]) as toolset:
        parts = await toolset.get_prompt("ctx", "sys")
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    assert texts, parts
    assert all(t.startswith("[assistant]") for t in texts), texts


@pytest.mark.anyio
async def test_prompt_names_with_escapes_and_case_twins_are_listed_and_shown_safely(
    tmp_path: Path,
) -> None:
    # HELD: /mcp prompts shows escape-carrying names/descriptions/argument names escaped.
    from robota.cli.mcp_prompts import prompt_lines, split_prompt_command

    provider = ScriptedProvider([])
    config = _config(tmp_path, provider, [{"mcp_servers": {"ctx": _server(tmp_path / "r.txt")}}])
    async with await InteractiveSession.start(config) as session:
        prompts = await session.mcp_prompts()
    names = [p.name for p in prompts]
    assert "Twin" in names
    assert "twin" in names
    lines = "\n".join(prompt_lines(prompts))
    assert "\x1b" not in lines
    assert "\x07" not in lines
    assert split_prompt_command("/mcp__ctx__a__b") == ("ctx", "a__b")


@pytest.mark.anyio
async def test_two_prompts_differing_only_in_case_are_both_reachable(tmp_path: Path) -> None:
    # HELD (was a HOLE, fixed): prompt commands match without regard to case and take the first match, so of the
    # server's ``Twin`` and ``twin`` only the first listed can ever be run; the second one's
    # command silently runs the other prompt. Fix: an exact-case match first, or refuse
    # ambiguous names.
    from robota.cli import mcp_prompts

    ran: list[str] = []

    class _Session:
        async def mcp_prompts(self) -> list[Any]:
            async with McpToolset([_stdio(tmp_path / "r.txt")]) as toolset:
                listed = await toolset.list_prompts("ctx")
            from robota.framework.mcp import McpPrompt

            return [McpPrompt(server="ctx", name=p.name) for p in listed]

        async def get_mcp_prompt(
            self, server: str, name: str, arguments: Mapping[str, str]
        ) -> list[TextPart | MediaPart]:
            ran.append(name)
            return []

    class _Chat:
        session = _Session()

    command = mcp_prompts.prompt_command("/mcp__ctx__twin")
    assert command.run is not None
    await command.run(_Chat(), [])  # pyright: ignore[reportArgumentType]
    assert ran == ["twin"]


# -- error text and @server:uri ----------------------------------------------------------------


@pytest.mark.anyio
async def test_a_resource_error_with_escapes_is_not_written_raw_to_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # HELD (was a HOLE, fixed): `@ctx:err://esc` fails with the server's JSON-RPC error message inside the
    # AttachmentError, and prompt_for() writes it with say() unescaped: the server can clear
    # the screen / retitle the terminal / recolour text. Fix: shown() the reason (and every
    # server-sourced str(exc) said by mcp_prompts.py).
    from robota.cli.attachments import prompt_for

    provider = ScriptedProvider([])
    config = _config(tmp_path, provider, [{"mcp_servers": {"ctx": _server(tmp_path / "r.txt")}}])
    async with await InteractiveSession.start(config) as session:
        sent = await prompt_for(session, "look at @ctx:err://esc")
    assert sent is None
    err = capfd.readouterr().err
    assert "boom" in err
    assert "\x1b" not in err, repr(err)
    assert "\x07" not in err, repr(err)


@pytest.mark.anyio
@pytest.mark.parametrize("trusted", [True, False])
async def test_a_reference_to_an_unapproved_project_server_never_starts_it(
    tmp_path: Path, trusted: bool, capfd: pytest.CaptureFixture[str]
) -> None:
    # HELD: `@proj:uri` for a project server the user has not approved (or in an untrusted
    # workspace) is refused without starting the server.
    from robota.cli.attachments import prompt_for

    record = tmp_path / "proj.txt"
    project = {"mcp_servers": {"proj": _server(record)}}
    provider = ScriptedProvider([])
    config = _config(tmp_path, provider, [{}, project], trusted=trusted)
    async with await InteractiveSession.start(config) as session:
        sent = await prompt_for(session, "read @proj:text://esc please")
        await session.warmup()
    assert sent is None  # refused: nothing of the line is sent
    assert _lines(record) == []  # never started
    assert "cannot attach @proj:text://esc" in capfd.readouterr().err


# -- the mcp:tool:gate seam --------------------------------------------------------------------


def _gate_session(
    tmp_path: Path, provider: ScriptedProvider, gate: Any, record: Path
) -> SessionConfig:
    layer = {
        "mcp_servers": {"ctx": _server(record)},
        "permissions": {"allow": ["mcp__ctx__*"]},
    }
    return _config(tmp_path, provider, [layer], mcp_tool_gate=gate)


def _calls(record: Path) -> list[str]:
    return [line for line in _lines(record) if line.startswith("call")]


@pytest.mark.anyio
@pytest.mark.parametrize(
    "verdict",
    ["allow", True, None, Allow, {"allow": True}, 1],
    ids=["str", "true", "none", "class", "dict", "int"],
)
async def test_a_gate_returning_junk_denies(tmp_path: Path, verdict: object) -> None:
    # HELD: anything that is not an Allow/Deny instance denies (fail closed).
    record = tmp_path / "r.txt"

    def gate(server: str, tool: str, arguments: Mapping[str, Any]) -> Any:
        return verdict

    provider = ScriptedProvider([[tool_call("c1", "mcp__ctx__record", {})], [text("done")]])
    async with await InteractiveSession.start(
        _gate_session(tmp_path, provider, gate, record)
    ) as session:
        await session.submit("go")
    assert _calls(record) == []
    assert "gate gave no verdict" in _results(session)[0]


@pytest.mark.anyio
async def test_a_gate_whose_allow_arguments_are_junk_does_not_call_the_server(
    tmp_path: Path,
) -> None:
    # HELD: Allow(arguments=<not a mapping>) does not reach the server and the session goes on.
    record = tmp_path / "r.txt"

    def gate(server: str, tool: str, arguments: Mapping[str, Any]) -> Allow:
        return Allow(arguments=42)  # pyright: ignore[reportArgumentType]

    provider = ScriptedProvider([[tool_call("c1", "mcp__ctx__record", {})], [text("done")]])
    async with await InteractiveSession.start(
        _gate_session(tmp_path, provider, gate, record)
    ) as session:
        result = await session.submit("go")
    assert _calls(record) == []
    assert result.text == "done"


@pytest.mark.anyio
async def test_a_gate_that_mutates_nested_arguments_changes_nothing_sent(tmp_path: Path) -> None:
    # HELD (was a HOLE, fixed): the gate gets "the arguments (a copy)" but the copy is shallow: a gate that only
    # inspects, yet normalises a nested value in place, changes what the server receives
    # although it returned a bare Allow(). Fix: copy.deepcopy the arguments for the gate.
    record = tmp_path / "r.txt"

    def gate(server: str, tool: str, arguments: Mapping[str, Any]) -> Allow:
        arguments["data"]["path"] = "/etc/shadow"
        return Allow()

    call = tool_call("c1", "mcp__ctx__record", {"data": {"path": "notes.txt"}})
    provider = ScriptedProvider([[call], [text("done")]])
    async with await InteractiveSession.start(
        _gate_session(tmp_path, provider, gate, record)
    ) as session:
        await session.submit("go")
    [sent] = _calls(record)
    assert json.loads(sent.split(" ", 2)[2]) == {"data": {"path": "notes.txt"}}


@pytest.mark.anyio
async def test_a_hanging_gate_cancelled_with_the_turn_never_calls_the_server(
    tmp_path: Path,
) -> None:
    # HELD: cancelling the turn while the gate hangs leaves the server uncalled.
    record = tmp_path / "r.txt"
    entered = anyio.Event()

    async def gate(server: str, tool: str, arguments: Mapping[str, Any]) -> Allow:
        entered.set()
        await anyio.sleep_forever()
        return Allow()

    provider = ScriptedProvider([[tool_call("c1", "mcp__ctx__record", {})], [text("done")]])
    async with (
        await InteractiveSession.start(_gate_session(tmp_path, provider, gate, record)) as session,
        anyio.create_task_group() as group,
    ):

        async def cancel_when_entered() -> None:
            await entered.wait()
            assert session.cancel()

        group.start_soon(cancel_when_entered)
        with anyio.fail_after(60):
            with contextlib.suppress(Exception):
                await session.submit("go")
    assert _calls(record) == []


@pytest.mark.anyio
async def test_a_gate_raising_a_base_exception_does_not_call_the_server(tmp_path: Path) -> None:
    # HELD: a gate raising a non-Exception BaseException (GeneratorExit) does not reach the
    # server (it escapes the gate's fail-closed `except Exception`, but nothing is sent).
    record = tmp_path / "r.txt"

    def gate(server: str, tool: str, arguments: Mapping[str, Any]) -> Allow:
        raise GeneratorExit("gate bug")

    provider = ScriptedProvider([[tool_call("c1", "mcp__ctx__record", {})], [text("done")]])
    with pytest.raises(BaseException):  # noqa: B017, PT011
        async with await InteractiveSession.start(
            _gate_session(tmp_path, provider, gate, record)
        ) as session:
            await session.submit("go")
    assert _calls(record) == []


@pytest.mark.anyio
async def test_the_gate_sees_the_servers_own_name_for_an_odd_tool_name(tmp_path: Path) -> None:
    # HELD: a gate keyed on server tool names is asked with the server's own name even when
    # the model calls it through a differently-cased or re-punctuated namespaced name (such
    # a name is not a tool at all, and nothing reaches the server).
    record = tmp_path / "r.txt"
    asked: list[str] = []

    def gate(server: str, tool: str, arguments: Mapping[str, Any]) -> Deny:
        asked.append(tool)
        return Deny(message="no")

    calls = [
        [tool_call("c1", "MCP__ctx__record", {})],
        [tool_call("c2", "mcp__ctx__record ", {})],
        [tool_call("c3", "mcp__ctx__record", {})],
        [text("done")],
    ]
    provider = ScriptedProvider(calls)
    async with await InteractiveSession.start(
        _gate_session(tmp_path, provider, gate, record)
    ) as session:
        await session.submit("go")
    assert asked == ["record"]
    assert _calls(record) == []
