"""Dataset files and the evaluator registry: names resolve against an application-owned
registry, files are data only, hostile files fail fast with DatasetFileError, and a saved
dataset loads back equal."""

from __future__ import annotations

import doctest
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import robota.evals.io.registry as registry_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from robota.evals import (
    AmbiguousEvaluatorError,
    Case,
    Dataset,
    DatasetFileError,
    Evaluator,
    EvaluatorContext,
    EvaluatorNotFoundError,
    ReportEvaluator,
    ReportView,
    SpanTree,
    TraceEvaluator,
    evaluator,
)
from robota.evals.evaluators.builtin import Contains, ExactMatch, MatchesType
from robota.evals.io._files import MAX_DEPTH, MAX_FILE_BYTES
from robota.evals.io.datasets import load_dataset, save_dataset
from robota.evals.io.registry import EvaluatorRegistry


@dataclass(frozen=True)
class Short(Evaluator[Any, Any]):
    limit: int = 200
    tags: list[str] | None = None
    label: str | None = None

    @property
    def name(self) -> str:
        return self.label or "Short"

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> bool:
        return len(str(ctx.output)) <= self.limit


@dataclass(frozen=True)
class NoSpan(TraceEvaluator[Any, Any]):
    span: str

    def evaluate(self, ctx: EvaluatorContext[Any, Any], spans: SpanTree) -> bool:
        return spans.count(self.span) == 0


@dataclass(frozen=True)
class RateAtLeast(ReportEvaluator):
    minimum: float

    def __post_init__(self) -> None:
        if not 0 <= self.minimum <= 1:
            raise ValueError("minimum must be within [0, 1]")

    def evaluate(self, view: ReportView) -> bool:
        return view.pass_rate() >= self.minimum


def own() -> EvaluatorRegistry:
    return EvaluatorRegistry([Short, NoSpan, RateAtLeast], builtins=False)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


DOCUMENT = """\
version: 1
name: capitals
evaluators: [Short, {Short: {limit: 5, label: short5}}]
trace_evaluators: [{NoSpan: {span: execute_tool shell}}]
report_evaluators: [{RateAtLeast: 0.9}]
cases:
  - name: france
    inputs: What is the capital of France?
    expected_output: Paris
    metadata: {difficulty: easy, released: 2026-01-01}
  - name: japan
    inputs: {question: capital, country: Japan}
"""


# --- the registry -----------------------------------------------------------------------------


def test_registry_builds_each_spec_form() -> None:
    registry = own()
    assert registry.build("Short", "case") == Short()
    assert registry.build({"Short": None}, "case") == Short()
    assert registry.build({"Short": {"limit": 3}}, "case") == Short(limit=3)
    assert registry.build({"RateAtLeast": 0.5}, "report") == RateAtLeast(0.5)
    assert registry.names() == ("NoSpan", "RateAtLeast", "Short")


def test_unknown_name_lists_close_names() -> None:
    with pytest.raises(EvaluatorNotFoundError, match=r"'Shrot'.*did you mean Short\?"):
        own().build("Shrot", "case", where="d.yaml: evaluators[0]")


def test_two_classes_of_one_name_are_ambiguous_until_one_is_renamed() -> None:
    @dataclass(frozen=True)
    class Contains(Evaluator[Any, Any]):  # a user class beside the built-in of that name
        needle: str

        def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> bool:
            return self.needle in str(ctx.output)

    registry = EvaluatorRegistry([Contains])
    with pytest.raises(AmbiguousEvaluatorError, match="2 evaluators are registered as 'Contains'"):
        registry.build({"Contains": {"value": "x"}}, "case")

    renamed = EvaluatorRegistry()
    renamed.register(Contains, name="MyContains")
    assert renamed.build({"MyContains": {"needle": "x"}}, "case") == Contains("x")
    built = renamed.build({"Contains": {"value": "x"}}, "case")
    assert type(built).__module__ == "robota.evals.evaluators.builtin"


def test_registering_the_same_factory_twice_is_not_ambiguous() -> None:
    registry = EvaluatorRegistry([Short, Short], builtins=False)
    registry.register(Short)
    assert registry.build("Short", "case") == Short()


def test_a_factory_function_registers_under_a_name() -> None:
    registry = EvaluatorRegistry(builtins=False)

    @registry.register
    def nonempty() -> Evaluator[Any, Any]:
        return evaluator(lambda ctx: bool(ctx.output), name="nonempty")

    assert registry.build("nonempty", "case").name == "nonempty"
    with pytest.raises(ValueError, match="with a name"):
        registry.register(lambda: Short())


@pytest.mark.parametrize(
    ("spec", "kind", "message"),
    [
        ({"Short": {"limit": 1}, "NoSpan": None}, "case", "one-key mapping"),
        (7, "case", "one-key mapping"),
        ("", "case", "one-key mapping"),
        ({"Short": {"width": 3}}, "case", r"evaluators\[2\]: evaluator 'Short' cannot be built"),
        ({"RateAtLeast": 1.5}, "report", "minimum must be within"),
        (
            {"NoSpan": {"span": "x"}},
            "case",
            r"builds a trace evaluator, which does not belong in evaluators \(ordinary",
        ),
        (
            "Short",
            "report",
            "builds an ordinary evaluator, which does not belong in report_evaluators",
        ),
    ],
)
def test_bad_specs_are_dataset_file_errors(spec: Any, kind: Any, message: str) -> None:
    with pytest.raises(DatasetFileError, match=message):
        own().build(spec, kind, where="d.yaml: evaluators[2]")


def test_the_builtins_are_registered_by_default() -> None:
    registry = EvaluatorRegistry()
    assert registry.build({"Contains": {"value": "Paris"}}, "case") == Contains("Paris")
    assert "SpanAbsent" in registry
    assert "PassRateAtLeast" in registry
    assert "MatchesType" not in registry  # a Python type is not file data
    assert "Short" not in EvaluatorRegistry()


def test_registry_docstring_example_runs() -> None:
    result = doctest.testmod(registry_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


# --- loading ----------------------------------------------------------------------------------


def test_load_yaml_builds_cases_and_evaluators_in_order(tmp_path: Path) -> None:
    dataset = load_dataset(write(tmp_path / "d.yaml", DOCUMENT), registry=own())
    expected: Dataset[Any, Any] = Dataset(
        name="capitals",
        cases=(
            Case(
                name="france",
                inputs="What is the capital of France?",
                expected_output="Paris",
                # an unquoted date stays text, as in JSON
                metadata={"difficulty": "easy", "released": "2026-01-01"},
            ),
            Case(name="japan", inputs={"question": "capital", "country": "Japan"}),
        ),
        evaluators=(Short(), Short(limit=5, label="short5")),
        trace_evaluators=(NoSpan("execute_tool shell"),),
        report_evaluators=(RateAtLeast(0.9),),
    )
    assert dataset == expected


def test_json_and_yaml_read_the_same(tmp_path: Path) -> None:
    import yaml

    data = yaml.safe_load(DOCUMENT)
    data["cases"][0]["metadata"]["released"] = "2026-01-01"
    as_json = write(tmp_path / "d.json", json.dumps(data))
    assert load_dataset(as_json, registry=own()) == load_dataset(
        write(tmp_path / "d.yml", DOCUMENT), registry=own()
    )


class Question(BaseModel):
    question: str
    country: str


def test_inputs_and_expected_types_validate_each_case(tmp_path: Path) -> None:
    text = """\
version: 1
name: typed
cases:
  - {name: japan, inputs: {question: capital, country: Japan}, expected_output: 3}
  - {name: none, inputs: {question: q, country: c}}
"""
    dataset = load_dataset(
        write(tmp_path / "d.yaml", text), inputs_type=Question, expected_type=float
    )
    assert dataset.cases[0].inputs == Question(question="capital", country="Japan")
    assert dataset.cases[0].expected_output == 3.0
    assert dataset.cases[1].expected_output is None

    bad = text.replace("country: c}", "kountry: c}")
    with pytest.raises(DatasetFileError, match=r"cases\[1\] \('none'\): inputs: country"):
        load_dataset(write(tmp_path / "bad.yaml", bad), inputs_type=Question)


def test_evaluator_errors_name_the_file_position(tmp_path: Path) -> None:
    text = "version: 1\nname: d\nevaluators: [Short, {Short: {size: 2}}]\ncases: []\n"
    path = write(tmp_path / "d.yaml", text)
    with pytest.raises(DatasetFileError, match=r"d\.yaml: evaluators\[1\]: evaluator 'Short'"):
        load_dataset(path, registry=own())
    missing = write(tmp_path / "m.yaml", text.replace("{Short: {size: 2}}", "Shorty"))
    with pytest.raises(EvaluatorNotFoundError, match=r"m\.yaml: evaluators\[1\]: no evaluator"):
        load_dataset(missing, registry=own())


def test_two_evaluators_of_one_name_are_refused(tmp_path: Path) -> None:
    # both are named "Short" in reports, which key results by name
    text = "version: 1\nname: d\nevaluators: [Short, {Short: {limit: 2}}]\ncases: []\n"
    bad = write(tmp_path / "d.yaml", text)
    with pytest.raises(DatasetFileError, match="two evaluators are named 'Short'"):
        load_dataset(bad, registry=own())


# --- hostile files ----------------------------------------------------------------------------

BOMB = """\
version: 1
name: bomb
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
cases: []
"""

CASE = "  - {name: a, inputs: x, %s}\n"
HOSTILE: list[tuple[str, str, str]] = [
    ("no_version", "name: d\ncases: []\n", "no 'version' key; .* version 1"),
    ("version_2", "version: 2\nname: d\ncases: []\n", "version 2 is not supported; .*version 1"),
    ("version_text", "version: '1'\nname: d\ncases: []\n", "version '1' is not supported"),
    ("version_bool", "version: true\nname: d\ncases: []\n", "version True is not supported"),
    ("root_key", "version: 1\nname: d\ncases: []\nowner: me\n", "owner: unknown key"),
    ("no_cases", "version: 1\nname: d\n", "cases: Field required"),
    ("case_options", "version: 1\nname: d\ncases:\n" + CASE % "options: {retries: 3}", "run op"),
    ("case_retries", "version: 1\nname: d\ncases:\n" + CASE % "retries: 3", r"cases\[0\].retr"),
    ("case_timeout", "version: 1\nname: d\ncases:\n" + CASE % "timeout: 9", "timeout: unknown"),
    (
        "case_settings",
        "version: 1\nname: d\ncases:\n" + CASE % "model_settings: {temperature: 0}",
        "model_settings: unknown key",
    ),
    ("case_no_inputs", "version: 1\nname: d\ncases:\n  - {name: a}\n", "inputs: Field required"),
    ("case_name_int", "version: 1\nname: d\ncases:\n  - {name: 7, inputs: x}\n", "valid string"),
    ("metadata_list", "version: 1\nname: d\ncases:\n" + CASE % "metadata: [1]", "metadata"),
    (
        "duplicate_cases",
        "version: 1\nname: d\ncases:\n" + CASE % "metadata: {}" + CASE % "metadata: {}",
        r"cases\[1\] and cases\[0\] are both named 'a'",
    ),
    ("duplicate_key", "version: 1\nname: d\nname: e\ncases: []\n", "key 'name' appears twice"),
    (
        "python_tag",
        "version: 1\nname: !!python/object/apply:os.system [echo hi]\ncases: []\n",
        "not valid YAML: could not determine a constructor",
    ),
    ("binary_tag", "version: 1\nname: !!binary aGk=\ncases: []\n", "bytes value is not JSON"),
    ("set_tag", "version: 1\nname: d\ncases: []\nx: !!set {a: null}\n", "set value is not JSON"),
    ("int_key", "version: 1\nname: d\ncases:\n" + CASE % "metadata: {1: a}", "key 1 is not a str"),
    ("nan", "version: 1\nname: d\ncases:\n" + CASE % "metadata: {x: .nan}", "not a finite"),
    ("alias_bomb", BOMB, "expands to more than"),
    ("alias_cycle", "version: 1\nname: d\ncases: &c [*c]\n", "cycle"),
    ("deep", "version: 1\nname: d\ncases: []\nx: " + "[" * 5000 + "]" * 5000, "deeper than 64"),
    ("syntax", "version: 1\nname: [d\n", "not valid YAML"),
    ("empty", "", "must be a mapping at its root, found an empty file"),
    ("list_root", "- version: 1\n", "must be a mapping at its root, found a list"),
    ("scalar_root", "hello\n", "must be a mapping at its root, found a str"),
]


@pytest.mark.parametrize(("label", "text", "message"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_yaml_is_refused(tmp_path: Path, label: str, text: str, message: str) -> None:
    path = write(tmp_path / f"{label}.yaml", text)
    with pytest.raises(DatasetFileError, match=message):
        load_dataset(path, registry=own())


def test_aliases_within_the_bounds_are_data(tmp_path: Path) -> None:
    text = "version: 1\nname: d\ncases:\n  - {name: a, inputs: &q [1, 2], metadata: {q: *q}}\n"
    dataset = load_dataset(write(tmp_path / "d.yaml", text))
    assert dataset.cases[0].metadata == {"q": [1, 2]}


def test_nesting_at_the_bound_loads_and_one_more_level_does_not(tmp_path: Path) -> None:
    # root mapping (1) > cases list (2) > case mapping (3) > inputs ...
    def nested(levels: int) -> str:
        inputs = "[" * levels + "]" * levels
        return f"version: 1\nname: d\ncases:\n  - {{name: a, inputs: {inputs}}}\n"

    load_dataset(write(tmp_path / "ok.yaml", nested(MAX_DEPTH - 3)))
    with pytest.raises(DatasetFileError, match="deeper than"):
        load_dataset(write(tmp_path / "deep.yaml", nested(MAX_DEPTH - 2)))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"version": 1, "name": "d", "cases": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
            "deeper",
        ),
        ('{"version": 1, "name": "d", "cases": [], "x": NaN}', "NaN is not JSON"),
        ('{"version": 1, "name": "d", "name": "e", "cases": []}', "'name' appears twice"),
        ('[{"version": 1}]', "found a list"),
        ("", "not valid JSON"),
    ],
)
def test_hostile_json_is_refused(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(DatasetFileError, match=message):
        load_dataset(write(tmp_path / "d.json", text))


def test_non_utf8_bytes_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_bytes(b"version: 1\nname: caf\xe9\ncases: []\n")
    with pytest.raises(DatasetFileError, match="not UTF-8 text"):
        load_dataset(path)


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as stream:
        stream.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written or read
    with pytest.raises(DatasetFileError, match="over the 16777216-byte limit"):
        load_dataset(path)


def test_unknown_suffix_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetFileError, match=r"unknown file type '\.toml'"):
        load_dataset(write(tmp_path / "d.toml", "version = 1"))
    with pytest.raises(DatasetFileError, match="cannot read"):
        load_dataset(tmp_path / "absent.yaml")


# --- saving -----------------------------------------------------------------------------------


def test_saved_yaml_is_data_only_with_quoted_strings(tmp_path: Path) -> None:
    dataset: Dataset[Any, Any] = Dataset(
        name="capitals",
        cases=(
            Case(name="france", inputs="yes", expected_output="1", metadata={"n": 1, "on": True}),
            Case(name="japan", inputs={"question": "capital"}),
        ),
        evaluators=(Short(), Short(limit=5, tags=["a"], label="short5")),
        trace_evaluators=(NoSpan("execute_tool shell"),),
        report_evaluators=(RateAtLeast(0.9),),
    )
    path = tmp_path / "d.yaml"
    save_dataset(dataset, path)
    assert path.read_text(encoding="utf-8") == (
        "version: 1\n"
        'name: "capitals"\n'
        "evaluators:\n"
        '  - "Short"\n'
        "  - Short:\n"
        "      limit: 5\n"
        "      tags:\n"
        '        - "a"\n'
        '      label: "short5"\n'
        "trace_evaluators:\n"
        "  - NoSpan:\n"
        '      span: "execute_tool shell"\n'
        "report_evaluators:\n"
        "  - RateAtLeast:\n"
        "      minimum: 0.9\n"
        "cases:\n"
        '  - name: "france"\n'
        '    inputs: "yes"\n'
        '    expected_output: "1"\n'
        "    metadata:\n"
        "      n: 1\n"
        '      "on": true\n'
        '  - name: "japan"\n'
        "    inputs:\n"
        '      question: "capital"\n'
    )
    assert [p.name for p in tmp_path.iterdir()] == ["d.yaml"]  # no temporary file left


def test_save_and_load_round_trip_with_the_builtins(tmp_path: Path) -> None:
    dataset = Dataset(
        name="capitals",
        cases=(Case(name="france", inputs="Capital of France?", expected_output="Paris"),),
        evaluators=(ExactMatch(), Contains("paris", case_sensitive=False)),
    )
    for name in ("d.yaml", "d.json"):
        save_dataset(dataset, tmp_path / name)
        assert load_dataset(tmp_path / name) == dataset


def test_typed_inputs_are_saved_as_data_and_validated_back(tmp_path: Path) -> None:
    dataset = Dataset(
        name="typed",
        cases=(Case(name="japan", inputs=Question(question="capital", country="Japan")),),
    )
    save_dataset(dataset, tmp_path / "d.json")
    saved = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert saved["cases"][0]["inputs"] == {"question": "capital", "country": "Japan"}
    assert load_dataset(tmp_path / "d.json", inputs_type=Question) == dataset


class Opaque:
    pass


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (evaluator(lambda ctx: True, name="anything"), "'anything' .*not file-serialisable"),
        (MatchesType(int), "field 'type_' holds the type int, not JSON data"),
        (Short(tags=[Opaque()]), "field 'tags' holds a Opaque"),  # type: ignore[list-item]
    ],
)
def test_evaluators_that_are_not_file_data_are_refused(
    tmp_path: Path, check: Evaluator[Any, Any], message: str
) -> None:
    dataset = Dataset(name="d", cases=(), evaluators=(check,))
    with pytest.raises(DatasetFileError, match=rf"evaluators\[0\]: .*{message}"):
        save_dataset(dataset, tmp_path / "d.yaml")
    assert not (tmp_path / "d.yaml").exists()


def test_case_values_that_are_not_data_are_refused(tmp_path: Path) -> None:
    bad = Dataset(name="d", cases=(Case(name="a", inputs=Opaque()),))
    with pytest.raises(DatasetFileError, match=r"cases\[0\] \('a'\): inputs: not JSON data"):
        save_dataset(bad, tmp_path / "d.json")
    nan = Dataset(name="d", cases=(Case(name="a", inputs="x", metadata={"s": float("nan")}),))
    with pytest.raises(DatasetFileError, match="non-finite number nan"):
        save_dataset(nan, tmp_path / "d.json")


def test_save_to_a_missing_folder_or_unknown_suffix(tmp_path: Path) -> None:
    dataset = Dataset(name="d", cases=())
    with pytest.raises(DatasetFileError, match="cannot write"):
        save_dataset(dataset, tmp_path / "absent" / "d.yaml")
    with pytest.raises(DatasetFileError, match="unknown file type"):
        save_dataset(dataset, tmp_path / "d.txt")


_JSON: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(st.text(min_size=1, max_size=12), min_size=0, max_size=4, unique=True),
    inputs=st.lists(_JSON, min_size=4, max_size=4),
    expected=st.lists(_JSON, min_size=4, max_size=4),
    metadata=st.lists(
        st.dictionaries(st.text(max_size=8), _JSON, max_size=3), min_size=4, max_size=4
    ),
    suffix=st.sampled_from([".yaml", ".json"]),
)
def test_round_trip_property(
    tmp_path: Path,
    names: list[str],
    inputs: list[Any],
    expected: list[Any],
    metadata: list[dict[str, Any]],
    suffix: str,
) -> None:
    dataset = Dataset(
        name="prop",
        cases=tuple(
            Case(name=n, inputs=i, expected_output=e, metadata=m)
            for n, i, e, m in zip(names, inputs, expected, metadata, strict=False)
        ),
        evaluators=(Short(limit=3, tags=["x"]),),
        report_evaluators=(RateAtLeast(0.25),),
    )
    path = tmp_path / f"d{suffix}"
    save_dataset(dataset, path)
    assert load_dataset(path, registry=own()) == dataset
