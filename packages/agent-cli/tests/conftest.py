"""Shared fixtures of the CLI package's tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """The CLI runs on asyncio (trio is not a dependency)."""
    return "asyncio"
