"""Robota agent-evals: datasets of cases run through ordinary agents, evaluators (deterministic,
model-graded and span-based), versioned reports and baseline comparison for CI (seed 002,
"Evaluations")."""

from typing import TYPE_CHECKING

from robota.evals.case import Case
from robota.evals.comparison import (
    AnalysisChange,
    CaseChange,
    Comparison,
    Finding,
    ResultChange,
    UsageDelta,
    compare,
    save_comparison,
)
from robota.evals.dataset import Dataset, Task
from robota.evals.errors import (
    AmbiguousEvaluatorError,
    DatasetFileError,
    EvalError,
    EvaluatorNotFoundError,
    GraderError,
    ReportFileError,
    TelemetryNotConfiguredError,
)
from robota.evals.evaluators.base import (
    EvaluationReason,
    Evaluator,
    EvaluatorContext,
    TraceEvaluator,
    evaluator,
)
from robota.evals.evaluators.builtin import (
    Contains,
    Equals,
    ExactMatch,
    MatchesSchema,
    MatchesType,
    MaxCost,
    MaxDuration,
    MaxTokens,
    ToolCalled,
    ToolNotCalled,
    ValidJson,
)
from robota.evals.evaluators.grader import Grade, ModelGrader
from robota.evals.evaluators.report import ReportEvaluator
from robota.evals.evaluators.reports import (
    CaseCount,
    MaxTotalTokens,
    PassRateAtLeast,
    ScoreMeanAtLeast,
)
from robota.evals.evaluators.trace import (
    MaxModelCalls,
    SpanAbsent,
    SpanCount,
    SpanPresent,
    ToolSpanAbsent,
)
from robota.evals.io import (
    EvaluatorRegistry,
    dump_report,
    load_dataset,
    load_report,
    save_dataset,
    save_report,
)
from robota.evals.report import render_report
from robota.evals.report.model import (
    CaseError,
    CaseResult,
    EvaluationReport,
    EvaluatorResult,
    ReportAnalysis,
    ReportView,
    ScoreStats,
)
from robota.evals.run.events import (
    CaseCompleted,
    CaseStarted,
    EvalEvent,
    EvaluatorAttemptFailed,
    EvaluatorCompleted,
    ReportEvaluated,
    TaskAttemptFailed,
    TaskFailed,
)
from robota.evals.run.retry import Retry, RetryState
from robota.evals.spans import SpanRecord, SpanTree

__all__ = [
    "AmbiguousEvaluatorError",
    "AnalysisChange",
    "Case",
    "CaseChange",
    "CaseCompleted",
    "CaseCount",
    "CaseError",
    "CaseResult",
    "CaseStarted",
    "Comparison",
    "Contains",
    "Dataset",
    "DatasetFileError",
    "Equals",
    "EvalError",
    "EvalEvent",
    "EvaluationReason",
    "EvaluationReport",
    "Evaluator",
    "EvaluatorAttemptFailed",
    "EvaluatorCompleted",
    "EvaluatorContext",
    "EvaluatorNotFoundError",
    "EvaluatorRegistry",
    "EvaluatorResult",
    "ExactMatch",
    "Finding",
    "Grade",
    "GraderError",
    "MatchesSchema",
    "MatchesType",
    "MaxCost",
    "MaxDuration",
    "MaxModelCalls",
    "MaxTokens",
    "MaxTotalTokens",
    "ModelGrader",
    "PassRateAtLeast",
    "ReportAnalysis",
    "ReportEvaluated",
    "ReportEvaluator",
    "ReportFileError",
    "ReportView",
    "ResultChange",
    "Retry",
    "RetryState",
    "ScoreMeanAtLeast",
    "ScoreStats",
    "SpanAbsent",
    "SpanCount",
    "SpanPresent",
    "SpanRecord",
    "SpanTree",
    "Task",
    "TaskAttemptFailed",
    "TaskFailed",
    "TelemetryNotConfiguredError",
    "ToolCalled",
    "ToolNotCalled",
    "ToolSpanAbsent",
    "TraceEvaluator",
    "UsageDelta",
    "ValidJson",
    "compare",
    "dump_report",
    "evaluator",
    "load_dataset",
    "load_report",
    "render_report",
    "save_comparison",
    "save_dataset",
    "save_report",
]


if TYPE_CHECKING:
    __version__: str
    """This distribution's installed version, read from its metadata on first access."""
else:

    def __getattr__(name: str) -> str:
        """``__version__``: this distribution's installed version, read from its metadata on demand."""
        if name == "__version__":
            from importlib.metadata import version

            return version("robota-agent-evals")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
