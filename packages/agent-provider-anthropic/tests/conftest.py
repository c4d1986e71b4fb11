"""Shared fixtures for the Anthropic provider tests, and this folder importable for the shared
test helpers (pytest runs with ``--import-mode=importlib``, which does not put test folders on
``sys.path``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
