"""Built-in output evaluators (seed 002, "Evaluations": exact match, contains, valid JSON,
matches a JSON schema / pydantic type), each run through ``run_evaluator`` on a real
``EvaluatorContext``."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel
from robota.evals import Case, Dataset, EvaluationReason, EvaluatorContext
from robota.evals.evaluators.base import Evaluator, run_evaluator
from robota.evals.evaluators.builtin import (
    Contains,
    Equals,
    ExactMatch,
    MatchesSchema,
    MatchesType,
    MaxCost,
    MaxDuration,
    MaxTokens,
    ToolCalled,
    ToolNotCalled,
    ValidJson,
)


class City(BaseModel):
    name: str
    population: int


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int


def make_ctx(output: Any, expected: Any = None, *, inputs: Any = "q") -> EvaluatorContext[Any, Any]:
    return EvaluatorContext(
        case=Case(name="case-1", inputs=inputs, expected_output=expected),
        case_index=0,
        repetition=0,
        output=output,
        duration=0.5,
    )


def judge(check: Evaluator[Any, Any], output: Any, expected: Any = None) -> EvaluationReason:
    """Run ``check`` on a fresh context (sync wrapper for property tests)."""
    import anyio

    return anyio.run(run_evaluator, check, make_ctx(output, expected))


# --- ExactMatch / Equals ---------------------------------------------------------------------


@pytest.mark.anyio
async def test_exact_match_passes_on_equal_text_and_explains_a_mismatch() -> None:
    assert await run_evaluator(ExactMatch(), make_ctx("Paris", "Paris")) == EvaluationReason(
        value=True
    )
    failed = await run_evaluator(ExactMatch(), make_ctx("Lyon", "Paris"))
    assert failed == EvaluationReason(value=False, reason='output "Lyon" != expected "Paris"')


@pytest.mark.anyio
async def test_exact_match_compares_models_and_dataclasses_by_value() -> None:
    oslo = City(name="Oslo", population=709000)
    # a model against the dict a dataset file holds, and against an equal model
    assert (await run_evaluator(ExactMatch(), make_ctx(oslo, oslo.model_dump()))).value is True
    assert (
        await run_evaluator(ExactMatch(), make_ctx(oslo, City(name="Oslo", population=709000)))
    ).value is True
    assert (
        await run_evaluator(ExactMatch(), make_ctx(Point(1, 2), {"x": 1, "y": 2}))
    ).value is True
    assert (await run_evaluator(ExactMatch(), make_ctx((1, 2), [1, 2]))).value is True
    wrong = await run_evaluator(ExactMatch(), make_ctx(oslo, {"name": "Oslo", "population": 1}))
    assert wrong.value is False
    assert wrong.reason == (
        'output {"name": "Oslo", "population": 709000} != expected {"name": "Oslo", "population": 1}'
    )


@pytest.mark.anyio
async def test_exact_match_does_not_take_a_bool_for_a_number() -> None:
    assert (await run_evaluator(ExactMatch(), make_ctx(1, True))).value is False
    assert (await run_evaluator(ExactMatch(), make_ctx(0, False))).value is False
    assert (await run_evaluator(ExactMatch(), make_ctx(1, 1.0))).value is True


@pytest.mark.anyio
async def test_exact_match_without_an_expected_output_fails_with_a_reason() -> None:
    verdict = await run_evaluator(ExactMatch(), make_ctx(None))
    assert verdict == EvaluationReason(value=False, reason="case 'case-1' has no expected output")


@pytest.mark.anyio
async def test_a_mismatch_reason_bounds_each_value() -> None:
    verdict = await run_evaluator(ExactMatch(), make_ctx("a" * 1000, "b" * 1000))
    assert verdict.reason is not None
    output_part, expected_part = verdict.reason.removeprefix("output ").split(" != expected ")
    assert len(output_part) == len(expected_part) == 200
    assert output_part == '"' + "a" * 198 + "…"


@pytest.mark.anyio
async def test_equals_compares_with_a_fixed_value() -> None:
    assert (await run_evaluator(Equals([4, 4]), make_ctx((4, 4)))).value is True
    assert (await run_evaluator(Equals(None), make_ctx(None))).value is True
    verdict = await run_evaluator(Equals({"a": 1}), make_ctx({"a": 2}))
    assert verdict == EvaluationReason(value=False, reason='output {"a": 2} != {"a": 1}')


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(json_values)
def test_exact_match_holds_for_any_copy_and_not_for_a_wrapped_value(value: Any) -> None:
    if value is not None:
        assert judge(ExactMatch(), value, copy.deepcopy(value)).value is True
    assert judge(ExactMatch(), value, [value]).value is False


# --- Contains ---------------------------------------------------------------------------------


@given(st.text(max_size=30), st.data())
def test_contains_finds_every_substring(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert judge(Contains(text[start:end]), text).value is True


@given(st.text(alphabet="abcXYZ ", min_size=1, max_size=20))
def test_contains_ignores_case_when_asked(text: str) -> None:
    assert judge(Contains(text.swapcase(), case_sensitive=False), f"<{text}>").value is True


@given(st.lists(st.integers() | st.text(max_size=5), min_size=1, max_size=6), st.data())
def test_contains_finds_every_item_of_a_list(items: list[Any], data: st.DataObject) -> None:
    item = data.draw(st.sampled_from(items))
    assert judge(Contains(item), items).value is True
    assert judge(Contains(item), tuple(items)).value is True


@pytest.mark.anyio
async def test_contains_in_text() -> None:
    ctx = make_ctx("The capital is Paris.")
    assert (await run_evaluator(Contains("Paris"), ctx)).value is True
    assert (await run_evaluator(Contains("paris"), ctx)) == EvaluationReason(
        value=False, reason='"The capital is Paris." does not contain "paris"'
    )
    assert (await run_evaluator(Contains("PARIS", case_sensitive=False), ctx)).value is True
    number = await run_evaluator(Contains(42), make_ctx("the answer is 42"))
    assert number == EvaluationReason(
        value=False, reason="output is text but the value is int, not a str"
    )


@pytest.mark.anyio
async def test_contains_in_lists_sets_and_dicts() -> None:
    assert (await run_evaluator(Contains(2), make_ctx([1, 2, 3]))).value is True
    assert (await run_evaluator(Contains("b"), make_ctx({"a", "b"}))).value is True
    assert (await run_evaluator(Contains(True), make_ctx([1, 2]))) == EvaluationReason(
        value=False, reason="[1, 2] has no item true"
    )
    assert (await run_evaluator(Contains("B", case_sensitive=False), make_ctx(["a", "b"]))).value
    output = {"city": "Oslo", "country": "NO"}
    assert (await run_evaluator(Contains("city"), make_ctx(output))).value is True
    assert (await run_evaluator(Contains({"city": "Oslo"}), make_ctx(output))).value is True
    assert (
        await run_evaluator(Contains({"City": "oslo"}, case_sensitive=False), make_ctx(output))
    ).value
    mismatch = await run_evaluator(Contains({"city": "Bergen", "country": "NO"}), make_ctx(output))
    assert mismatch == EvaluationReason(
        value=False,
        reason='{"city": "Oslo", "country": "NO"} lacks the items {"city": "Bergen"}',
    )
    assert (await run_evaluator(Contains("zip"), make_ctx(output))).reason == (
        '{"city": "Oslo", "country": "NO"} has no key "zip"'
    )


@pytest.mark.anyio
async def test_contains_looks_into_a_model_as_its_fields() -> None:
    oslo = City(name="Oslo", population=709000)
    assert (await run_evaluator(Contains("population"), make_ctx(oslo))).value is True
    assert (await run_evaluator(Contains({"name": "Oslo"}), make_ctx(oslo))).value is True
    assert (await run_evaluator(Contains({"x": 1}), make_ctx(Point(1, 2)))).value is True


@pytest.mark.anyio
async def test_contains_refuses_output_it_cannot_look_into() -> None:
    assert (await run_evaluator(Contains("x"), make_ctx(None))) == EvaluationReason(
        value=False, reason="output is NoneType; Contains looks into text, lists, sets and dicts"
    )
    assert (await run_evaluator(Contains(4), make_ctx(42))).value is False


# --- ValidJson --------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_valid_json_parses_text() -> None:
    assert (await run_evaluator(ValidJson(), make_ctx('{"a": [1, 2.5, null]}'))).value is True
    assert (await run_evaluator(ValidJson(), make_ctx("42"))).value is True
    bad = await run_evaluator(ValidJson(), make_ctx('{"a": 1'))
    assert bad == EvaluationReason(
        value=False, reason="not JSON: Expecting ',' delimiter: line 1 column 8 (char 7)"
    )
    nan = await run_evaluator(ValidJson(), make_ctx('{"a": NaN}'))
    assert nan == EvaluationReason(
        value=False, reason="not JSON: NaN is not a JSON value (RFC 8259 has no NaN or Infinity)"
    )


@pytest.mark.anyio
async def test_valid_json_accepts_json_compatible_data_only() -> None:
    assert (await run_evaluator(ValidJson(), make_ctx({"a": [1, None, "x"]}))).value is True
    assert (await run_evaluator(ValidJson(), make_ctx([{"b": True}]))).value is True
    assert (await run_evaluator(ValidJson(), make_ctx({1: "x"}))).value is False
    assert (await run_evaluator(ValidJson(), make_ctx({"a": float("inf")}))).value is False
    assert (await run_evaluator(ValidJson(), make_ctx({"a": object()}))).value is False
    none = await run_evaluator(ValidJson(), make_ctx(None))
    assert none == EvaluationReason(
        value=False, reason="output is NoneType, not JSON text, a dict or a list"
    )
    model = await run_evaluator(ValidJson(), make_ctx(City(name="A", population=1)))
    assert model.value is False


# --- MatchesSchema ----------------------------------------------------------------------------

CITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "population"],
    "properties": {
        "name": {"type": "string"},
        "population": {"type": "integer", "minimum": 0},
        "contact": {"type": "string", "format": "email"},
    },
}


@pytest.mark.anyio
async def test_matches_schema_validates_text_and_models() -> None:
    check = MatchesSchema(CITY_SCHEMA)
    assert (await run_evaluator(check, make_ctx('{"name": "Oslo", "population": 1}'))).value
    assert (await run_evaluator(check, make_ctx(City(name="Oslo", population=1)))).value
    assert (await run_evaluator(check, make_ctx({"name": "Oslo", "population": 1}))).value
    negative = await run_evaluator(check, make_ctx({"name": "Oslo", "population": -1}))
    assert negative == EvaluationReason(
        value=False, reason="-1 is less than the minimum of 0 at $.population"
    )
    missing = await run_evaluator(check, make_ctx('{"name": "Oslo"}'))
    assert missing.reason == "'population' is a required property at $"


@pytest.mark.anyio
async def test_matches_schema_checks_formats_and_refuses_non_json_text() -> None:
    check = MatchesSchema(CITY_SCHEMA)
    email = await run_evaluator(
        check, make_ctx({"name": "A", "population": 1, "contact": "nobody"})
    )
    assert email == EvaluationReason(value=False, reason="'nobody' is not a 'email' at $.contact")
    text = await run_evaluator(check, make_ctx("Oslo, 709000"))
    assert text.value is False
    assert text.reason is not None
    assert text.reason.startswith("output is not JSON: ")
    assert (
        await run_evaluator(check, make_ctx(None))
    ).reason == "None is not of type 'object' at $"


def test_matches_schema_checks_the_schema_when_built() -> None:
    with pytest.raises(ValueError, match="invalid JSON Schema: 'strnig' is not valid"):
        MatchesSchema({"type": "strnig"})
    with pytest.raises(ValueError, match="a schema is a JSON object, not list"):
        MatchesSchema([])  # pyright: ignore[reportArgumentType]


# --- MatchesType ------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_matches_type_validates_python_values_and_json_text() -> None:
    check = MatchesType(City)
    assert (await run_evaluator(check, make_ctx({"name": "Oslo", "population": "7"}))).value
    assert (await run_evaluator(check, make_ctx(City(name="Oslo", population=7)))).value
    assert (await run_evaluator(check, make_ctx('{"name": "Oslo", "population": 7}'))).value
    wrong = await run_evaluator(check, make_ctx({"name": "Oslo"}))
    assert wrong == EvaluationReason(value=False, reason="Field required at population")
    text = await run_evaluator(check, make_ctx('{"name": "Oslo"'))
    assert text.value is False
    assert text.reason is not None
    assert text.reason.startswith("Invalid JSON")
    none = await run_evaluator(MatchesType(int), make_ctx(None))
    assert none == EvaluationReason(
        value=False, reason="Input should be a valid integer at the root"
    )
    items = await run_evaluator(MatchesType(list[int]), make_ctx([1, "x"]))
    assert (
        items.reason == "Input should be a valid integer, unable to parse string as an integer at 1"
    )


# --- names and the dataset-file contract ------------------------------------------------------

FILE_EVALUATORS: list[Evaluator[Any, Any]] = [
    ExactMatch(),
    Equals({"a": [1, 2]}),
    Contains("Paris", case_sensitive=False),
    ValidJson(),
    MatchesSchema(CITY_SCHEMA),
    ToolCalled("search", {"q": "x"}, times=2),
    ToolNotCalled("shell"),
    MaxTokens(total=100, output=20),
    MaxDuration(2.5),
    MaxCost(0.01, provider_id="openai"),
]


@pytest.mark.parametrize("check", FILE_EVALUATORS, ids=lambda c: type(c).__name__)
def test_file_evaluators_rebuild_from_their_json_fields(check: Evaluator[Any, Any]) -> None:
    # a dataset file stores {ClassName: {field: value}}: the fields must survive JSON
    stored = {f.name: getattr(check, f.name) for f in dataclasses.fields(check)}  # pyright: ignore[reportArgumentType]
    reloaded = json.loads(json.dumps(stored))
    assert type(check)(**reloaded) == check
    assert check.name == type(check).__name__


def test_evaluation_name_lets_a_dataset_use_a_builtin_twice() -> None:
    paris = Contains("Paris", evaluation_name="mentions Paris")
    france = Contains("France", evaluation_name="mentions France")
    assert (paris.name, france.name) == ("mentions Paris", "mentions France")
    Dataset(name="d", cases=[Case(name="c", inputs="q")], evaluators=[paris, france])
    with pytest.raises(ValueError, match="two evaluators are named 'Contains'"):
        Dataset(
            name="d", cases=[Case(name="c", inputs="q")], evaluators=[Contains("a"), Contains("b")]
        )


def test_a_single_positional_value_builds_each_one_field_evaluator() -> None:
    assert Equals(3).value == 3
    assert Contains("x").value == "x"
    assert MatchesSchema({"type": "string"}).schema == {"type": "string"}
    assert ToolCalled("search").tool == "search"
    assert ToolNotCalled("shell").tool == "shell"
    assert MaxTokens(500).total == 500
    assert MaxDuration(3).seconds == 3
    assert MaxCost(0.5).usd == 0.5
