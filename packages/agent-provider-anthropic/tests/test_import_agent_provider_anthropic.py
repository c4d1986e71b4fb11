"""The package imports under the `robota` namespace."""

import importlib


def test_imports() -> None:
    module = importlib.import_module("robota.providers.anthropic")
    assert module.__name__ == "robota.providers.anthropic"
