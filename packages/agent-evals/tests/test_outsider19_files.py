"""Outsider attacks on dataset and report files (``robota.evals.io``), issue #19.

A hostile dataset author, a corrupted or foreign report file, and a crash in the middle of a
write. Every test runs the real loader/writer and checks what reaches disk or what is raised.
``# HELD``: the code resisted. ``# HOLE``: the promise breaks (kept failing as a strict xfail).
``# HELD (fixed)``: a hole that was fixed; the test now guards the fix.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from robota.core.usage import Usage
from robota.evals import (
    AmbiguousEvaluatorError,
    Case,
    CaseResult,
    Contains,
    Dataset,
    DatasetFileError,
    EvaluationReport,
    EvaluatorNotFoundError,
    EvaluatorRegistry,
    EvaluatorResult,
    ExactMatch,
    MatchesSchema,
    MatchesType,
    PassRateAtLeast,
    ReportAnalysis,
    ReportFileError,
    SpanAbsent,
    SpanRecord,
    compare,
    load_dataset,
    load_report,
    save_comparison,
    save_dataset,
    save_report,
)

BODY = "name: x\ncases:\n  - name: a\n    inputs: hi\n"
"""A valid dataset document without its version line."""


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _no_temporaries(folder: Path) -> None:
    leftovers = [p.name for p in folder.iterdir() if p.name.startswith(".")]
    assert leftovers == []


async def _echo(inputs: Any) -> Any:
    return inputs


# --- dataset files carrying code or behaviour --------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "!!python/object/apply:os.system ['echo PWNED']",
        "!!python/name:os.system",
        "!!python/object/new:subprocess.Popen [['true']]",
        "!!binary aGk=",
        "!!set {a, b}",
        "!!timestamp 2020-01-01",
        "!!omap [a: 1]",
        "!!float .nan",
        ".inf",
        "-.inf",
        "{1: x}",
        "{null: x}",
        "{[1]: x}",
    ],
)
def test_yaml_tags_and_non_json_values_are_refused(tmp_path: Path, value: str) -> None:
    # HELD: python tags never construct, other safe tags and non-string keys are refused.
    path = _write(
        tmp_path / "d.yaml", f"version: 1\nname: x\ncases:\n  - name: a\n    inputs: {value}\n"
    )
    with pytest.raises(DatasetFileError):
        load_dataset(path)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_non_finite_constants_are_refused(tmp_path: Path, constant: str) -> None:
    # HELD
    path = _write(
        tmp_path / "d.json",
        '{"version": 1, "name": "x", "cases": [{"name": "a", "inputs": ' + constant + "}]}",
    )
    with pytest.raises(DatasetFileError, match="not JSON"):
        load_dataset(path)


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        ("yaml", 'version: 1\nname: x\n"name": y\ncases: []\n'),
        ("yaml", "version: 1\nname: x\ncases:\n  - name: a\n    inputs: hi\n    ? name\n    : b\n"),
        ("json", '{"version": 1, "name": "x", "name": "y", "cases": []}'),
        (
            "json",
            '{"version": 1, "name": "x", "cases": [{"name": "a", "inputs": {"k": 1, "k": 2}}]}',
        ),
    ],
)
def test_duplicate_keys_are_refused(tmp_path: Path, suffix: str, text: str) -> None:
    # HELD
    with pytest.raises(DatasetFileError, match="twice"):
        load_dataset(_write(tmp_path / f"d.{suffix}", text))


def test_a_list_alias_bomb_is_refused_before_it_is_built(tmp_path: Path) -> None:
    # HELD: the classic billion laughs (nested lists of aliases) is counted.
    lines = ["version: 1", "name: x", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    path = _write(tmp_path / "bomb.yaml", "\n".join(lines) + "\n" + BODY)
    with pytest.raises(DatasetFileError, match="expands to more than"):
        load_dataset(path)


def test_a_cyclic_alias_is_refused(tmp_path: Path) -> None:
    # HELD
    path = _write(
        tmp_path / "c.yaml", "version: 1\nname: x\ncases: &c\n  - name: a\n    inputs: *c\n"
    )
    with pytest.raises(DatasetFileError):
        load_dataset(path)


def test_aliases_of_a_big_string_do_not_expand_past_the_file_bound(tmp_path: Path) -> None:
    # HELD (fixed): the alias bound counts the characters of every scalar too (MAX_TEXT, the
    # file bound). Was: a 1.3 MB file whose 20 000 cases alias one 1 MiB string loaded as
    # 20 GiB of inputs; the "billion laughs" bound only counted values.
    big = "x" * (1024 * 1024)
    lines = ["version: 1", "name: x", "cases:", f'  - name: a0\n    inputs: &s "{big}"']
    lines += [f"  - {{name: a{i}, inputs: *s}}" for i in range(1, 20_000)]
    path = _write(tmp_path / "amplified.yaml", "\n".join(lines) + "\n")
    assert path.stat().st_size < 2 * 1024 * 1024
    with pytest.raises(DatasetFileError, match="characters of text"):
        load_dataset(path)
    # a few aliases of the same string stay well within the bound
    few = ["version: 1", "name: x", "cases:", f'  - name: a0\n    inputs: &s "{big}"']
    few += [f"  - {{name: a{i}, inputs: *s}}" for i in range(1, 4)]
    loaded = load_dataset(_write(tmp_path / "few.yaml", "\n".join(few) + "\n"))
    assert [len(case.inputs) for case in loaded.cases] == [len(big)] * 4


@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_deep_nesting_is_refused_without_a_crash(tmp_path: Path, suffix: str) -> None:
    # HELD: 200 000 levels do not overflow the stack, 65 are refused.
    deep = "[" * 200_000 + "]" * 200_000
    head = '{"version": 1, "name": "x", "cases": [{"name": "a", "inputs": '
    text = (
        head + deep + "}]}"
        if suffix == "json"
        else f"version: 1\n{BODY}    metadata: {{k: {deep}}}\n"
    )
    with pytest.raises(DatasetFileError, match="nested deeper"):
        load_dataset(_write(tmp_path / f"deep.{suffix}", text))
    shallow = "[" * 65 + "]" * 65
    with pytest.raises(DatasetFileError, match="nested deeper"):
        load_dataset(_write(tmp_path / f"d65.{suffix}", head + shallow + "}]}"))


@pytest.mark.parametrize(
    "option",
    [
        "options: {retry: 3}",
        "run_options: {max_concurrency: 2}",
        "retry: 3",
        "deps: {db: x}",
        "model_settings: {temperature: 0}",
        "timeout: 1",
        "repetitions: 5",
        "task: os:system",
        "evaluators: [ExactMatch]",
        "<<: {options: {retry: 3}}",
    ],
)
def test_per_case_run_options_under_any_name_are_refused(tmp_path: Path, option: str) -> None:
    # HELD: a case holds only name, inputs, expected_output, metadata (a merge key too).
    path = _write(
        tmp_path / "d.yaml",
        f"version: 1\nname: x\ncases:\n  - name: a\n    inputs: hi\n    {option}\n",
    )
    refusal = "case-level evaluators are not supported" if "evaluators" in option else "unknown key"
    with pytest.raises(DatasetFileError, match=refusal):
        load_dataset(path)


@pytest.mark.parametrize(
    "version", ["2", "0", "-1", '"1"', "'1'", "true", "null", "[1]", "1.5", "{v: 1}"]
)
def test_unknown_dataset_versions_are_refused(tmp_path: Path, version: str) -> None:
    # HELD
    with pytest.raises(DatasetFileError, match="version"):
        load_dataset(_write(tmp_path / "d.yaml", f"version: {version}\n{BODY}"))


def test_a_missing_dataset_version_is_refused(tmp_path: Path) -> None:
    # HELD
    with pytest.raises(DatasetFileError, match="version"):
        load_dataset(_write(tmp_path / "d.yaml", BODY))


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        ("yaml", f"version: 1.0\n{BODY}"),
        ("json", '{"version": 1.0, "name": "x", "cases": [{"name": "a", "inputs": "hi"}]}'),
    ],
    ids=["yaml", "json"],
)
def test_dataset_version_one_point_zero_is_refused(tmp_path: Path, suffix: str, text: str) -> None:
    # HELD (fixed): the version must be the integer 1 (``type(version) is int``). Was:
    # ``version: 1.0`` passed both the ``!= 1`` guard and the strict ``Literal[1]``.
    with pytest.raises(DatasetFileError, match=r"version 1\.0 is not supported"):
        load_dataset(_write(tmp_path / f"d.{suffix}", text))


def test_bom_and_crlf_read_as_the_plain_file(tmp_path: Path) -> None:
    # HELD
    plain = load_dataset(_write(tmp_path / "p.yaml", f"version: 1\n{BODY}"))
    bom = load_dataset(
        _write(tmp_path / "b.yaml", b"\xef\xbb\xbf" + f"version: 1\n{BODY}".encode())
    )
    crlf = load_dataset(_write(tmp_path / "c.yaml", f"version: 1\n{BODY}".replace("\n", "\r\n")))
    assert plain.cases == bom.cases == crlf.cases


@pytest.mark.parametrize(
    "raw",
    [
        f"version: 1\n{BODY}".encode("utf-16"),
        f"version: 1\n{BODY}".encode("utf-32"),
        f"version: 1\n{BODY}".encode() + b"\xff\xfe",
        b"version: 1\nname: \xc0\xaf\n" + BODY.split("\n", 1)[1].encode(),
    ],
)
def test_non_utf8_files_are_refused(tmp_path: Path, raw: bytes) -> None:
    # HELD
    with pytest.raises(DatasetFileError, match="UTF-8"):
        load_dataset(_write(tmp_path / "d.yaml", raw))


def test_a_directory_or_a_device_given_as_a_path_fails_cleanly(tmp_path: Path) -> None:
    # HELD: a directory is an error; a symlink to an endless device is bounded.
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    with pytest.raises(DatasetFileError):
        load_dataset(folder)
    with pytest.raises(ReportFileError):
        load_report(folder)
    zero = tmp_path / "zero.yaml"
    zero.symlink_to("/dev/zero")
    with pytest.raises(DatasetFileError):
        load_dataset(zero)
    target = _write(tmp_path / "real.yaml", f"version: 1\n{BODY}")
    link = tmp_path / "link.yml"
    link.symlink_to(target)
    assert load_dataset(link).cases == load_dataset(target).cases


# --- evaluator specs --------------------------------------------------------------------------


def _with_evaluators(
    tmp_path: Path, specs: str, key: str = "evaluators", inputs: str = "hi"
) -> Path:
    return _write(
        tmp_path / "d.yaml",
        f"version: 1\nname: x\n{key}: {specs}\ncases:\n  - name: a\n    inputs: {inputs}\n",
    )


@pytest.mark.parametrize(
    "specs",
    [
        "[[ExactMatch]]",
        "[5]",
        "[null]",
        "[{}]",
        "[{ExactMatch: null, Contains: {value: a}}]",
        "[{ExactMatch: [1]}]",
        "[{Contains: {value: x, __class__: 1}}]",
        "[{MatchesSchema: {schema: {type: 5}}}]",
        '[{MatchesSchema: {schema: {"$schema": [1]}}}]',
        '[{MaxTokens: "100"}]',
        "[{MaxCost: true}]",
        "[{PassRateAtLeast: 2}]",
        "[SpanAbsent]",
        "[PassRateAtLeast]",
        "[ExactMatch, ExactMatch]",
        "[ExactMatch, {Contains: {value: a, evaluation_name: ExactMatch}}]",
    ],
)
def test_odd_evaluator_specs_are_dataset_file_errors(tmp_path: Path, specs: str) -> None:
    # HELD: odd shapes, bad arguments, kinds in the wrong list, duplicate names.
    with pytest.raises(DatasetFileError):
        load_dataset(_with_evaluators(tmp_path, specs))


@pytest.mark.parametrize(
    "name", ["os.system", "builtins.eval", "subprocess:run", "__import__", "ExactMatch "]
)
def test_dotted_and_module_names_are_never_imported(tmp_path: Path, name: str) -> None:
    # HELD: names resolve only against the registry; nothing is imported.
    import sys

    before = set(sys.modules)
    with pytest.raises(EvaluatorNotFoundError):
        load_dataset(_with_evaluators(tmp_path, f'["{name}"]'))
    assert {m for m in set(sys.modules) - before if m.startswith(("subprocess", "os"))} == set()


def test_close_names_are_hinted_and_ambiguous_names_refused(tmp_path: Path) -> None:
    # HELD
    with pytest.raises(EvaluatorNotFoundError, match="did you mean ExactMatch"):
        load_dataset(_with_evaluators(tmp_path, "[exactmatch]"))

    registry = EvaluatorRegistry()

    def shadow(value: str) -> ExactMatch:
        return ExactMatch(evaluation_name=value)

    registry.register(shadow, name="Contains")
    with pytest.raises(AmbiguousEvaluatorError):
        load_dataset(_with_evaluators(tmp_path, "[{Contains: {value: a}}]"), registry=registry)


def test_a_registry_factory_that_is_not_an_evaluator_is_refused(tmp_path: Path) -> None:
    # HELD
    def shell(command: str = "true") -> dict[str, str]:
        return {"command": command}

    registry = EvaluatorRegistry([shell])  # pyright: ignore[reportArgumentType]
    with pytest.raises(DatasetFileError, match="does not belong"):
        load_dataset(_with_evaluators(tmp_path, "[shell]"), registry=registry)
    with pytest.raises(DatasetFileError, match="does not belong"):
        load_dataset(_with_evaluators(tmp_path, "[ExactMatch]", key="report_evaluators"))


def test_a_non_string_evaluation_name_cannot_poison_the_report(tmp_path: Path) -> None:
    # HELD (fixed): evaluation_name must be a non-empty string (TypeError/ValueError at
    # construction, a DatasetFileError when loading), and save_report checks the report schema
    # before writing. Was: ``{ExactMatch: {evaluation_name: 5}}`` loaded, save_report wrote the
    # results keyed by the int 5 and load_report then refused the CI baseline.
    for spec in ("[{ExactMatch: {evaluation_name: 5}}]", '[{ExactMatch: {evaluation_name: ""}}]'):
        with pytest.raises(DatasetFileError, match="evaluation_name"):
            load_dataset(_with_evaluators(tmp_path, spec))
    with pytest.raises(TypeError, match="evaluation_name"):
        ExactMatch(evaluation_name=5)  # pyright: ignore[reportArgumentType]

    class Numbered(ExactMatch):
        @property
        def name(self) -> str:
            return 5  # pyright: ignore[reportReturnType]

    registry = EvaluatorRegistry([Numbered])
    with pytest.raises(DatasetFileError, match="non-empty string"):
        load_dataset(_with_evaluators(tmp_path, "[Numbered]"), registry=registry)
    report = Dataset(
        name="x", cases=(Case(name="a", inputs="hi"),), evaluators=(Numbered(),)
    ).evaluate_sync(_echo)
    saved = tmp_path / "report.json"
    with pytest.raises(ReportFileError, match="report file schema"):
        save_report(report, saved)
    assert not saved.exists()


class _Recorder(BaseHTTPRequestHandler):
    hits: list[str] = []  # noqa: RUF012 - shared with the test through the class

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        body = json.dumps({"enum": ["TOPSECRET-from-server"]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


@pytest.fixture
def loopback() -> Iterator[tuple[str, list[str]]]:
    _Recorder.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Recorder.hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_schema_ref_in_a_dataset_file_makes_no_request(
    tmp_path: Path, loopback: tuple[str, list[str]]
) -> None:
    # HELD (fixed): a reference that does not start with '#' is refused when the file loads, and
    # validation runs with an empty referencing registry (no retrieval). Was: jsonschema's
    # deprecated automatic retrieval made CI issue HTTP GETs to any URL a dataset named.
    url, hits = loopback
    path = _with_evaluators(
        tmp_path, f"[{{MatchesSchema: {{schema: {{$ref: '{url}/s.json'}}}}}}]", inputs="'\"nope\"'"
    )
    with pytest.raises(DatasetFileError, match="not inside the schema"):
        load_dataset(path)
    for keyword in ("$dynamicRef", "$recursiveRef"):
        with pytest.raises(ValueError, match="not inside the schema"):
            MatchesSchema({"items": {keyword: f"{url}/s.json"}})
    # a reference inside the schema still works, even under a remote-looking $id
    local = MatchesSchema(
        {"$id": f"{url}/root.json", "$defs": {"s": {"enum": ["ok"]}}, "$ref": "#/$defs/s"}
    )
    dataset = Dataset(name="x", cases=(Case(name="a", inputs='"nope"'),), evaluators=(local,))
    [result] = dataset.evaluate_sync(_echo).cases[0].results
    assert result.value is False
    assert "'ok'" in (result.reason or "")
    # and were a remote reference to get past construction, nothing would be fetched
    forced = MatchesSchema({"type": "string"})
    object.__setattr__(forced, "schema", {"$ref": f"{url}/s.json"})
    dataset = Dataset(name="x", cases=(Case(name="a", inputs='"nope"'),), evaluators=(forced,))
    [result] = dataset.evaluate_sync(_echo).cases[0].results
    assert result.error is not None
    assert hits == []


def test_a_file_schema_ref_does_not_leak_a_local_file_into_the_report(tmp_path: Path) -> None:
    # HELD (fixed): a ``file:`` (or relative) reference is refused when the file loads, and
    # nothing is read to resolve one. Was: ``$ref: file:///...`` was read at evaluation time and
    # an ``enum`` copied the file's values into the saved report (a CI artifact).
    secret = _write(tmp_path / "secret.json", json.dumps({"enum": ["TOPSECRET-local-file"]}))
    for target in (secret.as_uri(), "secret.json"):
        spec = f"[{{MatchesSchema: {{schema: {{$ref: '{target}'}}}}}}]"
        path = _with_evaluators(tmp_path, spec, inputs="'\"nope\"'")
        with pytest.raises(DatasetFileError, match="not inside the schema") as caught:
            load_dataset(path)
        assert "TOPSECRET" not in str(caught.value)


# --- dataset round trips ----------------------------------------------------------------------

RICH = """\
version: 1
name: "rich: yes"
evaluators:
  - ExactMatch
  - {Contains: {value: "Paris", case_sensitive: false, evaluation_name: "has paris"}}
  - {MatchesSchema: {schema: {type: object, required: [city], properties: {city: {type: string}}}}}
trace_evaluators:
  - {SpanAbsent: {span_name: "execute_tool shell"}}
report_evaluators:
  - {PassRateAtLeast: 0.9}
cases:
  - name: "null"
    inputs: null
  - name: "yes"
    inputs: {"<<": 1, "~": null, "y": "no", "": [1, 1.0, true, "1", -0.0, 1.0e+308, 123456789012345678901234567890]}
    expected_output: "\\u2028 \\x85 \\ufeff \\t\\r\\n trailing "
    metadata: {nonfinite: nan, literal: {nonfinite: inf}, nested: {a: [[], {}]}}
  - name: "日本"
    inputs: "2026-01-01"
"""


@pytest.mark.parametrize("suffix", ["json", "yaml", "yml"])
def test_save_load_save_is_a_fixed_point(tmp_path: Path, suffix: str) -> None:
    # HELD: load -> save -> load gives equal cases and evaluators, and saving twice is byte-stable.
    source = _write(tmp_path / "src.yaml", RICH)
    first = load_dataset(source)
    out = tmp_path / f"out.{suffix}"
    save_dataset(first, out)
    second = load_dataset(out)
    assert second.cases == first.cases
    assert second.evaluators == first.evaluators
    assert second.trace_evaluators == first.trace_evaluators
    assert second.report_evaluators == first.report_evaluators
    assert second.name == first.name
    again = tmp_path / f"again.{suffix}"
    save_dataset(second, again)
    assert again.read_bytes() == out.read_bytes()
    inputs = second.cases[1].inputs
    assert isinstance(inputs, dict)
    values: list[Any] = inputs[""]
    assert [type(v) for v in values] == [int, float, bool, str, float, float, int]
    assert math.copysign(1.0, values[4]) == -1.0
    assert second.cases[2].inputs == "2026-01-01"


def test_saving_a_non_serialisable_evaluator_fails_and_keeps_the_old_file(tmp_path: Path) -> None:
    # HELD
    out = tmp_path / "d.yaml"
    save_dataset(Dataset(name="x", cases=(Case(name="a", inputs="hi"),)), out)
    before = out.read_bytes()
    for check in (MatchesType(int), Contains(value=object())):  # pyright: ignore[reportArgumentType]
        broken = Dataset(name="x", cases=(Case(name="a", inputs="hi"),), evaluators=(check,))
        with pytest.raises(DatasetFileError, match="not file-serialisable"):
            save_dataset(broken, out)
    with pytest.raises(DatasetFileError):
        save_dataset(Dataset(name="x", cases=(Case(name="a", inputs=float("nan")),)), out)
    assert out.read_bytes() == before
    _no_temporaries(tmp_path)


def test_a_lone_surrogate_in_json_is_the_documented_file_error(tmp_path: Path) -> None:
    # HELD (fixed): a lone surrogate in JSON text is the documented file error, and nothing is
    # written. Was: a bare UnicodeEncodeError from save_dataset/save_report to .json (YAML
    # escapes it and still saves).
    text = "report of \udcff.txt"
    dataset = Dataset(name="x", cases=(Case(name="a", inputs=text),))
    report = EvaluationReport(
        name="r", dataset="x", cases=(CaseResult(case_index=0, name="a", output=text),)
    )
    save_dataset(dataset, tmp_path / "ok.yaml")
    save_report(report, tmp_path / "ok.yaml")
    assert load_report(tmp_path / "ok.yaml").cases[0].output == text
    with pytest.raises(DatasetFileError, match="lone surrogate U\\+DCFF"):
        save_dataset(dataset, tmp_path / "d.json")
    with pytest.raises(ReportFileError, match="lone surrogate U\\+DCFF"):
        save_report(report, tmp_path / "r.json")
    assert not (tmp_path / "d.json").exists()
    assert not (tmp_path / "r.json").exists()
    _no_temporaries(tmp_path)


def test_json_numbers_read_the_same_from_a_yaml_file(tmp_path: Path) -> None:
    # HELD (fixed): the YAML loader adds YAML 1.2's exponent float rule. Was: PyYAML's YAML 1.1
    # rule made ``1e3``/``1E-5`` strings, so the same JSON text read differently by suffix.
    text = '{"version": 1, "name": "x", "cases": [{"name": "a", "inputs": "q", "expected_output": 1e3}]}'
    as_json = load_dataset(_write(tmp_path / "d.json", text))
    as_yaml = load_dataset(_write(tmp_path / "d.yaml", text))
    assert as_yaml.cases[0].expected_output == as_json.cases[0].expected_output == 1000.0
    numbers = '[1e3, 1E-5, -2.5e+2, 1.0e5, .5e1, 7, "1e3", 1e, e3, 1_0e3]'
    inputs = f'{{"version": 1, "name": "x", "cases": [{{"name": "a", "inputs": {numbers}}}]}}'
    from_yaml = load_dataset(_write(tmp_path / "n.yaml", inputs)).cases[0].inputs
    assert from_yaml == [1000.0, 1e-5, -250.0, 100000.0, 5.0, 7, "1e3", "1e", "e3", "1_0e3"]
    assert [type(v) for v in from_yaml[:6]] == [float] * 5 + [int]


# --- report files -----------------------------------------------------------------------------

_SPAN = SpanRecord(
    name="chat gpt-4o",
    trace_id="0af7651916cd43dd8448eb211c80319c",
    span_id="b7ad6b7169203331",
    parent_span_id=None,
    kind="CLIENT",
    start_time_ns=1,
    end_time_ns=2,
    status="ERROR",
    status_description="✗ boom",
    attributes={
        "ints": (1, 2),
        "floats": (1.0, 2.0),
        "empty": (),
        "bools": (True, False),
        "nan": float("nan"),
        "mixed_nonfinite": (float("inf"), 1.0),
        "big": 2**63 - 1,
        "negzero": -0.0,
        "max": 1e308,
        **{f"gen_ai.k{i}": f"v{i}" for i in range(500)},
    },
)
_ODD: list[tuple[Any, Any]] = [
    (True, {"nonfinite": "nan"}),
    (False, {"literal": {"nonfinite": "nan"}}),
    (1, {"literal": 1}),
    (1.0, {"nonfinite": float("nan")}),
    (-0.0, {"literal": {"literal": {}}}),
    (1e308, [{"nonfinite": "inf"}]),
    (5e-324, {"nonfinite": 1}),
    (float("nan"), {"a": {"literal": None}}),
    (float("inf"), float("nan")),
    (float("-inf"), {"x": -0.0}),
    (10**30, 10**100),
    (-(10**30), {"": 1, "日本": "\u2028"}),
    ("1", {"literal": {"nonfinite": {"nonfinite": "-inf"}}}),
    ("", {"nonfinite": "nan", "other": 1}),
]


def _odd_report() -> EvaluationReport:
    cases = tuple(
        CaseResult(
            case_index=i,
            name=f"c{i}",
            output=output,
            metadata={"literal": i} if i % 2 else {"nonfinite": "inf"},
            results=(EvaluatorResult(name="E", value=value, reason="\x00\x1b[31m"),),
            spans=(_SPAN,) if i == 0 else (),
            usage=Usage(input_tokens=10**20, details={"x": i}),
        )
        for i, (value, output) in enumerate(_ODD)
    )
    return EvaluationReport(
        name="odd",
        dataset="d",
        cases=cases,
        analyses=(ReportAnalysis(name="A", value=-0.0, assertion=None, unit="ratio"),),
        usage=Usage(input_tokens=10**20, partial=True),
        duration=float("nan"),
        started_at="2026-12-02T10:00:00Z",
    )


def _same(left: Any, right: Any) -> bool:
    """Equal with NaN equal to NaN, the sign of zero and bool/int/float kept apart."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float):
        if math.isnan(left):
            return math.isnan(right)
        return left == right and math.copysign(1.0, left) == math.copysign(1.0, right)
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_same(v, right[k]) for k, v in left.items())  # pyright: ignore[reportUnknownVariableType, reportUnknownMemberType]
    if isinstance(left, list | tuple):
        return len(left) == len(right) and all(
            _same(a, b) for a, b in zip(left, right, strict=True)
        )  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return bool(left == right)


@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_odd_report_values_survive_a_round_trip(tmp_path: Path, suffix: str) -> None:
    # HELD: bool/int/float kept apart, -0.0, NaN/inf scores, huge ints, tag-shaped outputs.
    report = _odd_report()
    path = tmp_path / f"r.{suffix}"
    save_report(report, path)
    loaded = load_report(path)
    for mine, theirs in zip(report.cases, loaded.cases, strict=True):
        assert _same(mine.results[0].value, theirs.results[0].value), mine.case_index
        expected = (
            json.loads(json.dumps(mine.output)) if isinstance(mine.output, tuple) else mine.output
        )
        assert _same(expected, theirs.output), mine.case_index
        assert _same(dict(mine.metadata), dict(theirs.metadata))
        assert mine.usage == theirs.usage
        for a, b in zip(mine.spans, theirs.spans, strict=True):
            assert a.attributes.keys() == b.attributes.keys()
            for key, value in a.attributes.items():
                assert _same(value, b.attributes[key]), key
    assert math.isnan(loaded.duration)
    value = loaded.analyses[0].value
    assert value is not None
    assert math.copysign(1.0, value) == -1.0
    again = tmp_path / f"again.{suffix}"
    save_report(loaded, again)
    assert again.read_bytes() == path.read_bytes()


_POP = object()
"""Remove the key instead of setting it."""


@pytest.mark.parametrize(
    ("where", "key", "value", "message"),
    [
        ((), "kind", "robota.evals.dataset", "not a report"),
        ((), "kind", _POP, "not a report"),
        ((), "version", 2, "version"),
        ((), "version", "1", "version"),
        ((), "version", True, "version"),
        ((), "version", _POP, "version"),
        ((), "extra", 1, "unknown key"),
        (("cases", 0), "output", {"nonfinite": "NaN"}, "nonfinite"),
        (("cases", 0), "output", {"literal": 5}, "literal"),
        (("cases", 0, "results", 0), "value", {"nonfinite": "nan", "x": 1}, ""),
        (("cases", 0), "case_index", True, ""),
        (("cases", 0, "spans", 0), "trace_id", "0AF7651916CD43DD8448EB211C80319C", ""),
        (("cases", 0), "attempts", 1.0, ""),
    ],
)
def test_foreign_or_malformed_report_documents_are_refused(
    tmp_path: Path, where: tuple[str | int, ...], key: str, value: object, message: str
) -> None:
    # HELD
    path = tmp_path / "r.json"
    save_report(_odd_report(), path)
    document: Any = json.loads(path.read_text(encoding="utf-8"))
    node: Any = document
    for step in where:
        node = node[step]
    if value is _POP:
        del node[key]
    else:
        node[key] = value
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ReportFileError, match=message or None):
        load_report(path)


def test_dataset_and_comparison_files_are_not_reports(tmp_path: Path) -> None:
    # HELD
    dataset = _write(tmp_path / "d.yaml", f"version: 1\n{BODY}")
    with pytest.raises(ReportFileError, match="not a report"):
        load_report(dataset)
    report = _odd_report()
    comparison = tmp_path / "c.json"
    save_comparison(compare(report, report), comparison)
    with pytest.raises(ReportFileError, match="not a report"):
        load_report(comparison)
    with pytest.raises(DatasetFileError):
        load_dataset(comparison)


def test_report_version_one_point_zero_is_refused(tmp_path: Path) -> None:
    # HELD (fixed): same rule as the dataset version (``type(version) is int``).
    path = tmp_path / "r.json"
    save_report(_odd_report(), path)
    document = json.loads(path.read_text(encoding="utf-8"))
    document["version"] = 1.0
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ReportFileError):
        load_report(path)


def test_a_truncated_json_report_is_refused_at_every_cut(tmp_path: Path) -> None:
    # HELD: JSON closes its braces, so any cut is detected.
    path = tmp_path / "r.json"
    save_report(_odd_report(), path)
    text = path.read_bytes()
    cut = tmp_path / "cut.json"
    for end in range(0, len(text) - 2, max(1, len(text) // 300)):
        cut.write_bytes(text[:end])
        with pytest.raises(ReportFileError):
            load_report(cut)


def test_a_truncated_yaml_report_is_refused(tmp_path: Path) -> None:
    # HELD (fixed): a report ends with ``counts`` (cases, analyses), checked on load. Was: YAML
    # has no closing token, so a report cut after its first analysis loaded without the second.
    report = EvaluationReport(
        name="r",
        dataset="d",
        analyses=(
            ReportAnalysis(name="PassRateAtLeast", assertion=True),
            ReportAnalysis(name="MaxTotalTokens", assertion=False),
        ),
    )
    path = tmp_path / "r.yaml"
    save_report(report, path)
    text = path.read_text(encoding="utf-8")
    cut = text[: text.index('  - name: "MaxTotalTokens"')]
    truncated = _write(tmp_path / "cut.yaml", cut)
    with pytest.raises(ReportFileError, match="counts"):
        load_report(truncated)
    # every cut at a line end is refused (a whole file loads)
    lines = text.splitlines(keepends=True)
    for end in range(len(lines)):
        _write(truncated, "".join(lines[:end]))
        with pytest.raises(ReportFileError):
            load_report(truncated)
    assert load_report(path) == report
    # counts that disagree with the lists are refused in JSON too
    json_path = tmp_path / "r.json"
    save_report(report, json_path)
    document = json.loads(json_path.read_text(encoding="utf-8"))
    document["counts"]["analyses"] = 1
    json_path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ReportFileError, match="cut short"):
        load_report(json_path)


# --- atomic writes ----------------------------------------------------------------------------


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_crash_at_replace_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException
) -> None:
    # HELD: report, dataset and comparison writers.
    report = _odd_report()
    targets = {
        "report": tmp_path / "r.json",
        "dataset": tmp_path / "d.yaml",
        "comparison": tmp_path / "c.json",
    }
    dataset = Dataset(name="x", cases=(Case(name="a", inputs="hi"),), evaluators=(ExactMatch(),))
    save_report(report, targets["report"])
    save_dataset(dataset, targets["dataset"])
    save_comparison(compare(report, report), targets["comparison"])
    before = {name: path.read_bytes() for name, path in targets.items()}

    def broken(src: Any, dst: Any) -> None:
        del src, dst
        raise failure

    monkeypatch.setattr(os, "replace", broken)
    other = EvaluationReport(name="other", dataset="d")
    expected: type[BaseException] = (
        KeyboardInterrupt if isinstance(failure, KeyboardInterrupt) else ReportFileError
    )
    with pytest.raises(expected):
        save_report(other, targets["report"])
    with pytest.raises(expected):
        save_comparison(compare(other, other), targets["comparison"])
    with pytest.raises(KeyboardInterrupt if expected is KeyboardInterrupt else DatasetFileError):
        save_dataset(
            Dataset(
                name="y",
                cases=(Case(name="b", inputs=1),),
                report_evaluators=(PassRateAtLeast(0.5),),
            ),
            targets["dataset"],
        )
    monkeypatch.undo()
    assert {name: path.read_bytes() for name, path in targets.items()} == before
    _no_temporaries(tmp_path)


def test_trace_evaluators_list_in_a_file_round_trips(tmp_path: Path) -> None:
    # HELD: a trace evaluator keeps its list and its arguments.
    dataset = Dataset(
        name="x",
        cases=(Case(name="a", inputs="hi"),),
        trace_evaluators=(SpanAbsent(span_name="execute_tool shell"),),
    )
    out = tmp_path / "d.json"
    save_dataset(dataset, out)
    assert load_dataset(out).trace_evaluators == dataset.trace_evaluators
    assert MatchesSchema({"type": "object"}) == MatchesSchema({"type": "object"})
