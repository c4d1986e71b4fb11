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
from packaging.version import Version

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the release_kit helpers
from release_kit import bumped, current, package_count, series_range, tag
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
    packages = load_packages(repo)
    dependents = [p.short for p in packages.values() if "robota-agent-core" in p.requires]
    assert len(dependents) == len(packages) - 1  # every package but core depends on it
    before = {p.short: p.version for p in packages.values()}
    core_old = before["agent-core"]
    core_new = bumped(core_old, "minor")
    core_range = series_range(core_new)

    plan = _release(repo, "bump", "core", "minor", "--dry-run").stdout
    assert f"robota-agent-core {core_old} -> {core_new} (minor)" in plan
    assert _run("git", "status", "--porcelain", cwd=repo).stdout == ""  # dry run wrote nothing

    _release(repo, "bump", "core", "minor")

    assert current(repo, "agent-core") == core_new
    core_log = (repo / "packages/agent-core/CHANGELOG.md").read_text()
    assert f"## [{core_new}]" in core_log
    assert "The probe change a user would read about." in core_log
    assert core_log.index(f"## [{core_new}]") < core_log.index(f"## [{core_old}]")
    assert not fragment.exists()
    for short in dependents:
        pyproject = (repo / "packages" / short / "pyproject.toml").read_text()
        assert f'"robota-agent-core{core_range}"' in pyproject, short
        assert current(repo, short) == bumped(before[short], "patch"), short
        log = (repo / "packages" / short / "CHANGELOG.md").read_text()
        assert f"## [{bumped(before[short], 'patch')}]" in log, short
        assert f"Requires `robota-agent-core{core_range}`." in log, short
    # the other sibling ranges did not move: a patch release stays inside the session's series
    cli = (repo / "packages/agent-cli/pyproject.toml").read_text()
    assert f'"robota-agent-session{series_range(before["agent-session"])}"' in cli
    tags = set(_run("git", "tag", "--list", cwd=repo).stdout.split())
    assert tags == {
        tag("agent-core", core_new),
        *(tag(s, bumped(before[s], "patch")) for s in dependents),
    }
    assert _run("git", "status", "--porcelain", cwd=repo).stdout == ""
    lock = (repo / "uv.lock").read_text()
    assert f'name = "robota-agent-core"\nversion = "{core_new}"' in lock
    assert f'"version": "{core_new}"' in (repo / "packages/agent-core/api.json").read_text()
    assert f"release: packages={package_count(repo)} problems=0" in _release(repo, "check").stdout
    assert f"api: packages={package_count(repo)} breaking=0" in _release(repo, "api-check").stdout

    # a patch release of core moves nobody
    _release(repo, "bump", "core", "patch")
    assert current(repo, "agent-core") == bumped(core_new, "patch")
    assert current(repo, "agent-tools") == bumped(before["agent-tools"], "patch")
    assert _run("git", "tag", "--points-at", "HEAD", cwd=repo).stdout.split() == [
        tag("agent-core", bumped(core_new, "patch"))
    ]


def test_release_refuses_a_dirty_tree(repo: Path) -> None:
    before = current(repo, "agent-core")
    (repo / "packages/agent-core/README.md").write_text("changed\n")
    done = _release(repo, "bump", "core", "patch", check=False)
    assert done.returncode != 0
    assert "working tree has changes" in done.stderr
    assert current(repo, "agent-core") == before


_PROBE = '''"""A public module for the API-check test."""


def greet(name: str, *, loud: bool = False) -> str:
    return name.upper() if loud else name


def _hidden(a: int) -> int:
    return a
'''


def test_api_check_fails_on_a_break_without_the_matching_bump(repo: Path) -> None:
    executor = current(repo, "agent-executor")
    core = current(repo, "agent-core")
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
    patch, minor = str(bumped(executor, "patch")), str(bumped(executor, "minor"))
    _run("uv", "version", "--package", "robota-agent-executor", patch, "--frozen", cwd=repo)
    done = _release(repo, "api-check", "executor", check=False)
    assert done.returncode == 1
    assert "needs a minor bump" not in done.stdout
    assert f"breaking changes need a minor bump; {executor} -> {patch} is not one" in done.stdout
    _run("uv", "version", "--package", "robota-agent-executor", minor, "--frozen", cwd=repo)
    assert _release(repo, "api-check", "executor").returncode == 0

    # the release command refuses a patch release over the break and takes the minor one
    _run("git", "checkout", "--quiet", "--", "packages/agent-executor/pyproject.toml", cwd=repo)
    _commit_all(repo, "remove greet")
    done = _release(repo, "bump", "executor", "patch", check=False)
    assert done.returncode == 1
    assert "refused" in done.stderr
    _release(repo, "bump", "executor", "minor")
    assert _version(repo, "agent-executor") == minor
    assert f"api: packages={package_count(repo)} breaking=0" in _release(repo, "api-check").stdout
    # nothing depends on the executor except the framework and the CLI: they moved
    assert (
        f'"robota-agent-executor{series_range(Version(minor))}"'
        in (repo / "packages/agent-framework/pyproject.toml").read_text()
    )
    assert current(repo, "agent-core") == core


@pytest.mark.parametrize("package", list(load_packages().values()), ids=lambda p: p.short)
def test_version_attribute_is_the_pyproject_version(package: object) -> None:
    from tools.release.workspace import Package

    assert isinstance(package, Package)
    module = importlib.import_module(package.module)
    assert module.__version__ == str(package.version)
