"""Shared fixtures of the agent-durable-dbos tests."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
