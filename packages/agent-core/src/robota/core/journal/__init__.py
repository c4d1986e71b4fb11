"""The execution journal: port, in-memory journal, checkpoint, reconciliation, and the
journaling/replay wrappers (seed 000, "Execution Journal and Continuation")."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robota.core.journal.checkpoint import CHECKPOINT_VERSION, Checkpoint, ContinuationError
    from robota.core.journal.codec import (
        decode_response,
        decode_result,
        encode_response,
        encode_result,
    )
    from robota.core.journal.port import (
        RESERVED_PREFIX,
        AlreadyRecordedError,
        Journal,
        JournalRun,
        MemoryJournal,
        ToolRecord,
        WaitRecord,
    )
    from robota.core.journal.reconcile import (
        ReconciliationError,
        RuntimeState,
        StateDifference,
        WaitResponseError,
        gate_fingerprints,
        request_digest,
        state_differences,
    )
    from robota.core.journal.replay import (
        INTERRUPTED_EFFECT_TEXT,
        Admission,
        JournaledProvider,
        Residency,
        ToolJournal,
        journal_write,
    )

__all__ = [
    "CHECKPOINT_VERSION",
    "INTERRUPTED_EFFECT_TEXT",
    "RESERVED_PREFIX",
    "Admission",
    "AlreadyRecordedError",
    "Checkpoint",
    "ContinuationError",
    "Journal",
    "JournalRun",
    "JournaledProvider",
    "MemoryJournal",
    "ReconciliationError",
    "Residency",
    "RuntimeState",
    "StateDifference",
    "ToolJournal",
    "ToolRecord",
    "WaitRecord",
    "WaitResponseError",
    "decode_response",
    "decode_result",
    "encode_response",
    "encode_result",
    "gate_fingerprints",
    "journal_write",
    "request_digest",
    "state_differences",
]

_EXPORTS = {
    "robota.core.journal.checkpoint": ("CHECKPOINT_VERSION", "Checkpoint", "ContinuationError"),
    "robota.core.journal.codec": (
        "decode_response",
        "decode_result",
        "encode_response",
        "encode_result",
    ),
    "robota.core.journal.port": (
        "RESERVED_PREFIX",
        "AlreadyRecordedError",
        "Journal",
        "JournalRun",
        "MemoryJournal",
        "ToolRecord",
        "WaitRecord",
    ),
    "robota.core.journal.reconcile": (
        "ReconciliationError",
        "RuntimeState",
        "StateDifference",
        "WaitResponseError",
        "gate_fingerprints",
        "request_digest",
        "state_differences",
    ),
    "robota.core.journal.replay": (
        "INTERRUPTED_EFFECT_TEXT",
        "Admission",
        "JournaledProvider",
        "Residency",
        "ToolJournal",
        "journal_write",
    ),
}
"""Submodule → the names it gives this package, imported on first use (see
:mod:`robota.core._lazy`)."""

if not TYPE_CHECKING:
    from robota.core._lazy import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
