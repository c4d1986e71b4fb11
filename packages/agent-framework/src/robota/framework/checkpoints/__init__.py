"""Edit checkpoints: every file a tool writes can be restored to its state before the turn
(seed 003, "edit checkpointing")."""

from robota.framework.checkpoints.gate import CheckpointGate, checkpoint_path_key
from robota.framework.checkpoints.store import (
    Checkpoint,
    CheckpointNotFoundError,
    CheckpointStore,
    CheckpointStoreError,
    RestoreReport,
)

__all__ = [
    "Checkpoint",
    "CheckpointGate",
    "CheckpointNotFoundError",
    "CheckpointStore",
    "CheckpointStoreError",
    "RestoreReport",
    "checkpoint_path_key",
]
