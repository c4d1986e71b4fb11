"""The package imports under the `robota` namespace."""

import importlib


def test_imports() -> None:
    module = importlib.import_module("robota.providers.openai")
    assert module.__name__ == "robota.providers.openai"
