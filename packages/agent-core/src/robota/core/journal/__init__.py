"""The execution journal: port, in-memory journal, checkpoint, reconciliation, and the
journaling/replay wrappers (seed 000, "Execution Journal and Continuation")."""

from robota.core.journal.checkpoint import CHECKPOINT_VERSION, Checkpoint, ContinuationError
from robota.core.journal.codec import decode_response, decode_result, encode_response, encode_result
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
