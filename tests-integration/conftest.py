"""Shared fixtures for the cross-package and real-process tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the release_kit helpers
from release_kit import clone_working_tree  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def release_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One clone of this repository holding the working tree as its last commit (no tags), made
    once for the release tests (``test_release*.py``). Never changed: a test or a module fixture
    copies it (``git clone``) before it writes anything."""
    return clone_working_tree(tmp_path_factory.mktemp("release") / "repo")
