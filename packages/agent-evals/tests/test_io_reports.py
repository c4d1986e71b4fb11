"""Report files: every durable field of a report survives a save and a load in JSON and in
YAML, values keep their exact type, non-finite scores are written explicitly, and foreign or
malformed files fail with ReportFileError."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from robota.core.agent import Agent
from robota.core.testing.scripted import ScriptedProvider, text, tool_call, usage
from robota.core.tools.base import RiskClass
from robota.core.tools.function import tool
from robota.core.usage import Usage
from robota.evals import (
    Case,
    CaseError,
    CaseResult,
    Dataset,
    EvaluationReport,
    EvaluatorResult,
    ReportAnalysis,
    ReportFileError,
    SpanRecord,
)
from robota.evals.evaluators.builtin import ExactMatch
from robota.evals.evaluators.reports import PassRateAtLeast
from robota.evals.evaluators.trace import SpanAbsent
from robota.evals.io.reports import load_report, save_report
from robota.plugins.telemetry import OpenTelemetrySink

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"
CHILD = "b7ad6b7169203331"


def full_report() -> EvaluationReport:
    """A report using every field, with values that a lax format would change."""
    root = SpanRecord(
        name="invoke_agent assistant",
        trace_id=TRACE,
        span_id=SPAN,
        kind="INTERNAL",
        start_time_ns=1_764_000_000_000_000_000,
        end_time_ns=1_764_000_000_250_000_000,
        status="OK",
        attributes={"gen_ai.operation.name": "invoke_agent", "retries": 0},
    )
    child = SpanRecord(
        name="execute_tool shell",
        trace_id=TRACE,
        span_id=CHILD,
        parent_span_id=SPAN,
        kind="CLIENT",
        start_time_ns=1_764_000_000_100_000_000,
        end_time_ns=1_764_000_000_200_000_000,
        status="ERROR",
        status_description="exit 1",
        attributes={
            "flags": (True, False),
            "sizes": (1, 2, 3),
            "weights": (0.5, 1.0),
            "names": ("a", "b"),
            "empty": (),
            "ratio": 1.0,
            "ok": True,
        },
    )
    first = CaseResult(
        case_index=0,
        name="france",
        repetition=1,
        inputs={"question": "Capital?", "n": 1, "w": 1.0, "flag": True, "none": None},
        expected_output="Paris",
        metadata={"difficulty": "easy", "tags": ["geo"], "nonfinite": "inf"},
        output="Paris",
        attempts=2,
        duration=0.125,
        usage=Usage(
            input_tokens=10,
            output_tokens=5,
            cache_read_tokens=4,
            cache_write_tokens=1,
            reasoning_tokens=2,
            requests=1,
            details={"hosted.web_search": 1},
            partial=True,
        ),
        results=(
            EvaluatorResult(name="ExactMatch", value=True, reason="equal"),
            EvaluatorResult(name="Count", value=1),
            EvaluatorResult(name="Score", value=1.0),
            EvaluatorResult(name="Label", value="1"),
            EvaluatorResult(name="NoShell", source="trace", value=False, attempts=3),
            EvaluatorResult(
                name="Broken",
                error=CaseError(type="builtins.ValueError", message="bad", code=None),
            ),
        ),
        spans=(root, child),
    )
    failed = CaseResult(
        case_index=1,
        name="mars",
        error=CaseError(
            type="robota.core.errors.RateLimitError", message="slow down", code="rate_limited"
        ),
        attempts=3,
        duration=2.5,
    )
    return EvaluationReport(
        name="nightly",
        dataset="capitals",
        cases=(first, failed),
        analyses=(
            ReportAnalysis(name="PassRateAtLeast", assertion=False, value=0.5, unit="ratio"),
            ReportAnalysis(name="Neutral", reason="nothing to say"),
            ReportAnalysis(name="Crashed", error=CaseError(type="x.Y", message="boom")),
        ),
        repetitions=2,
        usage=Usage(input_tokens=10, output_tokens=5, requests=1),
        started_at="2026-12-02T10:00:00Z",
        duration=3.25,
        evaluators=("ExactMatch", "Count", "Score", "Label", "NoShell", "Broken"),
    )


@pytest.mark.parametrize("suffix", [".json", ".yaml", ".yml"])
def test_every_field_round_trips(tmp_path: Path, suffix: str) -> None:
    report = full_report()
    path = tmp_path / f"report{suffix}"
    save_report(report, path)
    loaded = load_report(path)
    assert loaded == report
    values = [type(r.value) for r in loaded.cases[0].results]
    assert values == [bool, int, float, str, bool, type(None)]
    assert loaded.cases[0].spans[1].attributes["empty"] == ()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_json_is_stable_indented_and_typed(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    save_report(full_report(), path)
    first = path.read_bytes()
    save_report(load_report(path), path)
    assert path.read_bytes() == first
    text = first.decode("utf-8")
    assert text.endswith("}\n")
    assert text.startswith('{\n  "version": 1,\n  "kind": "robota.evals.report",\n  "name"')
    document = json.loads(text)
    assert list(document["cases"][0]) == [
        "case_index", "name", "repetition", "inputs", "expected_output", "metadata", "output",
        "error", "attempts", "duration", "usage", "results", "spans",
    ]  # fmt: skip
    assert document["cases"][0]["spans"][1]["parent_span_id"] == SPAN
    assert document["cases"][0]["usage"]["partial"] is True
    # a metadata mapping that looks like a tag is escaped, not read as a number
    assert document["cases"][0]["metadata"]["nonfinite"] == "inf"


def test_yaml_quotes_string_values(tmp_path: Path) -> None:
    path = tmp_path / "report.yaml"
    save_report(full_report(), path)
    text = path.read_text(encoding="utf-8")
    assert 'kind: "robota.evals.report"\n' in text
    assert '  - name: "Label"\n        source: "case"\n        value: "1"\n' in text
    assert '      - name: "Count"\n        source: "case"\n        value: 1\n' in text


def test_non_finite_scores_are_written_explicitly(tmp_path: Path) -> None:
    case = CaseResult(
        case_index=0,
        name="a",
        output=[float("inf"), {"nonfinite": "nan"}],
        duration=float("inf"),
        results=(
            EvaluatorResult(name="Nan", value=float("nan")),
            EvaluatorResult(name="Inf", value=float("inf")),
            EvaluatorResult(name="NegInf", value=float("-inf")),
        ),
    )
    report = EvaluationReport(name="r", dataset="d", cases=(case,))
    for suffix in (".json", ".yaml"):
        path = tmp_path / f"r{suffix}"
        save_report(report, path)
        loaded = load_report(path).cases[0]
        assert math.isnan(loaded.results[0].value)  # type: ignore[arg-type]
        assert [r.value for r in loaded.results[1:]] == [math.inf, -math.inf]
        assert loaded.output == [math.inf, {"nonfinite": "nan"}]
        assert loaded.duration == math.inf
    document = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [r["value"] for r in document["cases"][0]["results"]] == [
        {"nonfinite": "nan"},
        {"nonfinite": "inf"},
        {"nonfinite": "-inf"},
    ]
    assert document["cases"][0]["output"] == [
        {"nonfinite": "inf"},
        {"literal": {"nonfinite": "nan"}},
    ]


@tool(risk=RiskClass.INSPECT)
def shell(cmd: str) -> str:
    """Run a command.

    Args:
        cmd: The command.
    """
    return f"ran {cmd}"


@pytest.mark.anyio
async def test_a_real_runs_report_round_trips_with_its_spans(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    provider = ScriptedProvider(
        [
            [tool_call("c1", "shell", {"cmd": "ls"}), usage(input_tokens=9, output_tokens=2)],
            [text("Paris"), usage(input_tokens=12, output_tokens=1)],
        ]
    )
    agent = Agent(provider, tools=[shell], sinks=[OpenTelemetrySink(tracer_provider)])
    dataset = Dataset(
        name="capitals",
        cases=(Case(name="france", inputs="Capital of France?", expected_output="Paris"),),
        evaluators=(ExactMatch(),),
        trace_evaluators=(SpanAbsent(span_name="execute_tool shell"),),
        report_evaluators=(PassRateAtLeast(1.0),),
    )
    report = await dataset.evaluate(agent)
    assert report.cases[0].spans, "the run captured spans"
    assert report.usage.input_tokens == 21
    for suffix in (".json", ".yaml"):
        save_report(report, tmp_path / f"r{suffix}")
        assert load_report(tmp_path / f"r{suffix}") == report


def test_span_ids_must_be_lowercase_hex(tmp_path: Path) -> None:
    span = SpanRecord(name="chat", trace_id=TRACE.upper(), span_id=SPAN)
    report = EvaluationReport(
        name="r", dataset="d", cases=(CaseResult(case_index=0, name="a", spans=(span,)),)
    )
    with pytest.raises(ReportFileError, match=r"cases\[0\].spans\[0\].trace_id: .* 32 lowercase"):
        save_report(report, tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()


class Opaque:
    pass


def test_values_that_are_not_data_are_refused(tmp_path: Path) -> None:
    report = EvaluationReport(
        name="r", dataset="d", cases=(CaseResult(case_index=0, name="a", output=Opaque()),)
    )
    with pytest.raises(ReportFileError, match=r"cases\[0\].output: a Opaque is not JSON data"):
        save_report(report, tmp_path / "r.json")
    with pytest.raises(ReportFileError, match="unknown file type"):
        save_report(full_report(), tmp_path / "r.txt")


def _edit(document: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    target: Any = document
    *path, last = dotted.split(".")
    for part in path:
        target = target[int(part)] if part.isdigit() else target[part]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value
    return document


_DELETE = object()
MALFORMED: list[tuple[str, Any, str]] = [
    ("kind", "robota.evals.comparison", "not a report file"),
    ("kind", _DELETE, r"not a report file \(kind None"),
    ("version", 2, "report version 2 is not supported; .* version 1"),
    ("version", "1", "report version '1' is not supported"),
    ("extra", 1, "extra: unknown key"),
    ("cases.0.extra", 1, r"cases\[0\].extra: unknown key"),
    ("cases.0.results.0.extra", 1, r"cases\[0\].results\[0\].extra: unknown key"),
    ("cases.0.spans.0.extra", 1, r"spans\[0\].extra: unknown key"),
    ("usage.extra", 1, "usage.extra: unknown key"),
    ("analyses.0.extra", 1, r"analyses\[0\].extra: unknown key"),
    ("cases.0.usage", _DELETE, r"cases\[0\].usage: Field required"),
    ("cases.0.case_index", "0", r"cases\[0\].case_index: Input should be a valid integer"),
    ("cases.0.results.0.value", {"nonfinite": "big"}, r"results\[0\].value"),
    ("cases.0.output", {"nonfinite": "big"}, r"cases\[0\].output: nonfinite is 'big'"),
    ("cases.0.output", {"literal": 3}, r"cases\[0\].output: literal holds 3"),
    ("cases.0.spans.0.span_id", "00F067AA0BA902B7", r"spans\[0\].span_id: String should match"),
    ("cases.0.spans.0.status", "FINE", r"spans\[0\].status"),
    ("analyses.0.value", "0.5", r"analyses\[0\].value"),
]


@pytest.mark.parametrize(("where", "value", "message"), MALFORMED)
def test_malformed_reports_are_refused(
    tmp_path: Path, where: str, value: Any, message: str
) -> None:
    good = tmp_path / "good.json"
    save_report(full_report(), good)
    document = _edit(json.loads(good.read_text(encoding="utf-8")), where, value)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ReportFileError, match=message):
        load_report(bad)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("r.json", b"", "not valid JSON"),
        ("r.json", b"[1, 2]", "found a list"),
        ("r.yaml", b"kind: \xff\n", "not UTF-8"),
        ("r.yaml", b"kind: !!python/name:os.system\n", "could not determine a constructor"),
        ("r.yaml", b"a: &a [*a]\n", "cycle"),
        ("r.json", b'{"version": 1, "version": 1}', "appears twice"),
    ],
)
def test_foreign_files_are_refused(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ReportFileError, match=message):
        load_report(path)


def test_saving_replaces_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("old", encoding="utf-8")
    save_report(full_report(), path)
    assert load_report(path) == full_report()


# --- property: any report round-trips ---------------------------------------------------------

_FLOATS = st.floats(allow_nan=False)
_DATA: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | _FLOATS | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
_ERRORS = st.none() | st.builds(
    CaseError, type=st.text(max_size=20), message=st.text(), code=st.none() | st.text(max_size=9)
)
_USAGE = st.builds(
    Usage,
    input_tokens=st.integers(0, 10**9),
    output_tokens=st.integers(0, 10**9),
    cache_read_tokens=st.integers(0, 99),
    cache_write_tokens=st.integers(0, 99),
    reasoning_tokens=st.integers(0, 99),
    requests=st.integers(0, 99),
    details=st.dictionaries(st.text(max_size=12), st.integers(0, 99), max_size=2),
    partial=st.booleans(),
)
_HEX = "0123456789abcdef"
_ATTRIBUTE = (
    st.text()
    | st.booleans()
    | st.integers()
    | _FLOATS
    | st.lists(st.text(), max_size=3).map(tuple)
    | st.lists(st.booleans(), min_size=1, max_size=3).map(tuple)
    | st.lists(st.integers(), min_size=1, max_size=3).map(tuple)
    | st.lists(_FLOATS, min_size=1, max_size=3).map(tuple)
)
_SPANS = st.builds(
    SpanRecord,
    name=st.text(max_size=30),
    trace_id=st.text(_HEX, min_size=32, max_size=32),
    span_id=st.text(_HEX, min_size=16, max_size=16),
    parent_span_id=st.none() | st.text(_HEX, min_size=16, max_size=16),
    kind=st.sampled_from(["INTERNAL", "CLIENT"]),
    start_time_ns=st.integers(0, 2**63),
    end_time_ns=st.integers(0, 2**63),
    status=st.sampled_from(["UNSET", "OK", "ERROR"]),
    status_description=st.none() | st.text(),
    attributes=st.dictionaries(st.text(max_size=12), _ATTRIBUTE, max_size=3),
)
_RESULTS = st.builds(
    EvaluatorResult,
    name=st.text(max_size=12),
    source=st.sampled_from(["case", "trace"]),
    value=st.none() | st.booleans() | st.integers() | _FLOATS | st.text(),
    reason=st.none() | st.text(),
    error=_ERRORS,
    attempts=st.integers(1, 5),
)
_CASES = st.builds(
    CaseResult,
    case_index=st.integers(0, 99),
    name=st.text(max_size=12),
    repetition=st.integers(0, 9),
    inputs=_DATA,
    expected_output=_DATA,
    metadata=st.dictionaries(st.text(max_size=8), _DATA, max_size=3),
    output=_DATA,
    error=_ERRORS,
    attempts=st.integers(1, 5),
    duration=st.floats(min_value=0, allow_nan=False),
    usage=_USAGE,
    results=st.lists(_RESULTS, max_size=3).map(tuple),
    spans=st.lists(_SPANS, max_size=2).map(tuple),
)
_ANALYSES = st.builds(
    ReportAnalysis,
    name=st.text(max_size=12),
    assertion=st.none() | st.booleans(),
    value=st.none() | st.floats(allow_nan=False, allow_infinity=False),
    unit=st.none() | st.text(max_size=5),
    reason=st.none() | st.text(),
    error=_ERRORS,
)
REPORTS = st.builds(
    EvaluationReport,
    name=st.text(max_size=12),
    dataset=st.text(max_size=12),
    cases=st.lists(_CASES, max_size=3).map(tuple),
    analyses=st.lists(_ANALYSES, max_size=2).map(tuple),
    repetitions=st.integers(1, 5),
    usage=_USAGE,
    started_at=st.text(max_size=20),
    duration=st.floats(min_value=0, allow_nan=False),
    evaluators=st.lists(st.text(max_size=8), max_size=3).map(tuple),
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(report=REPORTS, suffix=st.sampled_from([".json", ".yaml"]))
def test_round_trip_property(tmp_path: Path, report: EvaluationReport, suffix: str) -> None:
    path = tmp_path / f"r{suffix}"
    save_report(report, path)
    loaded = load_report(path)
    assert loaded == report
    assert repr(loaded) == repr(report)  # bool stays bool, 1 stays 1, 1.0 stays 1.0
