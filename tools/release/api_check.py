"""The public-API check: each package's public API is kept as a snapshot (``packages/<dir>/api.json``,
see :mod:`tools.release.snapshot`) taken at release, and the current source is compared with it by
griffe's breaking-change finder (``griffe.find_breaking_changes``, the engine of ``griffe check``)
plus the comparisons griffe does not make: annotations, ``async``, removed or replaced base
classes, constant and enum values, and class attributes that lose their default.

The baseline is authoritative from git when the clone has the package's tags: the snapshot in the
last release's tag ``<dir>-v<version>`` (``git show <tag>:packages/<dir>/api.json``); the committed
file must then be that snapshot (or that snapshot plus additions, at the same version) until the
version moves past the tag. Without tags the committed file is the baseline, and the check says so.

The verdict (Semantic Versioning 2.0.0, items 4 and 8): a breaking change needs a minor bump while
the baseline's version is 0.x and a major bump from 1.0; anything less fails.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass

import griffe
from packaging.version import InvalidVersion, Version

from tools.release import shape
from tools.release.snapshot import (
    KINDS,
    SNAPSHOT,
    Entry,
    SnapshotError,
    parse,
    public_api,
)
from tools.release.workspace import Package

_KIND_OF = {code: kind for kind, code in KINDS.items()}

__all__ = [
    "SNAPSHOT",
    "Baseline",
    "SnapshotError",
    "Verdict",
    "baseline",
    "breaking_changes",
    "carried_only",
    "check",
    "head_snapshot",
    "judge",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class Verdict:
    """The check of one package.

    Attributes:
        package: The distribution name.
        snapshot_version: The version of the baseline snapshot.
        version: The version in the package's pyproject.
        breakages: One line per breaking change (path: kind: old -> new).
        failure: Why the package fails, or None when it passes.
        tagged: Whether the baseline came from a release tag (else the committed file).
    """

    package: str
    snapshot_version: Version
    version: Version
    breakages: list[str]
    failure: str | None
    tagged: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class Baseline:
    """The API the current source is compared with.

    Attributes:
        version: The version it was taken at.
        api: Its entries, re-exports expanded.
        tag: The release tag it comes from, or None for the committed file.
    """

    version: Version
    api: dict[str, Entry]
    tag: str | None


def _git(package: Package, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=package.path, capture_output=True, text=True, check=False
        )
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def _tags(package: Package) -> dict[Version, list[str]]:
    """The package's release tags by version; several tags may name one version
    (``-v0.2.0`` and ``-v0.2.0.0``): :func:`baseline` keeps only the exact one."""
    listed = _git(package, "tag", "--list", f"{package.short}-v*") or ""
    found: dict[Version, list[str]] = {}
    for tag in listed.split():
        try:
            found.setdefault(Version(tag.removeprefix(f"{package.short}-v")), []).append(tag)
        except InvalidVersion:
            continue
    return found


def _snapshot_version(text: str) -> str | None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    return str(data.get("version")) if isinstance(data, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]


def baseline(package: Package) -> Baseline:
    """The authoritative snapshot of ``package``'s last release.

    Raises:
        FileNotFoundError: no committed snapshot and no tagged one.
        SnapshotError: a snapshot is corrupt, foreign or edited by hand, or the committed one
            disagrees with the release tag's.
    """
    file = package.path / SNAPSHOT
    where = f"packages/{package.short}/{SNAPSHOT}"
    committed = parse(package, file.read_text(encoding="utf-8"), where) if file.is_file() else None
    tags = _tags(package)
    released = [v for v in tags if v <= package.version]
    if tags and not released:
        raise SnapshotError(
            f"{package.dist}: version {package.version} is older than every release tag "
            f"({', '.join(sorted(t for ts in tags.values() for t in ts))})"
        )
    top = _git(package, "rev-parse", "--show-toplevel")
    rel = where if top is None else file.resolve().relative_to(top.strip()).as_posix()
    text = None
    tag = ""
    if released and top is not None:
        # the tag must be exactly <folder>-v<the version written in its snapshot>; an alias
        # whose version compares equal (-v0.2.0.0) is ignored
        for candidate in sorted(tags[max(released)]):
            shown = _git(package, "show", f"{candidate}:{rel}")
            if shown is not None and candidate == f"{package.short}-v{_snapshot_version(shown)}":
                text, tag = shown, candidate
                break
    if text is None:  # no tags in this clone (or the tag predates api.json)
        if committed is None:
            raise FileNotFoundError(file)
        return Baseline(version=committed[0], api=committed[1], tag=None)
    last = max(released)
    version, api = parse(package, text, f"{tag}:{rel}")
    if committed is None:
        raise SnapshotError(
            f"{package.dist}: {where} is missing; restore it with `git checkout {tag} -- {rel}`"
        )
    if package.version == last and (
        committed[0] != version or breaking_changes(package.module, api, committed[1])
    ):
        raise SnapshotError(
            f"{package.dist}: {where} is not the snapshot released as {tag} (edited by hand or "
            f"retaken over a break); restore it with `git checkout {tag} -- {rel}`"
        )
    return Baseline(version=version, api=api, tag=tag)


def head_snapshot(package: Package) -> Baseline | None:
    """The snapshot committed at HEAD, when the working tree lacks it (None if HEAD has none)."""
    top = _git(package, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    rel = (package.path / SNAPSHOT).resolve().relative_to(top.strip()).as_posix()
    text = _git(package, "show", f"HEAD:{rel}")
    if text is None or '"sha256"' not in text:
        return None  # none, or one in the format before snapshots carried a sha256 (no baseline)
    version, api = parse(package, text, f"HEAD:{rel}")
    return Baseline(version=version, api=api, tag=None)


def build_tree(module: str, api: dict[str, Entry]) -> griffe.Module:
    """griffe objects from snapshot entries (the shape ``find_breaking_changes`` walks). Bases,
    annotations and values are left out: :func:`_more_breaks` compares them."""
    root = griffe.Module(module, modules_collection=griffe.ModulesCollection())
    objects: dict[str, griffe.Object] = {module: root}
    for path in sorted(api, key=lambda p: p.count(".")):
        if path == module:
            continue
        parent_path, name = path.rsplit(".", 1)
        parent = objects.get(parent_path)
        if parent is None:
            continue
        obj = _object(name, api[path])
        parent.set_member(name, obj)
        objects[path] = obj
    return root


def _object(name: str, entry: Entry) -> griffe.Object:
    kind = entry[0]
    if kind == "module":
        return griffe.Module(name)
    if kind == "class":
        return griffe.Class(name)
    if kind == "function":
        params = [
            griffe.Parameter(
                str(row[0]),
                kind=_KIND_OF[str(row[1])],
                default=str(row[2]) if len(row) > 2 and row[2] is not None else None,
            )
            for row in _rows(entry)
        ]
        return griffe.Function(name, parameters=griffe.Parameters(*params))
    return griffe.Attribute(name)


def _rows(entry: Entry) -> list[list[object]]:
    rows = entry[2] if len(entry) > 2 else []
    return [row for row in rows if isinstance(row, list)] if isinstance(rows, list) else []


def _norm(text: object) -> str | None:
    return None if text is None else "".join(str(text).split())


def _extras(entry: Entry) -> dict[str, object]:
    extra = entry[1] if len(entry) > 1 else None
    return extra if isinstance(extra, dict) else {}


def _more_breaks(old: dict[str, Entry], new: dict[str, Entry]) -> list[tuple[str, str]]:
    """What griffe does not compare, for every path in both APIs with the same kind."""
    found: list[tuple[str, str]] = []
    for path, before in old.items():
        after = new.get(path)
        if after is None or after[0] != before[0]:
            continue  # griffe reports removals and kind changes
        found += [(path, line) for line in shape.breaks(path, before, after)]
        if before[0] == "class":
            bases = [str(b) for b in before[1]] if isinstance(before[1], list) else []
            now = [str(b) for b in after[1]] if isinstance(after[1], list) else []
            if any(b not in now for b in bases):
                found.append(
                    (
                        path,
                        f"{path}: Base class was removed: [{', '.join(bases)}] -> [{', '.join(now)}]",
                    )
                )
        elif before[0] == "function":
            was, now_async = "async" in before[3:], "async" in after[3:]
            if was != now_async:
                what = "became a coroutine function" if now_async else "is no longer a coroutine"
                found.append((path, f"{path}: Function {what}"))
            r0, r1 = _norm(before[1]), _norm(after[1])
            if r0 is not None and r1 is not None and r0 != r1:
                found.append(
                    (path, f"{path}: Return annotation changed: {before[1]} -> {after[1]}")
                )
            annotations = {str(r[0]): r[3] for r in _rows(before) if len(r) > 3}
            for row in _rows(after):
                a0 = _norm(annotations.get(str(row[0])))
                a1 = _norm(row[3]) if len(row) > 3 else None
                if a0 is not None and a1 is not None and a0 != a1:
                    found.append(
                        (
                            path,
                            f"{path}({row[0]}): Parameter annotation changed: "
                            f"{annotations[str(row[0])]} -> {row[3]}",
                        )
                    )
        elif before[0] == "attribute":
            x0, x1 = _extras(before), _extras(after)
            if "value" in x0 and x0.get("value") != x1.get("value"):
                shown = x1.get("value", "(not a literal)")
                found.append((path, f"{path}: Attribute value changed: {x0['value']} -> {shown}"))
            if x1.get("required") and not x0.get("required"):
                found.append((path, f"{path}: Attribute lost its default (now required)"))
    return found


def _breaks(module: str, old: dict[str, Entry], new: dict[str, Entry]) -> list[tuple[str, str]]:
    found = griffe.find_breaking_changes(build_tree(module, old), build_tree(module, new))
    return sorted({(b.obj.path, _explain(b)) for b in found} | set(_more_breaks(old, new)))


def breaking_changes(module: str, old: dict[str, Entry], new: dict[str, Entry]) -> list[str]:
    """The breaking changes from API ``old`` to API ``new``, one line each."""
    return sorted(line for _, line in _breaks(module, old, new))


def _explain(breakage: griffe.Breakage) -> str:
    """``path[(parameter)]: what broke[: old -> new]``."""
    old = breakage._format_old_value(colors=False)
    new = breakage._format_new_value(colors=False)
    values = (breakage.old_value, breakage.new_value)
    param = next((v for v in values if isinstance(v, griffe.Parameter)), None)
    where = f"{breakage.obj.path}({param.name})" if param else breakage.obj.path
    change = f": {old or '-'} -> {new or '-'}" if (old or new) and old != new else ""
    return f"{where}: {breakage.kind.value}{change}"


def carried_only(package: Package) -> bool:
    """Whether ``package`` has breaking changes and every one of them comes from a sibling: a
    re-exported sibling object, or a member of a class with a sibling base (inherited)."""
    try:
        base = baseline(package)
    except (FileNotFoundError, SnapshotError):
        return False
    api, origin = public_api(package)
    found = _breaks(package.module, base.api, api)
    own = package.module

    def foreign(path: str) -> bool:
        where = origin.get(path, "")
        if where and where != own and not where.startswith(f"{own}."):
            return True
        entry = api.get(path)
        if entry and entry[0] == "class" and isinstance(entry[1], list):
            return any(
                not str(b).startswith(f"{own}.") and str(b).startswith("robota.") for b in entry[1]
            )
        return False

    def carried(path: str) -> bool:
        parts = path.split(".")
        return any(foreign(".".join(parts[:n])) for n in range(len(parts), 0, -1))

    return bool(found) and all(carried(path) for path, _ in found)


def check(package: Package) -> Verdict:
    """Compare ``package``'s source with its baseline snapshot and judge the version bump."""

    def failed(why: str) -> Verdict:
        return Verdict(
            package=package.dist,
            snapshot_version=Version("0"),
            version=package.version,
            breakages=[],
            failure=why,
        )

    try:
        base = baseline(package)
    except FileNotFoundError:
        return failed(
            f"no {SNAPSHOT}; a first release takes one (`bump ... --first-release`), or "
            f"restore it from git"
        )
    except SnapshotError as error:
        return failed(str(error))
    found = breaking_changes(package.module, base.api, public_api(package)[0])
    return Verdict(
        package=package.dist,
        snapshot_version=base.version,
        version=package.version,
        breakages=found,
        failure=judge(base.version, package.version, breaking=bool(found)),
        tagged=base.tag is not None,
    )


def judge(snapshot: Version, current: Version, *, breaking: bool) -> str | None:
    """Why the bump from ``snapshot`` to ``current`` is not enough, or None when it is."""
    if current < snapshot:
        return f"version {current} is older than the snapshot's {snapshot}"
    if not breaking:
        return None
    need = "minor" if snapshot.major == 0 else "major"
    if current == snapshot:
        return f"breaking changes without a version bump (still {current}; needs a {need} bump)"
    enough = (
        current.release[:2] > snapshot.release[:2]
        if snapshot.major == 0
        else current.major > snapshot.major
    )
    if enough:
        return None
    return f"breaking changes need a {need} bump; {snapshot} -> {current} is not one"
