"""The docstring examples of the built-in evaluators and the model grader run as written
(CONVENTIONS.md: public API comes with an example that runs as a test)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util

import pytest

MODULES = ["builtin", "run_checks", "trace", "reports", "grader"]


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_run(module_name: str) -> None:
    module = importlib.import_module(f"robota.evals.evaluators.{module_name}")
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in finder.find(module) if t.examples]
    if importlib.util.find_spec("genai_prices") is None:  # MaxCost prices with genai-prices
        tests = [t for t in tests if not t.name.endswith(".MaxCost")]
    assert tests
    for test in tests:
        runner.run(test)
    assert runner.failures == 0
