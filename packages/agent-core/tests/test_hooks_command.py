"""Command hooks run as real child processes: exit-code mapping, JSON answers, timeouts, signals,
missing executables, environment and stdin (seed 000, "Command hook exit-code mapping")."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import anyio
import pytest
from robota.core.hooks import (
    CommandHookExecutor,
    HookAllow,
    HookAsk,
    HookConfig,
    HookDeny,
    HookError,
    HookEventName,
    PreToolUseInput,
    SessionStartInput,
)
from robota.core.tools.base import ToolReturn

PY = shlex.quote(sys.executable)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def script(tmp_path: Path, body: str, name: str = "hook.py") -> str:
    path = tmp_path / name
    path.write_text(body)
    return f"{PY} {shlex.quote(str(path))}"


def pre_input(tmp_path: Path) -> PreToolUseInput:
    return PreToolUseInput(
        session_id="s1",
        cwd=str(tmp_path),
        tool_name="Bash",
        tool_input={"command": "rm -rf build"},
        tool_use_id="toolu_1",
        call_id="call_1",
        run_id="run_1",
    )


async def run(
    tmp_path: Path,
    command: str,
    *,
    limit: float = 30,
    shell: bool = True,
    env: dict[str, str] | None = None,
) -> object:
    hook = HookConfig(
        event=HookEventName.PRE_TOOL_USE, command=command, timeout=limit, shell=shell, env=env or {}
    )
    return await CommandHookExecutor().run(hook, pre_input(tmp_path))


@pytest.mark.anyio
async def test_exit_0_with_plain_stdout_allows_and_carries_the_output(tmp_path: Path) -> None:
    result = await run(tmp_path, script(tmp_path, "print('looked fine')"))
    assert result == HookAllow(output="looked fine\n")


@pytest.mark.anyio
async def test_exit_2_denies_with_stderr_as_the_reason(tmp_path: Path) -> None:
    body = "import sys\nsys.stderr.write('rm -rf is not allowed\\n')\nsys.exit(2)\n"
    result = await run(tmp_path, script(tmp_path, body))
    assert result == HookDeny(reason="rm -rf is not allowed")


@pytest.mark.anyio
async def test_exit_1_is_an_error_naming_the_status_and_stderr(tmp_path: Path) -> None:
    body = "import sys\nsys.stderr.write('Traceback: boom\\nmore\\n')\nsys.exit(1)\n"
    result = await run(tmp_path, script(tmp_path, body))
    assert result == HookError(reason="exited with status 1: Traceback: boom")


@pytest.mark.anyio
async def test_a_signal_kill_is_an_error_naming_the_signal(tmp_path: Path) -> None:
    body = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
    result = await run(tmp_path, script(tmp_path, body), shell=False)
    assert result == HookError(reason="killed by signal SIGKILL")


@pytest.mark.anyio
async def test_a_missing_executable_is_failed_to_start(tmp_path: Path) -> None:
    result = await run(tmp_path, "/nonexistent/robota-hook --flag", shell=False)
    assert result == HookError(reason="failed to start: No such file or directory")


@pytest.mark.anyio
async def test_a_missing_command_under_the_shell_is_exit_127_error(tmp_path: Path) -> None:
    result = await run(tmp_path, "robota-no-such-hook-command")
    assert isinstance(result, HookError)
    assert result.reason.startswith("exited with status 127")


@pytest.mark.anyio
async def test_garbage_json_stdout_is_an_error_not_an_allow(tmp_path: Path) -> None:
    result = await run(tmp_path, script(tmp_path, "print('{not json at all')"))
    assert isinstance(result, HookError)
    assert result.reason.startswith("invalid output: not JSON")


@pytest.mark.anyio
async def test_non_utf8_stdout_is_an_error(tmp_path: Path) -> None:
    body = "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe{')\n"
    result = await run(tmp_path, script(tmp_path, body))
    assert result == HookError(reason="invalid output: stdout is not UTF-8")


@pytest.mark.anyio
async def test_json_block_directive_on_exit_0_denies(tmp_path: Path) -> None:
    answer = {"decision": "block", "reason": "touches production"}
    result = await run(tmp_path, script(tmp_path, f"print({json.dumps(answer)!r})"))
    assert result == HookDeny(reason="touches production")


@pytest.mark.anyio
async def test_hook_specific_permission_decisions_are_honoured(tmp_path: Path) -> None:
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no network",
        }
    }
    ask = {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}
    assert await run(tmp_path, script(tmp_path, f"print({json.dumps(deny)!r})")) == HookDeny(
        reason="no network"
    )
    assert await run(tmp_path, script(tmp_path, f"print({json.dumps(ask)!r})", "a.py")) == HookAsk(
        reason="sure?"
    )


@pytest.mark.anyio
async def test_json_substitute_result_on_exit_0(tmp_path: Path) -> None:
    answer = {"hookSpecificOutput": {"substituteResult": {"text": "cached: 42", "isError": False}}}
    text = json.dumps(answer)
    result = await run(tmp_path, script(tmp_path, f"print({text!r})"))
    assert result == HookAllow(output=text + "\n", substitute=ToolReturn.text("cached: 42"))


@pytest.mark.anyio
async def test_the_hook_reads_its_input_json_on_stdin_in_its_cwd(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    body = (
        "import json, os, sys\n"
        "data = json.load(sys.stdin)\n"
        "data['_cwd'] = os.getcwd()\n"
        "data['_env'] = os.environ.get('HOOK_FLAVOUR')\n"
        "data['_project'] = os.environ.get('ROBOTA_PROJECT_DIR')\n"
        "data['_path_kept'] = 'PATH' in os.environ\n"
        f"open({str(seen)!r}, 'w').write(json.dumps(data))\n"
    )
    result = await run(tmp_path, script(tmp_path, body), env={"HOOK_FLAVOUR": "mint"})
    assert result == HookAllow(output="")
    assert json.loads(seen.read_text()) == {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": str(tmp_path),
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
        "tool_use_id": "toolu_1",
        "call_id": "call_1",
        "run_id": "run_1",
        "_cwd": str(tmp_path),
        "_env": "mint",
        "_project": str(tmp_path),
        "_path_kept": True,
    }
    assert "HOOK_FLAVOUR" not in os.environ  # a fresh copy, the host's is untouched


@pytest.mark.anyio
async def test_a_hook_that_ignores_stdin_still_gets_a_verdict(tmp_path: Path) -> None:
    result = await run(tmp_path, "exit 0")
    assert result == HookAllow(output="")


def _dead(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status


async def _wait_dead(pid: int) -> bool:
    for _ in range(200):  # bounded poll: SIGKILL delivery is asynchronous
        if _dead(pid):
            return True
        await anyio.sleep(0.05)
    return False


@pytest.mark.anyio
async def test_a_hang_past_the_timeout_is_an_error_and_the_group_is_killed(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "child.pid"
    # The shell starts a grandchild that would outlive a kill of the shell alone.
    command = f"sleep 300 & echo $! > {shlex.quote(str(pidfile))}; wait"
    result = await run(tmp_path, command, limit=0.5)
    assert result == HookError(reason="timed out after 0.5s")
    grandchild = int(pidfile.read_text().strip())
    assert await _wait_dead(grandchild)


@pytest.mark.anyio
async def test_cancelling_the_caller_kills_the_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    command = f"sleep 300 & echo $! > {shlex.quote(str(pidfile))}; wait"
    hook = HookConfig(event=HookEventName.SESSION_START, command=command, timeout=300)
    with anyio.move_on_after(30) as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(CommandHookExecutor().run, hook, SessionStartInput(cwd=str(tmp_path)))
            while not pidfile.exists() or not pidfile.read_text().strip():  # noqa: ASYNC110
                await anyio.sleep(0.02)
            tg.cancel_scope.cancel()
    assert not scope.cancelled_caught
    assert await _wait_dead(int(pidfile.read_text().strip()))


def test_check_refuses_empty_and_unparsable_commands() -> None:
    executor = CommandHookExecutor()
    ev = HookEventName.PRE_TOOL_USE
    assert executor.check(HookConfig(event=ev, command="  ")) == "a command hook needs 'command'"
    problem = executor.check(HookConfig(event=ev, command="echo 'unterminated", shell=False))
    assert problem == "'command' does not parse: No closing quotation"
    assert executor.check(HookConfig(event=ev, command="echo 'unterminated")) is None
