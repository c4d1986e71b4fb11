"""The sandbox port (issue 11): profiles, guarantees, the null sandbox, typed errors."""

from __future__ import annotations

import doctest
from pathlib import Path

import anyio
import pytest
from robota.core.errors import ErrorCategory, RobotaError
from robota.core.host import sandbox as sandbox_module
from robota.core.host.sandbox import (
    NoSandbox,
    Sandbox,
    SandboxConfinementError,
    SandboxedCommand,
    SandboxError,
    SandboxGuarantees,
    SandboxProfile,
    SandboxUnavailableError,
)


def test_profiles_are_the_two_documented_values() -> None:
    assert [p.value for p in SandboxProfile] == ["read_only", "workspace_write"]


def test_guarantees_default_to_nothing_enforced() -> None:
    nothing = SandboxGuarantees(backend="x")
    assert not nothing.enforced
    assert not nothing.confines_inspect
    read_only_only = SandboxGuarantees(backend="x", filesystem_read_only=True)
    assert read_only_only.enforced
    assert not read_only_only.confines_inspect  # no network isolation: not enough for inspect
    both = SandboxGuarantees(backend="x", filesystem_read_only=True, network_isolated=True)
    assert both.confines_inspect


def test_no_sandbox_passes_the_command_through_and_enforces_nothing() -> None:
    sandbox = NoSandbox("bwrap is missing")
    assert isinstance(sandbox, Sandbox)
    assert sandbox.guarantees == SandboxGuarantees(backend="none", detail="bwrap is missing")
    command = sandbox.wrap(
        ["/bin/bash", "-c", "make"],
        profile=SandboxProfile.WORKSPACE_WRITE,
        workspace=Path("/ws"),
        cwd=Path("/ws/src"),
        network=False,
        env={"A": "1"},
    )
    assert command == SandboxedCommand(
        argv=("/bin/bash", "-c", "make"), env={"A": "1"}, cwd=Path("/ws/src")
    )


def test_no_sandbox_lifecycle() -> None:
    async def main() -> None:
        async with NoSandbox() as sandbox:
            assert sandbox.guarantees.detail == "no sandbox is configured"
        await sandbox.aclose()

    anyio.run(main)


def test_errors_are_typed_robota_errors() -> None:
    unavailable = SandboxUnavailableError("bwrap missing", backend="bubblewrap")
    assert isinstance(unavailable, SandboxError)
    assert isinstance(unavailable, RobotaError)
    assert (unavailable.error_code, unavailable.backend) == ("sandbox_unavailable", "bubblewrap")
    confinement = SandboxConfinementError("cwd outside")
    assert confinement.error_code == "sandbox_confinement"
    assert confinement.category is ErrorCategory.USER
    with pytest.raises(SandboxError):
        raise confinement


def test_docstring_example_runs() -> None:
    result = doctest.testmod(sandbox_module)
    assert result.attempted > 0
    assert result.failed == 0
