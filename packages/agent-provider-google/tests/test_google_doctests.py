"""The docstring examples of the package's modules run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "robota.providers.google",
    "robota.providers.google._chunks",
    "robota.providers.google._cost",
    "robota.providers.google._endpoint",
    "robota.providers.google._outcome",
    "robota.providers.google._provider",
    "robota.providers.google._response",
    "robota.providers.google._transport",
    "robota.providers.google.replay",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
