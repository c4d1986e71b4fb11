"""The derived cassettes in ``cassettes/`` differ from their real sources only by the edits
``cassettes/derive.py`` lists (and ``cassettes/README.md`` describes)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent / "cassettes"


def _derive_module() -> Any:
    spec = importlib.util.spec_from_file_location("_cli_e2e_derive", HERE / "derive.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


DERIVE = _derive_module()


def _leaves(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_leaves(item, f"{prefix}/{key}"))
        return out
    if isinstance(value, list):
        out = {}
        for index, item in enumerate(value):
            out.update(_leaves(item, f"{prefix}/{index}"))
        return out
    return {prefix: value}


@pytest.mark.parametrize("derivation", DERIVE.DERIVATIONS, ids=lambda d: d.target)
def test_derived_cassette_is_its_source_with_only_the_listed_edits(derivation: Any) -> None:
    source = yaml.safe_load((DERIVE.SOURCE_ROOT / derivation.source).read_text(encoding="utf-8"))
    derived = yaml.safe_load((HERE / derivation.target).read_text(encoding="utf-8"))
    assert derived == DERIVE.derive(derivation, source)
    changed = {
        path
        for path, value in _leaves(derived).items()
        if _leaves(source).get(path, object()) != value
    }
    edited = {edit.interaction for edit in derivation.edits}
    # Only response bodies of the edited interactions changed; never a request record.
    assert changed
    for path in changed:
        parts = path.split("/")
        assert parts[1] == "interactions", path
        assert int(parts[2]) in edited, path
        assert parts[3] == "response", path
        assert parts[4] in ("body", "parsed_body"), path
    assert set(_leaves(source)) - set(_leaves(derived)) == set()


def test_every_derived_recording_calls_read_file_on_notes() -> None:
    for derivation in DERIVE.DERIVATIONS:
        text = (HERE / derivation.target).read_text(encoding="utf-8")
        assert "read_file" in text, derivation.target
        assert "notes.txt" in text, derivation.target
