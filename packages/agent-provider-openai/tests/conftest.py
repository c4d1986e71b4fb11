import sys
from pathlib import Path

import pytest

# The suite's shared helpers (``_openai_wire.py``) are imported by name from this folder.
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
