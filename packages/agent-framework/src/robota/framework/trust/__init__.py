"""Workspace trust decisions and their owner-only store."""

from robota.framework.trust.store import (
    TrustDecision,
    TrustStore,
    TrustStoreError,
    workspace_identity,
)

__all__ = ["TrustDecision", "TrustStore", "TrustStoreError", "workspace_identity"]
