"""Issue 20 outsider fixes in ``FunctionTool``: each tool owns its ``parameters``; the shared
model follows the whole ``__wrapped__`` chain and is never cached for a mutable default; a
``@staticmethod`` keeps its first parameter; a ``functools.partial`` and a callable object are
tools; anything else is refused with ``SchemaConversionError``."""

from __future__ import annotations

import functools
import inspect
import operator
from typing import Any

import pytest
from robota.core.agent import Agent
from robota.core.errors import ConfigurationError
from robota.core.messages import ToolResultMessage
from robota.core.schema import SchemaConversionError
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools import FunctionTool, tool


def props(t: FunctionTool[..., Any]) -> dict[str, Any]:
    return t.parameters["properties"]


async def run_once(t: FunctionTool[..., Any], arguments: dict[str, Any]) -> tuple[str, bool]:
    provider = ScriptedProvider([[tool_call("c1", t.name, arguments)], [text("done")]])
    agent = Agent(provider, tools=[t], retry=None)
    await agent.run("go")
    part = next(m for m in agent.history if isinstance(m, ToolResultMessage)).results[0]
    return part.text, part.is_error


def forecast(city: str, days: int = 1) -> str:
    """Forecast for a city.

    Args:
        city: City name.
        days: How many days ahead.
    """
    return f"{city}:{days}"


# --- each tool owns its parameters ---------------------------------------------------------


@pytest.mark.anyio
async def test_a_deliberate_edit_reaches_the_model_and_validation_of_that_tool_only() -> None:
    narrowed, plain = FunctionTool(forecast), FunctionTool(forecast, name="plain")
    assert narrowed.arguments is plain.arguments  # the model is still shared
    narrowed.parameters["properties"]["city"]["enum"] = ["Oslo"]
    provider = ScriptedProvider([[text("ok")]])
    await Agent(provider, tools=[narrowed, plain]).run("go")
    offered = {d.name: d.parameters for d in provider.requests[0].tools}
    assert offered["forecast"]["properties"]["city"]["enum"] == ["Oslo"]
    assert "enum" not in offered["plain"]["properties"]["city"]
    refused, is_error = await run_once(narrowed, {"city": "Rome"})
    assert is_error
    assert "$.city: 'Rome' is not one of ['Oslo']" in refused
    assert await run_once(plain, {"city": "Rome"}) == ("Rome:1", False)
    assert "enum" not in FunctionTool(forecast).parameters["properties"]["city"]


class Meter:
    def __init__(self, base: int) -> None:
        self.base = base

    @tool
    def read(self, offset: int) -> str:
        """Read the meter."""
        return str(self.base + offset)

    @staticmethod
    def convert(value: int, unit: str = "kWh") -> str:
        """Convert a reading."""
        return f"{value} {unit}"

    @tool
    @staticmethod
    def describe(kind: str) -> str:
        """Describe a meter kind."""
        return f"a {kind} meter"


def test_each_instance_of_a_method_tool_owns_its_parameters() -> None:
    one, two = Meter(1).read, Meter(2).read
    assert one.arguments is two.arguments
    one.parameters["properties"]["offset"]["maximum"] = 9
    assert "maximum" not in props(two)["offset"]
    assert "maximum" not in props(Meter.read)["offset"]


# --- the cache follows the whole __wrapped__ chain --------------------------------------------


def _wrap(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


def test_a_wrapper_of_a_wrapper_is_cached_and_sees_a_change_two_levels_down() -> None:
    def inner(x: int = 1) -> str:
        return str(x)

    outer = _wrap(_wrap(inner))
    first = FunctionTool(outer)
    assert FunctionTool(outer).arguments is first.arguments  # unchanged chain: shared
    assert props(first)["x"]["default"] == 1
    inner.__defaults__ = (7,)
    after = FunctionTool(outer)
    assert after.arguments is not first.arguments
    assert props(after)["x"]["default"] == 7


@pytest.mark.anyio
async def test_a_wrapper_around_a_partial_is_described_but_never_cached() -> None:
    wrapped = _wrap(functools.partial(forecast, days=3))
    a, b = FunctionTool(wrapped, name="w"), FunctionTool(wrapped, name="w")
    assert a.arguments is not b.arguments
    assert props(a)["days"]["default"] == 3
    assert await run_once(a, {"city": "Oslo"}) == ("Oslo:3", False)


# --- mutable defaults are never cached --------------------------------------------------------


def test_immutable_defaults_are_cached_and_mutable_ones_are_not() -> None:
    def frozen(tags: tuple[str, ...] = ("a", "b"), limit: float = 1.5) -> str:
        return ",".join(tags)

    def mutable(tags: list[str] = []) -> str:  # noqa: B006 - the case under test
        return ",".join(tags)

    assert FunctionTool(frozen).arguments is FunctionTool(frozen).arguments
    assert FunctionTool(mutable).arguments is not FunctionTool(mutable).arguments


def test_a_keyword_only_default_changed_in_place_is_seen() -> None:
    def f(x: int, *, page: int = 1) -> str:
        return str(x)

    assert props(FunctionTool(f))["page"]["default"] == 1
    assert f.__kwdefaults__ is not None
    f.__kwdefaults__["page"] = 2  # same dict, new value
    assert props(FunctionTool(f))["page"]["default"] == 2


def test_a_mutable_default_in_a_signature_is_not_cached() -> None:
    def f(**kwargs: Any) -> str:
        return str(kwargs)

    f.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("tags", inspect.Parameter.KEYWORD_ONLY, default=["a"])]
    )
    first = FunctionTool(f)
    signature: inspect.Signature = f.__signature__  # type: ignore[attr-defined]
    signature.parameters["tags"].default.append("b")
    assert props(FunctionTool(f))["tags"]["default"] == ["a", "b"]
    assert props(first)["tags"]["default"] == ["a"]


# --- staticmethod ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_staticmethod_read_through_its_class_keeps_every_parameter() -> None:
    converted = FunctionTool(Meter.convert)
    assert converted.method_of is None
    assert list(props(converted)) == ["value", "unit"]
    assert converted.parameters["required"] == ["value"]
    assert await run_once(converted, {"value": 3}) == ("3 kWh", False)


@pytest.mark.anyio
async def test_tool_above_staticmethod_is_a_plain_tool_through_class_and_instance() -> None:
    assert Meter.describe is Meter(1).describe
    assert Meter.describe.method_of is None
    assert list(props(Meter.describe)) == ["kind"]
    assert Meter.describe("gas") == "a gas meter"
    assert await run_once(Meter.describe, {"kind": "water"}) == ("a water meter", False)


@pytest.mark.anyio
async def test_a_real_method_read_through_its_class_is_still_a_method() -> None:
    assert Meter.read.method_of == "Meter"
    assert list(props(Meter.read)) == ["offset"]
    unbound = FunctionTool(Meter.__dict__["read"].fn)
    assert unbound.method_of == "Meter"
    assert list(props(unbound)) == ["offset"]
    with pytest.raises(TypeError, match="read through its class"):
        Agent(ScriptedProvider([]), tools=[unbound])
    assert await run_once(Meter(10).read, {"offset": 5}) == ("15", False)


# --- partial and callable objects ------------------------------------------------------------


@pytest.mark.anyio
async def test_a_partial_is_described_by_its_remaining_parameters() -> None:
    by_keyword = FunctionTool(functools.partial(forecast, days=5))
    assert by_keyword.name == "forecast"
    assert by_keyword.description == "Forecast for a city."
    assert props(by_keyword)["days"] == {
        "default": 5,
        "description": "How many days ahead.",
        "type": "integer",
    }
    assert by_keyword.parameters["required"] == ["city"]
    assert await run_once(by_keyword, {"city": "Oslo"}) == ("Oslo:5", False)
    assert await run_once(by_keyword, {"city": "Oslo", "days": 2}) == ("Oslo:2", False)

    by_position = FunctionTool(functools.partial(forecast, "Bergen"), name="bergen")
    assert list(props(by_position)) == ["days"]
    assert await run_once(by_position, {"days": 4}) == ("Bergen:4", False)


@pytest.mark.anyio
async def test_a_partial_of_an_async_function_is_awaited() -> None:
    async def fetch(url: str, retries: int) -> str:
        """Fetch a URL."""
        return f"{url}#{retries}"

    fetched = FunctionTool(functools.partial(fetch, retries=2))
    assert await run_once(fetched, {"url": "u"}) == ("u#2", False)


class Lookup:
    """Look a word up in the glossary."""

    def __init__(self, glossary: dict[str, str]) -> None:
        self.glossary = glossary

    def __call__(self, word: str, default: str = "?") -> str:
        return self.glossary.get(word, default)


class AsyncLookup:
    async def __call__(self, word: str) -> str:
        """Look a word up, asynchronously."""
        return word.upper()


@pytest.mark.anyio
async def test_a_callable_object_is_described_by_its_call_without_self() -> None:
    looked = FunctionTool(Lookup({"a": "alpha"}))
    assert looked.name == "Lookup"
    assert looked.description == "Look a word up in the glossary."
    assert list(props(looked)) == ["word", "default"]
    assert await run_once(looked, {"word": "a"}) == ("alpha", False)
    asynchronous = FunctionTool(AsyncLookup(), name="upper")
    assert asynchronous.description == "Look a word up, asynchronously."
    assert await run_once(asynchronous, {"word": "b"}) == ("B", False)


def test_an_unreadable_or_positional_callable_is_a_schema_conversion_error() -> None:
    with pytest.raises(SchemaConversionError, match="cannot read the parameters of 'itemgetter'"):
        FunctionTool(operator.itemgetter(1))
    with pytest.raises(SchemaConversionError, match="positional-only"):
        FunctionTool(len)
    with pytest.raises(ConfigurationError):  # SchemaConversionError is a ConfigurationError
        FunctionTool(functools.partial(max, 1))
