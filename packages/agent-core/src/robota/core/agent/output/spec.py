"""The resolved output of a run: what goes on the wire and how the answer is validated."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from robota.core.agent.output._parse import parse_json_leniently
from robota.core.agent.output._types import (
    Check,
    is_object_root,
    sanitize_name,
    shape_of,
    wrap_schema,
)
from robota.core.agent.output.context import OutputContext, OutputValidator
from robota.core.agent.output.function import OutputFunction, is_output_function
from robota.core.capabilities import (
    ModelCapabilities,
    StructuredOutputTransport,
    choose_output_transport,
)
from robota.core.errors import ModelRetry
from robota.core.provider import OutputSchema

__all__ = ["OutputCheck", "OutputSpec"]


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputCheck:
    """The verdict on one final answer.

    Attributes:
        value: The output (after the output function and validators), or None.
        issues: Why the answer is refused (empty: accepted).
        rejected: True when ``issues`` come from a ``ModelRetry`` (the answer was valid JSON of
            the right shape but the application refused it).
    """

    value: Any = None
    issues: tuple[str, ...] = ()
    rejected: bool = False

    @property
    def ok(self) -> bool:
        """True when the answer was accepted."""
        return not self.issues


def _takes_context(validator: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(validator).parameters.values()
    except (TypeError, ValueError) as exc:
        raise TypeError(f"output validator {validator!r} has no readable signature") from exc
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind is p.VAR_POSITIONAL for p in params) or len(positional) >= 2:
        return True
    if len(positional) == 1:
        return False
    raise TypeError(f"output validator {validator!r} must take (value) or (ctx, value)")


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputSpec:
    """A resolved output type.

    Attributes:
        output_type: What the caller gave (a type, a JSON Schema dict or an output function).
        schema: JSON Schema of the value (for an output function: of its parameters).
        name: Schema name sent to vendors (``^[a-zA-Z0-9_-]{1,64}$``).
        description: Description sent with the schema, or None.
        wrapped: True when the root is not an object: the wire carries ``{"result": value}``.
        wire_schema: The schema sent to vendors and stated in instructions.
        function: The output function, or None.
        validators: Output validators, run in order after type validation and the function.
    """

    output_type: Any
    schema: Mapping[str, Any]
    name: str
    description: str | None = None
    wrapped: bool = False
    wire_schema: Mapping[str, Any] = field(default_factory=dict[str, Any])
    function: OutputFunction | None = None
    validators: tuple[tuple[Callable[..., Any], bool], ...] = ()
    check: Check | None = None
    adapter: Any = None

    @classmethod
    def of(cls, output_type: Any, *, validators: Sequence[OutputValidator] = ()) -> OutputSpec:
        """Resolve ``output_type`` (anything pydantic validates, a JSON Schema dict, a
        ``StructuredDict``, an output function, or an ``OutputSpec``, whose validators come
        first) and its validators.

        Raises:
            TypeError: an output type or validator that cannot be used (before any request).

        Example:
            >>> spec = OutputSpec.of(list[int])
            >>> spec.wrapped, spec.wire_schema["required"], spec.name
            (True, ['result'], 'final_result')
        """
        checked = tuple(
            (cast("Callable[..., Any]", v), _takes_context(cast("Callable[..., Any]", v)))
            for v in validators
        )
        if isinstance(output_type, OutputSpec):  # already resolved: add the validators
            return replace(output_type, validators=output_type.validators + checked)
        if is_output_function(output_type):
            function = OutputFunction.of(output_type)
            return cls(
                output_type=output_type,
                schema=function.schema,
                name=sanitize_name(function.name),
                description=function.description or None,
                wire_schema=function.schema,
                function=function,
                validators=checked,
                check=function.check,
            )
        shape = shape_of(output_type)
        wrapped = not is_object_root(shape.schema)
        return cls(
            output_type=output_type,
            schema=shape.schema,
            name=shape.name,
            description=shape.description,
            wrapped=wrapped,
            wire_schema=wrap_schema(shape.schema) if wrapped else shape.schema,
            validators=checked,
            check=shape.check,
            adapter=shape.adapter,
        )

    @property
    def schema_text(self) -> str:
        """The wire schema as compact JSON for instructions."""
        return json.dumps(self.wire_schema, sort_keys=True)

    def transport(self, caps: ModelCapabilities) -> StructuredOutputTransport:
        """The transport for a model with ``caps`` (``choose_output_transport``)."""
        return choose_output_transport(caps)

    def request_output(self, transport: StructuredOutputTransport) -> OutputSchema | None:
        """The ``ModelRequest.output`` value: set for native and JSON-mode transports."""
        if transport is StructuredOutputTransport.PROMPTED:
            return None
        return OutputSchema(
            name=self.name,
            schema=self.wire_schema,
            transport=transport,
            description=self.description,
        )

    def unwrap(self, data: Any) -> Any:
        """The value inside ``{"result": value}`` for a wrapped schema; a bare value (a
        prompted answer may omit the wrapper) is returned as is. :meth:`validate` falls back
        to the bare value when the unwrapped one does not validate."""
        if self.wrapped and isinstance(data, dict):
            mapping = cast("dict[str, Any]", data)
            if set(mapping) == {"result"}:
                return mapping["result"]
        return data

    def validate(self, text: str) -> tuple[Any, list[str]]:
        """Parse and type-validate ``text`` (no output function, no validators); returns
        ``(value, [])`` or ``(None, issues)``. For an output function the value is the
        validated arguments model.

        For a wrapped root, ``{"result": x}`` is read as the wrapper first (the wire contract,
        the same for every transport: native and JSON-mode vendors enforce it, the prompted
        instruction states it); only when ``x`` does not validate is the object itself tried
        as a bare value (a prompted answer may omit the wrapper, and a union member may have
        its own ``result`` field). When neither validates, the wrapper's issues are reported.
        A value too deeply nested to validate is an issue, never a ``RecursionError``.
        """
        try:
            data = parse_json_leniently(text)
        except ValueError as exc:
            return None, [str(exc)]
        check = self.check
        assert check is not None
        try:
            inner = self.unwrap(data)
            value, issues = check(inner)
            if issues and inner is not data:
                bare, bare_issues = check(data)
                if not bare_issues:
                    return bare, []
            return value, issues
        except RecursionError:
            return None, ["the JSON value is nested too deeply"]

    async def finalize(self, text: str, ctx: OutputContext[Any]) -> OutputCheck:
        """Validate the final answer, call the output function, run the validators.

        Returns:
            The accepted value, or the issues to send back (a ``ModelRetry`` message makes
            ``rejected`` True).

        Raises:
            Exception: what the output function or a validator raised other than
                ``ModelRetry`` (an application failure: the run fails, no retry).
        """
        value, issues = self.validate(text)
        if issues:
            return OutputCheck(issues=tuple(issues))
        try:
            if self.function is not None:
                value = await self.function.call(value, ctx)
            value = await self._run_validators(value, ctx)
        except ModelRetry as retry:
            return OutputCheck(issues=(str(retry.message),), rejected=True)
        return OutputCheck(value=value)

    async def partial_value(self, snapshot: Any, ctx: OutputContext[Any]) -> tuple[bool, Any]:
        """The typed partial value of a repaired snapshot, passed through the validators with
        ``ctx.partial`` True.

        Returns:
            ``(keep, value)``: ``value`` is None when the snapshot does not validate partially
            (or for an output function, which is never called on a partial answer); ``keep``
            is False when a validator refused it (the snapshot is then not shown). A validator
            failing on an incomplete value never fails the run: the final answer decides.
        """
        if self.adapter is None:
            return True, None
        from pydantic import ValidationError

        try:
            value = self.adapter.validate_python(snapshot, experimental_allow_partial=True)
        except (ValidationError, TypeError, ValueError):
            return True, None
        try:
            return True, await self._run_validators(value, ctx)
        except Exception:
            return False, None

    async def _run_validators(self, value: Any, ctx: OutputContext[Any]) -> Any:
        for validator, takes_context in self.validators:
            result = validator(ctx, value) if takes_context else validator(value)
            value = await result if inspect.isawaitable(result) else result
        return value
