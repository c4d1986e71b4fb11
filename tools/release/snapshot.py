"""The public-API snapshot of one package: what griffe sees in the source, and ``api.json``.

One line per public path: kind, class bases, parameters (name, kind, default, annotation), return
annotation, ``async``, and for attributes what griffe's comparison does not read: the value of a
module-level constant that is a simple literal, an enum member's value, and whether a class
attribute has a default. Public means what griffe means: a module's ``__all__``, else names
without a leading underscore; class members include inherited ones. Re-exports and base classes
are followed into the sibling packages the package requires (their srcs are loaded alongside), so
a sibling's change that reaches this package's public API shows in this package's snapshot.

The file carries a sha256 of its contents: a snapshot edited by hand fails to load.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import TypeAlias

import griffe
from packaging.version import InvalidVersion, Version

from tools.release import shape
from tools.release.workspace import ROOT, Package, load_packages

SNAPSHOT = "api.json"
KINDS = {
    griffe.ParameterKind.positional_only: "/",
    griffe.ParameterKind.positional_or_keyword: "",
    griffe.ParameterKind.var_positional: "*",
    griffe.ParameterKind.keyword_only: "kw",
    griffe.ParameterKind.var_keyword: "**",
}
_ENTRY_KINDS = {"module", "attribute", "class", "function", "="}
_ENUM_BASES = {"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"}

# One snapshot line: ["module"]; ["attribute"] or ["attribute", {"value": repr} | {"required":
# true}]; ["class", [bases]]; ["function", returns, [[name, kind(, default(, annotation))], ...]]
# with a fourth item "async" for a coroutine function; ["=", path] for an object written at an
# earlier path.
Entry: TypeAlias = list[object]


class SnapshotError(Exception):
    """A snapshot that cannot be trusted: unreadable, foreign, incomplete or edited by hand."""


def sibling_srcs(package: Package) -> list[Path]:
    """The ``src`` folders of the siblings ``package`` requires, transitively. Siblings are looked
    up next to the package first, then in this workspace."""
    here = load_packages(package.path.parent.parent) if package.path.parent.is_dir() else {}
    known = {**load_packages(ROOT), **here}
    found: list[Path] = []
    queue = list(package.requires)
    seen = {package.dist}
    while queue:
        dist = queue.pop(0)
        if dist in seen or dist not in known:
            continue
        seen.add(dist)
        found.append(known[dist].src)
        queue.extend(known[dist].requires)
    return found


def public_api(package: Package) -> tuple[dict[str, Entry], dict[str, str]]:
    """The current source's public API (path -> entry, sorted) and each path's origin (the path
    of the object it resolves to, possibly in a sibling)."""
    paths = [str(package.src), *(str(p) for p in sibling_srcs(package))]
    stamp = [
        (str(f), f.stat().st_mtime_ns, f.stat().st_size)
        for path in paths
        for f in sorted(Path(path).rglob("*.py"))
    ]
    key = (package.module, tuple(paths), hash(tuple(stamp)))
    if key not in _CACHE:
        _CACHE[key] = _load(package.module, paths)
    entries, origin = _CACHE[key]
    return dict(entries), dict(origin)


_CACHE: dict[tuple[str, tuple[str, ...], int], tuple[dict[str, Entry], dict[str, str]]] = {}


def _load(module: str, paths: list[str]) -> tuple[dict[str, Entry], dict[str, str]]:
    logging.getLogger("griffe").setLevel(logging.ERROR)
    root = griffe.load(module, search_paths=paths, resolve_aliases=True, resolve_external=False)
    entries: dict[str, Entry] = {}
    origin: dict[str, str] = {}
    _collect(root, module, entries, origin, frozenset(), "module")
    _confirm_at_runtime(module, paths, entries)
    return dict(sorted(entries.items())), origin


def _confirm_at_runtime(module: str, paths: list[str], entries: dict[str, Entry]) -> None:
    """Drop the public module-level names that do not resolve with ``getattr`` once the module is
    imported (deleted with ``del``, defined only under ``if TYPE_CHECKING:``...), and record the
    root module's ``__version__`` when it resolves (a module ``__getattr__``)."""
    modules = [path for path, entry in entries.items() if entry[0] == "module"]
    wanted: dict[str, list[str]] = {path: [] for path in modules}
    for path in entries:
        parent, _, name = path.rpartition(".")
        if parent in wanted and path not in wanted:
            wanted[parent].append(name)
    wanted[module].append("__version__")
    found = shape.present(paths, wanted)
    if found is None:
        raise SnapshotError(f"{module}: could not import the package to confirm its public names")
    if "__version__" in found.get(module, set()):
        entries[f"{module}.__version__"] = ["attribute"]
    for parent, names in wanted.items():
        if parent not in found:
            continue  # a module that does not import here (a missing extra): not judged
        for name in names:
            if name not in found[parent]:
                gone = f"{parent}.{name}"
                for path in [p for p in entries if p == gone or p.startswith(f"{gone}.")]:
                    del entries[path]


def _collect(
    obj: griffe.Object | griffe.Alias,
    path: str,
    out: dict[str, Entry],
    origin: dict[str, str],
    stack: frozenset[str],
    parent: str,
) -> None:
    try:
        target = obj.final_target if isinstance(obj, griffe.Alias) else obj
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        out[path] = ["attribute"]  # a re-export from outside the workspace: its name only
        return
    if target.path in stack or (isinstance(obj, griffe.Alias) and target.is_module):
        out[path] = ["module"] if target.is_module else ["attribute"]
        return
    stack = stack | {target.path}
    origin[path] = target.path
    if isinstance(target, griffe.Function):
        entry: Entry = ["function", _text(target.returns), [_param(p) for p in target.parameters]]
        if "async" in target.labels:
            entry.append("async")
        entry.append(shape.function_extras(target))
        out[path] = entry
        return
    if isinstance(target, griffe.Class):
        out[path] = ["class", [_base(b) for b in target.bases], shape.class_extras(target)]
        members = target.all_members
        kind = "enum" if _is_enum(target, 0) else "class"
    elif isinstance(target, griffe.Module):
        out[path] = ["module"]
        members = target.members
        kind = "module"
    else:
        out[path] = shape.attribute(target, parent)
        return
    for name, member in members.items():
        if member.is_public:
            _collect(member, f"{path}.{name}", out, origin, stack, kind)


def _base(base: str | griffe.Expr) -> str:
    return base if isinstance(base, str) else base.canonical_path


def _is_enum(cls: griffe.Class, depth: int) -> bool:
    if depth > 10:
        return False
    for base in cls.bases:
        if _base(base) in _ENUM_BASES:
            return True
    try:
        resolved = cls.resolved_bases
    except Exception:  # an unresolvable base is not an enum we can see
        return False
    return any(isinstance(b, griffe.Class) and _is_enum(b, depth + 1) for b in resolved)


def _param(param: griffe.Parameter) -> list[str | None]:
    row: list[str | None] = [
        param.name,
        KINDS[param.kind or griffe.ParameterKind.positional_or_keyword],
    ]
    default = _text(param.default)
    annotation = _text(param.annotation)
    if default is not None or annotation is not None:
        row.append(default)
    if annotation is not None:
        row.append(annotation)
    return row


_text = shape.text


def _digest(package: str, version: str, api: dict[str, Entry]) -> str:
    canonical = json.dumps([package, version, api], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def render(package: Package) -> str:
    """The text of ``package``'s snapshot at its current version."""
    api = _compress(*public_api(package))
    version = str(package.version)
    head = {
        "package": package.dist,
        "version": version,
        "tool": "griffe",
        "sha256": _digest(package.dist, version, api),
    }
    lines = [f"  {json.dumps(path)}: {json.dumps(entry)}" for path, entry in sorted(api.items())]
    return (
        json.dumps(head, indent=2)[:-2] + ',\n  "api": {\n  ' + ",\n  ".join(lines) + "\n  }\n}\n"
    )


def write(package: Package) -> Path:
    """Take ``package``'s snapshot at its current version; returns the file written."""
    target = package.path / SNAPSHOT
    target.write_text(render(package), encoding="utf-8")
    return target


def parse(package: Package, text: str, where: str) -> tuple[Version, dict[str, Entry]]:
    """The version and entries (re-exports expanded) of a snapshot's text.

    Raises:
        SnapshotError: naming the package and ``where``: not JSON, another package's, missing
            keys, malformed entries, or contents that do not match the recorded sha256.
    """

    def fail(why: str) -> SnapshotError:
        return SnapshotError(f"{package.dist}: {where}: {why}")

    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise fail(f"not valid JSON ({error.msg} at line {error.lineno})") from None
    if not isinstance(data, dict):
        raise fail("not a snapshot (expected a JSON object)")
    doc: dict[str, object] = data
    missing = [key for key in ("package", "version", "sha256", "api") if key not in doc]
    if missing:
        raise fail(f"not a snapshot (missing {', '.join(missing)})")
    if doc["package"] != package.dist:
        raise fail(f"is the snapshot of {doc['package']!r}, not of {package.dist}")
    try:
        version = Version(str(doc["version"]))
    except InvalidVersion:
        raise fail(f"invalid version {doc['version']!r}") from None
    api = doc["api"]
    if not isinstance(api, dict) or package.module not in api:
        raise fail(f'"api" must be an object holding the module {package.module}')
    entries: dict[str, Entry] = {}
    for path, entry in api.items():
        if not isinstance(entry, list) or not entry or entry[0] not in _ENTRY_KINDS:
            raise fail(f"malformed entry for {path}")
        entries[str(path)] = entry
    if doc["sha256"] != _digest(package.dist, str(doc["version"]), entries):
        raise fail(
            "edited by hand (its contents do not match its sha256); restore it from git or "
            f"retake it with `python -m tools.release api-snapshot {package.short}`"
        )
    try:
        return version, _expand(package.module, entries)
    except (KeyError, ValueError, IndexError) as error:
        raise fail(f"broken reference ({error})") from None


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
                raise ValueError(f"references nest too deep at {source}")
            walk(str(entry[1]), dest, out, depth + 1)
            return
        out[dest] = entry
        for child in children.get(source, []):
            walk(child, dest + child[len(source) :], out, depth)

    expanded: dict[str, Entry] = {}
    walk(module, module, expanded, 0)
    return dict(sorted(expanded.items()))
