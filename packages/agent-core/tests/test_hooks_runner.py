"""HookRunner: executor registration (replace vs keep), refusal of unrunnable hooks, combination
(block beats substitute), posture (advisory vs enforcing), matchers and events (seed 000,
"Hook System"; seed 003, "Hook executor registration")."""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from robota.core.errors import ConfigurationError
from robota.core.events import Event
from robota.core.hooks import (
    CallableHookExecutor,
    CommandHookExecutor,
    HookAllow,
    HookAsk,
    HookCompleted,
    HookConfig,
    HookConfigurationError,
    HookDeny,
    HookError,
    HookEventName,
    HookExecutor,
    HookInput,
    HookResult,
    HookRunner,
    HookStarted,
    HttpHookExecutor,
    Matcher,
    PreToolUseInput,
    SessionStartInput,
    StopInput,
    UserPromptSubmitInput,
    default_executors,
    enforces,
    hooks_from_settings,
)
from robota.core.tools.base import ToolReturn

PRE = HookEventName.PRE_TOOL_USE


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def returning(result: HookResult) -> Any:
    async def handler(_payload: HookInput) -> HookResult:
        return result

    return handler


def cb(
    hook_id: str, result: HookResult, *, event: HookEventName = PRE, matcher: str = ""
) -> HookConfig:
    return HookConfig(
        event=event, type="callable", handler=returning(result), id=hook_id, matcher=matcher
    )


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


class EchoExecutor(HookExecutor):
    """A host-supplied executor for a custom hook type."""

    async def run(self, hook: HookConfig, payload: HookInput) -> HookResult:
        return HookAllow(output=f"{hook.type}:{payload.to_json()['hook_event_name']}")


# --- registration ---------------------------------------------------------------------------


def test_omitted_executors_keep_the_three_defaults() -> None:
    runner = HookRunner()
    assert sorted(runner.executors) == ["callable", "command", "http"]
    assert isinstance(runner.executors["command"], CommandHookExecutor)
    assert isinstance(runner.executors["http"], HttpHookExecutor)
    assert isinstance(runner.executors["callable"], CallableHookExecutor)


def test_a_supplied_mapping_replaces_the_defaults_entirely() -> None:
    runner = HookRunner(executors={"echo": EchoExecutor()})
    assert list(runner.executors) == ["echo"]
    with pytest.raises(HookConfigurationError) as info:
        HookRunner(
            [HookConfig(event=PRE, command="true", id="lint")], executors={"echo": EchoExecutor()}
        )
    assert info.value.hook_name == "lint"
    assert info.value.hook_type == "command"


def test_an_empty_mapping_disables_every_executor() -> None:
    with pytest.raises(HookConfigurationError):
        HookRunner([cb("x", HookAllow())], executors={})


@pytest.mark.anyio
async def test_extending_the_defaults_is_explicit() -> None:
    runner = HookRunner(
        [HookConfig(event=PRE, type="echo", id="e"), cb("c", HookAllow(output="py"))],
        executors={**default_executors(), "echo": EchoExecutor()},
    )
    outcome = await runner.dispatch(PRE, PreToolUseInput(tool_name="Bash"))
    assert [(r.hook_name, r.result) for r in outcome.runs] == [
        ("e", HookAllow(output="echo:PreToolUse")),
        ("c", HookAllow(output="py")),
    ]


def test_an_unregistered_type_is_refused_naming_hook_and_type() -> None:
    with pytest.raises(ConfigurationError) as info:
        HookRunner([HookConfig(event=PRE, type="prompt", id="llm-judge")])
    err = info.value
    assert isinstance(err, HookConfigurationError)
    assert err.error_code == "hook_configuration"
    assert str(err) == (
        "hook 'llm-judge' has type 'prompt' but no executor is registered for that type "
        "(registered: callable, command, http); pass one in HookRunner(executors=...)"
    )


def test_a_hook_its_executor_cannot_run_is_refused() -> None:
    with pytest.raises(HookConfigurationError, match="a command hook needs 'command'"):
        HookRunner([HookConfig(event=PRE, type="command", id="empty")])
    with pytest.raises(HookConfigurationError, match="a callable hook needs 'handler'"):
        HookRunner([HookConfig(event=PRE, type="callable", id="nohandler")])


def test_invalid_matcher_and_timeout_are_refused() -> None:
    with pytest.raises(HookConfigurationError, match="invalid matcher"):
        HookConfig(event=PRE, command="true", matcher="Bash(")
    with pytest.raises(HookConfigurationError, match="timeout must be > 0"):
        HookConfig(event=PRE, command="true", timeout=0)


# --- combination ----------------------------------------------------------------------------

SUB = HookAllow(substitute=ToolReturn.text("cached"))


@pytest.mark.anyio
async def test_block_beats_substitute_whatever_the_order() -> None:
    for hooks in (
        [cb("sub", SUB), cb("block", HookDeny(reason="policy"))],
        [cb("block", HookDeny(reason="policy")), cb("sub", SUB)],
    ):
        outcome = await HookRunner(hooks).dispatch(PRE, PreToolUseInput(tool_name="Bash"))
        assert (outcome.decision, outcome.reason, outcome.substitute) == ("deny", "policy", None)


@pytest.mark.anyio
async def test_deny_then_ask_then_substitute_then_allow() -> None:
    async def decide(*hooks: HookConfig) -> tuple[str, str | None]:
        outcome = await HookRunner(hooks).dispatch(PRE, PreToolUseInput(tool_name="Bash"))
        return outcome.decision, outcome.reason

    ask = cb("ask", HookAsk(reason="confirm?"))
    assert await decide(cb("a", HookAllow()), ask, cb("s", SUB)) == ("ask", "confirm?")
    assert await decide(cb("a", HookAllow()), cb("s", SUB)) == ("substitute", None)
    assert await decide(cb("a", HookAllow())) == ("allow", None)
    assert await decide() == ("allow", None)
    # Several denies: the first in declaration order gives the reason.
    assert await decide(cb("d1", HookDeny(reason="one")), cb("d2", HookDeny(reason="two"))) == (
        "deny",
        "one",
    )


@pytest.mark.anyio
async def test_hooks_of_one_event_run_concurrently() -> None:
    # Each handler waits for the other to have started: only concurrent runs finish.
    a_started, b_started = anyio.Event(), anyio.Event()

    async def a(_p: HookInput) -> HookResult:
        a_started.set()
        await b_started.wait()
        return HookAllow(output="a")

    async def b(_p: HookInput) -> HookResult:
        b_started.set()
        await a_started.wait()
        return HookAllow(output="b")

    runner = HookRunner(
        [
            HookConfig(event=PRE, type="callable", handler=a, id="a"),
            HookConfig(event=PRE, type="callable", handler=b, id="b"),
        ]
    )
    with anyio.fail_after(10):
        outcome = await runner.dispatch(PRE, PreToolUseInput(tool_name="Bash"))
    assert [r.result for r in outcome.runs] == [HookAllow(output="a"), HookAllow(output="b")]


# --- posture --------------------------------------------------------------------------------


def test_enforces_is_true_only_for_tool_use_gating() -> None:
    assert {e.value for e in HookEventName if enforces(e)} == {"PreToolUse", "PermissionRequest"}
    assert enforces("PreToolUse") is True
    assert enforces("Stop") is False
    assert enforces("NoSuchEvent") is False


async def _boom(_p: HookInput) -> HookResult:
    raise RuntimeError("db down")


@pytest.mark.anyio
async def test_an_error_blocks_an_enforcing_event_with_a_named_reason() -> None:
    runner = HookRunner([HookConfig(event=PRE, type="callable", handler=_boom, id="audit")])
    outcome = await runner.dispatch(PRE, PreToolUseInput(tool_name="Bash"))
    assert outcome.decision == "deny"
    assert outcome.reason == "hook 'audit' failed: handler raised RuntimeError: db down"
    assert outcome.enforcing is True


@pytest.mark.anyio
async def test_an_error_on_an_advisory_event_is_reported_but_never_blocks() -> None:
    ev = HookEventName.SESSION_START
    sink = Recorder()
    runner = HookRunner(
        [HookConfig(event=ev, type="callable", handler=_boom, id="greeter")], sinks=[sink]
    )
    outcome = await runner.dispatch(ev, SessionStartInput(session_id="s"))
    assert (outcome.decision, outcome.reason, outcome.enforcing) == ("allow", None, False)
    assert [r.result for r in outcome.errors] == [
        HookError(reason="handler raised RuntimeError: db down")
    ]
    completed = [e for e in sink.events if isinstance(e, HookCompleted)]
    assert [(c.hook_name, c.outcome, c.reason, c.enforcing) for c in completed] == [
        ("greeter", "error", "handler raised RuntimeError: db down", False)
    ]


@pytest.mark.anyio
async def test_an_explicit_deny_on_an_advisory_event_is_still_reported_as_deny() -> None:
    ev = HookEventName.USER_PROMPT_SUBMIT
    runner = HookRunner([cb("pii", HookDeny(reason="contains a card number"), event=ev)])
    outcome = await runner.dispatch(ev, UserPromptSubmitInput(prompt="4111 1111 1111 1111"))
    assert (outcome.decision, outcome.reason) == ("deny", "contains a card number")


@pytest.mark.anyio
async def test_a_callable_timeout_is_named() -> None:
    async def hang(_p: HookInput) -> HookResult:
        await anyio.sleep_forever()
        raise AssertionError

    runner = HookRunner([HookConfig(event=PRE, type="callable", handler=hang, id="h", timeout=0.2)])
    outcome = await runner.dispatch(PRE, PreToolUseInput(tool_name="Bash"))
    assert outcome.reason == "hook 'h' failed: timed out after 0.2s"


@pytest.mark.anyio
async def test_a_callable_returning_a_non_result_is_an_error_not_a_verdict() -> None:
    async def truthy(_p: HookInput) -> Any:
        return True

    runner = HookRunner([HookConfig(event=PRE, type="callable", handler=truthy, id="t")])
    outcome = await runner.dispatch(PRE, PreToolUseInput(tool_name="Bash"))
    assert outcome.reason == (
        "hook 't' failed: invalid output: handler returned bool, not a HookResult"
    )


# --- dispatch, matchers, events -------------------------------------------------------------


@pytest.mark.anyio
async def test_dispatch_runs_only_matching_hooks_and_emits_started_and_completed() -> None:
    sink = Recorder()
    seen: list[str] = []
    caller: list[Event] = []

    def tracking(hook_id: str) -> Any:
        async def handler(payload: HookInput) -> HookResult:
            seen.append(hook_id)
            return HookAllow()

        return handler

    hooks = [
        HookConfig(event=PRE, type="callable", handler=tracking("bash"), id="bash", matcher="Bash"),
        HookConfig(
            event=PRE, type="callable", handler=tracking("edits"), id="edits", matcher="Edit|Write"
        ),
        HookConfig(
            event=PRE, type="callable", handler=tracking("mcp"), id="mcp", matcher="mcp__.*"
        ),
        HookConfig(event=PRE, type="callable", handler=tracking("all"), id="all", matcher="*"),
    ]
    runner = HookRunner(hooks, sinks=[sink])
    await runner.dispatch(PRE, PreToolUseInput(tool_name="Write"), emit=caller.append)
    assert sorted(seen) == ["all", "edits"]
    seen.clear()
    await runner.dispatch(PRE, PreToolUseInput(tool_name="mcp__github__create_issue"))
    assert sorted(seen) == ["all", "mcp"]
    assert sorted(type(e).type for e in caller) == ["hook.completed"] * 2 + ["hook.started"] * 2
    started = [e for e in sink.events if isinstance(e, HookStarted)]
    assert sorted(e.hook_name for e in started) == ["all", "all", "edits", "mcp"]


@pytest.mark.anyio
async def test_events_without_a_subject_ignore_the_matcher() -> None:
    ev = HookEventName.STOP
    runner = HookRunner([cb("s", HookAllow(output="bye"), event=ev, matcher="Bash")])
    outcome = await runner.dispatch(ev, StopInput())
    assert [r.result for r in outcome.runs] == [HookAllow(output="bye")]


@pytest.mark.anyio
async def test_dispatch_refuses_a_payload_for_another_event() -> None:
    with pytest.raises(ValueError, match="PreToolUse, not Stop"):
        await HookRunner().dispatch("Stop", PreToolUseInput(tool_name="Bash"))


NAME = st.from_regex(r"[A-Za-z0-9_-]{1,20}", fullmatch=True)


@given(st.lists(NAME, min_size=1, max_size=4), NAME)
def test_simple_matchers_are_exact_alternatives(names: list[str], subject: str) -> None:
    assert Matcher.compile("|".join(names)).matches(subject) == (subject in names)


@given(NAME)
def test_star_and_empty_match_everything(subject: str) -> None:
    assert Matcher.compile("*").matches(subject)
    assert Matcher.compile("").matches(subject)


@given(NAME, NAME)
def test_regex_matchers_must_match_the_whole_subject(prefix: str, subject: str) -> None:
    pattern = re.escape(prefix) + ".*"
    assert Matcher.compile(pattern).matches(subject) == subject.startswith(prefix)


def test_hooks_from_settings_reads_claude_code_shape() -> None:
    hooks = hooks_from_settings(
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "id": "guard",
                        "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}],
                    },
                    {"hooks": [{"type": "http", "url": "http://127.0.0.1:9/h"}]},
                ],
                "SessionStart": [
                    {"matcher": "resume", "hooks": [{"type": "command", "command": "x"}]}
                ],
            }
        }
    )
    assert [(h.event.value, h.type, h.matcher, h.id, h.timeout) for h in hooks] == [
        ("PreToolUse", "command", "Bash", "guard", 5.0),
        ("PreToolUse", "http", "", None, 60.0),
        ("SessionStart", "command", "resume", None, 60.0),
    ]
    with pytest.raises(HookConfigurationError, match="unknown hook event 'PreTool'"):
        hooks_from_settings({"PreTool": []})
    with pytest.raises(HookConfigurationError, match="timout"):
        hooks_from_settings(
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "timout": 1}]}]}
        )
