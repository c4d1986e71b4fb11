"""What the release-tool tests share: git and ``python -m tools.release`` run on a temporary clone
of this repository that holds the working tree as it is (tracked and untracked files)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tools.release.workspace import ROOT

GIT_ENV = {
    "GIT_AUTHOR_NAME": "release test",
    "GIT_AUTHOR_EMAIL": "release-test@example.invalid",
    "GIT_COMMITTER_NAME": "release test",
    "GIT_COMMITTER_EMAIL": "release-test@example.invalid",
}


def run(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a command offline (``UV_OFFLINE=1``) with a fixed git identity; fail the test on a
    non-zero exit unless ``check`` is False."""
    env = {**os.environ, **GIT_ENV, "UV_OFFLINE": "1"}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def release(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``python -m tools.release ARGS`` in ``repo``."""
    return run(sys.executable, "-m", "tools.release", *args, cwd=repo, check=check)


def commit_all(repo: Path, message: str) -> None:
    run("git", "add", "--all", cwd=repo)
    run("git", "commit", "--quiet", "-m", message, cwd=repo)


def version(repo: Path, short: str) -> str:
    """The version written in ``packages/<short>/pyproject.toml``."""
    doc = tomllib.loads((repo / "packages" / short / "pyproject.toml").read_text())
    return str(doc["project"]["version"])


def edit(path: Path, old: str, new: str) -> None:
    """Replace the first ``old`` in the file with ``new`` (the test fails if ``old`` is absent)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def clone_working_tree(dest: Path, *, keep_tags: bool = False) -> Path:
    """Clone this repository into ``dest`` with the working tree as its last commit (empty when the
    tree is clean, as in CI). The repository's own release tags name older commits: they are
    dropped unless ``keep_tags``, so each test makes the tags it needs."""
    run("git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest), cwd=ROOT)
    files = run("git", "ls-files", "-co", "--exclude-standard", "-z", cwd=ROOT).stdout
    for name in filter(None, files.split("\0")):
        source, target = ROOT / name, dest / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif target.exists():
            target.unlink()  # deleted in the working tree
    run("git", "add", "--all", cwd=dest)
    run("git", "commit", "--quiet", "--allow-empty", "-m", "working tree", cwd=dest)
    if not keep_tags and (tags := run("git", "tag", "--list", cwd=dest).stdout.split()):
        run("git", "tag", "-d", *tags, cwd=dest)
    return dest
