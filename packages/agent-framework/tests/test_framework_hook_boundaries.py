"""Issue #13, session half: hooks at the trust boundary in an :class:`InteractiveSession`.

Every event of the posture table is fired by a real session, and each row's claim is checked
against what its fire site actually does: a blocking row's deny stops the operation, an
enforcing row's error stops it too, an advisory row changes nothing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from robota.core.hooks import POSTURE, HookEventName, PromptBlockedError
from robota.core.messages import ToolResultMessage
from robota.core.permissions import Approval, PermissionRequest
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.settings import Settings

pytestmark = pytest.mark.anyio

HOOK = """\
import json, sys
data = json.load(sys.stdin)
event = data["hook_event_name"]
with open(sys.argv[1], "a") as log:
    log.write(event + "\\n")
mode = sys.argv[2]
if mode == "deny":
    print(event + " says no", file=sys.stderr)
    sys.exit(2)
if mode == "error":
    sys.exit(1)
if mode == "json":
    print(sys.argv[3])
"""


def hook_settings(
    tmp_path: Path, modes: dict[HookEventName, str], *, allow: tuple[str, ...] = ()
) -> Settings:
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    log = tmp_path / "hooks.log"
    hooks: dict[str, list[dict[str, Any]]] = {}
    for event, mode in modes.items():
        hooks[event.value] = [
            {
                "id": f"{event.value}-hook",
                "type": "command",
                "command": f"{sys.executable} {script} {log} {mode}",
            }
        ]
    return Settings.model_validate({"hooks": hooks, "permissions": {"allow": list(allow)}})


def config(tmp_path: Path, provider: ScriptedProvider, **more: Any) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    base: dict[str, Any] = {
        "provider": provider,
        "model": "m",
        "workspace": workspace,
        "title": False,
        "background_dir": tmp_path / "bg",
    }
    base.update(more)
    return SessionConfig(**base)


@dataclass
class Lifecycle:
    fired: list[str] = field(default_factory=list[str])
    asked: list[str] = field(default_factory=list[str])
    written: bool = False
    blocked_prompt: PromptBlockedError | None = None
    model_calls: int = 0
    final_text: str | None = None
    tool_texts: list[str] = field(default_factory=list[str])


async def run_lifecycle(tmp_path: Path, modes: dict[HookEventName, str]) -> Lifecycle:
    """One session touching every hook event: start, a prompt, an asked write, a failing read,
    a subagent, the end of the turn, a compaction and the shutdown."""
    provider = ScriptedProvider(
        [
            [tool_call("c1", "write_file", {"path": "a.txt", "content": "x"})],
            [tool_call("c2", "read_file", {"path": "missing.txt"})],
            [tool_call("c3", "agent", {"subagent_type": "general-purpose", "prompt": "look"})],
            [text("child done")],
            [text("all done")],
            [text("second answer")],
            [text("Summary of the first turn.")],
        ]
    )
    out = Lifecycle()

    async def person(request: PermissionRequest) -> Approval:
        out.asked.append(request.tool_name)
        return Approval(kind="allow_once")

    cfg = config(tmp_path, provider, settings=hook_settings(tmp_path, modes), approver=person)
    session = await InteractiveSession.start(cfg)
    try:
        try:
            result = await session.submit("do the work")
        except PromptBlockedError as error:
            out.blocked_prompt = error
        else:
            out.final_text = result.text
            for message in session.messages:
                if isinstance(message, ToolResultMessage):
                    out.tool_texts.extend(r.text for r in message.results)
            await session.submit("and then?")
            await session.compact(keep_last_turns=1)
    finally:
        await session.shutdown()
    out.written = (cfg.workspace / "a.txt").exists()
    out.model_calls = len(provider.requests)
    log = tmp_path / "hooks.log"
    out.fired = log.read_text().split() if log.exists() else []
    return out


ALL_ALLOW = dict.fromkeys(HookEventName, "log")


async def test_every_event_of_the_posture_table_has_a_fire_site(tmp_path: Path) -> None:
    out = await run_lifecycle(tmp_path, ALL_ALLOW)
    assert set(out.fired) == {e.value for e in HookEventName}
    assert set(POSTURE) == set(HookEventName)
    assert out.final_text == "all done"
    assert out.written
    assert out.asked == ["write_file", "agent"]  # hooks that only log answer nothing
    # Notification precedes each person's prompt; PermissionRequest is fired before it.
    assert out.fired.count("PermissionRequest") == 2
    assert out.fired.count("Notification") == 2
    assert out.fired.count("SubagentStart") == out.fired.count("SubagentStop") == 1


@pytest.mark.parametrize("event", list(HookEventName), ids=lambda e: e.value)
@pytest.mark.parametrize("mode", ["deny", "error"])
async def test_each_row_does_what_the_posture_table_claims(
    tmp_path: Path, event: HookEventName, mode: str
) -> None:
    posture = POSTURE[event]
    out = await run_lifecycle(tmp_path, {**ALL_ALLOW, event: mode})
    stops = posture.blocks if mode == "deny" else posture.enforcing
    assert event.value in out.fired
    if not stops:  # advisory here: the run is exactly the undisturbed one
        assert out.blocked_prompt is None
        assert out.final_text == "all done"
        assert out.written
        assert out.asked == ["write_file", "agent"]
        return
    if event is HookEventName.USER_PROMPT_SUBMIT:
        assert out.blocked_prompt is not None
        assert out.blocked_prompt.reason == "UserPromptSubmit says no"
        assert out.model_calls == 0  # refused before the model was called
        assert not out.written
        return
    assert out.blocked_prompt is None
    assert not out.written  # the write never ran
    if event is HookEventName.PERMISSION_REQUEST:
        assert out.asked == []  # answered by the hook: nobody was asked
        expected = (
            "PermissionRequest says no"
            if mode == "deny"
            else "hook 'PermissionRequest-hook' failed: exited with status 1"
        )
        assert any(expected in t for t in out.tool_texts)
    else:
        assert event is HookEventName.PRE_TOOL_USE
        expected = (
            "Blocked: PreToolUse says no"
            if mode == "deny"
            else "Blocked: hook 'PreToolUse-hook' failed: exited with status 1"
        )
        assert out.tool_texts[0] == expected


async def test_a_hook_ask_reaches_the_attached_person_and_is_denied_without_one(
    tmp_path: Path,
) -> None:
    ask = (
        '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}'
    )
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    settings = Settings.model_validate(
        {
            "permissions": {"allow": ["write_file"]},
            "hooks": {
                "PreToolUse": [
                    {
                        "id": "asker",
                        "type": "command",
                        "command": f"{sys.executable} {script} {tmp_path / 'log'} json '{ask}'",
                    }
                ]
            },
        }
    )
    asked: list[str] = []

    async def person(request: PermissionRequest) -> Approval:
        asked.append(request.reason)
        return Approval(kind="allow_once")

    def script_provider() -> ScriptedProvider:
        return ScriptedProvider(
            [[tool_call("c1", "write_file", {"path": "a.txt", "content": "x"})], [text("ok")]]
        )

    attended = config(tmp_path / "one", script_provider(), settings=settings, approver=person)
    async with await InteractiveSession.start(attended) as session:
        await session.submit("write")
    assert asked == ["a PreToolUse hook asks: sure?"]
    assert (attended.workspace / "a.txt").read_text() == "x"

    detached = config(tmp_path / "two", script_provider(), settings=settings)
    async with await InteractiveSession.start(detached) as session:
        await session.submit("write")
        results = session.messages[2]
    assert isinstance(results, ToolResultMessage)
    assert results.results[0].is_error
    assert results.results[0].text.startswith("Blocked: sure?")
    assert not (detached.workspace / "a.txt").exists()


@pytest.mark.parametrize(
    "answer",
    [
        '{"continue": false, "stopReason": "frozen"}',
        '{"decision": "block", "reason": "frozen"}',
        '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "frozen"}}',
    ],
)
async def test_a_claude_code_style_block_stops_the_tool_in_a_session(
    tmp_path: Path, answer: str
) -> None:
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    settings = Settings.model_validate(
        {
            "permissions": {"allow": ["write_file"]},
            "hooks": {
                "PreToolUse": [
                    {
                        "id": "guard",
                        "type": "command",
                        "command": f"{sys.executable} {script} {tmp_path / 'log'} json '{answer}'",
                    }
                ]
            },
        }
    )
    provider = ScriptedProvider(
        [[tool_call("c1", "write_file", {"path": "a.txt", "content": "x"})], [text("ok")]]
    )
    cfg = config(tmp_path, provider, settings=settings)
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("write")
        results = session.messages[2]
    assert isinstance(results, ToolResultMessage)
    assert results.results[0].text == "Blocked: frozen"
    assert not (cfg.workspace / "a.txt").exists()


async def test_a_plan_ceiling_is_not_answered_by_an_allow_rule_or_a_person(tmp_path: Path) -> None:
    """A policy (or user) ``max_mode: plan`` means nothing changes: a lower layer's allow rule,
    which plan mode would otherwise honour, and a person who would allow are both refused."""
    provider = ScriptedProvider(
        [
            [tool_call("c1", "write_file", {"path": "a.txt", "content": "x"})],
            [text("done")],
        ]
    )
    asked: list[str] = []

    async def person(request: PermissionRequest) -> Approval:
        asked.append(request.tool_name)
        return Approval(kind="allow_once")

    settings = Settings.model_validate(
        {"permissions": {"max_mode": "plan", "allow": ["write_file(*)"]}}
    )
    cfg = config(tmp_path, provider, settings=settings, approver=person)
    session = await InteractiveSession.start(cfg)
    try:
        await session.submit("write it")
    finally:
        await session.shutdown()
    assert not (tmp_path / "ws" / "a.txt").exists()
    assert asked == []
