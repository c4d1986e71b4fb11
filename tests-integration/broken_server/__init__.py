"""Helpers for ``test_broken_server_outsider.py``: an outsider's broken server, hostile gateway
and impatient user against the real adapters and the real ``Agent`` (issue #14: every provider
response is a correct answer or a typed error, never a silent partial success)."""

from broken_server.harness import (
    FAMILIES,
    MODELS,
    Answer,
    Family,
    Server,
    Tally,
    answer_of,
    build,
    call,
    describe,
    is_typed,
)
from broken_server.recorded import RecordedStream, cassette_root, recorded_streams
from broken_server.sockets import stalling_server
from broken_server.wire import ChunkedBody

__all__ = [
    "FAMILIES",
    "MODELS",
    "Answer",
    "ChunkedBody",
    "Family",
    "RecordedStream",
    "Server",
    "Tally",
    "answer_of",
    "build",
    "call",
    "cassette_root",
    "describe",
    "is_typed",
    "recorded_streams",
    "stalling_server",
]
