"""Permissions and hooks deciding tool calls, offline.

Shows: the two gates of ``robota.core`` every tool call passes before it runs.
``PermissionGate`` decides from rules (``allow``/``deny``/``ask``), the permission mode and the
tool's risk class; a call it cannot decide goes to the *approver* (here a function standing in
for a person). ``HookGate`` then runs ``PreToolUse`` hooks — here an in-process callable — which
may block a call the rules allowed. Each refused call becomes a tool result the model reads, and
the run goes on.

Run: ``uv run python examples/permissions_and_hooks.py``
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import anyio
from robota.core import Agent, RiskClass, tool
from robota.core.hooks import HookAllow, HookConfig, HookDeny, HookEventName, HookGate, HookRunner
from robota.core.messages import Message, ToolResultMessage
from robota.core.permissions import (
    Approval,
    PermissionContext,
    PermissionGate,
    PermissionRequest,
)
from robota.core.testing.scripted import ScriptedProvider, tool_call


def tool_results(messages: Sequence[Message]) -> list[str]:
    """The text of every tool result among ``messages``, in order."""
    return [r.text for m in messages if isinstance(m, ToolResultMessage) for r in m.results]


@tool(risk=RiskClass.EXECUTE, permission_argument=("command", "command"))
def shell(command: str) -> str:
    """Run a shell command (pretend: it only echoes)."""
    return f"ran {command}"


async def approver(request: PermissionRequest) -> Approval:
    """Stands in for a person: approves ``pytest``, refuses the rest."""
    print(f"approver asked about {request.argument!r}: {request.reason}")
    if request.argument is not None and request.argument.startswith("pytest"):
        return Approval(kind="allow_once")
    return Approval(kind="deny", message="the user said no")


async def no_friday_deploys(hook_input: object) -> HookAllow | HookDeny:
    if "deploy" in str(getattr(hook_input, "tool_input", "")):
        return HookDeny(reason="no deploys on Fridays")
    return HookAllow()


async def main() -> None:
    workspace = Path(tempfile.mkdtemp())
    permissions = PermissionContext.from_rules(
        workspace, allow=["shell(make *)"], deny=["shell(rm *)"], approver=approver
    )
    hooks = HookRunner(
        [
            HookConfig(
                event=HookEventName.PRE_TOOL_USE,
                matcher="shell",
                type="callable",
                handler=no_friday_deploys,
            )
        ]
    )
    provider = ScriptedProvider(
        [
            [
                tool_call("1", "shell", {"command": "rm -rf build"}),  # deny rule
                tool_call("2", "shell", {"command": "make deploy"}),  # allowed, hook blocks
                tool_call("3", "shell", {"command": "make test"}),  # allowed
                tool_call("4", "shell", {"command": "pytest -q"}),  # asks: approver allows
                tool_call("5", "shell", {"command": "curl example.com"}),  # asks: approver denies
            ],
            "Done.",
        ]
    )
    gates = [PermissionGate(permissions), HookGate(hooks)]  # permissions first, then hooks
    try:
        result = await Agent(provider, tools=[shell], gates=gates).run("Tidy up and ship")
    finally:
        await hooks.aclose()
    outcomes = tool_results(result.new_messages)
    for outcome in outcomes:
        print("->", outcome)
    assert outcomes[0] == "Permission denied: denied by rule shell(rm *)"
    assert outcomes[1] == "Blocked: no deploys on Fridays"
    assert outcomes[2:4] == ["ran make test", "ran pytest -q"]
    assert outcomes[4].startswith("Permission denied")
    assert "the user said no" in outcomes[4]


if __name__ == "__main__":
    anyio.run(main)
