"""The package imports under the `robota` namespace."""

import importlib


def test_imports() -> None:
    module = importlib.import_module("robota.framework")
    assert module.__name__ == "robota.framework"
