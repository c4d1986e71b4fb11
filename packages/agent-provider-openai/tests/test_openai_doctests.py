"""The docstring examples of the public modules run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "robota.providers.openai._chat_content",
    "robota.providers.openai._chat_response",
    "robota.providers.openai._client",
    "robota.providers.openai._compat",
    "robota.providers.openai._common",
    "robota.providers.openai._endpoint",
    "robota.providers.openai._errors",
    "robota.providers.openai._models",
    "robota.providers.openai._responses_items",
    "robota.providers.openai._responses_response",
    "robota.providers.openai._sse",
    "robota.providers.openai._usage",
    "robota.providers.openai.chat",
    "robota.providers.openai.responses",
    "robota.providers.openai.replay",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
