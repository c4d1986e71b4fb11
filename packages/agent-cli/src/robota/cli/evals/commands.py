"""``robota eval run`` and ``robota eval compare``: the argument parser and the entry the
``robota`` command dispatches to.

This module imports nothing of ``robota.evals``: ``robota --help`` and the other commands work
without the ``evals`` extra; ``robota eval ...`` without it exits ``CONFIGURATION`` (3) with
the install command (:func:`require_evals`).
"""

from __future__ import annotations

import argparse
import sys

from robota.cli.exit_codes import ExitCode
from robota.core.errors import MissingExtraError
from robota.core.extras import install_hint

__all__ = ["EVAL_EPILOG", "add_eval_parser", "require_evals", "run_eval"]

EVAL_EPILOG = (
    "exit codes: 0 every case passed (with --baseline: no regression), 1 unexpected error, "
    "2 usage, 3 configuration (an unusable --agent/--registry/--tracer-provider target, a "
    "dataset or report file error, an unknown evaluator name, telemetry not configured: trace "
    "evaluators but no OpenTelemetry SDK TracerProvider on the agent's OpenTelemetrySink or "
    'from --tracer-provider, the evals extra not installed: pip install "robota-agent-cli[evals]"'
    "), 6 a case or report analysis failed (with --baseline, and for compare: a regression), "
    "130 interrupted."
)
"""The exit codes ``robota eval --help`` lists (:class:`~robota.cli.exit_codes.ExitCode`)."""

_REPORT_SUFFIXES = (".json", ".yaml", ".yml")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _report_path(text: str) -> str:
    if not text.lower().endswith(_REPORT_SUFFIXES):
        raise argparse.ArgumentTypeError(f"{text!r}: a report file ends in .json, .yaml or .yml")
    return text


def _json_path(text: str) -> str:
    if not text.lower().endswith(".json"):
        raise argparse.ArgumentTypeError(f"{text!r}: the CI comparison is a .json file")
    return text


def add_eval_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add ``eval`` (with ``run`` and ``compare``) to the ``robota`` subcommands ``sub``."""
    parser = sub.add_parser(
        "eval",
        help="evaluate an agent over a dataset, or compare two reports",
        description="Run a dataset of cases through an agent and judge the answers "
        "(robota-agent-evals), or compare a candidate report with a baseline for CI.",
        epilog=EVAL_EPILOG,
    )
    actions = parser.add_subparsers(dest="action", required=True)
    run = actions.add_parser(
        "run",
        help="run a dataset file through an agent and report",
        description="Run every case of DATASET (a version-1 .yaml/.json dataset file) through "
        "the agent named by --agent, judge it with the dataset's evaluators and print the "
        "report: a table on a terminal, tab-separated text otherwise, the report document "
        "with --json.",
        epilog=EVAL_EPILOG,
    )
    run.add_argument("dataset", metavar="DATASET", help="dataset file (.yaml, .yml or .json)")
    run.add_argument(
        "--agent",
        required=True,
        metavar="MODULE:ATTR",
        help="what to evaluate: an Agent, an async function of the inputs, or a zero-argument "
        "callable returning one, called once per case run so each repetition gets a fresh "
        "agent (imported with the current directory first on sys.path)",
    )
    run.add_argument(
        "--registry",
        metavar="MODULE:ATTR",
        help="an EvaluatorRegistry (or a list of evaluator classes/factories, or a function "
        "returning one) resolving the dataset's own evaluator names; default: the built-ins",
    )
    run.add_argument(
        "--tracer-provider",
        metavar="MODULE:ATTR",
        help="the OpenTelemetry SDK TracerProvider trace evaluators read (or a zero-argument "
        "callable returning one): needed for an async-function --agent; for an Agent, one its "
        "OpenTelemetrySink uses",
    )
    run.add_argument(
        "--repeat",
        "--repetitions",
        dest="repeat",
        type=_positive,
        default=1,
        metavar="N",
        help="runs per case (default: 1); Dataset.evaluate's repetitions",
    )
    run.add_argument(
        "--concurrency",
        "--max-concurrency",
        dest="concurrency",
        type=_positive,
        default=1,
        metavar="N",
        help="case runs in flight at once (default: 1); results keep dataset order; "
        "Dataset.evaluate's max_concurrency",
    )
    run.add_argument(
        "--task-retries",
        type=_non_negative,
        default=0,
        metavar="N",
        help="extra attempts for a case whose task raised (default: 0): Retry(max_attempts=N + 1)",
    )
    run.add_argument(
        "--out", type=_report_path, metavar="REPORT", help="write the report (.json or .yaml)"
    )
    run.add_argument(
        "--baseline",
        metavar="REPORT",
        help="compare with this report; the exit code is then about regressions",
    )
    run.add_argument(
        "--ci-json",
        type=_json_path,
        metavar="PATH",
        help="write the comparison's CI JSON (needs --baseline)",
    )
    run.add_argument("--name", help="the report's name (default: the dataset's)")
    run.add_argument(
        "--json", action="store_true", help="print the report document (JSON) on stdout"
    )
    run.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    compare = actions.add_parser(
        "compare",
        help="compare a candidate report with a baseline",
        description="Join BASE and CAND by (case name, repetition) and evaluator name and "
        "print the regressions, improvements and changes, the pass-rate and usage deltas "
        "('no differences' when nothing changed).",
        epilog=EVAL_EPILOG,
    )
    compare.add_argument("baseline", metavar="BASE", help="baseline report (.json or .yaml)")
    compare.add_argument("candidate", metavar="CAND", help="candidate report (.json or .yaml)")
    compare.add_argument(
        "--ci-json", type=_json_path, metavar="PATH", help="write the comparison's CI JSON"
    )
    compare.add_argument(
        "--json", action="store_true", help="print the comparison's CI JSON on stdout"
    )


def require_evals() -> None:
    """Check that ``robota.evals`` can be imported.

    Raises:
        MissingExtraError: it is not installed (a ``MissingExtraError`` naming
            ``pip install "robota-agent-cli[evals]"``).
        ImportError: it is installed but one of its own imports failed (a broken install),
            unchanged.
    """
    try:
        import robota.evals  # noqa: F401  # pyright: ignore[reportUnusedImport]
    except ImportError as error:
        missing = error.name or ""
        if missing != "robota.evals" and not missing.startswith("robota.evals."):
            raise
        raise MissingExtraError(
            "robota-agent-evals is not installed; `robota eval` needs robota-agent-cli's "
            f"'evals' extra: {install_hint('robota-agent-cli', 'evals')}",
            module="robota.evals",
            distribution="robota-agent-cli",
            extra="evals",
        ) from error


async def run_eval(args: argparse.Namespace) -> ExitCode:
    """Run ``robota eval run`` or ``robota eval compare`` as parsed into ``args``.

    Returns:
        ``OK``, ``EVAL_FAILED``, ``USAGE`` or ``CONFIGURATION``; the message for anything but
        ``OK`` and ``EVAL_FAILED`` went to stderr.
    """
    try:
        require_evals()
    except MissingExtraError as exc:
        sys.stderr.write(f"robota: {exc}\n")
        return ExitCode.CONFIGURATION
    from robota.cli.evals.handlers import eval_compare, eval_run

    if args.action == "run":
        return await eval_run(args)
    return eval_compare(args)
