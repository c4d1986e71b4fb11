"""Shared fixtures of the agent-core tests."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
