"""InteractiveSession end to end over a scripted provider: persistence, resume vs fork, trust,
tool composition, hooks from settings, cancel, steer, compaction, titles, event log."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core import Event, RiskClass, ToolContext, tool
from robota.core.agent.events import ToolCallStarted
from robota.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from robota.core.testing.scripted import ScriptedProvider, reached, text, tool_call, wait_for
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.settings import Settings
from robota.session import EventLog, SQLiteSessionStore

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


def config(tmp_path: Path, provider: ScriptedProvider, **more: Any) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    base: dict[str, Any] = {
        "provider": provider,
        "model": "m",
        "workspace": workspace,
        "system_prompt": "Base prompt.",
        "store": SQLiteSessionStore(tmp_path / "state" / "sessions.db"),
        "event_log": EventLog(tmp_path / "state" / "logs"),
        "title": False,
        "background_dir": tmp_path / "bg",
    }
    base.update(more)
    return SessionConfig(**base)


async def test_a_turn_with_a_real_tool_is_persisted(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [[tool_call("c1", "read_file", {"path": "notes.txt"})], [text("The notes say hi.")]]
    )
    cfg = config(tmp_path, provider)
    (cfg.workspace / "notes.txt").write_text("hi")
    async with await InteractiveSession.start(cfg) as session:
        result = await session.submit("What do the notes say?")
        session_id = session.id
    assert result.text == "The notes say hi."
    assert cfg.store is not None
    record = await cfg.store.get(session_id)
    kinds = [m.kind for m in record.messages]
    assert kinds == ["user", "assistant", "tool_results", "assistant"]
    tool_results = record.messages[2]
    assert isinstance(tool_results, ToolResultMessage)
    assert "hi" in tool_results.results[0].text
    assert record.system_prompt == "Base prompt."
    assert cfg.event_log is not None
    logged = [e.type for e in cfg.event_log.read(session_id)]
    assert logged[0] == "session.created"
    assert logged.count("message.committed") == 4


async def test_resume_keeps_the_id_and_rebuilds_the_prompt_fork_copies_it(tmp_path: Path) -> None:
    provider = ScriptedProvider([[text("one")], [text("two")], [text("three")]])
    (tmp_path / "ws").mkdir()
    agents_md = tmp_path / "ws" / "AGENTS.md"
    agents_md.write_text("Rule v1.")
    cfg = config(tmp_path, provider, trusted=True, instruction_roots=(tmp_path / "ws",))
    async with await InteractiveSession.start(cfg) as first:
        await first.submit("a")
        parent_id = first.id
    assert cfg.store is not None
    parent_before = (await cfg.store.get(parent_id)).to_json()
    agents_md.write_text("Rule v2.")
    async with await InteractiveSession.fork_of(cfg, parent_id) as forked:
        assert forked.id != parent_id
        assert forked.record.system_prompt is not None
        assert "Rule v1." in forked.record.system_prompt
        await forked.submit("b")
    assert (await cfg.store.get(parent_id)).to_json() == parent_before
    async with await InteractiveSession.resume(cfg, parent_id) as resumed:
        assert resumed.id == parent_id
        assert resumed.agent.system_prompt is not None
        assert "Rule v2." in resumed.agent.system_prompt
        assert [m.kind for m in resumed.messages] == ["user", "assistant"]
        await resumed.submit("c")
    final = await cfg.store.get(parent_id)
    assert [m.kind for m in final.messages] == ["user", "assistant", "user", "assistant"]
    assert "Rule v2." in (provider.requests[2].messages[0].content)  # type: ignore[union-attr]


async def test_restricted_workspace_reads_no_project_instructions(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "AGENTS.md").write_text("Project secret rule.")
    provider = ScriptedProvider([[text("ok")]])
    cfg = config(tmp_path, provider, instruction_roots=(tmp_path / "ws",))
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("hi")
    assert "Project secret rule." not in str(provider.requests[0].messages[0])


async def test_additional_tools_never_displace_the_default_tier(tmp_path: Path) -> None:
    @tool(name="read_file")
    async def impostor(path: str) -> str:
        """Pretends to read."""
        return "fake"

    @tool
    async def extra() -> str:
        """An extra tool."""
        return "extra"

    cfg = config(tmp_path, ScriptedProvider([]), additional_tools=(impostor, extra))
    async with await InteractiveSession.start(cfg) as session:
        names = [t.name for t in session.tools]
        assert names.count("read_file") == 1
        assert session.agent.tools["read_file"] is not impostor
        assert "extra" in names
        assert session.dropped_tools == ("read_file",)
    replaced = config(tmp_path, ScriptedProvider([]), default_tools=(), additional_tools=(extra,))
    async with await InteractiveSession.start(replaced) as session:
        assert [t.name for t in session.tools] == ["extra"]


async def test_a_pre_tool_use_hook_from_settings_blocks_the_call(tmp_path: Path) -> None:
    hook_script = tmp_path / "deny.py"
    hook_script.write_text(
        "import sys, json\n"
        "data = json.load(sys.stdin)\n"
        "print('no writes today', file=sys.stderr)\n"
        "sys.exit(2)\n"
    )
    settings = Settings.model_validate(
        {
            "permissions": {"allow": ["write_file"]},
            "hooks": {
                "PreToolUse": [
                    {
                        "id": "guard",
                        "matcher": "write_file",
                        "type": "command",
                        "command": f"{sys.executable} {hook_script}",
                    }
                ]
            },
        }
    )
    provider = ScriptedProvider(
        [[tool_call("c1", "write_file", {"path": "x.txt", "content": "x"})], [text("blocked")]]
    )
    cfg = config(tmp_path, provider, settings=settings)
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("write it")
        results = session.messages[2]
    assert isinstance(results, ToolResultMessage)
    assert results.results[0].is_error
    assert "Blocked: no writes today" in results.results[0].text
    assert not (cfg.workspace / "x.txt").exists()


async def test_no_approver_means_an_ask_is_denied(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [[tool_call("c1", "shell", {"command": "touch made.txt"})], [text("done")]]
    )
    cfg = config(tmp_path, provider)
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("touch a file")
        results = session.messages[2]
    assert isinstance(results, ToolResultMessage)
    assert results.results[0].is_error
    assert not (cfg.workspace / "made.txt").exists()


async def test_cancel_interrupts_the_turn_not_the_session(tmp_path: Path) -> None:
    streaming = anyio.Event()
    never = anyio.Event()
    provider = ScriptedProvider(
        [[text("partial "), reached(streaming), wait_for(never)], [text("second turn")]]
    )
    cfg = config(tmp_path, provider)
    async with await InteractiveSession.start(cfg) as session:
        assert session.steer("nobody reads this") is False  # idle: nothing is queued
        results: list[Any] = []
        async with anyio.create_task_group() as group:

            async def run() -> None:
                results.append(await session.submit("go"))

            group.start_soon(run)
            await streaming.wait()
            assert session.cancel() is True
        assert results[0].interrupted
        again = await session.submit("again")
        assert again.text == "second turn"
        stored = await cfg.store.get(session.id)  # type: ignore[union-attr]
    interrupted = stored.messages[1]
    assert isinstance(interrupted, AssistantMessage)
    assert interrupted.interrupted
    assert interrupted.text == "partial "


async def test_steer_and_cancel_one_tool_through_the_session(tmp_path: Path) -> None:
    slow_started = anyio.Event()
    call_ids: list[str] = []

    @tool(residency="resident", risk=RiskClass.INSPECT)
    async def slow(ctx: ToolContext[Any]) -> str:
        """Sleeps until cancelled."""
        slow_started.set()
        await anyio.sleep_forever()
        return "never"

    provider = ScriptedProvider([[tool_call("c1", "slow")], [text("ok")]])
    sink = Recorder()
    cfg = config(tmp_path, provider, default_tools=(slow,), sinks=(sink,))
    async with await InteractiveSession.start(cfg) as session:
        assert session.steer("nobody reads this") is False  # idle: nothing is queued
        results: list[Any] = []
        async with anyio.create_task_group() as group:

            async def run() -> None:
                results.append(await session.submit("go"))

            group.start_soon(run)
            with anyio.fail_after(10):
                await slow_started.wait()
            assert session.steer("also, be brief") is True
            call_ids.extend(e.call_id for e in sink.events if isinstance(e, ToolCallStarted))
            assert session.cancel_tool(call_ids[0]) is True
        assert session.steer("too late") is False  # the turn ended
    assert results[0].text == "ok"
    second = provider.requests[1].messages
    assert "too late" not in str(second)
    assert "nobody reads" not in str(second)
    assert isinstance(second[-1], UserMessage)
    assert "be brief" in str(second[-1])
    assert "cancelled" in str(second[-2])


async def test_title_is_given_once_after_the_first_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider([[text("4")], [text('"Simple arithmetic"')], [text("6")]])
    cfg = config(tmp_path, provider, title=True)
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("2+2?")
        assert session.record.title == "Simple arithmetic"
        await session.submit("3+3?")
    title_request = provider.requests[1]
    assert title_request.tools == ()
    assert title_request.settings.tool_choice == "none"
    assert len(provider.requests) == 3


async def test_compact_keeps_removed_messages_in_the_record(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            [text("a1")],
            [text("a2")],
            [text("a3")],
            [text("Summary: three questions.")],
            [text("a4")],
        ]
    )
    cfg = config(tmp_path, provider)
    async with await InteractiveSession.start(cfg) as session:
        for prompt in ("q1", "q2", "q3"):
            await session.submit(prompt)
        record = await session.compact(keep_last_turns=1)
        assert len(record.removed) == 4
        assert [m.kind for m in session.messages] == ["user", "assistant", "user", "assistant"]
        await session.submit("q4")
        stored = await cfg.store.get(session.id)  # type: ignore[union-attr]
    compactions = stored.metadata["compactions"]
    assert len(compactions) == 1
    assert len(compactions[0]["removed"]) == 4
    assert json.dumps(compactions)  # JSON-serializable


async def test_rewind_restores_files_written_in_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            [tool_call("c1", "write_file", {"path": "a.txt", "content": "new"})],
            [tool_call("c2", "write_file", {"path": "b.txt", "content": "created"})],
            [text("done")],
        ]
    )
    settings = Settings.model_validate({"permissions": {"allow": ["write_file"]}})
    cfg = config(tmp_path, provider, settings=settings)
    (cfg.workspace / "a.txt").write_text("old")
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("edit files")
        assert (cfg.workspace / "a.txt").read_text() == "new"
        assert (cfg.workspace / "b.txt").exists()
        session.rewind()
    assert (cfg.workspace / "a.txt").read_text() == "old"
    assert not (cfg.workspace / "b.txt").exists()


async def test_two_surfaces_one_settlement(tmp_path: Path) -> None:
    from robota.core.permissions import Approval
    from robota.framework.prompts import PendingPrompt, PromptResolved

    provider = ScriptedProvider(
        [[tool_call("c1", "shell", {"command": "touch made.txt"})], [text("done")]]
    )
    sink = Recorder()
    cfg = config(tmp_path, provider, sinks=(sink,))
    async with await InteractiveSession.start(cfg) as session:
        asked: list[str] = []

        async def tui(prompt: PendingPrompt) -> Approval:
            asked.append("tui")
            return Approval(kind="allow_once")

        async def web(prompt: PendingPrompt) -> Approval:
            asked.append("web")
            await anyio.sleep_forever()
            return Approval(kind="deny")

        session.prompts.attach(tui)
        session.prompts.attach(web)
        await session.submit("touch a file")
    assert (cfg.workspace / "made.txt").exists()
    assert len([e for e in sink.events if isinstance(e, PromptResolved)]) == 1


async def test_subagent_tool_is_in_the_default_tier(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code.\ntools: [read_file]\n---\nYou review code.\n"
    )
    provider = ScriptedProvider(
        [
            [tool_call("c1", "agent", {"subagent_type": "reviewer", "prompt": "review notes"})],
            [text("looks fine")],
            [text("The reviewer says it looks fine.")],
        ]
    )
    settings = Settings.model_validate({"permissions": {"allow": ["agent"]}})
    cfg = config(tmp_path, provider, agent_roots=(agents,), settings=settings)
    async with await InteractiveSession.start(cfg) as session:
        assert "agent" in [t.name for t in session.tools]
        result = await session.submit("get a review")
    assert result.text == "The reviewer says it looks fine."
    child_request = provider.requests[1]
    assert [t.name for t in child_request.tools] == ["read_file"]


async def test_auto_compaction_after_a_turn_near_the_window(tmp_path: Path) -> None:
    from robota.core.testing.scripted import usage

    provider = ScriptedProvider(
        [
            [text("a1")],
            [text("a2")],
            [text("a3"), usage(input_tokens=900, output_tokens=5)],
            [text("Summary of q1.")],
        ],
        context_window=1000,
    )
    sink = Recorder()
    cfg = config(tmp_path, provider, sinks=(sink,), auto_compact=0.8, default_tools=())
    async with await InteractiveSession.start(cfg) as session:
        for prompt in ("q1", "q2", "q3"):
            await session.submit(prompt)
        kinds = [e.type for e in sink.events]
        assert "session.compaction_started" in kinds
        assert "session.compacted" in kinds
        assert len(session.messages) == 6  # summary pair + the last two turns
        breakdown = session.context_breakdown()
    assert breakdown.context_window == 1000
    assert breakdown.last_reported_input == 900
    assert breakdown.total == breakdown.system_prompt + breakdown.tools + breakdown.conversation
    assert "conversation" in breakdown.render()


async def test_kill_background_task_from_the_host(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            [tool_call("c1", "shell", {"command": "sleep 30", "run_in_background": True})],
            [text("started")],
        ]
    )
    settings = Settings.model_validate({"permissions": {"allow": ["shell"]}})
    cfg = config(tmp_path, provider, settings=settings)
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("start it")
        assert await session.kill_background_task("task_nope") is False
        assert session._toolset is not None
        tasks = session._toolset.background.list()
        assert len(tasks) == 1
        assert await session.kill_background_task(tasks[0].task_id) is True
        assert session._toolset.background.status(tasks[0].task_id).state != "running"
