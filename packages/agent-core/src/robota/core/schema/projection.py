"""Projecting a tool's JSON Schema onto one vendor's wire subset (seed 000, "Tool Schema
Projection").

One pure, deterministic projector for every provider. :func:`project_schema` never raises and
never mutates its input; it answers :class:`Adopted` (the input object itself), :class:`Adapted`
(a projected copy, with what changed and which real constraints were dropped) or
:class:`Rejected` (unusable for this vendor, with the reason).

Refused for every policy: a non-object root, a property named ``__proto__``/``constructor``/
``prototype``, a cycle (the same dict reachable from itself), more than :data:`MAX_DEPTH` nested
schema nodes or more than :data:`MAX_NODES` schema nodes.

Policies (:class:`VendorPolicy`):

* ``ANTHROPIC``: standard JSON Schema with an object root. Keywords outside JSON Schema 2020-12
  (``nullable``, ``x-*``, ``example``) are removed as annotations.
* ``OPENAI`` (non-strict function calling): adopted as is.
* ``OPENAI_STRICT``: unsupported keywords removed (``default``, ``minLength``, ``allOf``...;
  ``format`` only outside OpenAI's list); ``oneOf`` becomes ``anyOf``; every object is closed
  (``additionalProperties: false``) and requires all its properties, an optional property being
  made nullable (``type: [t, "null"]`` or an added ``{"type": "null"}`` branch). Refused: a node
  with both ``type`` and ``anyOf``, a free-form object (no ``properties``) and a free-form value
  (no ``type``/``anyOf``/``$ref``/``enum``/``const``), which strict mode cannot express.
* ``GEMINI``: the OpenAPI 3.0 subset of the Gemini ``Schema`` object: ``$ref`` inlined (recursion
  refused), null unions become ``nullable: true``, ``additionalProperties``/``const``/non-string
  ``enum``/``oneOf`` removed or replaced; a node with both ``type`` and ``anyOf`` is refused.
  Newer google-genai SDKs also accept raw JSON Schema via ``FunctionDeclaration.
  parameters_json_schema``; a provider that uses it may project with ``OPENAI`` instead.

Argument validation always uses the original, unprojected schema: a wire relaxation (such as the
strict-mode nullable compensation) never widens what a tool call may contain. Use
:func:`drop_strict_nulls` to turn a strict-mode ``null`` for an optional field back into an
omitted field before validating.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, cast

from robota.core.provider import ToolDefinition
from robota.core.schema import _keywords as kw

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "Adapted",
    "Adopted",
    "Projection",
    "Rejected",
    "VendorPolicy",
    "drop_strict_nulls",
    "project_schema",
    "project_tool",
]

MAX_DEPTH = 32
"""Most nested schema nodes (root = 1) a projected schema may have."""
MAX_NODES = 5000
"""Most schema nodes a projected schema may have."""


class VendorPolicy(StrEnum):
    """Which vendor wire subset to project onto."""

    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    OPENAI_STRICT = "openai_strict"
    GEMINI = "gemini"


@dataclass(frozen=True, kw_only=True, slots=True)
class Adopted:
    """The schema goes on the wire unchanged; ``schema`` is the input object itself."""

    kind: Literal["adopted"] = "adopted"
    schema: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True, slots=True)
class Adapted:
    """A projected copy.

    Attributes:
        schema: The new schema (the input is untouched).
        changes: Human-readable changes, each naming a JSON path (``$`` is the root).
        dropped_constraints: ``"<path>: <keyword>"`` for each removed keyword that restricted
            accepted values (as opposed to an annotation such as ``title``).
    """

    kind: Literal["adapted"] = "adapted"
    schema: dict[str, Any]
    changes: tuple[str, ...]
    dropped_constraints: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class Rejected:
    """The schema cannot be offered to this vendor; ``reason`` says why and where."""

    kind: Literal["rejected"] = "rejected"
    reason: str


Projection = Adopted | Adapted | Rejected
"""What :func:`project_schema` returns."""


class _Reject(Exception):
    pass


def project_schema(schema: Mapping[str, Any], policy: VendorPolicy) -> Projection:
    """Project ``schema`` for ``policy`` (rules in the module docstring).

    Args:
        schema: A tool's parameters or an output schema (JSON Schema, object root).
        policy: The vendor policy.

    Returns:
        :class:`Adopted`, :class:`Adapted` or :class:`Rejected`. Never raises; never mutates
        ``schema``.

    Example:
        >>> s = {"type": "object", "properties": {"q": {"type": "string", "minLength": 1}}}
        >>> project_schema(s, VendorPolicy.OPENAI).schema is s
        True
        >>> strict = project_schema(s, VendorPolicy.OPENAI_STRICT)
        >>> strict.schema["properties"]["q"], strict.dropped_constraints
        ({'type': ['string', 'null']}, ('$.q: minLength',))
    """
    try:
        _scan(schema, policy)
        projector = _Projector(policy, schema)
        out = projector.node(schema, "$", ())
    except _Reject as reject:
        return Rejected(reason=str(reject))
    except Exception as error:  # the projector never raises (seed); report instead
        return Rejected(reason=f"schema could not be projected: {type(error).__name__}: {error}")
    if not projector.changes:
        return Adopted(schema=schema)
    return Adapted(
        schema=out,
        changes=tuple(projector.changes),
        dropped_constraints=tuple(projector.dropped),
    )


def project_tool(defn: ToolDefinition, policy: VendorPolicy) -> ToolDefinition | Rejected:
    """Project a tool definition's parameters for ``policy``.

    When a real constraint was dropped, the description gains ONE trailing note naming what was
    not shown to the provider; removed annotations add no note.

    Args:
        defn: The tool as offered.
        policy: The vendor policy.

    Returns:
        ``defn`` itself when adopted, a new :class:`ToolDefinition` when adapted, or the
        :class:`Rejected` answer.
    """
    result = project_schema(defn.parameters, policy)
    if isinstance(result, Rejected):
        return result
    if isinstance(result, Adopted):
        return defn
    description = defn.description
    if result.dropped_constraints:
        shown = "; ".join(result.dropped_constraints)
        note = f"(Constraints not shown to this provider but still enforced: {shown}.)"
        description = f"{description}\n\n{note}" if description else note
    return dataclasses.replace(defn, parameters=result.schema, description=description)


def drop_strict_nulls(schema: Mapping[str, Any], arguments: Any) -> Any:
    """Undo the strict-mode nullable compensation on a tool call's arguments.

    A property that is optional in ``schema`` (the original, unprojected one) and does not accept
    ``null`` is removed when its value is ``null``, at every object level reachable through
    ``properties``, ``items`` and the branches of ``anyOf`` / ``oneOf`` / ``allOf`` (an optional
    model parameter ``Inner | None`` is such a branch). Returns a new value; ``arguments`` is not
    modified.

    Args:
        schema: The original schema (what validation uses).
        arguments: The decoded arguments as the model sent them.

    Example:
        >>> inner = {"type": "object", "properties": {"z": {"type": "integer"}}}
        >>> schema = {"type": "object", "properties": {
        ...     "inner": {"anyOf": [inner, {"type": "null"}]}}}
        >>> drop_strict_nulls(schema, {"inner": {"z": None}})
        {'inner': {}}
    """
    for part in schema.get("allOf", ()):
        if isinstance(part, Mapping):
            arguments = drop_strict_nulls(cast("Mapping[str, Any]", part), arguments)
    shaped = _branch_for(schema, arguments)
    if shaped is not None:
        arguments = drop_strict_nulls(shaped, arguments)
    if isinstance(arguments, dict) and isinstance(schema.get("properties"), Mapping):
        props: Mapping[str, Any] = schema["properties"]
        required = set(schema.get("required", ()))
        out: dict[str, Any] = {}
        for key, value in arguments.items():
            sub = props.get(key)
            if not isinstance(sub, Mapping):
                out[key] = value
            elif value is None and key not in required and not _accepts_null(sub):
                continue
            else:
                out[key] = drop_strict_nulls(sub, value)
        return out
    items = schema.get("items")
    if isinstance(arguments, list) and isinstance(items, Mapping):
        return [drop_strict_nulls(items, value) for value in arguments]
    return arguments


def _branch_for(schema: Mapping[str, Any], value: Any) -> Mapping[str, Any] | None:
    """The one ``anyOf``/``oneOf`` branch shaped for ``value`` (an object branch declaring every
    key of a dict value, or an array branch for a list), or None when there is none or several
    could apply (then nothing is dropped: validation decides)."""
    shaped: list[Mapping[str, Any]] = []
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, ()):
            if not isinstance(branch, Mapping):
                continue
            node = cast("Mapping[str, Any]", branch)
            props = node.get("properties")
            if isinstance(value, dict) and isinstance(props, Mapping):
                if set(cast("dict[str, Any]", value)) <= set(cast("Mapping[str, Any]", props)):
                    shaped.append(node)
            elif isinstance(value, list) and isinstance(node.get("items"), Mapping):
                shaped.append(node)
    return shaped[0] if len(shaped) == 1 else None


# --- structural scan ------------------------------------------------------------------------


def _scan(schema: Any, policy: VendorPolicy) -> None:
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        raise _Reject("the schema root must be an object (type: object)")
    count = [0]
    _scan_node(schema, "$", 1, set(), count, policy)


def _scan_node(
    node: Any, path: str, depth: int, ancestors: set[int], count: list[int], policy: VendorPolicy
) -> None:
    if isinstance(node, bool):
        return
    if not isinstance(node, Mapping):
        raise _Reject(f"{path}: a schema must be an object or a boolean")
    if id(node) in ancestors:
        raise _Reject(f"{path}: cycle (the schema object contains itself)")
    if depth > MAX_DEPTH:
        raise _Reject(f"{path}: nested deeper than {MAX_DEPTH} schema levels")
    count[0] += 1
    if count[0] > MAX_NODES:
        raise _Reject(f"more than {MAX_NODES} schema nodes")
    strict_shape = policy in (VendorPolicy.OPENAI_STRICT, VendorPolicy.GEMINI)
    if strict_shape and "type" in node and "anyOf" in node:
        raise _Reject(f"{path}: declares both 'type' and 'anyOf'; exactly one is allowed")
    ancestors.add(id(node))
    for key, value in node.items():
        if not isinstance(key, str):
            raise _Reject(f"{path}: non-string key {key!r}")
        if key in kw.SUBSCHEMA_MAPS:
            if not isinstance(value, Mapping) or id(value) in ancestors:
                raise _Reject(f"{path}.{key}: must be an object of schemas without cycles")
            if key == "properties":
                bad = sorted(set(value) & kw.DANGEROUS_PROPERTY_NAMES)
                if bad:
                    raise _Reject(f"{path}: dangerous property name {bad[0]!r}")
            for name, sub in value.items():
                _scan_node(sub, f"{path}.{name}", depth + 1, ancestors, count, policy)
        elif key in kw.SUBSCHEMA_LISTS or (key == "items" and isinstance(value, list)):
            if not isinstance(value, list):
                raise _Reject(f"{path}.{key}: must be a list of schemas")
            for i, sub in enumerate(value):
                _scan_node(sub, f"{path}.{key}[{i}]", depth + 1, ancestors, count, policy)
        elif key in kw.SUBSCHEMA_SINGLE:
            _scan_node(value, _sub_path(path, key), depth + 1, ancestors, count, policy)
        else:
            _scan_data(value, f"{path}.{key}", 0, ancestors, count)
    ancestors.discard(id(node))


def _scan_data(value: Any, path: str, depth: int, ancestors: set[int], count: list[int]) -> None:
    if not isinstance(value, Mapping | list):
        return
    if id(value) in ancestors:
        raise _Reject(f"{path}: cycle (a value contains itself)")
    if depth > 2 * MAX_DEPTH:
        raise _Reject(f"{path}: value nested deeper than {2 * MAX_DEPTH} levels")
    count[0] += 1
    if count[0] > MAX_NODES:
        raise _Reject(f"more than {MAX_NODES} schema nodes")
    ancestors.add(id(value))
    children = value.values() if isinstance(value, Mapping) else value
    for child in children:
        _scan_data(child, path, depth + 1, ancestors, count)
    ancestors.discard(id(value))


def _sub_path(path: str, key: str) -> str:
    if key == "items":
        return f"{path}[]"
    return f"{path}.{key}"


def _accepts_null(node: Any) -> bool:
    if node is True or (isinstance(node, Mapping) and not node):
        return True
    if not isinstance(node, Mapping):
        return False
    t = node.get("type")
    if t == "null" or (isinstance(t, list) and "null" in t):
        return True
    if node.get("nullable") is True:
        return True
    if "enum" in node and None in node["enum"]:
        return True
    return any(_accepts_null(branch) for branch in node.get("anyOf", ()))


# --- projection -----------------------------------------------------------------------------


class _Projector:
    def __init__(self, policy: VendorPolicy, root: Mapping[str, Any]) -> None:
        self.policy = policy
        self.changes: list[str] = []
        self.dropped: list[str] = []
        defs: dict[str, Any] = {}
        for key in ("$defs", "definitions"):
            section = root.get(key)
            if isinstance(section, Mapping):
                defs.update({f"#/{key}/{name}": sub for name, sub in section.items()})
        self.defs = defs
        if policy is VendorPolicy.ANTHROPIC:
            self.allowed: frozenset[str] | None = kw.STANDARD
        elif policy is VendorPolicy.OPENAI_STRICT:
            self.allowed = kw.OPENAI_STRICT
        elif policy is VendorPolicy.GEMINI:
            self.allowed = kw.GEMINI
        else:
            self.allowed = None

    def drop(self, path: str, key: str, value: Any) -> None:
        constraint = key in kw.CONSTRAINTS and not (key == "additionalProperties" and value is True)
        self.changes.append(f"{path}: removed {key!r}")
        if constraint:
            self.dropped.append(f"{path}: {key}")

    def node(self, raw: Any, path: str, refs: tuple[str, ...]) -> Any:
        if isinstance(raw, bool):
            return raw
        src: Mapping[str, Any] = raw
        if self.policy is VendorPolicy.GEMINI and "$ref" in src:
            src, refs = self._inline(src, path, refs)
        out: dict[str, Any] = {}
        for key, value in src.items():
            if key == "oneOf" and self.policy in (VendorPolicy.OPENAI_STRICT, VendorPolicy.GEMINI):
                out["anyOf"] = [
                    self.node(v, f"{path}.anyOf[{i}]", refs) for i, v in enumerate(value)
                ]
                self.changes.append(f"{path}: 'oneOf' sent as 'anyOf'")
                self.dropped.append(f"{path}: oneOf (exactly-one)")
                continue
            if self.allowed is not None and key not in self.allowed:
                self.drop(path, key, value)
                continue
            if key in kw.SUBSCHEMA_MAPS:
                out[key] = {n: self.node(s, f"{path}.{n}", refs) for n, s in value.items()}
            elif key in kw.SUBSCHEMA_LISTS or (key == "items" and isinstance(value, list)):
                out[key] = [self.node(s, f"{path}.{key}[{i}]", refs) for i, s in enumerate(value)]
            elif key in kw.SUBSCHEMA_SINGLE:
                out[key] = self.node(value, _sub_path(path, key), refs)
            else:
                out[key] = copy.deepcopy(value)
        if self.policy is VendorPolicy.OPENAI_STRICT:
            self._strict(out, path)
        elif self.policy is VendorPolicy.GEMINI:
            self._gemini(out, path)
        return out

    def _inline(
        self, src: Mapping[str, Any], path: str, refs: tuple[str, ...]
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        ref = src["$ref"]
        if ref in refs:
            raise _Reject(f"{path}: recursive reference {ref!r} cannot be inlined")
        target = self.defs.get(ref)
        if not isinstance(target, Mapping):
            raise _Reject(f"{path}: unresolvable reference {ref!r}")
        merged = {**target, **{k: v for k, v in src.items() if k != "$ref"}}
        self.changes.append(f"{path}: inlined {ref!r}")
        return merged, (*refs, ref)

    def _strict(self, out: dict[str, Any], path: str) -> None:
        if "type" in out and "anyOf" in out:
            raise _Reject(f"{path}: declares both 'type' and 'anyOf'")
        t = out.get("type")
        is_object = t == "object" or (isinstance(t, list) and "object" in t) or "properties" in out
        if not is_object:
            if not {"type", "anyOf", "$ref", "enum", "const"} & set(out):
                raise _Reject(
                    f"{path}: a free-form value (no type) cannot be expressed in OpenAI strict "
                    "mode; give it a type or use non-strict mode"
                )
            return
        props = out.get("properties")
        if not isinstance(props, dict):
            raise _Reject(
                f"{path}: an object without declared properties (a free-form map) cannot be "
                "expressed in OpenAI strict mode; declare its fields or use non-strict mode"
            )
        if out.get("additionalProperties") is not False:
            out["additionalProperties"] = False
            self.changes.append(f"{path}: closed (additionalProperties: false)")
        required = list(out.get("required", ()))
        for name in props:
            if name not in required:
                props[name] = _nullable(props[name])
                self.changes.append(f"{path}.{name}: optional, sent as required and nullable")
        if required != list(props):
            out["required"] = list(props)

    def _gemini(self, out: dict[str, Any], path: str) -> None:
        if "type" in out and "anyOf" in out:
            raise _Reject(f"{path}: declares both 'type' and 'anyOf'")
        t = out.get("type")
        if isinstance(t, list):
            kinds = [k for k in t if k != "null"]
            if len(kinds) != len(t):
                out["nullable"] = True
            if len(kinds) == 1:
                out["type"] = kinds[0]
            else:
                del out["type"]
                out["anyOf"] = [{"type": k} for k in kinds]
            self.changes.append(f"{path}: type list sent as Gemini type/nullable")
        branches = out.get("anyOf")
        if isinstance(branches, list):
            rest = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
            if len(rest) != len(branches):
                out["nullable"] = True
                self.changes.append(f"{path}: null branch sent as nullable: true")
                if len(rest) == 1 and isinstance(rest[0], dict):
                    del out["anyOf"]
                    merged = {**rest[0], **out}
                    out.clear()
                    out.update(merged)
                else:
                    out["anyOf"] = rest
        if "const" in out:
            value = out.pop("const")
            if isinstance(value, str):
                out["enum"] = [value]
                self.changes.append(f"{path}: 'const' sent as a one-value enum")
            else:
                self.drop(path, "const", value)
        enum = out.get("enum")
        if isinstance(enum, list) and not all(isinstance(v, str) for v in enum if v is not None):
            self.drop(path, "enum", out.pop("enum"))
        elif isinstance(enum, list) and None in enum:
            out["enum"] = [v for v in enum if v is not None]
            out["nullable"] = True


def _nullable(node: Any) -> Any:
    if _accepts_null(node):
        return node
    if "$ref" in node:
        return {"anyOf": [node, {"type": "null"}]}
    out = dict(node)
    if "anyOf" in out:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    t = out.get("type")
    if isinstance(t, str):
        out["type"] = [t, "null"]
    elif isinstance(t, list):
        out["type"] = [*t, "null"]
    if "const" in out:
        out["enum"] = [out.pop("const"), None]
    elif "enum" in out:
        out["enum"] = [*out["enum"], None]
    if "type" not in out and "enum" not in out:
        return {"anyOf": [node, {"type": "null"}]}
    return out
