"""The layering contracts catch a cross-layer import (checked on a temporary copy of the tree)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = sorted(p for p in (REPO_ROOT / "packages").iterdir() if (p / "src").is_dir())


def _copy_tree(tmp_path: Path) -> tuple[Path, str]:
    """Copy every package's src folder and .importlinter into tmp_path; return config + path."""
    src_dirs: list[str] = []
    for package in PACKAGES:
        target = tmp_path / package.name / "src"
        shutil.copytree(package / "src", target, ignore=shutil.ignore_patterns("__pycache__"))
        src_dirs.append(str(target))
    config = tmp_path / ".importlinter"
    shutil.copy(REPO_ROOT / ".importlinter", config)
    return config, os.pathsep.join(src_dirs)


def _lint(config: Path, pythonpath: str) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": pythonpath}
    return subprocess.run(
        [str(lint), "--config", str(config), "--no-cache"],
        capture_output=True,
        text=True,
        env=env,
        cwd=config.parent,
        check=False,
    )


def test_the_copy_is_clean(tmp_path: Path) -> None:
    config, pythonpath = _copy_tree(tmp_path)
    result = _lint(config, pythonpath)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("importer", "imported", "contract"),
    [
        ("agent-core/src/robota/core", "robota.session", "Core imports no sibling"),
        ("agent-tools/src/robota/tools", "robota.session", "Layers"),
        ("agent-framework/src/robota/framework", "robota.providers.openai", "framework never"),
        ("agent-session/src/robota/session", "robota.cli", "Layers"),
    ],
)
def test_a_cross_layer_import_is_caught(
    tmp_path: Path, importer: str, imported: str, contract: str
) -> None:
    config, pythonpath = _copy_tree(tmp_path)
    offender = tmp_path / importer / "_offender.py"
    offender.write_text(f"import {imported}\n")
    result = _lint(config, pythonpath)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout
    assert contract in result.stdout
    assert "_offender" in result.stdout
