"""Test configuration: anyio on asyncio, fixtures, and this folder importable for
``_tools_helpers`` (``--import-mode=importlib`` does not put test folders on sys.path)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from robota.core.tools.base import ToolContext
from robota.tools.workspace import Workspace

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace.at(root)


@pytest.fixture
def ctx() -> ToolContext[Any]:
    return ToolContext(run_id="run", call_id="call", tool_call_id="t1", tool_name="tool", deps=None)
