"""Reading and writing evaluation documents: bounded parsing and atomic writes (seed 002,
"Evaluations": both formats are explicitly versioned and parsed through bounded graphs).

A document is JSON data — mappings with string keys, lists, strings, integers, finite floats,
booleans and null — in a ``.json`` file or a ``.yaml``/``.yml`` file chosen by suffix.

Reading is bounded: a file over :data:`MAX_FILE_BYTES`, a document nested deeper than
:data:`MAX_DEPTH`, or holding more than :data:`MAX_NODES` values or :data:`MAX_TEXT` characters
of keys and strings once YAML aliases are expanded (the "billion laughs" alias bomb, and one big
string aliased many times) is refused before anything is built from it. YAML is read with
PyYAML's safe loader only (no ``!!python/...`` tags), with timestamps left as strings and
numbers read as JSON reads them (``1e3`` and ``1.0E5`` are floats, as in YAML 1.2). Duplicate
keys are refused in both formats.

Writing is atomic: a temporary file in the target's folder, flushed and ``os.replace``-d over
the target, so a reader sees the old file or the new one, never a mix. JSON is indented by two
spaces with a trailing newline; YAML uses the same schema with indented sequences and every
string value double-quoted.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
from pathlib import Path
from typing import Any, Literal

import yaml
from robota.evals.errors import EvalError

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_NODES",
    "DocumentFormat",
    "check_version",
    "dump_document",
    "format_of",
    "read_document",
    "write_text_atomic",
]

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Largest document file read (bytes)."""
MAX_DEPTH = 64
"""Deepest nesting of mappings and lists read (the root is level 1)."""
MAX_NODES = 2_000_000
"""Most values (scalars, mappings, lists) a document may expand to, counting every use of a
YAML alias."""
MAX_TEXT = MAX_FILE_BYTES
"""Most characters of scalars (keys, strings, numbers) a document may expand to, counting
every use of a YAML alias: no more than a file without aliases could hold."""

DocumentFormat = Literal["json", "yaml"]

_SUFFIXES: dict[str, DocumentFormat] = {".json": "json", ".yaml": "yaml", ".yml": "yaml"}
_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$")
"""A JSON/YAML 1.2 number with an exponent, which PyYAML's YAML 1.1 rule reads as a string
unless it has a dot and a signed exponent (``1e3``, ``1.0e5``, ``2E-3``)."""
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")


class _Refused(Exception):
    """A bound or rule the document breaks (turned into the caller's error type)."""


def format_of(path: Path, error: type[EvalError]) -> DocumentFormat:
    """The format ``path``'s suffix names.

    Raises:
        EvalError: (of type ``error``) a suffix other than ``.json``, ``.yaml`` or ``.yml``.
    """
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise error(f"{path}: unknown file type {path.suffix!r}; use .json, .yaml or .yml")
    return found


# --- reading ----------------------------------------------------------------------------------


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with a nesting bound while composing, without the implicit
    timestamp type (an unquoted ``2026-01-01`` stays a string, as JSON would have it), and with
    YAML 1.2's exponent floats (``1e3`` is a float, as JSON would have it)."""

    yaml_implicit_resolvers = {  # noqa: RUF012 - PyYAML's class-level table, copied once
        first: [entry for entry in entries if entry[0] != _TIMESTAMP_TAG]
        for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(f"nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_BoundedLoader.add_implicit_resolver(_FLOAT_TAG, _EXPONENT_FLOAT, list("-+.0123456789"))


def _measure(root: yaml.Node) -> None:
    """Refuse a composed YAML graph that is cyclic, too deep or too large once its aliases
    are expanded (in values or in scalar characters), or that repeats a mapping key; every
    node is visited once (memoised)."""
    sizes: dict[int, tuple[int, int]] = {}
    active: set[int] = set()

    def visit(node: yaml.Node, depth: int) -> tuple[int, int]:
        if depth > MAX_DEPTH:
            raise _Refused(f"nested deeper than {MAX_DEPTH} levels (counting aliases)")
        key = id(node)
        if key in active:
            raise _Refused("an alias refers to a node that contains it (a cycle)")
        known = sizes.get(key)
        if known is not None:
            return known
        active.add(key)
        size, text = 1, 0
        if isinstance(node, yaml.ScalarNode):
            text = len(str(node.value))
        elif isinstance(node, yaml.SequenceNode):
            for child in node.value:
                child_size, child_text = visit(child, depth + 1)
                size, text = _bound(size + child_size, text + child_text)
        elif isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag == _STR_TAG:
                    name = str(key_node.value)
                    if name in seen:
                        raise _Refused(f"key {name!r} appears twice in one mapping")
                    seen.add(name)
                key_size, key_text = visit(key_node, depth + 1)
                value_size, value_text = visit(value_node, depth + 1)
                size, text = _bound(size + key_size + value_size, text + key_text + value_text)
        active.discard(key)
        sizes[key] = (size, text)
        return size, text

    visit(root, 1)


def _bound(size: int, text: int) -> tuple[int, int]:
    if size > MAX_NODES:
        raise _Refused(f"expands to more than {MAX_NODES} values (YAML aliases counted)")
    if text > MAX_TEXT:
        raise _Refused(f"expands to more than {MAX_TEXT} characters of text (YAML aliases counted)")
    return size, text


def _load_yaml(text: str) -> Any:
    loader = _BoundedLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        _measure(root)
        return loader.construct_document(root)
    finally:
        loader.dispose()


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Refused(f"key {key!r} appears twice in one object")
        result[key] = value
    return result


def _json_constant(name: str) -> Any:
    raise _Refused(f"{name} is not JSON (non-finite numbers are written as {{'nonfinite': ...}})")


def _load_json(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_json_pairs, parse_constant=_json_constant)


def _check_data(value: Any, where: str, depth: int) -> None:
    """Refuse what JSON cannot hold: non-string keys, non-finite floats, other Python types."""
    if depth > MAX_DEPTH:
        raise _Refused(f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Refused(f"{where or 'the document'}: {value!r} is not a finite number")
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            _check_data(item, f"{where}[{index}]", depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Refused(f"{where or 'the document'}: key {key!r} is not a string")
            _check_data(item, f"{where}.{key}" if where else key, depth + 1)
        return
    raise _Refused(
        f"{where or 'the document'}: a {type(value).__name__} value is not JSON data "
        "(quote it to make it a string)"
    )


def read_document(path: str | os.PathLike[str], error: type[EvalError]) -> dict[str, Any]:
    """Read, parse and bound-check the document at ``path``.

    Args:
        path: A ``.json``, ``.yaml`` or ``.yml`` file.
        error: The error type to raise (:class:`~robota.evals.errors.DatasetFileError` or
            :class:`~robota.evals.errors.ReportFileError`).

    Returns:
        The document's root mapping, as JSON data.

    Raises:
        EvalError: (of type ``error``) an unreadable file, a file over
            :data:`MAX_FILE_BYTES`, text that is not UTF-8, a syntax error, a YAML tag other
            than the safe loader's, nesting over :data:`MAX_DEPTH`, more than
            :data:`MAX_NODES` values or :data:`MAX_TEXT` characters of text, a duplicate key,
            a value JSON cannot hold, or a root that is not a mapping.
    """
    file = Path(path)
    kind = format_of(file, error)
    try:
        with file.open("rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise error(f"{file}: {size} bytes is over the {MAX_FILE_BYTES}-byte limit")
            raw = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise error(f"{file}: cannot read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_FILE_BYTES:
        raise error(f"{file}: over the {MAX_FILE_BYTES}-byte limit")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{file}: not UTF-8 text (byte {exc.start})") from exc
    try:
        data = _load_yaml(text) if kind == "yaml" else _load_json(text)
        _check_data(data, "", 1)
    except _Refused as exc:
        raise error(f"{file}: {exc}") from None
    except RecursionError:
        raise error(f"{file}: nested deeper than {MAX_DEPTH} levels") from None
    except (yaml.YAMLError, ValueError) as exc:
        raise error(f"{file}: not valid {kind.upper()}: {exc}") from exc
    if not isinstance(data, dict):
        found = "an empty file" if data is None else f"a {type(data).__name__}"
        raise error(f"{file}: the document must be a mapping at its root, found {found}")
    return data


def check_version(
    file: Path, version: object, label: str, expected: int, error: type[EvalError]
) -> None:
    """Refuse a document ``version`` other than the integer ``expected`` (not ``1.0``, not
    ``True``).

    Args:
        file: The document's path (the message starts with it).
        version: The value of the document's ``version`` key (None when it has none).
        label: The document's kind in words: ``"dataset"`` or ``"report"``.
        expected: The version this library reads.
        error: The error type to raise.

    Raises:
        EvalError: (of type ``error``) ``version`` is not ``expected``.
    """
    if type(version) is not int or version != expected:
        raise error(
            f"{file}: {label} version {version!r} is not supported; this library reads version "
            f"{expected}"
        )


# --- writing ----------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Indented sequences, no anchors, plain keys where YAML reads them back as strings,
    double-quoted string values."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        del indentless
        return super().increase_indent(flow, False)

    def ignore_aliases(self, data: Any) -> bool:
        del data
        return True


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(_STR_TAG, data, style='"')


def _represent_dict(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.MappingNode:
    pairs: list[tuple[yaml.Node, yaml.Node]] = []
    for key, value in data.items():
        plain = (
            _PLAIN_KEY.match(key) is not None
            and dumper.resolve(yaml.ScalarNode, key, (True, False)) == _STR_TAG
        )
        key_node = yaml.ScalarNode(_STR_TAG, key, style=None if plain else '"')
        pairs.append((key_node, dumper.represent_data(value)))
    return yaml.MappingNode(_MAP_TAG, pairs, flow_style=False)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(dict, _represent_dict)


def dump_document(data: dict[str, Any], kind: DocumentFormat) -> str:
    """``data`` (JSON data) as document text.

    Raises:
        ValueError: a non-finite float (JSON).
    """
    if kind == "json":
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )


def write_text_atomic(path: str | os.PathLike[str], text: str, error: type[EvalError]) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically.

    The text goes to a fresh temporary file beside ``path`` (created with the process umask),
    is flushed to disk, then renamed over ``path``; on failure the temporary file is removed.

    Raises:
        EvalError: (of type ``error``) the text holds a lone surrogate, which UTF-8 cannot
            encode (text decoded with ``errors="surrogateescape"``, e.g. a file name); the
            folder is missing or not writable, or the disk write failed.
    """
    target = Path(path)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        character = exc.object[exc.start]
        raise error(
            f"{target}: cannot write the lone surrogate U+{ord(character):04X} (at character "
            f"{exc.start}): it is not Unicode text UTF-8 can encode (was something decoded "
            "with errors='surrogateescape'?)"
        ) from None
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(temporary, flags, 0o666)
        try:
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
    except OSError as exc:
        raise error(f"{target}: cannot write: {exc.strerror or exc}") from exc
