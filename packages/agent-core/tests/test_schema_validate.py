"""Validation against a schema: the one traversal that owns depth."""

from __future__ import annotations

import subprocess
import sys

from robota.core.schema import validate_arguments

SCHEMA = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "integer"}},
                "required": ["name"],
                "additionalProperties": False,
            },
        },
        "when": {"type": "string", "format": "date"},
    },
    "required": ["items"],
    "additionalProperties": False,
}


def test_issues_name_the_json_path() -> None:
    value = {"items": [{"name": 1}, {"name": 2}, {"name": "x"}], "extra": True}
    assert validate_arguments(SCHEMA, value) == [
        "$: Additional properties are not allowed ('extra' was unexpected)",
        "$.items[2].name: 'x' is not of type 'integer'",
    ]


def test_valid_value_has_no_issues_and_repeat_calls_agree() -> None:
    assert validate_arguments(SCHEMA, {"items": [{"name": 1}]}) == []
    assert validate_arguments(SCHEMA, {"items": []}) == []
    assert validate_arguments(SCHEMA, {}) == ["$: 'items' is a required property"]


def test_format_is_checked() -> None:
    assert validate_arguments(SCHEMA, {"items": [], "when": "not a date"}) == [
        "$.when: 'not a date' is not a 'date'"
    ]


def test_importing_schema_does_not_import_jsonschema_or_pydantic() -> None:
    code = (
        "import sys, robota.core.schema\n"
        "print('jsonschema' in sys.modules, 'pydantic' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False False"


def test_schema_docstring_examples_run() -> None:
    import doctest

    from robota.core.schema import projection, signature, validate

    results = [doctest.testmod(module) for module in (projection, signature, validate)]
    assert [(r.attempted > 0, r.failed) for r in results] == [(True, 0)] * 3
