"""The docstring examples of robota.core.permissions run as tests."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

_MODULES = [
    "robota.core.permissions.consent",
    "robota.core.permissions.gate",
    "robota.core.permissions.match_command",
    "robota.core.permissions.match_text",
    "robota.core.permissions.match_url",
]


@pytest.mark.parametrize("name", _MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_permissions_doc_examples() -> None:
    doc = Path(__file__).parent.parent / "docs" / "permissions.md"
    result = doctest.testfile(str(doc), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10
    assert result.failed == 0
