"""The docstring examples of the public modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "name",
    [
        "robota.providers.anthropic._endpoint",
        "robota.providers.anthropic._errors",
        "robota.providers.anthropic._provider",
        "robota.providers.anthropic._response",
        "robota.providers.anthropic._sse",
        "robota.providers.anthropic._usage",
        "robota.providers.anthropic._transport",
        "robota.providers.anthropic.replay",
    ],
)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
