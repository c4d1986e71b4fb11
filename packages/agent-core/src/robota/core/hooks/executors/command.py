"""The shell-command hook executor (seed 000, "Command hook exit-code mapping").

The hook's input JSON (:meth:`HookInput.to_json`) is written to the process's stdin. The command
runs in a fresh copy of the host's environment plus ``hook.env`` and ``ROBOTA_PROJECT_DIR`` (the
input's ``cwd``), in that directory, in a new session (its own process group). With
``hook.shell`` (the default) the command line runs as ``/bin/sh -c <command>``, as Claude Code
runs hook commands; with ``shell=False`` it is split by :func:`shlex.split` and executed
directly. POSIX only.

Exit mapping (the exit code is one input to the outcome, not the outcome):

* exit 0 — allow, stdout carried through as :attr:`HookAllow.output`. If stdout (stripped)
  starts with ``{`` it must be a JSON answer in the documented schema
  (:mod:`robota.core.hooks._decode`): it may block, ask or substitute; JSON that does not parse
  or has malformed fields is an error. stdout that is not UTF-8 is an error.
* exit 2 — deny, with stderr (stripped) as the reason.
* any other exit — error ``exited with status <n>: <first stderr line>``; killed by a signal —
  error ``killed by signal SIGKILL``; past ``hook.timeout`` — error ``timed out after <n>s``
  (the whole process group is killed); cannot start — error ``failed to start: <why>``.

On cancellation of the caller the process group is killed before the cancellation propagates.
stdout and stderr are each kept up to :data:`MAX_OUTPUT_BYTES`; the rest is read and dropped.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
from collections.abc import Sequence

import anyio
from anyio.abc import ByteReceiveStream, Process
from robota.core.hooks._decode import decode_json_text
from robota.core.hooks.config import HookConfig
from robota.core.hooks.events import HookInput
from robota.core.hooks.executors.base import HookExecutor, format_seconds
from robota.core.hooks.outcome import HookAllow, HookDeny, HookError, HookResult

__all__ = ["MAX_OUTPUT_BYTES", "CommandHookExecutor"]

MAX_OUTPUT_BYTES = 1024 * 1024
"""Bytes of stdout (and, separately, stderr) kept from one command hook run."""

_SHELL = "/bin/sh"


def _argv(hook: HookConfig) -> Sequence[str]:
    command = hook.command or ""
    if hook.shell:
        return [_SHELL, "-c", command]
    return shlex.split(command)


def _kill_group(process: Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def _drain(stream: ByteReceiveStream | None, sink: bytearray) -> None:
    if stream is None:
        return
    async for chunk in stream:
        room = MAX_OUTPUT_BYTES - len(sink)
        if room > 0:
            sink.extend(chunk[:room])


async def _feed(process: Process, data: bytes) -> None:
    stdin = process.stdin
    if stdin is None:
        return
    try:
        await stdin.send(data)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass  # the hook did not read its input; that is its business
    finally:
        with contextlib.suppress(anyio.BrokenResourceError, OSError):
            await stdin.aclose()


async def _spawn(
    argv: Sequence[str], *, env: dict[str, str], cwd: str | None
) -> Process | HookError:
    process: Process | None = None
    try:
        # Shielded: a cancellation landing mid-spawn would orphan a started process.
        with anyio.CancelScope(shield=True):
            process = await anyio.open_process(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return HookError(reason=f"failed to start: {why}")
    assert process is not None
    return process


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def interpret_exit(returncode: int, stdout: bytes, stderr: bytes) -> HookResult:
    """Map a finished command hook to a result (see the module docstring).

    Args:
        returncode: The process's return code (negative: killed by that signal number).
        stdout: Captured stdout bytes.
        stderr: Captured stderr bytes.
    """
    err_text = stderr.decode("utf-8", errors="replace").strip()
    if returncode == 0:
        try:
            out_text = stdout.decode("utf-8")
        except UnicodeDecodeError:
            return HookError(reason="invalid output: stdout is not UTF-8")
        if out_text.strip().startswith("{"):
            return decode_json_text(out_text, require_verdict=False)
        return HookAllow(output=out_text)
    if returncode == 2:
        return HookDeny(reason=err_text or "hook exited with status 2")
    if returncode < 0:
        return HookError(reason=f"killed by signal {_signal_name(-returncode)}")
    first = err_text.splitlines()[0][:200] if err_text else ""
    return HookError(reason=f"exited with status {returncode}" + (f": {first}" if first else ""))


class CommandHookExecutor(HookExecutor):
    """Runs ``type="command"`` hooks as child processes (see the module docstring)."""

    def check(self, hook: HookConfig) -> str | None:
        """A command hook needs a non-empty ``command`` that splits (when ``shell=False``)."""
        if not hook.command or not hook.command.strip():
            return "a command hook needs 'command'"
        if not hook.shell:
            try:
                if not shlex.split(hook.command):
                    return "a command hook needs 'command'"
            except ValueError as exc:
                return f"'command' does not parse: {exc}"
        return None

    async def run(self, hook: HookConfig, payload: HookInput) -> HookResult:
        """Run the command; see the module docstring for the mapping."""
        data = json.dumps(payload.to_json()).encode("utf-8")
        env = dict(os.environ)
        env.update(hook.env)
        if payload.cwd:
            env["ROBOTA_PROJECT_DIR"] = payload.cwd
        if payload.cwd and not await anyio.Path(payload.cwd).is_dir():
            return HookError(
                reason=f"failed to start: working directory {payload.cwd!r} does not exist"
            )
        spawned = await _spawn(_argv(hook), env=env, cwd=payload.cwd or None)
        if isinstance(spawned, HookError):
            return spawned
        process = spawned
        stdout = bytearray()
        stderr = bytearray()
        timed_out = False
        try:
            with anyio.move_on_after(hook.timeout) as scope:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(_feed, process, data)
                    tg.start_soon(_drain, process.stdout, stdout)
                    tg.start_soon(_drain, process.stderr, stderr)
                await process.wait()
            timed_out = scope.cancelled_caught
        finally:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:
                    _kill_group(process)
                await process.aclose()
        if timed_out:
            return HookError(reason=f"timed out after {format_seconds(hook.timeout)}")
        assert process.returncode is not None
        return interpret_exit(process.returncode, bytes(stdout), bytes(stderr))
