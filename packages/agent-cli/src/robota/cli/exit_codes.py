"""Exit codes of the ``robota`` command (stable; scripts branch on them)."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    """What a ``robota`` process exit status means."""

    OK = 0
    """The task ran to a final answer."""
    ERROR = 1
    """An unexpected failure (a bug or a host problem); the message says what."""
    USAGE = 2
    """Bad command-line usage."""
    CONFIGURATION = 3
    """Missing credentials or a configuration error (settings file, unknown profile)."""
    PROVIDER = 4
    """The model provider failed (after retries)."""
    PERMISSION_DENIED = 5
    """The run finished, but at least one tool call was denied by the permission system."""
    EVAL_FAILED = 6
    """``robota eval``: an evaluation case or report analysis failed (``eval run``), or the
    candidate regressed against the baseline (``eval compare``, ``eval run --baseline``)."""
    TRUNCATED = 7
    """The answer was cut off at the model's output token limit (finish reason ``length``): the
    turn failed with ``TruncatedResponseError``, or, with ``--accept-truncated``, the cut answer
    was printed and kept but is incomplete."""
    INTERRUPTED = 130
    """Interrupted (Ctrl-C or cancellation)."""
