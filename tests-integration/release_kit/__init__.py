"""What the release-tool tests share: git and ``python -m tools.release`` run on a temporary clone
of this repository that holds the working tree as it is (tracked and untracked files)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.version import Version

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


def current(repo: Path, short: str) -> Version:
    """The version written in ``packages/<short>/pyproject.toml``, parsed."""
    return Version(version(repo, short))


def bumped(old: Version, part: str) -> Version:
    """``old`` after a ``part`` (``"major"``, ``"minor"`` or ``"patch"``) release: the next
    version of that kind (``0.3.0`` minor -> ``0.4.0``, patch -> ``0.3.1``, major -> ``1.0.0``).

    Raises:
        ValueError: ``part`` is none of the three.
    """
    if part == "major":
        return Version(f"{old.major + 1}.0.0")
    if part == "minor":
        return Version(f"{old.major}.{old.minor + 1}.0")
    if part == "patch":
        return Version(f"{old.major}.{old.minor}.{old.micro + 1}")
    raise ValueError(f"unknown bump {part!r}")


def lowered(old: Version) -> Version:
    """A version below ``old`` from which ``old`` is a breaking (minor while 0.x, else major)
    bump: ``0.3.1`` -> ``0.2.0``, ``0.1.4`` -> ``0.0.1``, ``1.4.0`` -> ``0.1.0``, ``3.0.0`` ->
    ``2.0.0``. Never ``0.0.0``, which the release tools read as "no snapshot".

    Raises:
        ValueError: ``old`` is ``0.0.x``: nothing below it is a breaking bump away.
    """
    if old.major > 1:
        return Version(f"{old.major - 1}.0.0")
    if old.major == 1:
        return Version("0.1.0")
    if old.minor > 1:
        return Version(f"0.{old.minor - 1}.0")
    if old.minor == 1:
        return Version("0.0.1")
    raise ValueError(f"no version below {old} is a breaking bump away")


def series_range(of: Version) -> str:
    """The range a sibling writes on ``of``'s compatible series, as the pyprojects spell it:
    ``0.3.1`` -> ``>=0.3,<0.4`` (while 0.x a minor release may break), ``1.4.2`` -> ``>=1.0,<2``.
    """
    if of.major == 0:
        return f">=0.{of.minor},<0.{of.minor + 1}"
    return f">={of.major}.0,<{of.major + 1}"


def package_count(repo: Path) -> int:
    """How many packages ``repo`` ships (folders under ``packages/`` with a pyproject)."""
    return len(list(repo.glob("packages/*/pyproject.toml")))


def tag(short: str, of: Version) -> str:
    """The release tag of package folder ``short`` at version ``of``: ``<short>-v<version>``."""
    return f"{short}-v{of}"


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
