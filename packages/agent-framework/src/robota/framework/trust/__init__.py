"""Workspace trust decisions, the workspace they cover, and their owner-only store."""

from robota.framework.trust.access import (
    TrustedWorkspace,
    WorkspaceAuthorityError,
    repository_root,
    trusted_workspace,
    workspace_root,
)
from robota.framework.trust.store import (
    TrustDecision,
    TrustStore,
    TrustStoreError,
    UnsafeTrustFileError,
    workspace_identity,
)

__all__ = [
    "TrustDecision",
    "TrustStore",
    "TrustStoreError",
    "TrustedWorkspace",
    "UnsafeTrustFileError",
    "WorkspaceAuthorityError",
    "repository_root",
    "trusted_workspace",
    "workspace_identity",
    "workspace_root",
]
