"""Organization policy: host-located, fail-closed, merged on top of every settings layer."""

from robota.framework.policy.load import (
    DEFAULT_POLICY_PATH,
    POLICY_ENV_VAR,
    PolicyError,
    PolicyFileError,
    PolicyPathError,
    load_policy,
    policy_path,
)
from robota.framework.policy.model import OrganizationPolicy, PolicyPermissions, PolicySandbox

__all__ = [
    "DEFAULT_POLICY_PATH",
    "POLICY_ENV_VAR",
    "OrganizationPolicy",
    "PolicyError",
    "PolicyFileError",
    "PolicyPathError",
    "PolicyPermissions",
    "PolicySandbox",
    "load_policy",
    "policy_path",
]
