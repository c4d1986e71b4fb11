"""An outsider's attack on the release promise (issue 16): a breaking change to a package's public
API cannot be released without the matching version bump, and ``bump`` releases exactly one package
plus the siblings whose range must move.

Every attempt runs the real check (``tools.release.api_check.check``, or ``python -m tools.release``)
on a temporary copy; nothing touches the repository the tests run from. One prepared clone per
module (a copy of the session's working-tree clone) holds the working tree plus probe modules (one
of each kind of API object) whose snapshots are taken by the real ``api-snapshot``; an API mutation
copies just one package directory and checks it in-process, a release-command attempt clones the
prepared clone.

A test that fails here is a hole in the promise, kept failing on purpose (see the report).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the release_kit helpers
from release_kit import bumped, current, lowered, package_count, series_range, tag
from release_kit import commit_all as _commit_all
from release_kit import edit as _edit
from release_kit import release as _release
from release_kit import run as _run

from tools.release import api_check
from tools.release.workspace import Package, find_package, load_packages

_EXECUTOR = "packages/agent-executor/src/robota/executor"
_CORE = "packages/agent-core/src/robota/core"
_FRAMEWORK = "packages/agent-framework/src/robota/framework"

_PROBE = '''"""A public probe module: one of each kind of API object the outsider mutates."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pydantic import BaseModel

from robota.executor._impl import Helper

LIMIT = 10
NAME: str = "probe"


class Base:
    def base_method(self) -> int:
        return 1


class Mixin:
    pass


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclass
class Point:
    x: int
    y: int = 0


class Model(BaseModel):
    a: int
    b: str = "b"


class Widget(Base, Mixin):
    """A widget."""

    size: int = 3

    def __init__(self, name: str, *, colour: Color = Color.RED) -> None:
        self.name = name
        self.colour = colour

    def render(self, width: int, height: int = 1, *args: int, **kwargs: str) -> str:
        return f"{width}x{height}"

    @property
    def label(self) -> str:
        return self.name

    def _private(self, a: int) -> int:
        return a


class Gadget:
    pass


def greet(name: str, greeting: str = "hi", *, loud: bool = False) -> str:
    return greeting + name


def only_pos(a: int, b: int, /) -> int:
    return a + b


def spread(*args: int, **kwargs: int) -> int:
    return len(args) + len(kwargs)


def compute(value: int) -> str:
    return str(value)


__all__ = [
    "LIMIT",
    "NAME",
    "Base",
    "Color",
    "Gadget",
    "Helper",
    "Mixin",
    "Model",
    "Point",
    "Widget",
    "compute",
    "greet",
    "only_pos",
    "spread",
]
'''

_IMPL = '''"""A private implementation module: only what a public module re-exports is public."""


class Helper:
    def run(self, job: str) -> str:
        return job


class Internal:
    def go(self, x: int) -> int:
        return x


def public_looking(a: int) -> int:
    return a
'''

_EXTRA = '''"""A second public module, imported by nothing."""


def standalone(a: int) -> int:
    return a
'''

_CORE_PROBE = '''"""A public core module whose names the framework re-exports or subclasses."""


def shared(a: int, b: int = 0) -> int:
    return a + b


class CoreBase:
    def method(self, x: int) -> int:
        return x
'''

_FRAMEWORK_PROBE = '''"""A framework module built on a core class."""

from robota.core.outsider_probe import CoreBase


class Sub(CoreBase):
    """Inherits ``method`` from core."""
'''


def _head(repo: Path) -> str:
    return _run("git", "rev-parse", "HEAD", cwd=repo).stdout.strip()


def _tags(repo: Path) -> set[str]:
    return set(_run("git", "tag", "--list", cwd=repo).stdout.split())


def _status(repo: Path) -> str:
    return _run("git", "status", "--porcelain", cwd=repo).stdout


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory, release_clone: Path) -> Path:
    """A clone holding the working tree plus the probes, snapshotted by the real api-snapshot."""
    base = tmp_path_factory.mktemp("outsider") / "repo"
    _run("git", "clone", "--quiet", str(release_clone), str(base), cwd=base.parent)
    (base / _EXECUTOR / "probe.py").write_text(_PROBE)
    (base / _EXECUTOR / "_impl.py").write_text(_IMPL)
    (base / _EXECUTOR / "extra_mod.py").write_text(_EXTRA)
    _edit(
        base / _EXECUTOR / "__init__.py",
        "__all__ = [",
        'from robota.executor.probe import Widget, greet\n\n__all__ = [\n    "Widget",\n'
        '    "greet",',
    )
    (base / _CORE / "outsider_probe.py").write_text(_CORE_PROBE)
    (base / _FRAMEWORK / "outsider_probe.py").write_text(_FRAMEWORK_PROBE)
    _edit(
        base / _FRAMEWORK / "__init__.py",
        "__all__ = [",
        'from robota.core.outsider_probe import shared\n\n__all__ = [\n    "shared",',
    )
    _release(base, "api-snapshot", "executor", "core", "framework")
    _commit_all(base, "outsider probes")
    return base


@pytest.fixture
def repo(prepared: Path, tmp_path: Path) -> Path:
    """A fresh git copy of the prepared clone for one release-command attempt."""
    copy = tmp_path / "repo"
    _run("git", "clone", "--quiet", str(prepared), str(copy), cwd=tmp_path)
    return copy


def _package_copy(prepared: Path, short: str, dest: Path) -> Package:
    """A cheap copy of one package directory (sources, pyproject, api.json), as the checker's
    ``Package``."""
    package = find_package(load_packages(prepared), short)
    target = dest / "packages" / package.short
    shutil.copytree(package.path, target, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    return dataclasses.replace(package, path=target)


# An edit: (file under the module, old, new). old "" creates/appends; new None deletes the file.
Edit = tuple[str, str, str | None]

_COMPUTE = "def compute(value: int) -> str:\n    return str(value)\n"

# (id, edits, breaking). A True "breaking" is a change that breaks a caller of the public API.
_CASES: list[tuple[str, list[Edit], bool]] = [
    # removals
    ("remove-function", [("probe.py", "def compute(", "def _compute(")], True),
    ("remove-method", [("probe.py", "def render(", "def _render(")], True),
    ("remove-class-attribute", [("probe.py", "    size: int = 3\n", "")], True),
    ("remove-class", [("probe.py", "class Gadget:", "class _Gadget:")], True),
    ("remove-from-module-all", [("probe.py", '    "compute",\n', "")], True),
    ("remove-init-reexport", [("__init__.py", '    "greet",\n', "")], True),
    ("delete-public-module", [("extra_mod.py", "", None)], True),
    (
        "move-to-private-module-without-reexport",
        [
            ("probe.py", _COMPUTE, ""),
            ("probe.py", '    "compute",\n', ""),
            ("_impl.py", "", "\n\ndef compute(value: int) -> str:\n    return str(value)\n"),
        ],
        True,
    ),
    (
        "reexported-private-class-loses-method",
        [("_impl.py", "    def run(", "    def _run(")],
        True,
    ),
    # parameters
    ("rename-parameter", [("probe.py", "def compute(value: int)", "def compute(val: int)")], True),
    (
        "reorder-positional-parameters",
        [
            (
                "probe.py",
                "render(self, width: int, height: int = 1,",
                "render(self, height: int = 1, width: int = 0,",
            )
        ],
        True,
    ),
    ("optional-becomes-required", [("probe.py", 'greeting: str = "hi"', "greeting: str")], True),
    ("default-value-changed", [("probe.py", 'greeting: str = "hi"', 'greeting: str = "yo"')], True),
    (
        "positional-becomes-keyword-only",
        [
            (
                "probe.py",
                'greet(name: str, greeting: str = "hi", *, loud',
                'greet(name: str, *, greeting: str = "hi", loud',
            )
        ],
        True,
    ),
    (
        "keyword-becomes-positional-only",
        [("probe.py", "def compute(value: int)", "def compute(value: int, /)")],
        True,
    ),
    (
        "remove-var-positional",
        [("probe.py", "spread(*args: int, **kwargs: int)", "spread(**kwargs: int)")],
        True,
    ),
    (
        "remove-var-keyword",
        [("probe.py", "spread(*args: int, **kwargs: int)", "spread(*args: int)")],
        True,
    ),
    (
        "add-required-parameter",
        [("probe.py", "compute(value: int)", "compute(value: int, scale: int)")],
        True,
    ),
    (
        "keyword-only-default-removed",
        [("probe.py", "colour: Color = Color.RED", "colour: Color")],
        True,
    ),
    # dataclasses, pydantic models, enums
    ("dataclass-field-removed", [("probe.py", "    y: int = 0\n", "")], True),
    ("dataclass-field-renamed", [("probe.py", "    y: int = 0\n", "    z: int = 0\n")], True),
    ("dataclass-field-newly-required", [("probe.py", "    y: int = 0\n", "    y: int\n")], True),
    (
        "dataclass-required-field-added",
        [("probe.py", "    x: int\n", "    x: int\n    w: int\n")],
        True,
    ),
    ("pydantic-field-removed", [("probe.py", '    b: str = "b"\n', "")], True),
    ("pydantic-field-newly-required", [("probe.py", '    b: str = "b"\n', "    b: str\n")], True),
    ("enum-member-removed", [("probe.py", '    GREEN = "green"\n', "")], True),
    ("enum-member-value-changed", [("probe.py", 'GREEN = "green"', 'GREEN = "verde"')], True),
    # classes
    (
        "base-class-removed",
        [("probe.py", "class Widget(Base, Mixin):", "class Widget(Base):")],
        True,
    ),
    (
        "base-class-replaced",
        [("probe.py", "class Widget(Base, Mixin):", "class Widget(Base, Gadget):")],
        True,
    ),
    (
        "property-becomes-method",
        [("probe.py", "    @property\n    def label", "    def label")],
        True,
    ),
    # values and annotations
    ("constant-value-changed", [("probe.py", "LIMIT = 10", "LIMIT = 20")], True),
    ("constant-type-changed", [("probe.py", 'NAME: str = "probe"', "NAME: int = 0")], True),
    (
        "return-annotation-str-to-int",
        [("probe.py", "-> str:\n    return str(value)", "-> int:\n    return value")],
        True,
    ),
    (
        "parameter-annotation-int-to-str",
        [("probe.py", "def compute(value: int)", "def compute(value: str)")],
        True,
    ),
    ("function-becomes-coroutine", [("probe.py", "def compute(", "async def compute(")], True),
    # not breaking: must pass
    ("add-function", [("probe.py", "", "\n\ndef added(x: int) -> int:\n    return x\n")], False),
    ("add-class", [("probe.py", "", "\n\nclass Added:\n    pass\n")], False),
    (
        "add-optional-keyword",
        [("probe.py", "*, loud: bool = False", "*, loud: bool = False, extra: int = 0")],
        False,
    ),
    ("add-public-module", [("new_mod.py", "", '"""New."""\n\nX = 1\n')], False),
    (
        "keyword-only-becomes-positional",
        [("probe.py", "*, loud: bool = False", "loud: bool = False")],
        False,
    ),
    ("positional-only-becomes-positional", [("probe.py", "b: int, /)", "b: int)")], False),
    (
        "docstring-only",
        [("probe.py", '"""A widget."""', '"""A widget.\n\n    Longer text.\n    """')],
        False,
    ),
    (
        "reformatted-signature",
        [
            (
                "probe.py",
                'def greet(name: str, greeting: str = "hi", *, loud: bool = False) -> str:',
                "def greet(\n    name: str,\n    greeting: str = 'hi',\n    *,\n    loud: bool = (False),\n) -> str:",
            )
        ],
        False,
    ),
    (
        "private-method-changed",
        [("probe.py", "def _private(self, a: int)", "def _private(self, b: str, c: int)")],
        False,
    ),
    (
        "private-module-unexported-changed",
        [("_impl.py", "public_looking(a: int)", "public_looking(b: str)")],
        False,
    ),
    (
        "private-module-unexported-removed",
        [("_impl.py", "class Internal:", "class _Internal:")],
        False,
    ),
    (
        "move-to-private-module-with-reexport",
        [
            ("probe.py", _COMPUTE, ""),
            (
                "probe.py",
                "from robota.executor._impl import Helper",
                "from robota.executor._impl import Helper, compute",
            ),
            ("_impl.py", "", "\n\ndef compute(value: int) -> str:\n    return str(value)\n"),
        ],
        False,
    ),
    (
        "module-becomes-package",
        [("extra_mod.py", "", None), ("extra_mod/__init__.py", "", _EXTRA)],
        False,
    ),
]


def _apply(module_dir: Path, edits: Sequence[Edit]) -> None:
    for name, old, new in edits:
        path = module_dir / name
        if new is None:
            path.unlink()
        elif old == "":
            path.parent.mkdir(parents=True, exist_ok=True)
            previous = path.read_text(encoding="utf-8") if path.exists() else ""
            path.write_text(previous + new, encoding="utf-8")
        else:
            _edit(path, old, new)


def _at(package: Package, version: Version) -> Package:
    return dataclasses.replace(package, version=version)


@pytest.mark.parametrize(
    ("edits", "breaking"), [(e, b) for _, e, b in _CASES], ids=[c[0] for c in _CASES]
)
def test_api_check_on_executor_probe(
    prepared: Path, tmp_path: Path, edits: list[Edit], breaking: bool
) -> None:
    package = _package_copy(prepared, "executor", tmp_path)
    _apply(package.path / "src/robota/executor", edits)
    verdict = api_check.check(package)
    if not breaking:
        assert verdict.failure is None, verdict.breakages
        return
    assert verdict.failure is not None
    assert "without a version bump" in verdict.failure
    assert verdict.breakages
    # a patch bump is not enough while 0.x; a minor bump is
    assert api_check.check(_at(package, bumped(package.version, "patch"))).failure is not None
    assert api_check.check(_at(package, bumped(package.version, "minor"))).failure is None


# Real core code, including robota.core.testing.
_CORE_CASES: list[tuple[str, list[Edit], bool]] = [
    ("core-init-all-loses-Agent", [("__init__.py", '    "Agent",\n', "")], True),
    (
        "core-testing-cassette-transport-keyword-required",
        [("testing/cassette.py", "*, match_host: bool = False", "*, match_host: bool")],
        True,
    ),
    (
        "core-testing-cassette-transport-removed",
        [("testing/cassette.py", "def transport(", "def _transport(")],
        True,
    ),
    (
        "core-testing-scripted-gains-function",
        [("testing/scripted.py", "", "\n\ndef added() -> None:\n    pass\n")],
        False,
    ),
]


@pytest.mark.parametrize(
    ("edits", "breaking"), [(e, b) for _, e, b in _CORE_CASES], ids=[c[0] for c in _CORE_CASES]
)
def test_api_check_on_real_core(
    prepared: Path, tmp_path: Path, edits: list[Edit], breaking: bool
) -> None:
    package = _package_copy(prepared, "core", tmp_path)
    _apply(package.path / "src/robota/core", edits)
    verdict = api_check.check(package)
    assert (verdict.failure is not None) is breaking, (verdict.failure, verdict.breakages)


def test_unmodified_workspace_with_probes_passes(repo: Path) -> None:
    assert f"api: packages={package_count(repo)} breaking=0" in _release(repo, "api-check").stdout
    assert f"release: packages={package_count(repo)} problems=0" in _release(repo, "check").stdout


def test_cli_api_check_fails_on_a_committed_break(repo: Path) -> None:
    _edit(repo / _EXECUTOR / "probe.py", 'greeting: str = "hi"', "greeting: str")
    _commit_all(repo, "break")
    done = _release(repo, "api-check", check=False)
    assert done.returncode == 1
    assert "robota.executor.greet(greeting): Parameter is now required" in done.stdout
    assert f"api: packages={package_count(repo)} breaking=1" in done.stdout


# -- a public name of a sibling, re-exported or inherited ---------------------------------------


def test_sibling_reexport_break_is_seen_by_the_reexporting_package(repo: Path) -> None:
    """HOLE: framework re-exports ``robota.core.outsider_probe.shared``; making its parameter
    required changes ``robota.framework.shared`` too, but framework's check keeps only the name, so
    framework passes and the release plan gives it a patch bump."""
    _edit(repo / _CORE / "outsider_probe.py", "b: int = 0", "b: int")
    _commit_all(repo, "break core's shared")
    assert _release(repo, "api-check", "core", check=False).returncode == 1  # core itself: caught
    assert _release(repo, "api-check", "framework", check=False).returncode == 1


def test_sibling_base_class_losing_a_method_is_seen_by_the_subclass_package(repo: Path) -> None:
    """HOLE: ``robota.framework.outsider_probe.Sub`` inherits ``method`` from core; removing it
    from core removes ``Sub.method`` from framework's public API, unseen by framework's check."""
    _edit(repo / _CORE / "outsider_probe.py", "def method(", "def _method(")
    _commit_all(repo, "break core's base")
    assert _release(repo, "api-check", "framework", check=False).returncode == 1


# -- the snapshot itself: stale, hand-edited, missing, corrupt ----------------------------------


def test_resnapshot_without_bump_after_release_is_caught(repo: Path) -> None:
    """HOLE: the tagged release's api.json is the reference, yet ``api-snapshot`` rewrites it at the
    same version and the check (and a patch release) then accept the break."""
    _release(repo, "tag-all")
    _edit(repo / _EXECUTOR / "probe.py", "def compute(", "def _compute(")
    # api-snapshot refuses to record a break at the same version (non-zero exit, file untouched)
    assert _release(repo, "api-snapshot", "executor", check=False).returncode != 0
    _commit_all(repo, "silenced break")
    assert _release(repo, "api-check", "executor", check=False).returncode == 1
    assert _release(repo, "bump", "executor", "patch", "--dry-run", check=False).returncode == 1


def test_hand_lowered_snapshot_version_is_caught(repo: Path) -> None:
    """HOLE: lowering api.json's "version" by one series (0.2.0 -> 0.1.0) makes the current
    version look like a minor bump."""
    _release(repo, "tag-all")
    executor = current(repo, "agent-executor")
    _edit(repo / _EXECUTOR / "probe.py", "def compute(", "def _compute(")
    _edit(
        repo / "packages/agent-executor/api.json",
        f'"version": "{executor}"',
        f'"version": "{lowered(executor)}"',
    )
    _commit_all(repo, "lowered")
    assert _release(repo, "api-check", "executor", check=False).returncode == 1


def test_hand_emptied_snapshot_is_caught(repo: Path) -> None:
    """HOLE: an api.json with no entries treats the whole API as new."""
    snapshot = repo / "packages/agent-executor/api.json"
    head = snapshot.read_text().split('"api"')[0]
    snapshot.write_text(head + '"api": {"robota.executor": ["module"]}\n}\n')
    _edit(repo / _EXECUTOR / "probe.py", "def compute(", "def _compute(")
    _commit_all(repo, "emptied")
    assert _release(repo, "api-check", "executor", check=False).returncode == 1


def test_other_packages_snapshot_is_caught(repo: Path) -> None:
    """Held, by accident: the "package" field is not read, but the foreign entries lack the
    module's root and ``_expand`` crashes (KeyError), so the check fails closed."""
    shutil.copy(repo / "packages/agent-cli/api.json", repo / "packages/agent-executor/api.json")
    _edit(repo / _EXECUTOR / "probe.py", "def compute(", "def _compute(")
    _commit_all(repo, "swapped")
    assert _release(repo, "api-check", "executor", check=False).returncode == 1


def test_missing_snapshot_fails_api_check_clearly(repo: Path) -> None:
    (repo / "packages/agent-executor/api.json").unlink()
    done = _release(repo, "api-check", check=False)
    assert done.returncode == 1
    assert "robota-agent-executor" in done.stdout
    assert "no api.json" in done.stdout


def test_missing_snapshot_does_not_let_a_break_be_patch_released(repo: Path) -> None:
    """HOLE: ``refusal`` skips a package without api.json ("its first snapshot"), so deleting the
    file lets ``bump <pkg> patch`` release a removed function, and the new snapshot hides it."""
    (repo / "packages/agent-executor/api.json").unlink()
    _edit(repo / _EXECUTOR / "probe.py", "def compute(", "def _compute(")
    _commit_all(repo, "break and drop the snapshot")
    before = _head(repo)
    done = _release(repo, "bump", "executor", "patch", check=False)
    assert done.returncode != 0
    assert _head(repo) == before
    assert not _tags(repo)


_CORRUPT: dict[str, Callable[[str], str]] = {
    "truncated": lambda text: text[: len(text) // 2],
    "not-json": lambda text: "<<<<<<< HEAD\n" + text,
    "no-version": lambda text: re.sub(r'\n\s*"version": "[^"]*",', "", text, count=1),
    "api-is-a-list": lambda text: text.split('"api"')[0] + '"api": []\n}\n',
}


@pytest.mark.parametrize("how", list(_CORRUPT))
def test_corrupt_snapshot_fails_closed(repo: Path, how: str) -> None:
    snapshot = repo / "packages/agent-executor/api.json"
    corrupt = _CORRUPT[how](snapshot.read_text())
    assert corrupt != snapshot.read_text()
    snapshot.write_text(corrupt)
    assert _release(repo, "api-check", check=False).returncode != 0
    assert _release(repo, "api-check", "executor", check=False).returncode != 0
    assert _release(repo, "bump", "executor", "patch", "--dry-run", check=False).returncode != 0


def test_corrupt_snapshot_error_names_the_package(repo: Path) -> None:
    """HOLE (clarity): a corrupt api.json ends in a bare JSONDecodeError traceback naming neither
    the package nor the file."""
    snapshot = repo / "packages/agent-executor/api.json"
    snapshot.write_text(snapshot.read_text()[:200])
    done = _release(repo, "api-check", check=False)
    assert done.returncode != 0
    assert "agent-executor" in done.stdout + done.stderr


# -- the release command ------------------------------------------------------------------------


def test_bump_session_minor_moves_exactly_its_dependents(repo: Path) -> None:
    packages = load_packages(repo)
    dependents = {p.short for p in packages.values() if "robota-agent-session" in p.requires}
    assert dependents  # the CLI and the framework
    others = {p.short for p in packages.values()} - dependents - {"agent-session"}
    before = {p.short: p.version for p in packages.values()}
    session = bumped(before["agent-session"], "minor")
    session_range = series_range(session)
    lock_before = (repo / "uv.lock").read_text()

    _release(repo, "bump", "session", "minor")

    assert current(repo, "agent-session") == session
    for short in dependents:
        assert current(repo, short) == bumped(before[short], "patch"), short
        pyproject = (repo / "packages" / short / "pyproject.toml").read_text()
        assert f'"robota-agent-session{session_range}"' in pyproject, short
        log = (repo / "packages" / short / "CHANGELOG.md").read_text()
        assert f"## [{bumped(before[short], 'patch')}]" in log
        assert f"Requires `robota-agent-session{session_range}`." in log
    for short in others:
        assert current(repo, short) == before[short], short
    assert f"## [{session}]" in (repo / "packages/agent-session/CHANGELOG.md").read_text()
    assert _tags(repo) == {
        tag("agent-session", session),
        *(tag(s, bumped(before[s], "patch")) for s in dependents),
    }
    lock = (repo / "uv.lock").read_text()
    assert lock != lock_before
    assert f'name = "robota-agent-session"\nversion = "{session}"' in lock
    assert _status(repo) == ""
    assert f"api: packages={package_count(repo)} breaking=0" in _release(repo, "api-check").stdout
    assert f"release: packages={package_count(repo)} problems=0" in _release(repo, "check").stdout


def test_dry_run_writes_nothing(repo: Path) -> None:
    before = _head(repo)
    session, cli = current(repo, "agent-session"), current(repo, "agent-cli")
    done = _release(repo, "bump", "session", "minor", "--dry-run")
    assert f"robota-agent-session {session} -> {bumped(session, 'minor')} (minor)" in done.stdout
    assert f"robota-agent-cli {cli} -> {bumped(cli, 'patch')} (patch)" in done.stdout
    assert "robota-agent-core" not in done.stdout
    assert _status(repo) == ""
    assert _head(repo) == before
    assert not _tags(repo)


@pytest.mark.parametrize("how", ["untracked", "staged"])
def test_dirty_tree_is_refused(repo: Path, how: str) -> None:
    target = repo / "packages/agent-session/stray.txt"
    target.write_text("stray\n")
    if how == "staged":
        _run("git", "add", str(target), cwd=repo)
    before = _head(repo)
    session = current(repo, "agent-session")
    done = _release(repo, "bump", "session", "minor", check=False)
    assert done.returncode != 0
    assert "working tree has changes" in done.stderr
    assert current(repo, "agent-session") == session
    assert _head(repo) == before


def test_unknown_package_is_refused(repo: Path) -> None:
    for args in (("bump", "nosuch", "patch"), ("api-check", "nosuch")):
        done = _release(repo, *args, check=False)
        assert done.returncode != 0
        assert "no package 'nosuch'" in done.stderr
    assert _status(repo) == ""
    assert not _tags(repo)


def test_sibling_with_its_own_break_cannot_ride_a_patch(repo: Path) -> None:
    _edit(repo / _EXECUTOR / "probe.py", "def compute(", "def _compute(")
    _commit_all(repo, "executor break")
    before = _head(repo)
    done = _release(repo, "bump", "core", "minor", check=False)
    assert done.returncode == 1
    assert "refused" in done.stderr
    assert (
        f"robota-agent-executor {bumped(current(repo, 'agent-executor'), 'patch')}" in done.stderr
    )
    assert _head(repo) == before
    assert not _tags(repo)


def test_one_point_oh_transition(repo: Path) -> None:
    before = {p.short: p.version for p in load_packages(repo).values()}
    core = bumped(before["agent-core"], "major")
    _release(repo, "bump", "core", "major")
    assert current(repo, "agent-core") == core
    for package in load_packages(repo).values():
        if "robota-agent-core" in package.requires:
            # as the workspace reads it back: SpecifierSet order ("<2,>=1.0")
            expected = str(SpecifierSet(series_range(core)))
            assert package.requires["robota-agent-core"] == expected, package.short
            assert package.version == bumped(before[package.short], "patch")
    assert tag("agent-core", core) in _tags(repo)
    # from 1.0 a break needs a major bump
    _edit(repo / _CORE / "outsider_probe.py", "b: int = 0", "b: int")
    _commit_all(repo, "core break after 1.0")
    done = _release(repo, "bump", "core", "minor", "--dry-run", check=False)
    assert done.returncode == 1
    assert "need a major bump" in done.stderr
    assert _release(repo, "bump", "core", "major", "--dry-run").returncode == 0


def test_existing_tag_is_refused_before_anything_is_committed(repo: Path) -> None:
    """HOLE: with the next minor's tag (``agent-session-v0.3.0``) already there, ``bump session
    minor`` commits the release and only then fails at ``git tag``, leaving an untagged release
    commit behind."""
    session = current(repo, "agent-session")
    _run(
        "git", "tag", "-a", tag("agent-session", bumped(session, "minor")), "-m", "stale", cwd=repo
    )
    before = _head(repo)
    done = _release(repo, "bump", "session", "minor", check=False)
    assert done.returncode != 0
    assert _head(repo) == before
    assert current(repo, "agent-session") == session


def test_version_without_changelog_entry_fails_check(repo: Path) -> None:
    patch = str(bumped(current(repo, "agent-executor"), "patch"))
    _run("uv", "version", "--package", "robota-agent-executor", patch, "--frozen", cwd=repo)
    done = _release(repo, "check", check=False)
    assert done.returncode == 1
    assert f"packages/agent-executor: CHANGELOG.md has no entry for {patch}" in done.stdout
    (repo / "packages/agent-tools/CHANGELOG.md").unlink()
    done = _release(repo, "check", check=False)
    assert "packages/agent-tools: no CHANGELOG.md" in done.stdout
