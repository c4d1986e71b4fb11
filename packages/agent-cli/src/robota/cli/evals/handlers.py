"""The work behind ``robota eval run`` and ``robota eval compare`` (imported only once the
``evals`` extra is known to be installed).

Exit codes (:class:`~robota.cli.exit_codes.ExitCode`): ``OK``; ``EVAL_FAILED`` when a case or
report analysis failed, or — with a baseline, and always for ``compare`` — when the candidate
regressed; ``USAGE`` for a malformed ``MODULE:ATTR`` or ``--ci-json`` without ``--baseline``;
``CONFIGURATION`` for an unusable target, a dataset or report file error, or trace evaluators
without telemetry. Messages go to stderr, one line each.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from robota.cli.evals.loading import TargetSpecError, load_registry, load_task
from robota.cli.evals.render import print_comparison, print_report, report_failed
from robota.cli.exit_codes import ExitCode
from robota.core.errors import ConfigurationError
from robota.evals import EvalError, EvaluationReport, Retry
from robota.evals.comparison import Comparison, compare, save_comparison
from robota.evals.io.datasets import load_dataset
from robota.evals.io.reports import dump_report, load_report, save_report

__all__ = ["eval_compare", "eval_run", "report_json"]


def _say(message: str) -> None:
    sys.stderr.write(f"robota: {message}\n")
    sys.stderr.flush()


def _terminal() -> Console | None:
    """A rich console on stdout when stdout is a terminal, else None (plain text)."""
    console = Console(file=sys.stdout)
    return console if console.is_terminal else None


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def report_json(report: EvaluationReport) -> str:
    """``report`` as the text of its version-1 JSON report file (what ``--out x.json``
    writes)."""
    return dump_report(report, "json")


async def eval_run(args: argparse.Namespace) -> ExitCode:
    """``robota eval run DATASET --agent MODULE:ATTR [...]``.

    Everything that can be refused is checked before the first case runs: the registry, the
    dataset file, the baseline report and the agent target, in that order.

    Returns:
        See the module docstring.
    """
    if args.ci_json and not args.baseline:
        _say("--ci-json needs --baseline REPORT (the comparison it writes is against it)")
        return ExitCode.USAGE
    try:
        registry = load_registry(args.registry) if args.registry else None
        dataset = load_dataset(args.dataset, registry=registry)
        baseline = load_report(args.baseline) if args.baseline else None
        task = load_task(args.agent)
    except TargetSpecError as exc:
        _say(str(exc))
        return ExitCode.USAGE
    except (EvalError, ConfigurationError) as exc:
        _say(str(exc))
        return ExitCode.CONFIGURATION
    try:
        report = await dataset.evaluate(
            task,
            name=args.name,
            repetitions=args.repeat,
            max_concurrency=args.concurrency,
            task_retry=Retry(max_attempts=args.task_retries + 1),
            progress=False if args.no_progress else None,
        )
    except ConfigurationError as exc:  # trace evaluators without telemetry, before any case
        _say(str(exc))
        return ExitCode.CONFIGURATION
    comparison = compare(baseline, report) if baseline is not None else None
    if args.json:
        _write(report_json(report))
    else:
        console = _terminal()
        print_report(report, console=console, stream=sys.stdout)
        if comparison is not None:
            if console is None:
                _write("\n")
            print_comparison(comparison, console=console, stream=sys.stdout)
        sys.stdout.flush()
    try:
        if args.out:
            save_report(report, args.out)
            _say(f"report written to {args.out}")
        if comparison is not None and args.ci_json:
            save_comparison(comparison, args.ci_json)
            _say(f"comparison written to {args.ci_json}")
    except EvalError as exc:
        _say(str(exc))
        return ExitCode.CONFIGURATION
    return _verdict(comparison) if comparison is not None else _report_verdict(report)


def _report_verdict(report: EvaluationReport) -> ExitCode:
    return ExitCode.EVAL_FAILED if report_failed(report) else ExitCode.OK


def _verdict(comparison: Comparison) -> ExitCode:
    return ExitCode.EVAL_FAILED if comparison.has_regressions else ExitCode.OK


def eval_compare(args: argparse.Namespace) -> ExitCode:
    """``robota eval compare BASE CAND [--ci-json PATH] [--json]``.

    Returns:
        See the module docstring.
    """
    try:
        baseline = load_report(args.baseline)
        candidate = load_report(args.candidate)
    except EvalError as exc:
        _say(str(exc))
        return ExitCode.CONFIGURATION
    comparison = compare(baseline, candidate)
    if args.json:
        _write(comparison.to_ci_json())
    else:
        print_comparison(comparison, console=_terminal(), stream=sys.stdout)
        sys.stdout.flush()
    if args.ci_json:
        try:
            save_comparison(comparison, args.ci_json)
        except EvalError as exc:
            _say(str(exc))
            return ExitCode.CONFIGURATION
        _say(f"comparison written to {args.ci_json}")
    return _verdict(comparison)
