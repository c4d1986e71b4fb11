"""The CLI says once on stderr when shell commands have no sandbox (issue 11)."""

from __future__ import annotations

from robota.cli.app import sandbox_notice
from robota.core.host.sandbox import NoSandbox, SandboxGuarantees


def test_no_sandbox_says_commands_will_ask_and_why() -> None:
    notice = sandbox_notice(NoSandbox("bubblewrap (bwrap) is not installed").guarantees)
    assert notice == (
        "robota: shell commands will ask for permission, read-only ones included, because no "
        "sandbox is available: bubblewrap (bwrap) is not installed"
    )


def test_a_partly_verified_sandbox_is_reported_too() -> None:
    guarantees = SandboxGuarantees(
        backend="bubblewrap", filesystem_read_only=True, detail="network not verified"
    )
    notice = sandbox_notice(guarantees)
    assert notice is not None
    assert notice.startswith("robota: the bubblewrap sandbox could not be verified")


def test_a_verified_sandbox_says_nothing() -> None:
    guarantees = SandboxGuarantees(
        backend="bubblewrap", filesystem_read_only=True, network_isolated=True
    )
    assert sandbox_notice(guarantees) is None
