"""Dataset and report files (YAML and JSON, versioned, data only) and the evaluator registry
that turns the evaluator names of a dataset file back into evaluators."""

from robota.evals.io.datasets import DATASET_VERSION, load_dataset, save_dataset
from robota.evals.io.registry import EvaluatorRegistry
from robota.evals.io.reports import REPORT_VERSION, dump_report, load_report, save_report

__all__ = [
    "DATASET_VERSION",
    "REPORT_VERSION",
    "EvaluatorRegistry",
    "dump_report",
    "load_dataset",
    "load_report",
    "save_dataset",
    "save_report",
]
