"""The README's examples and the modules' docstring examples run as tests."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
_BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
_MODULES = [
    "robota.plugins.budget",
    "robota.plugins.cache_break",
    "robota.plugins.pricing",
    "robota.plugins.telemetry",
    "robota.plugins.tool_budget",
    "robota.plugins.usage_report",
]


def test_the_readme_has_an_example_per_plugin() -> None:
    assert len(_BLOCKS) == 5


@pytest.mark.parametrize("block", _BLOCKS, ids=[f"example{i}" for i in range(len(_BLOCKS))])
def test_readme_example_runs(block: str) -> None:
    exec(compile(block, str(README), "exec"), {"__name__": "readme_example"})


@pytest.mark.parametrize("name", _MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
