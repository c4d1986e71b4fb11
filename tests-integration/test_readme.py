"""The root README stays true: its Python example runs and prints what it says, and the
commands it names exist."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def test_the_python_example_prints_what_the_comments_say() -> None:
    (block,) = _blocks("python")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    expected = re.findall(r"print\(.*\)\s+# (.*)", block)
    assert out.getvalue().splitlines() == expected


def test_the_test_command_is_the_one_ci_runs() -> None:
    ci = (README.parent / ".ci" / "run").read_text()
    assert "uv run pytest -q packages tests-integration" in README.read_text()
    assert "uv run --frozen pytest -q packages tests-integration" in ci


def test_every_script_the_readme_names_exists() -> None:
    for block in _blocks("bash"):
        for line in block.splitlines():
            words = shlex.split(line.split("#", 1)[0]) if line.strip() else []
            if len(words) >= 2 and words[0] == "bash":
                assert (README.parent / words[1]).exists(), words[1]


def test_robota_without_credentials_says_what_to_set(tmp_path: Path) -> None:
    robota = Path(sys.executable).with_name("robota")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ROBOTA_HOME": str(tmp_path / "r")}
    done = subprocess.run(
        [str(robota), "run", "hello"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 3
    assert "ANTHROPIC_API_KEY" in done.stderr
    assert "Traceback" not in done.stderr
