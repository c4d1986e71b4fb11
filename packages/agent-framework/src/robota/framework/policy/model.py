"""The organization policy file shape (seed 003, "Organization policy is host-located and
fail-closed"; issue #13).

Example ``policy.json``::

    {
      "permissions": {"deny": ["shell(curl *)"], "ask": ["write_file(.github/**)"],
                      "max_mode": "accept_edits"},
      "hooks": {"PreToolUse": [{"id": "org-audit", "type": "command",
                                 "command": "/opt/org/audit.sh"}]},
      "disabled_hooks": ["some-user-hook"],
      "sandbox": {"network": false},
      "project_settings": false
    }

The policy only restricts: it has no ``allow`` list, no ``env`` and no provider profiles, and
unknown keys are refused (a typo must not silently disable enforcement).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from robota.framework.settings.model import HookEntry, PermissionModeName

__all__ = ["OrganizationPolicy", "PolicyPermissions", "PolicySandbox"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PolicyPermissions(_Strict):
    """Rules and the mode ceiling every session of the organization runs under.

    Attributes:
        deny: Deny rules (``Tool`` or ``Tool(pattern)``), added to every layer's; a deny
            outranks every allow, ask and mode (seed 000, "Nothing later softens a denial").
        ask: Ask rules, added to every layer's.
        max_mode: The most permissive permission mode allowed (``plan`` < ``default`` <
            ``accept_edits`` < ``bypass``); a host or layer asking for more gets this one.
    """

    deny: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    max_mode: PermissionModeName | None = None


class PolicySandbox(_Strict):
    """Sandbox features the policy turns off.

    Attributes:
        network: ``false`` keeps shell commands off the network whatever the user set; the
            policy cannot turn it on.
    """

    network: Literal[False] | None = None


class OrganizationPolicy(_Strict):
    """A deployed organization policy; merged on top of every settings layer.

    Attributes:
        permissions: Deny/ask rules and the mode ceiling.
        hooks: Hooks per event that no layer can disable.
        disabled_hooks: Hook ids of any layer (user, project, host) that do not run.
        sandbox: Sandbox features turned off.
        project_settings: ``false``: project and project-local settings files are not read
            even in a trusted workspace.
    """

    permissions: PolicyPermissions = Field(default_factory=PolicyPermissions)
    hooks: dict[str, tuple[HookEntry, ...]] = Field(
        default_factory=dict[str, tuple[HookEntry, ...]]
    )
    disabled_hooks: tuple[str, ...] = ()
    sandbox: PolicySandbox = Field(default_factory=PolicySandbox)
    project_settings: bool = True
