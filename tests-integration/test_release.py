"""The release tools (``python -m tools.release``) on a temporary clone of this repository.

The clone gets the working tree as it is (tracked and untracked files) in one commit, so the real
command runs on the real workspace: ``uv version``, towncrier, ``uv lock``, git commit and tags.
Nothing touches the repository the tests run from.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the release_kit helpers
from release_kit import commit_all as _commit_all
from release_kit import release as _release
from release_kit import run as _run
from release_kit import version as _version

from tools.release.workspace import load_packages


@pytest.fixture
def repo(release_clone: Path, tmp_path: Path) -> Path:
    """A fresh copy of the session's working-tree clone (conftest ``release_clone``) for one test:
    its own git history, tags and files."""
    copy = tmp_path / "repo"
    _run("git", "clone", "--quiet", str(release_clone), str(copy), cwd=tmp_path)
    return copy


def test_core_minor_moves_every_dependent_range_and_tags_each_release(repo: Path) -> None:
    fragment = repo / "packages/agent-core/changelog.d/+probe.changed.md"
    fragment.write_text("The probe change a user would read about.\n")
    _commit_all(repo, "news fragment")
    dependents = [
        p.short for p in load_packages(repo).values() if "robota-agent-core" in p.requires
    ]
    assert len(dependents) == 10

    plan = _release(repo, "bump", "core", "minor", "--dry-run").stdout
    assert "robota-agent-core 0.2.0 -> 0.3.0 (minor)" in plan
    assert _run("git", "status", "--porcelain", cwd=repo).stdout == ""  # dry run wrote nothing

    _release(repo, "bump", "core", "minor")

    assert _version(repo, "agent-core") == "0.3.0"
    core_log = (repo / "packages/agent-core/CHANGELOG.md").read_text()
    assert "## [0.3.0]" in core_log
    assert "The probe change a user would read about." in core_log
    assert core_log.index("## [0.3.0]") < core_log.index("## [0.2.0]")
    assert not fragment.exists()
    for short in dependents:
        pyproject = (repo / "packages" / short / "pyproject.toml").read_text()
        assert '"robota-agent-core>=0.3,<0.4"' in pyproject, short
        assert _version(repo, short) == "0.2.1", short
        log = (repo / "packages" / short / "CHANGELOG.md").read_text()
        assert "## [0.2.1]" in log, short
        assert "Requires `robota-agent-core>=0.3,<0.4`." in log, short
    # the other sibling ranges did not move: a patch release stays inside >=0.2,<0.3
    cli = (repo / "packages/agent-cli/pyproject.toml").read_text()
    assert '"robota-agent-session>=0.2,<0.3"' in cli
    tags = set(_run("git", "tag", "--list", cwd=repo).stdout.split())
    assert tags == {"agent-core-v0.3.0", *(f"{s}-v0.2.1" for s in dependents)}
    assert _run("git", "status", "--porcelain", cwd=repo).stdout == ""
    lock = (repo / "uv.lock").read_text()
    assert 'name = "robota-agent-core"\nversion = "0.3.0"' in lock
    assert '"version": "0.3.0"' in (repo / "packages/agent-core/api.json").read_text()
    assert "release: packages=11 problems=0" in _release(repo, "check").stdout
    assert "api: packages=11 breaking=0" in _release(repo, "api-check").stdout

    # a patch release of core moves nobody
    _release(repo, "bump", "core", "patch")
    assert _version(repo, "agent-core") == "0.3.1"
    assert _version(repo, "agent-tools") == "0.2.1"
    assert _run("git", "tag", "--points-at", "HEAD", cwd=repo).stdout.split() == [
        "agent-core-v0.3.1"
    ]


def test_release_refuses_a_dirty_tree(repo: Path) -> None:
    (repo / "packages/agent-core/README.md").write_text("changed\n")
    done = _release(repo, "bump", "core", "patch", check=False)
    assert done.returncode != 0
    assert "working tree has changes" in done.stderr
    assert _version(repo, "agent-core") == "0.2.0"


_PROBE = '''"""A public module for the API-check test."""


def greet(name: str, *, loud: bool = False) -> str:
    return name.upper() if loud else name


def _hidden(a: int) -> int:
    return a
'''


def test_api_check_fails_on_a_break_without_the_matching_bump(repo: Path) -> None:
    probe = repo / "packages/agent-executor/src/robota/executor/probe.py"
    probe.write_text(_PROBE)
    _release(repo, "api-snapshot", "executor")
    _commit_all(repo, "probe module")
    assert "api: packages=1 breaking=0" in _release(repo, "api-check", "executor").stdout

    # private changes and additions are not breaks
    probe.write_text(_PROBE.replace("_hidden(a: int)", "_hidden(b: str, c: int)") + "\nX = 1\n")
    assert _release(repo, "api-check", "executor").returncode == 0

    # a changed signature without a bump fails, naming the break
    probe.write_text(_PROBE.replace("loud: bool = False", "loud: bool"))
    done = _release(repo, "api-check", "executor", check=False)
    assert done.returncode == 1
    assert "robota.executor.probe.greet(loud): Parameter is now required" in done.stdout
    assert "without a version bump" in done.stdout
    assert "api: packages=1 breaking=1" in done.stdout

    # a removed public function: a patch bump is not enough while 0.x, a minor bump is
    probe.write_text(_PROBE.replace("def greet", "def _greet"))
    done = _release(repo, "api-check", "executor", check=False)
    assert "robota.executor.probe.greet: Public object was removed" in done.stdout
    _run("uv", "version", "--package", "robota-agent-executor", "0.2.1", "--frozen", cwd=repo)
    done = _release(repo, "api-check", "executor", check=False)
    assert done.returncode == 1
    assert "needs a minor bump" not in done.stdout
    assert "breaking changes need a minor bump; 0.2.0 -> 0.2.1 is not one" in done.stdout
    _run("uv", "version", "--package", "robota-agent-executor", "0.3.0", "--frozen", cwd=repo)
    assert _release(repo, "api-check", "executor").returncode == 0

    # the release command refuses a patch release over the break and takes the minor one
    _run("git", "checkout", "--quiet", "--", "packages/agent-executor/pyproject.toml", cwd=repo)
    _commit_all(repo, "remove greet")
    done = _release(repo, "bump", "executor", "patch", check=False)
    assert done.returncode == 1
    assert "refused" in done.stderr
    _release(repo, "bump", "executor", "minor")
    assert _version(repo, "agent-executor") == "0.3.0"
    assert "api: packages=11 breaking=0" in _release(repo, "api-check").stdout
    # nothing depends on the executor except the framework and the CLI: they moved
    assert (
        '"robota-agent-executor>=0.3,<0.4"'
        in (repo / "packages/agent-framework/pyproject.toml").read_text()
    )
    assert _version(repo, "agent-core") == "0.2.0"


@pytest.mark.parametrize("package", list(load_packages().values()), ids=lambda p: p.short)
def test_version_attribute_is_the_pyproject_version(package: object) -> None:
    from tools.release.workspace import Package

    assert isinstance(package, Package)
    module = importlib.import_module(package.module)
    assert module.__version__ == str(package.version)
