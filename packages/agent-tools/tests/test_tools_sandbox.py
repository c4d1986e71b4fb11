"""The shell tool's OS sandbox (issue 11): the bubblewrap backend, its start-up probe, and the
shell tool running under it — real runs under ``bwrap``.

Tests marked ``needs_bwrap`` are skipped only when ``bwrap`` is missing *and* ``CI`` is unset:
CI installs bubblewrap, so there a missing ``bwrap`` fails them instead of skipping.
"""

from __future__ import annotations

import doctest
import importlib
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Self

import anyio
import pytest
from _tools_helpers import call, text_of  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.agent import Agent
from robota.core.host.sandbox import (
    NoSandbox,
    Sandbox,
    SandboxConfinementError,
    SandboxedCommand,
    SandboxGuarantees,
    SandboxProfile,
)
from robota.core.messages import ToolResultMessage
from robota.core.permissions import PermissionContext, PermissionGate
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass, ToolContext
from robota.tools import BackgroundShells, ShellTool, Workspace, builtin_toolset
from robota.tools.builtin._process import profile_for
from robota.tools.sandbox import (
    BubblewrapSandbox,
    HiddenPath,
    bwrap_arguments,
    detect_sandbox,
)

pytestmark = pytest.mark.anyio

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("CI"),
    reason="bubblewrap (bwrap) is not installed; CI installs it and runs these",
)


async def probed(**options: Any) -> BubblewrapSandbox:
    """The probed bubblewrap sandbox; fails (never skips) when the probe finds none."""
    sandbox = await detect_sandbox(**options)
    assert isinstance(sandbox, BubblewrapSandbox), sandbox.guarantees.detail
    return sandbox


def inspect_ctx(ctx: ToolContext[Any]) -> ToolContext[Any]:
    """The context of a call the permission gate decided ``inspect``."""
    return replace(ctx, effective_risk=RiskClass.INSPECT)


@pytest.fixture
def outside_on_root() -> Iterator[Path]:
    """A folder outside the workspace on the root filesystem (not the sandbox's /tmp)."""
    parent = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="robota-sandbox-test-", dir=parent))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on the host's loopback; yields its port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def members_running(marker: str) -> list[int]:
    """Pids (not zombies) whose command line holds ``marker``."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if marker in cmdline and stat[stat.rfind(")") + 2] != "Z":
            found.append(int(entry.name))
    return found


# -- the probe --------------------------------------------------------------------------------


@needs_bwrap
async def test_probe_verifies_every_guarantee() -> None:
    sandbox = await probed()
    guarantees = sandbox.guarantees
    assert guarantees.backend == "bubblewrap"
    assert guarantees.filesystem_read_only
    assert guarantees.workspace_only_writes
    assert guarantees.network_isolated
    assert guarantees.process_isolated
    assert guarantees.confines_inspect
    assert "nothing survived killing bwrap" in guarantees.detail
    assert sandbox.executable == shutil.which("bwrap")
    print(  # collected by the repo conftest into "robota figures"
        f"sandbox: backend={guarantees.backend} "
        f"filesystem_read_only={guarantees.filesystem_read_only} "
        f"workspace_only_writes={guarantees.workspace_only_writes} "
        f"network_isolated={guarantees.network_isolated} "
        f"process_isolated={guarantees.process_isolated}"
    )


async def test_probe_with_missing_bwrap_is_no_sandbox(tmp_path: Path) -> None:
    sandbox = await detect_sandbox(executable=tmp_path / "bwrap")
    assert isinstance(sandbox, NoSandbox)
    assert sandbox.guarantees == SandboxGuarantees(
        backend="none", detail=f"{tmp_path / 'bwrap'} does not exist or is not executable"
    )


async def test_probe_without_bwrap_on_path_or_off_linux_is_no_sandbox(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    sandbox = await detect_sandbox()
    assert isinstance(sandbox, NoSandbox)
    assert sandbox.guarantees.detail == (
        "bubblewrap (bwrap) is not installed (e.g. `apt-get install bubblewrap`)"
    )
    monkeypatch.setattr("sys.platform", "darwin")
    sandbox = await detect_sandbox(executable="/usr/bin/bwrap")
    assert sandbox.guarantees.detail == "no sandbox backend for darwin (bubblewrap needs Linux)"


async def test_probe_with_failing_bwrap_is_no_sandbox_with_its_message(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    sandbox = await detect_sandbox(executable=fake, scratch_dir=tmp_path)
    assert isinstance(sandbox, NoSandbox)
    assert not sandbox.guarantees.enforced
    assert sandbox.guarantees.detail == (
        f"bubblewrap at {fake} does not work here: bwrap failed (exit code 1): "
        "bwrap: No permissions to create new namespace"
    )
    assert os.listdir(tmp_path) == ["bwrap"]  # the scratch folder is removed


async def test_probe_catches_a_bwrap_that_confines_nothing(tmp_path: Path) -> None:
    # Accepts every option and runs the command unconfined: only the effects can tell.
    fake = tmp_path / "bwrap"
    fake.write_text('#!/bin/bash\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n')
    fake.chmod(0o755)
    sandbox = await detect_sandbox(executable=fake, scratch_dir=tmp_path)
    assert isinstance(sandbox, NoSandbox)
    assert sandbox.guarantees.detail.startswith(f"bubblewrap at {fake} does not work here: ")
    # what it let through to the host was cleaned up: no marker left in /tmp or the scratch
    assert not [n for n in os.listdir("/tmp") if n.startswith("robota-sandbox-probe-")]
    assert os.listdir(tmp_path) == ["bwrap"]


# -- commands under bwrap ---------------------------------------------------------------------


@needs_bwrap
async def test_read_only_touch_in_workspace_fails_and_leaves_nothing(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    tool = ShellTool(workspace, sandbox=await probed())
    result = await call(tool, inspect_ctx(ctx), command="touch marker")
    assert result.is_error
    assert "Read-only file system" in text_of(result)
    assert text_of(result).endswith("[exit code: 1]")
    assert not (workspace.root / "marker").exists()


@needs_bwrap
async def test_read_only_can_read_the_workspace_and_write_its_private_tmp(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "notes.txt").write_text("hello\n")
    tool = ShellTool(workspace, sandbox=await probed())
    result = await call(
        tool, inspect_ctx(ctx), command='cat notes.txt; echo tmp > "$TMPDIR/x"; cat /tmp/x'
    )
    assert text_of(result) == "hello\ntmp\n[exit code: 0]"


@needs_bwrap
async def test_workspace_write_writes_the_workspace_but_not_outside(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path, outside_on_root: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    tool = ShellTool(workspace, sandbox=await probed())
    assert ctx.effective_risk is None  # no decision: workspace_write
    result = await call(tool, ctx, command="touch marker && echo wrote")
    assert text_of(result) == "wrote\n[exit code: 0]"
    assert (workspace.root / "marker").is_file()
    for folder in (outside_on_root, elsewhere):
        result = await call(tool, ctx, command=f"echo x > {folder}/escaped")
        assert result.is_error
        assert not (folder / "escaped").exists()
    result = await call(tool, ctx, command=f"touch {outside_on_root}/escaped")
    assert "Read-only file system" in text_of(result)


@needs_bwrap
async def test_network_connect_to_a_loopback_listener_fails_inside(
    workspace: Workspace, ctx: ToolContext[Any], listener: int
) -> None:
    connect = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && echo connected"
    sandbox = await probed()
    closed = ShellTool(workspace, sandbox=sandbox)
    result = await call(closed, ctx, command=connect)
    assert result.is_error
    assert "connected" not in text_of(result)
    opened = ShellTool(workspace, sandbox=sandbox, allow_network=True)
    result = await call(opened, ctx, command=connect)
    assert text_of(result) == "connected\n[exit code: 0]"
    # A call decided inspect runs read_only, and read_only never gets the network.
    result = await call(opened, inspect_ctx(ctx), command=connect)
    assert result.is_error


@needs_bwrap
async def test_timeout_kills_the_sandboxed_grandchild_and_keeps_output(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    tool = ShellTool(workspace, sandbox=await probed(), kill_grace=0.5)
    marker = "987.654321"
    command = f"echo started; bash -c 'sleep {marker} & wait' & sleep 1000 & wait"
    result = await call(tool, ctx, command=command, timeout=0.5)
    assert result.is_error
    assert text_of(result) == (
        "started\n[timed out after 0.5 s; the command's process group was killed]"
    )
    assert members_running(marker) == []
    assert members_running("sleep 1000") == []


@needs_bwrap
async def test_cancel_kills_everything_the_sandboxed_command_started(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    tool = ShellTool(workspace, sandbox=await probed(), kill_grace=0.5)
    marker = "765.4321"
    command = f"bash -c 'sleep {marker} & wait' & touch started; wait"
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as group:
            group.start_soon(tool.call, {"command": command}, ctx)
            with anyio.fail_after(10):
                while not members_running(marker):  # noqa: ASYNC110 - polls /proc
                    await anyio.sleep(0.02)
            scope.cancel()
    assert members_running(marker) == []


@needs_bwrap
async def test_setsid_escapee_dies_with_the_sandbox(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    # A child in a new session leaves the process group; the pid namespace still takes it.
    tool = ShellTool(workspace, sandbox=await probed(), kill_grace=0.5)
    marker = "876.54321"
    result = await call(tool, ctx, command=f"setsid sleep {marker} & sleep 0.2; echo done")
    assert text_of(result) == "done\n[exit code: 0]"
    with anyio.fail_after(5):
        while members_running(marker):  # noqa: ASYNC110 - polls /proc
            await anyio.sleep(0.02)


@needs_bwrap
async def test_hidden_paths_are_masked_inside(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    home = tmp_path / "robota-home"
    home.mkdir()
    (home / "credentials.json").write_text('{"key": "sk-secret"}')
    token = workspace.root / ".token"
    token.write_text("sk-workspace")
    sandbox = await probed(hidden_paths=[home, token])
    assert sandbox.guarantees.hidden_paths == (str(home), str(token))
    tool = ShellTool(workspace, sandbox=sandbox)
    result = await call(tool, ctx, command=f"ls -A {home}; cat .token; echo end")
    # the folder looks empty; the file cannot be read (a /dev/null on a nodev mount)
    assert text_of(result) == "cat: .token: Permission denied\nend\n[exit code: 0]"


# -- background shells ------------------------------------------------------------------------


@needs_bwrap
async def test_background_commands_run_in_the_sandbox(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path, outside_on_root: Path
) -> None:
    async with BackgroundShells(tmp_path / "out", kill_grace=0.5) as shells:
        tool = ShellTool(workspace, sandbox=await probed(), background=shells)
        command = f"touch inside; touch {outside_on_root}/escaped; echo finished"
        await call(tool, ctx, command=command, run_in_background=True)
        with anyio.fail_after(10):
            while shells.status("shell_1").state == "running":  # noqa: ASYNC110
                await anyio.sleep(0.02)
        read = shells.read("shell_1")
        assert "Read-only file system" in read.text
        assert read.text.endswith("finished\n")
        assert (workspace.root / "inside").is_file()
        assert not (outside_on_root / "escaped").exists()


async def test_background_output_file_never_reuses_an_existing_one(
    workspace: Workspace, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir(mode=0o700)
    (out / "shell_1.log").write_text("an earlier session's output\n")
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (out / "shell_2.log").symlink_to(victim)
    async with BackgroundShells(out) as shells:
        first = shells.start("echo one", cwd=workspace.root)
        second = shells.start("echo two", cwd=workspace.root)
        assert first.output_path.parent == out
        assert first.output_path.name.startswith("shell_1.")
        assert second.output_path.name.startswith("shell_2.")
        for status in (first, second):
            assert (status.output_path.stat().st_mode & 0o777) == 0o600
    assert (out / "shell_1.log").read_text() == "an earlier session's output\n"
    assert victim.read_text() == "keep me\n"


# -- wiring and declarations ------------------------------------------------------------------


def test_shell_without_a_sandbox_does_not_claim_sandboxed_inspect(workspace: Workspace) -> None:
    tool = ShellTool(workspace)
    assert isinstance(tool.sandbox, NoSandbox)
    assert tool.permission_argument == PermissionArgument(
        key="command", kind=ArgumentKind.COMMAND, cwd_key="cwd", sandboxed_inspect=False
    )
    unverified = ShellTool(workspace, sandbox=BubblewrapSandbox("/usr/bin/bwrap"))
    assert unverified.permission_argument is not None
    assert not unverified.permission_argument.sandboxed_inspect
    assert "sandbox" not in unverified.description


@needs_bwrap
async def test_shell_with_a_probed_sandbox_claims_sandboxed_inspect(workspace: Workspace) -> None:
    toolset = builtin_toolset(workspace, sandbox=await probed())
    [shell] = [tool for tool in toolset.tools if tool.name == "shell"]
    assert shell.permission_argument == PermissionArgument(
        key="command", kind=ArgumentKind.COMMAND, cwd_key="cwd", sandboxed_inspect=True
    )
    assert shell.description.endswith(
        "Commands run in a sandbox: only the workspace and a private /tmp are writable; "
        "there is no network access."
    )


def test_profile_follows_the_permission_decision() -> None:
    assert profile_for(RiskClass.INSPECT) is SandboxProfile.READ_ONLY
    assert profile_for(RiskClass.EXECUTE) is SandboxProfile.WORKSPACE_WRITE
    assert profile_for(RiskClass.MODIFY) is SandboxProfile.WORKSPACE_WRITE
    assert profile_for(None) is SandboxProfile.WORKSPACE_WRITE


def test_bwrap_arguments_order_mounts_and_flags() -> None:
    workspace = Path("/home/u/project")
    args = bwrap_arguments(
        "/usr/bin/bwrap",
        ["/bin/bash", "-c", "make"],
        profile=SandboxProfile.WORKSPACE_WRITE,
        workspace=workspace,
        cwd=workspace / "src",
        network=True,
        hidden=[
            HiddenPath(Path("/home/u"), True),
            HiddenPath(Path("/home/u/project/.env"), False),
        ],
        drop_capabilities=True,
    )
    assert args == [
        "/usr/bin/bwrap",
        "--die-with-parent",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        # a hidden folder holding the workspace goes first, so the workspace stays visible
        "--tmpfs",
        "/home/u",
        "--remount-ro",
        "/home/u",
        "--bind",
        "/home/u/project",
        "/home/u/project",
        # a hidden file inside the workspace is masked after the workspace is bound
        "--ro-bind",
        "/dev/null",
        "/home/u/project/.env",
        "--chdir",
        "/home/u/project/src",
        "--",
        "/bin/bash",
        "-c",
        "make",
    ]


def test_wrap_refuses_a_cwd_outside_the_workspace_and_after_close() -> None:
    sandbox = BubblewrapSandbox("/usr/bin/bwrap")
    options: dict[str, Any] = {
        "profile": SandboxProfile.READ_ONLY,
        "workspace": Path("/ws"),
        "network": False,
        "env": {"PATH": "/usr/bin", "TMPDIR": "/elsewhere"},
    }
    with pytest.raises(SandboxConfinementError, match="outside the workspace"):
        sandbox.wrap(["true"], cwd=Path("/other"), **options)
    command = sandbox.wrap(["true"], cwd=Path("/ws/sub"), **options)
    assert command.env == {"PATH": "/usr/bin", "TMPDIR": "/tmp"}
    assert command.argv[-2:] == ("--", "true")
    anyio.run(sandbox.aclose)
    with pytest.raises(SandboxConfinementError, match="closed"):
        sandbox.wrap(["true"], cwd=Path("/ws"), **options)


async def test_shell_reports_a_sandbox_refusal_as_an_error_result(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    sandbox = BubblewrapSandbox("/usr/bin/bwrap")
    await sandbox.aclose()
    result = await call(ShellTool(workspace, sandbox=sandbox), ctx, command="true")
    assert result.is_error
    assert text_of(result) == "Error: the sandbox refused the command: the sandbox is closed"


@pytest.mark.parametrize(
    "module", ["robota.tools.sandbox.bubblewrap", "robota.tools.sandbox.probe"]
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


# -- with the permission gate in the loop -----------------------------------------------------


class RecordingSandbox:
    """Delegates to a real sandbox and records the profile of every command."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner = inner
        self.profiles: list[SandboxProfile] = []

    @property
    def guarantees(self) -> SandboxGuarantees:
        return self.inner.guarantees

    def wrap(
        self,
        argv: Sequence[str],
        *,
        profile: SandboxProfile,
        workspace: Path,
        cwd: Path,
        network: bool,
        env: Mapping[str, str],
    ) -> SandboxedCommand:
        self.profiles.append(profile)
        return self.inner.wrap(
            argv, profile=profile, workspace=workspace, cwd=cwd, network=network, env=env
        )

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def results_of(agent: Agent) -> dict[str, tuple[bool, str]]:
    """Tool results by call id: (is_error, text)."""
    return {
        part.call_id: (part.is_error, part.text)
        for message in agent.history
        if isinstance(message, ToolResultMessage)
        for part in message.results
    }


async def run_two_calls(workspace: Workspace, sandbox: Sandbox) -> dict[str, tuple[bool, str]]:
    provider = ScriptedProvider(
        [
            [
                tool_call("c1", "shell", {"command": "cat notes.txt"}),
                tool_call("c2", "shell", {"command": "touch made"}),
            ],
            "done",
        ]
    )
    gate = PermissionGate(PermissionContext.from_rules(workspace.root))  # no approver
    agent = Agent(provider, tools=[ShellTool(workspace, sandbox=sandbox)], gates=[gate])
    await agent.run("go")
    return results_of(agent)


@needs_bwrap
async def test_read_only_line_is_auto_approved_and_runs_read_only(workspace: Workspace) -> None:
    (workspace.root / "notes.txt").write_text("hello\n")
    sandbox = RecordingSandbox(await probed())
    results = await run_two_calls(workspace, sandbox)
    assert results["c1"] == (False, "hello\n[exit code: 0]")
    assert results["c2"][0]
    assert results["c2"][1].startswith("Permission denied")
    assert sandbox.profiles == [SandboxProfile.READ_ONLY]
    assert not (workspace.root / "made").exists()


async def test_without_a_sandbox_a_read_only_line_asks(workspace: Workspace) -> None:
    (workspace.root / "notes.txt").write_text("hello\n")
    sandbox = RecordingSandbox(NoSandbox("none here"))
    results = await run_two_calls(workspace, sandbox)
    assert results["c1"][0]
    assert results["c1"][1].startswith("Permission denied")
    assert sandbox.profiles == []


@needs_bwrap
async def test_container_sockets_are_masked_other_unix_sockets_stay_reachable(
    workspace: Workspace, ctx: ToolContext[Any], outside_on_root: Path
) -> None:
    engine, other = outside_on_root / "engine.sock", outside_on_root / "other.sock"
    with (
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as first,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as second,
    ):
        first.bind(str(engine))
        first.listen(1)
        second.bind(str(other))
        second.listen(1)
        sandbox = BubblewrapSandbox(
            shutil.which("bwrap") or "bwrap",
            guarantees=(await probed()).guarantees,
            masked_sockets=[engine],
        )
        tool = ShellTool(workspace, sandbox=sandbox)
        connect = (
            "import socket, sys\n"
            "for path in sys.argv[1:]:\n"
            "    try:\n"
            "        socket.socket(socket.AF_UNIX).connect(path); print('reached', path)\n"
            "    except OSError as e:\n"
            "        print('refused', path, type(e).__name__)\n"
        )
        script = workspace.root / "connect.py"
        script.write_text(connect)
        # The base interpreter, not the venv's: a checkout under /tmp is hidden by the
        # sandbox's private /tmp (only the workspace is bound back).
        python = Path(sys.base_prefix) / "bin" / "python3"
        command = f"{python if python.exists() else '/usr/bin/python3'} connect.py {engine} {other}"
        result = await call(tool, ctx, command=command)
    assert text_of(result) == (
        f"refused {engine} ConnectionRefusedError\nreached {other}\n[exit code: 0]"
    )
