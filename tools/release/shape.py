"""What a snapshot entry records besides griffe's own view, and the comparison of it.

Attributes (module and class level): the annotation text and, for a literal value (scalars,
tuples, lists, dicts, sets) or a type expression (``Literal[...]``, ``X | Y``, a ``TypeAlias``),
its source text; any change is breaking (conservative on purpose). Classes: decorators
(``dataclass(frozen=True)``), class keywords (``total=False``, ``metaclass=...``), the order of
the fields of a dataclass or NamedTuple, and the abstract members of a Protocol or ABC.
Functions and properties: labels (staticmethod, classmethod, property, writable) and overload
signatures. Public module-level names are also confirmed at run time (:func:`present`).
"""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from typing import TypeAlias

import griffe

Entry: TypeAlias = list[object]
_SCALARS = (int, float, str, bytes, bool, type(None))
_LITERAL_NODES = (
    ast.Expression,
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.BinOp,
    ast.BitOr,
    ast.UnaryOp,
    ast.USub,
    ast.UAdd,
    ast.Load,
)
_LABELS = ("staticmethod", "classmethod", "property")
_MAX_TEXT = 300


def text(value: object) -> str | None:
    """``value`` as text, whitespace collapsed (None stays None)."""
    return None if value is None else " ".join(str(value).split())


def literal(source: str) -> str | None:
    """``repr`` of a simple literal (a scalar or a tuple of scalars), else None."""
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    items: tuple[object, ...] = value if isinstance(value, tuple) else (value,)  # pyright: ignore[reportUnknownVariableType]
    if not all(isinstance(v, _SCALARS) for v in items):
        return None
    shown = repr(value)
    return shown if len(shown) <= 200 else None


def value_text(source: str) -> str | None:
    """The recorded form of a value: a simple literal's ``repr``; the source text of a container
    literal or a type expression (a sha256 prefix past 300 characters); None for anything else
    (a call, a lambda...)."""
    simple = literal(source)
    if simple is not None:
        return simple
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not all(isinstance(node, _LITERAL_NODES) for node in ast.walk(tree)):
        return None
    shown = ast.unparse(tree)
    if len(shown) <= _MAX_TEXT:
        return shown
    return "sha256:" + hashlib.sha256(shown.encode()).hexdigest()[:32]


def attribute(target: griffe.Object | griffe.Alias, parent: str) -> Entry:
    """The entry of an attribute (or a type alias) whose parent is a module, class or enum."""
    if isinstance(target, griffe.TypeAlias):
        shown = text(target.value)
        return ["attribute", {"value": (value_text(shown) or shown) if shown else None}]
    if not isinstance(target, griffe.Attribute):
        return ["attribute"]
    extra: dict[str, object] = {}
    value = text(target.value)
    if parent == "enum" and value is not None:
        extra["value"] = literal(value) or value
    elif value is not None and (shown := value_text(value)) is not None:
        extra["value"] = shown
    if parent in ("class", "enum") and value is None and "property" not in target.labels:
        # a declared field without a default (a dataclass or pydantic field a caller must pass)
        extra["required"] = True
    if (annotation := text(target.annotation)) is not None:
        extra["annotation"] = annotation
    labels = sorted(label for label in target.labels if label in (*_LABELS, "writable"))
    if labels:
        extra["labels"] = labels
    return ["attribute", extra] if extra else ["attribute"]


def _base_text(base: str | griffe.Expr) -> str:
    return base if isinstance(base, str) else base.canonical_path


def class_extras(cls: griffe.Class) -> dict[str, object]:
    """Decorators, class keywords, field order and abstract members of ``cls``."""
    out: dict[str, object] = {}
    decorators = [str(text(d.value)) for d in cls.decorators]
    if decorators:
        out["decorators"] = decorators
    keywords: dict[str, object] = getattr(cls, "keywords", None) or {}
    if keywords:
        out["keywords"] = {str(k): text(v) for k, v in sorted(keywords.items())}
    bases = [_base_text(b) for b in cls.bases]
    tails = {b.rsplit(".", 1)[-1] for b in bases}
    if (
        "dataclass" in cls.labels
        or "NamedTuple" in tails
        or any("dataclass" in d for d in decorators)
    ):
        out["fields"] = [
            name
            for name, member in cls.members.items()
            if isinstance(member, griffe.Attribute)
            and member.annotation is not None
            and "property" not in member.labels
            and not str(text(member.annotation)).replace("typing.", "").startswith("ClassVar")
        ]
    try:
        members = cls.all_members
    except Exception:  # an unresolvable base: own members only
        members = cls.members
    abstract: list[str] = []
    protocol = "Protocol" in tails
    for name, member in members.items():
        try:
            labels = member.labels
        except Exception:  # an alias that does not resolve
            continue
        dunder = name.startswith("__") and name.endswith("__") and name != "__call__"
        if "abstractmethod" in labels or (protocol and not dunder):
            abstract.append(name)
    if abstract:
        out["abstract"] = sorted(abstract)
    return out


def _signature(fn: griffe.Function) -> str:
    params = ", ".join(
        f"{p.kind.value if p.kind else ''}:{p.name}:{text(p.annotation)}={text(p.default)}"
        for p in fn.parameters
    )
    return f"({params}) -> {text(fn.returns)}"


def function_extras(fn: griffe.Function) -> dict[str, object]:
    """Labels and overload signatures of ``fn``."""
    out: dict[str, object] = {}
    labels = sorted(label for label in fn.labels if label in (*_LABELS, "writable"))
    if labels:
        out["labels"] = labels
    overloads = fn.overloads or []
    if overloads:
        out["overloads"] = [_signature(o) for o in overloads]
    return out


def _extra(entry: Entry, index: int) -> dict[str, object] | None:
    for item in entry[index:]:
        if isinstance(item, dict):
            return item  # pyright: ignore[reportUnknownVariableType]
    return None


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]


def _norm(value: object) -> str:
    return "".join(str(value).split())


def breaks(path: str, before: Entry, after: Entry) -> list[str]:
    """The shape changes from ``before`` to ``after`` (same kind) that break a caller. Only what
    the baseline recorded is compared: classes and functions carry an extras object (possibly
    empty) from this format on, so a baseline in the older format reports nothing new."""
    kind = before[0]
    start = {"class": 2, "attribute": 1}.get(str(kind), 3)
    x0, x1 = _extra(before, start), _extra(after, start) or {}
    if x0 is None:
        return []
    found: list[str] = []
    if "annotation" in x0 and _norm(x0["annotation"]) != _norm(x1.get("annotation")):
        found.append(f"{path}: Annotation changed: {x0['annotation']} -> {x1.get('annotation')}")
    for key in ("decorators", "keywords"):
        if (key in x0 or (kind == "class" and key in x1)) and x0.get(key) != x1.get(key):
            found.append(f"{path}: Class {key} changed: {x0.get(key)} -> {x1.get(key)}")
    if "fields" in x0:
        old, new = _strings(x0["fields"]), _strings(x1.get("fields"))
        if new[: len(old)] != old:
            found.append(f"{path}: Field order changed: {old} -> {new}")
    if kind == "class":
        added = set(_strings(x1.get("abstract"))) - set(_strings(x0.get("abstract")))
        if added:
            found.append(f"{path}: New abstract or protocol member(s): {sorted(added)}")
    if kind == "function" or "labels" in x0:
        l0, l1 = set(_strings(x0.get("labels"))), set(_strings(x1.get("labels")))
        if l0 - {"writable"} != l1 - {"writable"} or l0 - l1:
            found.append(f"{path}: Labels changed: {sorted(l0)} -> {sorted(l1)}")
    if "overloads" in x0:
        now = {_norm(s) for s in _strings(x1.get("overloads"))}
        gone = [s for s in _strings(x0["overloads"]) if _norm(s) not in now]
        if gone:
            found.append(f"{path}: Overload(s) removed: {'; '.join(gone)}")
    return found


_PROBE = r"""
import importlib, json, sys
paths, wanted = json.loads(sys.stdin.read())
sys.path[:0] = paths
found = {}
for module, names in wanted.items():
    try:
        mod = importlib.import_module(module)
    except BaseException:
        continue
    found[module] = [n for n in names if hasattr(mod, n)]
sys.stdout.write("\n@@robota-present@@" + json.dumps(found))
"""


def present(paths: list[str], wanted: dict[str, list[str]]) -> dict[str, set[str]] | None:
    """Import each module of ``wanted`` (from ``paths`` first) in a fresh interpreter and return,
    per module that imports, the names that resolve with ``getattr`` at run time. A module that
    does not import is left out (its names are not judged); None if the probe itself failed."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE],
            input=json.dumps([paths, wanted]),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    marker = "\n@@robota-present@@"
    if done.returncode != 0 or marker not in done.stdout:
        return None
    data: dict[str, list[str]] = json.loads(done.stdout.rsplit(marker, 1)[1])
    return {module: set(names) for module, names in data.items()}
