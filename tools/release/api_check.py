"""The public-API check: each package's public API is kept as a committed snapshot
(``packages/<dir>/api.json``) taken at release, and the current source is compared with it by
griffe's breaking-change finder (``griffe.find_breaking_changes``, the engine of ``griffe check``).

The snapshot travels with the sources, so the check needs no git tags in the clone. It lists, one
line per public path, what griffe's comparison reads: kind, class bases, parameters (name, kind,
default) and return annotation. Public means what griffe means: a module's ``__all__``, else names
without a leading underscore; class members include inherited ones; re-exports are followed to
their definition inside the package (names re-exported from a sibling are kept by name only).

The verdict (Semantic Versioning 2.0.0, items 4 and 8): a breaking change needs a minor bump while
the snapshot's version is 0.x and a major bump from 1.0; anything less fails.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

import griffe
from packaging.version import Version

from tools.release.workspace import Package

SNAPSHOT = "api.json"
_KINDS = {
    griffe.ParameterKind.positional_only: "/",
    griffe.ParameterKind.positional_or_keyword: "",
    griffe.ParameterKind.var_positional: "*",
    griffe.ParameterKind.keyword_only: "kw",
    griffe.ParameterKind.var_keyword: "**",
}
_KIND_OF = {code: kind for kind, code in _KINDS.items()}

# One snapshot line: ["module"], ["attribute"], ["class", [bases]] or
# ["function", returns, [[name, kind], [name, kind, default], ...]].
Entry: TypeAlias = list[object]


@dataclass(frozen=True, kw_only=True, slots=True)
class Verdict:
    """The check of one package.

    Attributes:
        package: The distribution name.
        snapshot_version: The version the snapshot was taken at.
        version: The version in the package's pyproject.
        breakages: One line per breaking change (path: kind: old -> new).
        failure: Why the package fails, or None when it passes.
    """

    package: str
    snapshot_version: Version
    version: Version
    breakages: list[str]
    failure: str | None


def public_api(package: Package) -> dict[str, Entry]:
    """The public API of ``package``'s current source, path -> snapshot entry, sorted by path."""
    return _public_api(package)[0]


def _public_api(package: Package) -> tuple[dict[str, Entry], dict[str, str]]:
    logging.getLogger("griffe").setLevel(logging.ERROR)
    root = griffe.load(
        package.module,
        search_paths=[str(package.src)],
        resolve_aliases=True,
        resolve_external=False,
    )
    entries: dict[str, Entry] = {}
    origin: dict[str, str] = {}
    _collect(root, package.module, entries, origin, frozenset())
    return dict(sorted(entries.items())), origin


def _collect(
    obj: griffe.Object | griffe.Alias,
    path: str,
    out: dict[str, Entry],
    origin: dict[str, str],
    stack: frozenset[str],
) -> None:
    try:
        target = obj.final_target if isinstance(obj, griffe.Alias) else obj
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        out[path] = ["attribute"]  # a re-export from outside the package: its name only
        return
    if target.path in stack or (isinstance(obj, griffe.Alias) and target.is_module):
        out[path] = ["module"] if target.is_module else ["attribute"]
        return
    stack = stack | {target.path}
    origin[path] = target.path
    if isinstance(target, griffe.Function):
        params = [_param(p) for p in target.parameters]
        out[path] = ["function", _text(target.returns), params]
        return
    if isinstance(target, griffe.Class):
        bases = [b if isinstance(b, str) else b.canonical_path for b in target.bases]
        out[path] = ["class", bases]
        members = target.all_members
    elif isinstance(target, griffe.Module):
        out[path] = ["module"]
        members = target.members
    else:
        out[path] = ["attribute"]
        return
    for name, member in members.items():
        if member.is_public:
            _collect(member, f"{path}.{name}", out, origin, stack)


def _param(param: griffe.Parameter) -> list[str]:
    row = [param.name, _KINDS[param.kind or griffe.ParameterKind.positional_or_keyword]]
    if param.default is not None:
        row.append(str(param.default))
    return row


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def write_snapshot(package: Package) -> Path:
    """Take ``package``'s snapshot at its current version; returns the file written."""
    api = _compress(*_public_api(package))
    lines = [f"  {json.dumps(path)}: {json.dumps(entry)}" for path, entry in sorted(api.items())]
    head = {"package": package.dist, "version": str(package.version), "tool": "griffe"}
    text = (
        json.dumps(head, indent=2)[:-2] + ',\n  "api": {\n  ' + ",\n  ".join(lines) + "\n  }\n}\n"
    )
    target = package.path / SNAPSHOT
    target.write_text(text, encoding="utf-8")
    return target


def read_snapshot(package: Package) -> tuple[Version, dict[str, Entry]]:
    """The snapshot's version and entries (re-exports expanded).

    Raises:
        FileNotFoundError: the package has no snapshot yet.
    """
    data = json.loads((package.path / SNAPSHOT).read_text(encoding="utf-8"))
    return Version(data["version"]), _expand(package.module, data["api"])


def _compress(api: dict[str, Entry], origin: dict[str, str]) -> dict[str, Entry]:
    """Write a class or function reachable at several public paths once: its first path (fewest
    dots) holds the entries, every other path is ``["=", first path]``."""
    first: dict[str, str] = {}
    out: dict[str, Entry] = {}
    dropped: list[str] = []
    for path in sorted(api, key=lambda p: (p.count("."), p)):
        if any(path.startswith(f"{d}.") for d in dropped):
            continue
        seen = first.setdefault(origin.get(path, path), path)
        if seen != path and api[path][0] in ("class", "function"):
            out[path] = ["=", seen]
            dropped.append(path)
        else:
            out[path] = api[path]
    return out


def _expand(module: str, api: dict[str, Entry]) -> dict[str, Entry]:
    """The entries with every ``["=", path]`` replaced by a copy of that path's entries."""
    children: dict[str, list[str]] = {}
    for path in api:
        if path != module:
            children.setdefault(path.rsplit(".", 1)[0], []).append(path)

    def walk(source: str, dest: str, out: dict[str, Entry], depth: int) -> None:
        entry = api[source]
        if entry[0] == "=":
            if depth > 20:
                raise ValueError(f"{SNAPSHOT}: references nest too deep at {source}")
            walk(str(entry[1]), dest, out, depth + 1)
            return
        out[dest] = entry
        for child in children.get(source, []):
            walk(child, dest + child[len(source) :], out, depth)

    expanded: dict[str, Entry] = {}
    walk(module, module, expanded, 0)
    return dict(sorted(expanded.items()))


def build_tree(module: str, api: dict[str, Entry]) -> griffe.Module:
    """griffe objects from snapshot entries (the shape ``find_breaking_changes`` walks)."""
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
        bases = entry[1]
        assert isinstance(bases, list)
        return griffe.Class(name, bases=[str(b) for b in bases])
    if kind == "function":
        returns, rows = entry[1], entry[2]
        assert isinstance(rows, list)
        params = [
            griffe.Parameter(
                str(row[0]),
                kind=_KIND_OF[str(row[1])],
                default=str(row[2]) if len(row) > 2 else None,
            )
            for row in rows
            if isinstance(row, list)
        ]
        return griffe.Function(
            name,
            parameters=griffe.Parameters(*params),
            returns=None if returns is None else str(returns),
        )
    return griffe.Attribute(name)


def breaking_changes(module: str, old: dict[str, Entry], new: dict[str, Entry]) -> list[str]:
    """griffe's breaking changes from API ``old`` to API ``new``, one line each."""
    found = griffe.find_breaking_changes(build_tree(module, old), build_tree(module, new))
    return sorted(_explain(b) for b in found)


def _explain(breakage: griffe.Breakage) -> str:
    """``path[(parameter)]: what broke[: old -> new]``."""
    old = breakage._format_old_value(colors=False)
    new = breakage._format_new_value(colors=False)
    values = (breakage.old_value, breakage.new_value)
    param = next((v for v in values if isinstance(v, griffe.Parameter)), None)
    where = f"{breakage.obj.path}({param.name})" if param else breakage.obj.path
    change = f": {old or '-'} -> {new or '-'}" if (old or new) and old != new else ""
    return f"{where}: {breakage.kind.value}{change}"


def check(package: Package) -> Verdict:
    """Compare ``package``'s source with its snapshot and judge the version bump."""
    try:
        snapshot_version, old = read_snapshot(package)
    except FileNotFoundError:
        return Verdict(
            package=package.dist,
            snapshot_version=Version("0"),
            version=package.version,
            breakages=[],
            failure=f"no {SNAPSHOT}; take one with `python -m tools.release api-snapshot "
            f"{package.short}`",
        )
    found = breaking_changes(package.module, old, public_api(package))
    return Verdict(
        package=package.dist,
        snapshot_version=snapshot_version,
        version=package.version,
        breakages=found,
        failure=judge(snapshot_version, package.version, breaking=bool(found)),
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
