"""Every package's ``smoke.py`` runs against the workspace and prints ``smoke ok <dist>``.

``.ci/index-check`` runs the same programs in fresh venvs installed from a local index; this
keeps them true in the normal test run. The programs start together (each is a separate
Python process, offline, from a temporary working directory with no API key in its
environment), and each package's test reads its own outcome.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = sorted(p for p in (REPO_ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())
_KEYS = ("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_API_KEY", "ROBOTA_")


def _dist_name(package: Path) -> str:
    return tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "name"
    ]


def _finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    output = process.communicate(timeout=300)[0]
    return process.returncode, output


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[int, str]]]:
    """Package folder name -> (exit status, combined output) of its smoke program."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_KEYS)}
    running: dict[str, subprocess.Popen[str]] = {}
    for package in PACKAGES:
        cwd = tmp_path_factory.mktemp(f"smoke-{package.name}")
        running[package.name] = subprocess.Popen(
            [sys.executable, str(package / "smoke.py")],
            cwd=cwd,
            env={**env, "HOME": str(cwd)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        yield {name: _finish(process) for name, process in running.items()}
    finally:
        for process in running.values():
            if process.poll() is None:
                process.kill()
                process.wait()


def test_every_package_has_a_smoke_program() -> None:
    missing = [p.name for p in PACKAGES if not (p / "smoke.py").is_file()]
    assert missing == [], f"packages without smoke.py: {missing}"
    assert PACKAGES, "no packages found"


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_smoke_program_passes(package: Path, outcomes: dict[str, tuple[int, str]]) -> None:
    status, output = outcomes[package.name]
    assert status == 0, output
    assert f"smoke ok {_dist_name(package)}" in output.splitlines(), output
