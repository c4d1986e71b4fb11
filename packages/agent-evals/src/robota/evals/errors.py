"""Errors of :mod:`robota.evals`: every one is a :class:`~robota.core.errors.RobotaError` with a
stable ``code``, so an application branches on the type, never on the message."""

from __future__ import annotations

from robota.core.errors import ConfigurationError, ErrorCategory, RobotaError

__all__ = [
    "AmbiguousEvaluatorError",
    "DatasetFileError",
    "EvalError",
    "EvaluatorNotFoundError",
    "GraderError",
    "ReportFileError",
    "TelemetryNotConfiguredError",
]


class EvalError(RobotaError):
    """Base of the evaluation errors."""

    code = "eval_error"
    default_category = ErrorCategory.USER


class DatasetFileError(EvalError):
    """A dataset file is unreadable, of an unknown version, or not data-only (unknown keys,
    per-case run options, values that do not validate against the declared inputs type)."""

    code = "eval_dataset_file"


class ReportFileError(EvalError):
    """A report or comparison file is unreadable, of an unknown version, or malformed."""

    code = "eval_report_file"


class EvaluatorNotFoundError(EvalError):
    """A dataset file names an evaluator the registry does not hold."""

    code = "eval_evaluator_not_found"


class AmbiguousEvaluatorError(EvalError):
    """A dataset file names an evaluator the registry holds more than once."""

    code = "eval_evaluator_ambiguous"


class TelemetryNotConfiguredError(ConfigurationError):
    """Trace evaluators were asked for, but the task has no OpenTelemetry configuration to tee
    (no :class:`~robota.plugins.telemetry.OpenTelemetrySink` on the agent with an SDK
    ``TracerProvider``, and no ``tracer_provider`` given). Raised before any case runs."""

    code = "eval_telemetry_not_configured"


class GraderError(EvalError):
    """A model grader's answer is unusable: a non-finite or out-of-range score."""

    code = "eval_grader"
    default_category = ErrorCategory.PROVIDER
    default_recoverable = True
