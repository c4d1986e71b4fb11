"""Built-in evaluators of one case's output (seed 002, "Evaluations": exact match, contains,
valid JSON, matches a JSON schema or a pydantic type).

Each is a frozen dataclass whose fields are JSON-compatible data (``MatchesType`` excepted: it
holds a Python type), so a dataset file can name it as ``{ClassName: {field: value}}``. Every
one takes an optional keyword ``evaluation_name``: its name in reports (default: the class
name), needed when a dataset uses the same built-in twice. Verdicts are assertions with a
reason when they fail. The checks of the run itself (tool calls, tokens, time, cost) are in
:mod:`robota.evals.evaluators.run_checks` and re-exported here.
"""

from __future__ import annotations

import dataclasses
import json
import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from jsonschema.exceptions import SchemaError, best_match
from jsonschema.validators import validator_for
from pydantic import BaseModel, TypeAdapter, ValidationError
from referencing import Registry
from robota.evals.evaluators._named import NamedEvaluator
from robota.evals.evaluators._values import NotDataError, brief, cut, data_form, same_value
from robota.evals.evaluators.base import EvaluationReason, EvaluatorContext
from robota.evals.evaluators.run_checks import (
    MaxCost,
    MaxDuration,
    MaxTokens,
    ToolCalled,
    ToolNotCalled,
)

__all__ = [
    "Contains",
    "Equals",
    "ExactMatch",
    "MatchesSchema",
    "MatchesType",
    "MaxCost",
    "MaxDuration",
    "MaxTokens",
    "NamedEvaluator",
    "ToolCalled",
    "ToolNotCalled",
    "ValidJson",
]


def _reject_constant(constant: str) -> NoReturn:
    """``json.loads`` accepts ``NaN`` and ``Infinity``; JSON (RFC 8259) does not."""
    raise ValueError(f"{constant} is not a JSON value (RFC 8259 has no NaN or Infinity)")


def parse_json(text: str) -> Any:
    """``text`` parsed as strict JSON (no ``NaN``/``Infinity``).

    Raises:
        ValueError: ``text`` is not JSON (``json.JSONDecodeError`` names line and column), or
            it nests deeper than Python's recursion limit lets the parser follow.
    """
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None


def _json_compatible(value: Any) -> bool:
    """Whether ``value`` is JSON data (False too when it nests beyond the recursion limit)."""
    try:
        return _json_data(value)
    except RecursionError:
        return False


def _json_data(value: Any) -> bool:
    if value is None or isinstance(value, str | bool | int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | tuple):
        return all(_json_data(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_data(v) for k, v in value.items())
    return False


_PATH_LIMIT = 100
"""Characters of a location (``$.a.b``; its keys come from the output) a reason shows."""


def _kind(value: Any) -> str:
    return type(value).__name__


@dataclass(frozen=True, slots=True)
class ExactMatch(NamedEvaluator):
    """The output equals the case's expected output, as data: a pydantic model or dataclass
    equals another (or the dict from a dataset file) with the same field values, a tuple equals
    the list of its items, and ``True`` does not equal ``1``. A case without an expected output
    fails (there is nothing to match).

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(
        ...     case=Case(name="capital", inputs="Capital of France?", expected_output="Paris"),
        ...     case_index=0, repetition=0, output="Lyon", duration=0.1)
        >>> anyio.run(run_evaluator, ExactMatch(), ctx)
        EvaluationReason(value=False, reason='output "Lyon" != expected "Paris"')
    """

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Compare ``ctx.output`` with ``ctx.expected_output``."""
        expected = ctx.expected_output
        if expected is None:
            return EvaluationReason(
                value=False, reason=f"case {ctx.case.name!r} has no expected output"
            )
        if same_value(ctx.output, expected):
            return EvaluationReason(value=True)
        return EvaluationReason(
            value=False, reason=f"output {brief(ctx.output)} != expected {brief(expected)}"
        )


@dataclass(frozen=True, slots=True)
class Equals(NamedEvaluator):
    """The output equals ``value``, as data (the same comparison as :class:`ExactMatch`).

    Attributes:
        value: The JSON-compatible value the output must equal.

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="n", inputs="2+2?"), case_index=0,
        ...     repetition=0, output=(4, 4), duration=0.1)
        >>> anyio.run(run_evaluator, Equals([4, 4]), ctx).value
        True
    """

    value: Any

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Compare ``ctx.output`` with :attr:`value`."""
        if same_value(ctx.output, self.value):
            return EvaluationReason(value=True)
        return EvaluationReason(
            value=False, reason=f"output {brief(ctx.output)} != {brief(self.value)}"
        )


@dataclass(frozen=True, slots=True)
class Contains(NamedEvaluator):
    """The output contains ``value``:

    - text output: ``value`` (a str) is a substring;
    - list, tuple or set output: ``value`` is one of its items (as data);
    - dict output (a pydantic model or dataclass counts as the dict of its fields): ``value``
      is a key, or, when ``value`` is a dict, every one of its keys is there with an equal
      value.

    Any other output (None, a number, ...) fails with a reason. The fields of a model or
    dataclass are compared as they are (not their ``repr`` when they have no JSON form).

    Attributes:
        value: What to look for.
        case_sensitive: False compares text (substrings, str items and keys) by Unicode
            canonical caseless matching (Unicode 15, section 3.13: case-folded and
            canonically normalised, so ``"café"`` written with a combining accent matches
            ``"CAFÉ"`` written with a precomposed one; compared in NFC, so ``"cafe"`` is not
            found in ``"café"``). True compares code point by code point.

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="c", inputs="?"), case_index=0,
        ...     repetition=0, output="The capital is Paris.", duration=0.1)
        >>> anyio.run(run_evaluator, Contains("paris", case_sensitive=False), ctx).value
        True
        >>> anyio.run(run_evaluator, Contains("Lyon"), ctx).reason
        '"The capital is Paris." does not contain "Lyon"'
    """

    value: Any
    case_sensitive: bool = True

    def _fold(self, value: Any) -> Any:
        if self.case_sensitive or not isinstance(value, str):
            return value
        # NFC(casefold(NFD(x))): equal exactly when the canonical caseless forms are
        return unicodedata.normalize("NFC", unicodedata.normalize("NFD", value).casefold())

    def _same(self, left: Any, right: Any) -> bool:
        if not self.case_sensitive and isinstance(left, str) and isinstance(right, str):
            return self._fold(left) == self._fold(right)
        return same_value(left, right)

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Look for :attr:`value` in ``ctx.output``."""
        output = ctx.output
        if isinstance(output, BaseModel):
            output = dict(output)  # fields (and extras) by name, values as they are
        elif dataclasses.is_dataclass(output) and not isinstance(output, type):
            output = {f.name: getattr(output, f.name) for f in dataclasses.fields(output)}
        if isinstance(output, str):
            return self._in_text(output)
        if isinstance(output, Mapping):
            return self._in_mapping(output)
        if isinstance(output, list | tuple | set | frozenset):
            items: list[Any] = list(output)
            if any(self._same(item, self.value) for item in items):
                return EvaluationReason(value=True)
            return EvaluationReason(
                value=False, reason=f"{brief(items)} has no item {brief(self.value)}"
            )
        return EvaluationReason(
            value=False,
            reason=f"output is {_kind(output)}; Contains looks into text, lists, sets and dicts",
        )

    def _in_text(self, output: str) -> EvaluationReason:
        if not isinstance(self.value, str):
            return EvaluationReason(
                value=False,
                reason=f"output is text but the value is {_kind(self.value)}, not a str",
            )
        if self._fold(self.value) in self._fold(output):
            return EvaluationReason(value=True)
        return EvaluationReason(
            value=False, reason=f"{brief(output)} does not contain {brief(self.value)}"
        )

    def _in_mapping(self, output: Mapping[Any, Any]) -> EvaluationReason:
        def key_of(wanted: Any) -> tuple[bool, Any]:
            for key in output:
                if self._same(key, wanted):
                    return True, key
            return False, None

        if isinstance(self.value, Mapping):
            wanted_items: Mapping[Any, Any] = self.value
            missing: dict[str, Any] = {}
            for wanted, value in wanted_items.items():
                found, key = key_of(wanted)
                if not found or not self._same(output[key], value):
                    missing[str(wanted)] = value
            if not missing:
                return EvaluationReason(value=True)
            return EvaluationReason(
                value=False, reason=f"{brief(output)} lacks the items {brief(missing)}"
            )
        if key_of(self.value)[0]:
            return EvaluationReason(value=True)
        return EvaluationReason(
            value=False, reason=f"{brief(output)} has no key {brief(self.value)}"
        )


@dataclass(frozen=True, slots=True)
class ValidJson(NamedEvaluator):
    """The output is JSON text (RFC 8259: ``NaN`` and ``Infinity`` are refused), or already a
    JSON-compatible dict or list (string keys, finite numbers).

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="j", inputs="?"), case_index=0,
        ...     repetition=0, output="{'ok': True}", duration=0.1)
        >>> anyio.run(run_evaluator, ValidJson(), ctx).reason
        'not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'
    """

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Parse or inspect ``ctx.output``."""
        output = ctx.output
        if isinstance(output, str):
            try:
                parse_json(output)
            except ValueError as error:
                return EvaluationReason(value=False, reason=f"not JSON: {error}")
            return EvaluationReason(value=True)
        if isinstance(output, dict | list):
            if _json_compatible(output):
                return EvaluationReason(value=True)
            return EvaluationReason(
                value=False,
                reason=f"{_kind(output)} holds a value JSON cannot carry (a non-str key, a "
                "non-finite number or a non-JSON object) or nests too deeply",
            )
        return EvaluationReason(
            value=False, reason=f"output is {_kind(output)}, not JSON text, a dict or a list"
        )


_NO_RETRIEVAL: Registry[Any] = Registry()
"""An empty registry without a ``retrieve`` function: jsonschema resolves references inside the
schema (and its own meta-schemas) only, and never fetches a URL or reads a file."""
_REFERENCE_KEYWORDS = frozenset({"$ref", "$dynamicRef", "$recursiveRef"})
_DATA_KEYWORDS = frozenset({"const", "default", "enum", "examples"})
"""Keywords whose values are instances, not schemas (a ``$ref`` key there is data)."""


def _remote_reference(schema: dict[str, Any]) -> str | None:
    """The first reference in ``schema`` that does not start with ``#``, else None."""
    stack: list[Any] = [schema]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            mapping: dict[Any, Any] = node
            for key, value in mapping.items():
                if key in _REFERENCE_KEYWORDS and isinstance(value, str):
                    if not value.startswith("#"):
                        return value
                elif key not in _DATA_KEYWORDS:
                    stack.append(value)
        elif isinstance(node, list):
            items: list[Any] = node
            stack.extend(items)
    return None


@dataclass(frozen=True, slots=True)
class MatchesSchema(NamedEvaluator):
    """The output validates against a JSON Schema (``jsonschema``, the draft the schema's
    ``$schema`` names, else 2020-12; ``format`` is checked where the format checker knows it).
    Text output is parsed as JSON first (to check a plain string, use :class:`MatchesType`
    with ``str``); a pydantic model or dataclass is checked as its JSON form.

    A ``$ref`` (or ``$dynamicRef``, ``$recursiveRef``) must point inside the schema
    (``#/$defs/city``): nothing is ever fetched or read to resolve one, so a dataset file cannot
    make an evaluation issue a request or copy a local file into its report.

    Attributes:
        schema: The JSON Schema (a JSON object).

    Raises:
        ValueError: the schema itself is invalid, or it holds a reference that does not start
            with ``#`` (checked at construction).

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> check = MatchesSchema({"type": "object", "required": ["city"],
        ...     "properties": {"city": {"type": "string"}}})
        >>> ctx = EvaluatorContext(case=Case(name="s", inputs="?"), case_index=0,
        ...     repetition=0, output='{"city": 7}', duration=0.1)
        >>> anyio.run(run_evaluator, check, ctx).reason
        "7 is not of type 'string' at $.city"
    """

    schema: dict[str, Any]

    def __post_init__(self) -> None:
        if not isinstance(self.schema, dict):
            raise ValueError(f"MatchesSchema: a schema is a JSON object, not {_kind(self.schema)}")
        try:
            validator_for(self.schema).check_schema(self.schema)
        except SchemaError as error:
            raise ValueError(f"MatchesSchema: invalid JSON Schema: {error.message}") from error
        remote = _remote_reference(self.schema)
        if remote is not None:
            raise ValueError(
                f"MatchesSchema: the reference {cut(remote, _PATH_LIMIT)} is not inside the "
                "schema; only references starting with '#' are resolved (nothing is fetched)"
            )

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Validate ``ctx.output``; the reason names the most relevant error and its path."""
        instance = ctx.output
        if isinstance(instance, str):
            try:
                instance = parse_json(instance)
            except ValueError as error:
                return EvaluationReason(
                    value=False, reason=f"output is not JSON: {cut(str(error))}"
                )
        else:
            try:
                instance = data_form(instance)
            except NotDataError as error:
                return EvaluationReason(value=False, reason=f"output has no JSON form: {error}")
            except RecursionError:
                return EvaluationReason(value=False, reason="output is nested too deeply")
        cls = validator_for(self.schema)
        validator = cls(self.schema, format_checker=cls.FORMAT_CHECKER, registry=_NO_RETRIEVAL)
        try:
            error = best_match(validator.iter_errors(instance))
        except RecursionError:
            return EvaluationReason(value=False, reason="output is nested too deeply to validate")
        if error is None:
            return EvaluationReason(value=True)
        return EvaluationReason(
            value=False, reason=f"{cut(error.message)} at {cut(error.json_path, _PATH_LIMIT)}"
        )


@dataclass(frozen=True, slots=True)
class MatchesType(NamedEvaluator):
    """The output validates as ``type_`` through a pydantic ``TypeAdapter`` (lax mode: ``"3"``
    is an ``int``). Text output that does not validate as it is is tried as JSON text. Not
    file-serialisable: it holds a Python type.

    Attributes:
        type_: Any type pydantic validates (a model, ``list[City]``, ``int``, a ``Literal``...).

    Raises:
        pydantic.PydanticSchemaGenerationError: pydantic cannot validate ``type_``
            (at construction).

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0,
        ...     repetition=0, output=["1", "x"], duration=0.1)
        >>> anyio.run(run_evaluator, MatchesType(list[int]), ctx).reason
        'Input should be a valid integer, unable to parse string as an integer at 1'
    """

    type_: Any
    _adapter: TypeAdapter[Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_adapter", TypeAdapter(self.type_))

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Validate ``ctx.output``; the reason is pydantic's first error and its location."""
        output = ctx.output
        try:
            self._adapter.validate_python(output)
        except ValidationError as error:
            failure = error
        else:
            return EvaluationReason(value=True)
        if isinstance(output, str):
            try:
                self._adapter.validate_json(output)
            except ValidationError as error:
                failure = error
            else:
                return EvaluationReason(value=True)
        first = failure.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the root"
        return EvaluationReason(
            value=False, reason=f"{cut(first['msg'])} at {cut(where, _PATH_LIMIT)}"
        )
