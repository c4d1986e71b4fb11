"""The package README's Python examples run (offline; the environment is cleared first)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)


@pytest.mark.parametrize("code", BLOCKS)
def test_readme_example_runs(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    exec(compile(code, str(README), "exec"), {})


def test_the_readme_has_examples() -> None:
    assert BLOCKS
