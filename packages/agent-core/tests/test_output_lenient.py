"""The lenient final parse and the streamed anchor follow one rule (issue 17 outsider fixes):
one JSON object/array around prose, an object preferred over prose arrays, strict JSON only,
never a crash on deep nesting, bounded work on hostile text."""

from __future__ import annotations

import pytest
from robota.core.agent.output import PartialJson, parse_json_leniently
from robota.core.agent.output.partial import NOTHING


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('Here: {"qty": 2} (in {units}).', {"qty": 2}),
        ('See [1, 2]: {"result": [7]}', {"result": [7]}),
        ("Values: [3, 4].", [3, 4]),
        ('Use {name}.\n```json\n[1]\n```\nThen {"x": 1} is ignored.', [1]),
        ('{"a": 1} and again {"a": 1}', {"a": 1}),
        ('Note { open: {"a": [1, {"b": "}"}]}', {"a": [1, {"b": "}"}]}),
    ],
)
def test_one_value_is_found_around_prose(text: str, value: object) -> None:
    assert parse_json_leniently(text) == value


@pytest.mark.parametrize(
    "text",
    [
        '{"x": NaN}',
        "[Infinity]",
        'ok {"x": -Infinity}',
        '{"a": 1} or {"a": 2}',
        "[" * 100_000 + "]" * 100_000,
        "{" * 200_000,
        '{"' * 100_000,
    ],
)
def test_refused_texts_raise_value_error(text: str) -> None:
    with pytest.raises(ValueError, match="JSON"):
        parse_json_leniently(text)


def snapshots(text: str, size: int = 3) -> list[object]:
    parser = PartialJson()
    shown = [parser.feed(text[i : i + size]) for i in range(0, len(text), size)]
    return [s for s in shown if s is not NOTHING]


def test_an_array_in_prose_is_never_streamed_but_a_leading_or_fenced_one_is() -> None:
    assert [1, 2] not in snapshots('See [1, 2]: {"result": [7]}')
    assert snapshots('See [1, 2]: {"result": [7]}')[-1] == {"result": [7]}
    assert snapshots("Values: [3, 4].") == []
    assert snapshots("[3, 4]")[-1] == [3, 4]
    assert snapshots("Here:\n```json\n[3, 4]\n```")[-1] == [3, 4]


def test_a_prose_brace_that_is_not_json_moves_the_anchor() -> None:
    shown = snapshots('Format {name, qty}: {"name": "tea", "qty": 2} done {x}')
    assert shown[-1] == {"name": "tea", "qty": 2}
    assert all(isinstance(s, dict) for s in shown)


def test_nan_and_deep_nesting_are_never_streamed() -> None:
    assert snapshots('{"x": NaN}', size=20) == []
    assert snapshots("[" * 5_000 + "]" * 5_000, size=500) == []
