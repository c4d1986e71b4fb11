"""Dataset files (seed 002, "Evaluations": dataset documents are data-only — they retain cases,
metadata, and the ordered names of ordinary, trace, and report evaluators; loading resolves each
name against an application-owned registry; non-default per-case run options are rejected).

A dataset file, version 1, in YAML (``.yaml``/``.yml``) or JSON (``.json``)::

    version: 1
    name: capitals
    evaluators: [ExactMatch, {Contains: {value: Paris}}]
    trace_evaluators: [{SpanAbsent: {span_name: execute_tool shell}}]
    report_evaluators: [{PassRateAtLeast: 0.9}]
    cases:
      - name: france
        inputs: What is the capital of France?
        expected_output: Paris
        metadata: {difficulty: easy}

Every key is listed above; any other key, at any level, is refused. See
:mod:`robota.evals.io.registry` for how an evaluator is written, and
:mod:`robota.evals.io._files` for the bounds a file is read under.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path
from typing import Any, cast

import yaml
from pydantic import ConfigDict, TypeAdapter, ValidationError
from robota.evals.case import Case
from robota.evals.dataset import Dataset
from robota.evals.errors import DatasetFileError
from robota.evals.io._data import builtin_scalar
from robota.evals.io._documents import DatasetDocument, describe_errors
from robota.evals.io._files import (
    check_version,
    dump_document,
    format_of,
    read_document,
    write_text_atomic,
)
from robota.evals.io.registry import AnyEvaluator, EvaluatorKind, EvaluatorRegistry

__all__ = ["DATASET_VERSION", "load_dataset", "save_dataset"]

DATASET_VERSION = 1
"""The dataset document version this library reads and writes."""

_LISTS: tuple[tuple[str, EvaluatorKind], ...] = (
    ("evaluators", "case"),
    ("trace_evaluators", "trace"),
    ("report_evaluators", "report"),
)
_AS_DATA = TypeAdapter[Any](Any, config=ConfigDict(ser_json_inf_nan="constants"))
"""Turns a pydantic model, dataclass, enum, date ... into JSON data (non-finite floats kept, so
they are refused by name rather than silently nulled)."""
_EVALUATOR_KEYS = ("evaluators", "trace_evaluators", "report_evaluators")
_KEYS_HINT = (
    "a dataset file holds only version, name, evaluators, trace_evaluators, report_evaluators "
    "and cases; a case holds only name, inputs, expected_output and metadata (per-case run "
    "options are not allowed in files: pass them to Dataset.evaluate)"
)


def load_dataset(
    path: str | os.PathLike[str],
    *,
    registry: EvaluatorRegistry | None = None,
    inputs_type: Any = None,
    expected_type: Any = None,
) -> Dataset[Any, Any]:
    """Read the dataset file at ``path``.

    Args:
        path: A ``.yaml``, ``.yml`` or ``.json`` dataset file, version 1.
        registry: Resolves the evaluator names (default: a registry of the built-ins).
        inputs_type: Validate (and convert) every case's inputs to this type with a pydantic
            ``TypeAdapter`` — a model, a dataclass, ``str``, ``dict[str, int]``, ... (None: keep
            the JSON data).
        expected_type: The same for every case's expected output (null stays None).

    Returns:
        The dataset; its cases and evaluator lists are tuples, in file order.

    Raises:
        DatasetFileError: an unreadable or over-limit file (see
            :func:`~robota.evals.io._files.read_document`), a missing or unsupported
            ``version`` (only the integer 1: not ``1.0``, not ``"1"``), an unknown key at any level, a value of the wrong type, two cases of
            one name, inputs or an expected output that do not validate, an evaluator built
            with arguments it refuses or of the wrong kind, two evaluators of one name (the
            message shows the second one written with an ``evaluation_name``:
            ``{Contains: {value: Lyon, evaluation_name: Contains_2}}``), an ``evaluators`` key
            in a case (case-level evaluators are not supported: list them under the dataset's
            ``evaluators``).
        EvaluatorNotFoundError: an evaluator name the registry does not hold.
        AmbiguousEvaluatorError: an evaluator name it holds more than once.
    """
    file = Path(path)
    data = read_document(file, DatasetFileError)
    if "version" not in data:
        raise DatasetFileError(
            f"{file}: no 'version' key; this library reads dataset files of version "
            f"{DATASET_VERSION}"
        )
    check_version(file, data["version"], "dataset", DATASET_VERSION, DatasetFileError)
    try:
        document = DatasetDocument.model_validate(data)
    except ValidationError as exc:
        problems = exc.errors(include_url=False)
        for problem in problems:
            loc = problem["loc"]
            if (
                problem["type"] == "extra_forbidden"
                and len(loc) == 3
                and loc[0] == "cases"
                and loc[2] in _EVALUATOR_KEYS
            ):
                raise DatasetFileError(
                    f"{file}: cases[{loc[1]}].{loc[2]}: case-level evaluators are not "
                    f"supported; list them under the dataset's {loc[2]} (they judge every case)"
                ) from None
        hint = f" ({_KEYS_HINT})" if any(e["type"] == "extra_forbidden" for e in problems) else ""
        raise DatasetFileError(f"{file}: {describe_errors(exc)}{hint}") from None

    first: dict[str, int] = {}
    for index, case in enumerate(document.cases):
        if case.name in first:
            raise DatasetFileError(
                f"{file}: cases[{index}] and cases[{first[case.name]}] are both named "
                f"{case.name!r}; case names must be unique"
            )
        first[case.name] = index

    inputs_adapter = TypeAdapter[Any](inputs_type) if inputs_type is not None else None
    expected_adapter = TypeAdapter[Any](expected_type) if expected_type is not None else None
    cases: list[Case[Any, Any]] = []
    for index, case in enumerate(document.cases):
        where = f"{file}: cases[{index}] ({case.name!r})"
        inputs = _validate(inputs_adapter, case.inputs, f"{where}: inputs")
        expected = (
            None
            if case.expected_output is None
            else _validate(expected_adapter, case.expected_output, f"{where}: expected_output")
        )
        cases.append(
            Case(name=case.name, inputs=inputs, expected_output=expected, metadata=case.metadata)
        )

    registry = registry if registry is not None else EvaluatorRegistry()
    built: dict[str, tuple[Any, ...]] = {}
    named: dict[str, str] = {}
    for key, kind in _LISTS:
        specs: list[Any] = getattr(document, key)
        checks: list[AnyEvaluator] = []
        for index, spec in enumerate(specs):
            where = f"{key}[{index}]"
            check = registry.build(spec, kind, where=f"{file}: {where}")
            if check.name in named:
                raise DatasetFileError(
                    f"{file}: two evaluators are named {check.name!r} ({named[check.name]} "
                    f"and {where}; reports and comparisons key results by name); "
                    f"{_rename_hint(spec, check, file)}"
                )
            named[check.name] = where
            checks.append(check)
        built[key] = tuple(checks)
    try:
        return Dataset(
            name=document.name,
            cases=tuple(cases),
            evaluators=built["evaluators"],
            trace_evaluators=built["trace_evaluators"],
            report_evaluators=built["report_evaluators"],
        )
    except ValueError as exc:
        raise DatasetFileError(f"{file}: {exc}") from exc


def _rename_hint(spec: Any, check: AnyEvaluator, file: Path) -> str:
    """How to rename the second of two same-named evaluators: for one that takes
    ``evaluation_name`` (every built-in), ``spec`` with it added, written as the file writes
    it (YAML flow style or JSON): ``{Contains: {value: Lyon, evaluation_name: Contains_2}}``."""
    if not hasattr(check, "evaluation_name"):
        return "register it under another name, or give its class another name"
    name, arguments = (spec, None) if isinstance(spec, str) else next(iter(spec.items()))
    if arguments is None:
        keywords: dict[str, Any] = {}
    elif isinstance(arguments, dict):
        keywords = dict(cast("dict[str, Any]", arguments))
    else:  # one positional argument: the evaluator's first positional field, by keyword
        positional = (
            [f.name for f in dataclasses.fields(check) if f.init and not f.kw_only]
            if dataclasses.is_dataclass(check)
            else []
        )
        if not positional:
            return f"give one an evaluation_name ({name}(..., evaluation_name=...))"
        keywords = {positional[0]: arguments}
    keywords["evaluation_name"] = f"{check.name}_2"
    renamed = {name: keywords}
    if format_of(file, DatasetFileError) == "json":
        example = json.dumps(renamed, ensure_ascii=False)
    else:
        example = yaml.safe_dump(
            renamed, default_flow_style=True, sort_keys=False, allow_unicode=True, width=2**16
        ).strip()
    return f"give one an evaluation_name: {example}"


def _validate(adapter: TypeAdapter[Any] | None, value: Any, where: str) -> Any:
    if adapter is None:
        return value
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise DatasetFileError(f"{where}: {describe_errors(exc)}") from None


def save_dataset(dataset: Dataset[Any, Any], path: str | os.PathLike[str]) -> None:
    """Write ``dataset`` to ``path`` as a version-1 dataset file, atomically.

    The format follows the suffix (``.yaml``/``.yml`` or ``.json``). An evaluator is written
    as its class name with the fields that differ from their defaults (``ExactMatch``,
    ``{Contains: {value: Paris}}``), so only dataclass evaluators whose fields are JSON data
    can be saved, and :func:`load_dataset` needs a registry holding their classes. Case values
    are written as JSON data (a pydantic model or dataclass as its fields, a tuple as a list);
    ``expected_output`` and ``metadata`` are left out when None or empty, as are empty
    evaluator lists.

    Raises:
        DatasetFileError: an unknown suffix; an evaluator that is not a dataclass, or whose
            fields hold something other than JSON data (a type, a function, an agent) — such
            an evaluator is not file-serialisable: write its name in the file by hand and
            register a factory for it; a case value that is not JSON data or a non-finite
            number; text holding a lone surrogate (which UTF-8 cannot encode); an unwritable
            path.
    """
    file = Path(path)
    kind = format_of(file, DatasetFileError)
    document: dict[str, Any] = {"version": DATASET_VERSION, "name": dataset.name}
    for key, _ in _LISTS:
        checks: tuple[AnyEvaluator, ...] = tuple(getattr(dataset, key))
        if checks:
            document[key] = [
                _spec_of(check, f"{key}[{index}]") for index, check in enumerate(checks)
            ]
    cases: list[dict[str, Any]] = []
    for index, case in enumerate(dataset.cases):
        where = f"cases[{index}] ({case.name!r})"
        entry: dict[str, Any] = {
            "name": case.name,
            "inputs": _case_value(case.inputs, f"{where}: inputs"),
        }
        if case.expected_output is not None:
            entry["expected_output"] = _case_value(
                case.expected_output, f"{where}: expected_output"
            )
        if case.metadata:
            entry["metadata"] = _case_value(dict(case.metadata), f"{where}: metadata")
        cases.append(entry)
    document["cases"] = cases
    write_text_atomic(file, dump_document(document, kind), DatasetFileError)


def _spec_of(check: AnyEvaluator, where: str) -> str | dict[str, Any]:
    name = type(check).__name__
    if not dataclasses.is_dataclass(check):
        raise DatasetFileError(
            f"{where}: evaluator {check.name!r} ({name}) is not file-serialisable: only "
            "dataclass evaluators with JSON-data fields are; write its name in the dataset "
            "file by hand and register a factory for it with EvaluatorRegistry.register"
        )
    arguments: dict[str, Any] = {}
    for field in dataclasses.fields(check):
        if not field.init:
            continue
        value = getattr(check, field.name)
        if _is_default(field, value):
            continue
        try:
            arguments[field.name] = _plain(value)
        except _NotData as exc:
            raise DatasetFileError(
                f"{where}: evaluator {check.name!r} ({name}) is not file-serialisable: its "
                f"field {field.name!r} holds {exc}, not JSON data; register a factory that "
                "builds it from JSON arguments instead"
            ) from None
    return {name: arguments} if arguments else name


def _is_default(field: dataclasses.Field[Any], value: Any) -> bool:
    if field.default is not dataclasses.MISSING:
        default: Any = field.default
    elif field.default_factory is not dataclasses.MISSING:
        default = field.default_factory()
    else:
        return False
    return type(value) is type(default) and bool(value == default)


class _NotData(Exception):
    """A value that is not JSON data (the message describes it)."""


def _plain(value: Any) -> Any:
    """``value`` as JSON data — tuples become lists — or :class:`_NotData`."""
    if isinstance(value, float) and not math.isfinite(value):
        raise _NotData(f"the non-finite number {value!r}")
    if value is None or isinstance(value, bool | int | float | str):
        return builtin_scalar(value)
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotData(f"a mapping with the non-string key {key!r}")
            result[key] = _plain(item)
        return result
    if isinstance(value, type):
        raise _NotData(f"the type {value.__name__}")
    raise _NotData(f"a {type(value).__name__}")


def _case_value(value: Any, where: str) -> Any:
    try:
        return _plain(_AS_DATA.dump_python(value, mode="json"))
    except ValueError as exc:  # pydantic's PydanticSerializationError
        raise DatasetFileError(f"{where}: not JSON data: {exc}") from None
    except _NotData as exc:
        raise DatasetFileError(f"{where}: {exc} is not JSON data") from None
