"""Compaction and context-overflow recovery (seed 004, ``compact``, ``compact:start``/
``compact:end``, ``context:overflow``; seed 003, compaction and the fallback chain; issue #15).

:func:`compact` summarizes older turns with a summary request sized to fit the compaction
model's window (pairing-repaired, large parts elided, sent through overflow recovery);
:class:`OverflowRecoveringProvider` shrinks a refused request's tool output and retries;
:func:`fit_messages` is the shortening both use.
"""

from robota.session.compaction._fit import (
    ALL_TIERS,
    ELIDED_TEXT,
    ElisionNotes,
    FitResult,
    Tier,
    elide_tool_results,
    fit_messages,
)
from robota.session.compaction._overflow import (
    WINDOW_MARGIN,
    OverflowRecoveringProvider,
    Shrink,
    window_budget,
)
from robota.session.compaction._summary import (
    DEFAULT_SUMMARY_ANSWER_TOKENS,
    DEFAULT_SUMMARY_INSTRUCTION,
    SUMMARY_NOTES,
    CompactionError,
    CompactionRecord,
    SummaryRequest,
    SummaryTooLargeError,
    compact,
)

__all__ = [
    "ALL_TIERS",
    "DEFAULT_SUMMARY_ANSWER_TOKENS",
    "DEFAULT_SUMMARY_INSTRUCTION",
    "ELIDED_TEXT",
    "SUMMARY_NOTES",
    "WINDOW_MARGIN",
    "CompactionError",
    "CompactionRecord",
    "ElisionNotes",
    "FitResult",
    "OverflowRecoveringProvider",
    "Shrink",
    "SummaryRequest",
    "SummaryTooLargeError",
    "Tier",
    "compact",
    "elide_tool_results",
    "fit_messages",
    "window_budget",
]
