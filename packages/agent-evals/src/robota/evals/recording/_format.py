"""The cassette file: vcrpy's format version 1 as ``robota.core.testing.cassette.load_cassette``
reads it (seed 002, "Cassettes": JSON bodies remain structured YAML; streamed text uses literal
blocks).

A recorder hands over ``{"version": 1, "interactions": [{"request": {method, uri, body,
headers}, "response": {status, headers, body: {string}}}]}`` with bodies as text (or bytes when
they are not UTF-8). In the file a JSON object or array body becomes ``parsed_body`` (the same
key the recordings in ``shared/cassettes`` use) and any other body stays text, written as a
literal block when it has several lines. :func:`from_document` turns a file's document back into
the recorder's shape. :func:`dump` checks that the YAML it writes reads back to the same
document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import yaml

__all__ = ["dump", "from_document", "load", "to_document"]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259)")


def _json_container(text: Any) -> Any:
    """The parsed JSON object or array ``text`` holds, else None (``NaN``/``Infinity`` make a
    body text: they would not read back equal)."""
    if not isinstance(text, str | bytes) or not text:
        return None
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def _is_stream(headers: Mapping[str, Any]) -> bool:
    for name, values in headers.items():
        if str(name).lower() == "content-type":
            listed: list[Any] = values if isinstance(values, list) else [values]
            return any("text/event-stream" in str(value).lower() for value in listed)
    return False


def _request(request: Mapping[str, Any]) -> dict[str, Any]:
    stored: dict[str, Any] = {
        "method": request["method"],
        "uri": request["uri"],
        "headers": dict(request.get("headers") or {}),
    }
    body = request.get("body")
    parsed = _json_container(body)
    if parsed is not None:
        stored["parsed_body"] = parsed
    elif body:
        stored["body"] = body
    return stored


def _response(response: Mapping[str, Any]) -> dict[str, Any]:
    headers: dict[str, Any] = dict(response.get("headers") or {})
    stored: dict[str, Any] = {"status": dict(response["status"]), "headers": headers}
    raw = response.get("body")
    text = raw.get("string") if isinstance(raw, Mapping) else raw
    parsed = None if _is_stream(headers) else _json_container(text)
    if parsed is not None:
        stored["parsed_body"] = parsed
    else:
        stored["body"] = {"string": "" if text is None else text}
    return stored


def to_document(data: Mapping[str, Any]) -> dict[str, Any]:
    """The file's document for the recorder's ``data`` (see the module doc)."""
    interactions = [
        {"request": _request(i["request"]), "response": _response(i["response"])}
        for i in data.get("interactions", [])
    ]
    return {"interactions": interactions, "version": data.get("version", 1)}


def from_document(document: Any) -> dict[str, Any]:
    """The recorder's shape of a file's document: ``parsed_body`` back to JSON text.

    Raises:
        ValueError: ``document`` is not a cassette (no ``interactions`` list).
    """
    if not isinstance(document, Mapping) or not isinstance(document.get("interactions"), list):
        raise ValueError("not a vcrpy cassette (no interactions list)")
    mapping: Mapping[str, Any] = document
    interactions: list[dict[str, Any]] = []
    for raw in mapping["interactions"]:
        request = dict(raw["request"])
        if "parsed_body" in request:
            request["body"] = json.dumps(request.pop("parsed_body"), ensure_ascii=False)
        request.setdefault("body", None)
        request.setdefault("headers", {})
        response = dict(raw["response"])
        if "parsed_body" in response:
            response["body"] = {"string": json.dumps(response.pop("parsed_body"))}
        response.setdefault("headers", {})
        interactions.append({"request": request, "response": response})
    return {"interactions": interactions, "version": mapping.get("version", 1)}


class _Dumper(yaml.SafeDumper):
    """Safe YAML with text of several lines as literal blocks (PyYAML falls back to a quoted
    style when a text cannot be a literal block, e.g. it holds a carriage return)."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def load(text: str) -> Any:
    """The document of a cassette file's text (safe YAML)."""
    return yaml.safe_load(text)


def dump(document: Mapping[str, Any]) -> str:
    """``document`` as YAML text that reads back to an equal document.

    Raises:
        RuntimeError: no YAML style round-trips ``document`` (never seen; a guard).
    """
    text = yaml.dump(dict(document), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    if load(text) == document:
        return text
    text = yaml.safe_dump(dict(document), sort_keys=False, allow_unicode=False, width=100)
    if load(text) == document:
        return text
    raise RuntimeError("the cassette does not survive a YAML round trip")
