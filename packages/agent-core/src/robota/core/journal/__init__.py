"""The execution journal: port, in-memory journal, and the journaling/replay wrappers."""

from robota.core.journal.checkpoint import CHECKPOINT_VERSION, Checkpoint, ContinuationError
from robota.core.journal.codec import decode_response, decode_result, encode_response, encode_result
from robota.core.journal.port import Journal, JournalRun, MemoryJournal, ToolRecord
from robota.core.journal.replay import (
    INTERRUPTED_EFFECT_TEXT,
    JournaledProvider,
    JournalGate,
    journal_write,
)

__all__ = [
    "CHECKPOINT_VERSION",
    "INTERRUPTED_EFFECT_TEXT",
    "Checkpoint",
    "ContinuationError",
    "Journal",
    "JournalGate",
    "JournalRun",
    "JournaledProvider",
    "MemoryJournal",
    "ToolRecord",
    "decode_response",
    "decode_result",
    "encode_response",
    "encode_result",
    "journal_write",
]
