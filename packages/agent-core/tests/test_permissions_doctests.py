"""The docstring examples of robota.core.permissions run as tests (the examples of\n``docs/guides/permissions.md`` run with every docs page, in ``tests-integration/test_docs_blocks.py``)."""

from __future__ import annotations

import doctest
import importlib

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
