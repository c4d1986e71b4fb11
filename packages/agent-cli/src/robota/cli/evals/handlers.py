"""The work behind ``robota eval run`` and ``robota eval compare`` (imported only once the
``evals`` extra is known to be installed).

Exit codes (:class:`~robota.cli.exit_codes.ExitCode`): ``OK``; ``EVAL_FAILED`` when a case or
report analysis failed, or — with a baseline, and always for ``compare`` — when the candidate
regressed; ``USAGE`` for a malformed ``MODULE:ATTR`` or ``--ci-json`` without ``--baseline``;
``CONFIGURATION`` for an unusable target, a dataset or report file error, or trace evaluators
without telemetry (the message then names ``--tracer-provider``). Messages go to stderr, one
line each; so does a warning when the two reports compared ran different datasets.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from robota.cli.evals.commands import require_evals
from robota.cli.evals.loading import (
    TargetSpecError,
    load_registry,
    load_task,
    load_tracer_provider,
)
from robota.cli.evals.render import print_comparison, print_report, report_failed
from robota.cli.exit_codes import ExitCode
from robota.core.errors import ConfigurationError

# the `evals` extra: a missing robota-agent-evals is a MissingExtraError naming it
require_evals()

from robota.evals import (  # noqa: E402
    EvalError,
    EvaluationReport,
    EvaluatorNotFoundError,
    Retry,
    TelemetryNotConfiguredError,
)
from robota.evals.comparison import Comparison, compare, save_comparison  # noqa: E402
from robota.evals.io.datasets import load_dataset  # noqa: E402
from robota.evals.io.reports import dump_report, load_report, save_report  # noqa: E402

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


_TRACER_HINT = (
    "; robota eval run --tracer-provider MODULE:ATTR names the OpenTelemetry SDK "
    "TracerProvider the agent's OpenTelemetrySink uses (or a zero-argument callable returning "
    "it)"
)


def _telemetry_message(error: TelemetryNotConfiguredError) -> str:
    """The library's message, with the command-line way to give a tracer provider."""
    return f"{error}{_TRACER_HINT}"


def _not_found_message(error: EvaluatorNotFoundError, registry: str | None) -> str:
    """The library's message, with the command-line way to register evaluators."""
    if registry:
        return f"{error}; --registry {registry} does not hold it"
    return f"{error}; from the command line, name your registry with --registry MODULE:ATTR"


def _warn_datasets(comparison: Comparison) -> None:
    if comparison.baseline_dataset != comparison.candidate_dataset:
        _say(
            f"warning: the baseline ran dataset {comparison.baseline_dataset!r} and the "
            f"candidate dataset {comparison.candidate_dataset!r}; cases are compared by name"
        )


def report_json(report: EvaluationReport) -> str:
    """``report`` as the text of its version-1 JSON report file (what ``--out x.json``
    writes)."""
    return dump_report(report, "json")


async def eval_run(args: argparse.Namespace) -> ExitCode:
    """``robota eval run DATASET --agent MODULE:ATTR [...]``.

    Everything that can be refused is checked before the first case runs: the registry, the
    dataset file, the baseline report, the agent target (a factory is called once here, then
    once per case run), the tracer provider and, with trace evaluators, the telemetry to tee,
    in that order.

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
        target = load_task(args.agent)
        tracer = load_tracer_provider(args.tracer_provider) if args.tracer_provider else None
        task, tracer = target.task_for(
            capture=bool(dataset.trace_evaluators), tracer_provider=tracer
        )
    except TargetSpecError as exc:
        _say(str(exc))
        return ExitCode.USAGE
    except EvaluatorNotFoundError as exc:
        _say(_not_found_message(exc, args.registry))
        return ExitCode.CONFIGURATION
    except TelemetryNotConfiguredError as exc:
        _say(_telemetry_message(exc))
        return ExitCode.CONFIGURATION
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
            tracer_provider=tracer,
        )
    except TelemetryNotConfiguredError as exc:  # trace evaluators without telemetry
        _say(_telemetry_message(exc))
        return ExitCode.CONFIGURATION
    except ConfigurationError as exc:  # raised before any case runs
        _say(str(exc))
        return ExitCode.CONFIGURATION
    comparison = compare(baseline, report) if baseline is not None else None
    if comparison is not None:
        _warn_datasets(comparison)
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
    _warn_datasets(comparison)
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
