"""The session probes the shell sandbox once at start and wires it into the built-in shell
(issue 11); ``sandbox.network`` comes from the user settings layer only."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from robota.core.host.sandbox import NoSandbox, SandboxConfinementError, SandboxProfile
from robota.core.messages import ToolResultMessage
from robota.core.permissions import PermissionMode
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.base import Tool
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.settings import Settings, load_settings, merge_layers
from robota.tools import ShellTool
from robota.tools.sandbox import BubblewrapSandbox

pytestmark = pytest.mark.anyio

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("CI"),
    reason="bubblewrap (bwrap) is not installed; CI installs it and runs these",
)


def config(tmp_path: Path, provider: ScriptedProvider | None = None, **more: Any) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    base: dict[str, Any] = {
        "provider": provider or ScriptedProvider(["ok"]),
        "model": "m",
        "workspace": workspace,
        "title": False,
        "background_dir": tmp_path / "bg",
    }
    base.update(more)
    return SessionConfig(**base)


def shell_of(tools: tuple[Tool, ...]) -> ShellTool:
    [shell] = [t for t in tools if isinstance(t, ShellTool)]
    return shell


@needs_bwrap
async def test_a_started_session_probes_bubblewrap_and_runs_shell_in_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "credentials.json").write_text("secret")
    provider = ScriptedProvider(
        [[tool_call("c1", "shell", {"command": f"touch made; ls -A {home}; echo ran"})], ["ok"]]
    )
    cfg = config(
        tmp_path,
        provider,
        sandbox_hidden_paths=(home,),
        permission_mode=PermissionMode("bypass"),
    )
    async with await InteractiveSession.start(cfg) as session:
        sandbox = session.sandbox
        assert isinstance(sandbox, BubblewrapSandbox)
        assert sandbox.guarantees.confines_inspect
        assert sandbox.guarantees.hidden_paths == (str(home),)
        shell = shell_of(session.tools)
        assert shell.sandbox is sandbox
        assert shell.permission_argument is not None
        assert shell.permission_argument.sandboxed_inspect
        assert not shell.allow_network
        await session.submit("go")
        results = next(m for m in session.messages if isinstance(m, ToolResultMessage))
    assert results.results[0].text == "ran\n[exit code: 0]"
    assert (cfg.workspace / "made").exists()
    with pytest.raises(SandboxConfinementError):  # the session closed the sandbox it probed
        sandbox.wrap(
            ["true"],
            profile=SandboxProfile.READ_ONLY,
            workspace=cfg.workspace,
            cwd=cfg.workspace,
            network=False,
            env={},
        )


async def test_a_host_sandbox_is_used_as_given_and_not_closed(tmp_path: Path) -> None:
    given = NoSandbox("the host runs commands unconfined")
    async with await InteractiveSession.start(config(tmp_path, sandbox=given)) as session:
        assert session.sandbox is given
        shell = shell_of(session.tools)
        assert shell.sandbox is given
        assert shell.permission_argument is not None
        assert not shell.permission_argument.sandboxed_inspect


async def test_no_probe_when_the_built_ins_are_replaced(tmp_path: Path) -> None:
    async with await InteractiveSession.start(config(tmp_path, default_tools=())) as session:
        assert isinstance(session.sandbox, NoSandbox)
        assert "default_tools" in session.sandbox.guarantees.detail


@needs_bwrap
async def test_sandbox_network_setting_reaches_the_shell(tmp_path: Path) -> None:
    settings = Settings.model_validate({"sandbox": {"network": True}})
    async with await InteractiveSession.start(config(tmp_path, settings=settings)) as session:
        assert shell_of(session.tools).allow_network


def test_only_the_user_layer_can_turn_network_on(tmp_path: Path) -> None:
    on = Settings.model_validate({"sandbox": {"network": True}})
    off = Settings.model_validate({"sandbox": {"network": False}})
    unset = Settings()
    assert merge_layers([on, unset]).sandbox.network is True
    assert merge_layers([on, off]).sandbox.network is False
    assert merge_layers([unset, on]).sandbox.network is None
    assert merge_layers([off, on]).sandbox.network is False
    project = tmp_path / "project.json"
    project.write_text(json.dumps({"sandbox": {"network": True}}))
    assert load_settings(project=project, trusted=True).sandbox.network is None
    user = tmp_path / "user.json"
    user.write_text(json.dumps({"sandbox": {"network": True}}))
    assert load_settings(user=user, project=project, trusted=True).sandbox.network is True
