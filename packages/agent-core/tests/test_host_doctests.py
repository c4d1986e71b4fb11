"""The examples in the host modules' docstrings run (no network: each refuses before I/O)."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "robota.core.host.paths",
        "robota.core.host.egress",
        "robota.core.host.egress_client",
        "robota.core.host.owner_only",
        "robota.core.host.credentials",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), raise_on_error=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_importing_robota_core_does_not_import_host() -> None:
    import subprocess
    import sys

    code = (
        "import sys, robota.core; print(any(m.startswith('robota.core.host') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
