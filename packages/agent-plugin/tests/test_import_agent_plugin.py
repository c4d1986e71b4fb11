"""The package imports under the `robota` namespace."""

import importlib


def test_imports() -> None:
    module = importlib.import_module("robota.plugins")
    assert module.__name__ == "robota.plugins"
