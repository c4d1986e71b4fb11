"""OS-touching security guards of agent-core: path containment, egress policy, owner-only store,
credential store port, sandbox port (seed 000, "Path Containment", "Egress Policy", "Owner-Only
Store", "Credential Store Port"; seed 003 ``ISandboxClient``).

Not imported by ``robota.core``: these modules touch the filesystem, DNS and the network, so a
consumer imports ``robota.core.host`` explicitly and the dependency is legible at the import.
Importing does no I/O.
"""

from robota.core.host.credentials import (
    CredentialStore,
    FileCredentialStore,
    KeyringCredentialStore,
)
from robota.core.host.egress import (
    DEFAULT_BLOCKED_HOSTNAMES,
    DEFAULT_BLOCKED_SUFFIXES,
    EgressDecision,
    EgressPolicy,
    EgressReason,
    IPAddress,
    Resolver,
    system_resolver,
)
from robota.core.host.egress_client import (
    EgressGuardedClient,
    FetchedResponse,
    FetchRefused,
    FetchResult,
)
from robota.core.host.errors import (
    CredentialStoreError,
    EgressBodyTooLargeError,
    EgressError,
    EgressTimeoutError,
    InsecurePermissionsError,
    InvalidCredentialKeyError,
    InvalidPathError,
    ModeNotEnforcedError,
    OwnerOnlyError,
    PathContainmentError,
    PathOutsideRootError,
    UnsafeStoreEntryError,
)
from robota.core.host.owner_only import (
    OwnerOnlyGuarantee,
    create_private_file,
    ensure_private_dir,
    open_private_file,
    owner_only_guarantee,
    read_private_file,
    verify_private_dir,
    verify_private_file,
    write_private_file,
)
from robota.core.host.paths import canonical_path, is_inside, resolve_inside
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

__all__ = [
    "DEFAULT_BLOCKED_HOSTNAMES",
    "DEFAULT_BLOCKED_SUFFIXES",
    "CredentialStore",
    "CredentialStoreError",
    "EgressBodyTooLargeError",
    "EgressDecision",
    "EgressError",
    "EgressGuardedClient",
    "EgressPolicy",
    "EgressReason",
    "EgressTimeoutError",
    "FetchRefused",
    "FetchResult",
    "FetchedResponse",
    "FileCredentialStore",
    "IPAddress",
    "InsecurePermissionsError",
    "InvalidCredentialKeyError",
    "InvalidPathError",
    "KeyringCredentialStore",
    "ModeNotEnforcedError",
    "NoSandbox",
    "OwnerOnlyError",
    "OwnerOnlyGuarantee",
    "PathContainmentError",
    "PathOutsideRootError",
    "Resolver",
    "Sandbox",
    "SandboxConfinementError",
    "SandboxError",
    "SandboxGuarantees",
    "SandboxProfile",
    "SandboxUnavailableError",
    "SandboxedCommand",
    "UnsafeStoreEntryError",
    "canonical_path",
    "create_private_file",
    "ensure_private_dir",
    "is_inside",
    "open_private_file",
    "owner_only_guarantee",
    "read_private_file",
    "resolve_inside",
    "system_resolver",
    "verify_private_dir",
    "verify_private_file",
    "write_private_file",
]
