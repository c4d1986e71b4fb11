"""The execution journal: port, in-memory journal, and the journaling/replay wrappers."""

from robota.core.journal.codec import decode_response, decode_result, encode_response, encode_result
from robota.core.journal.port import Journal, JournalRun, MemoryJournal, ToolRecord
from robota.core.journal.replay import INTERRUPTED_EFFECT_TEXT, JournaledProvider, JournalGate

__all__ = [
    "INTERRUPTED_EFFECT_TEXT",
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
]
