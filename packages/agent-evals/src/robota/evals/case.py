"""One evaluation case: named inputs, an optional expected output and metadata (seed 002,
"Evaluations")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic

from typing_extensions import TypeVar

__all__ = ["Case", "ExpectedT", "InputsT"]

InputsT = TypeVar("InputsT", default=Any)
"""What a case hands the task: a prompt string for an ``Agent`` task, anything for a function."""
ExpectedT = TypeVar("ExpectedT", default=Any)
"""The expected output's type."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Case(Generic[InputsT, ExpectedT]):
    """A named case of a dataset.

    Attributes:
        name: Unique within its dataset; the case's identity. Reports keep it with the case's
            index, and a comparison joins a baseline and a candidate on (name, repetition), so
            inserting or reordering cases leaves the others' rows intact; renaming a case makes
            it a new case (the old name is reported removed, the new one added).
        inputs: What the task receives (an ``Agent`` task gets it as the user prompt, so a
            string there).
        expected_output: What a correct answer is, for evaluators that compare (None: none).
        metadata: Free JSON-compatible data for evaluators and reports (difficulty, tags, ...).
            Evaluators read it through ``EvaluatorContext.metadata``, a read-only mapping (in a
            run, over a deep copy per case repetition), so they cannot change the dataset.
    """

    name: str
    inputs: InputsT
    expected_output: ExpectedT | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: {})
