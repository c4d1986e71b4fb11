"""Shared fixtures for the Anthropic provider tests."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
