"""One arguments model per function, shared by its FunctionTools (issue 20: idle-session memory).

Every ``FunctionTool`` of one function reuses the pydantic arguments model and schema built for
the first one; a different signature, a method read through its class, a function changed after
the first build and a callable that is not a function (a class) each get their own; the cache never keeps
a function alive.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import anyio
import pytest
from robota.core.errors import ToolArgumentsError
from robota.core.tools import FunctionTool, ToolContext, tool


def get_weather(city: str, days: int = 1) -> str:
    """Forecast for a city.

    Args:
        city: City name.
        days: How many days ahead.
    """
    return f"{city} {days}"


def _ctx(name: str) -> ToolContext[None]:
    return ToolContext(run_id="r", call_id="c", tool_call_id="t", tool_name=name, deps=None)


def test_two_tools_of_one_function_share_the_model_and_schema() -> None:
    first, second = FunctionTool(get_weather), FunctionTool(get_weather)
    assert first is not second
    assert first.arguments is second.arguments
    assert first.arguments.model is second.arguments.model
    assert first.parameters == second.parameters
    assert first.parameters is not second.parameters  # each tool's own copy (outsider 20)
    assert first.parameters["required"] == ["city"]


def test_options_stay_per_tool_while_the_model_is_shared() -> None:
    plain = FunctionTool(get_weather)
    renamed = FunctionTool(get_weather, name="forecast", description="Other words.", strict=True)
    assert (plain.name, renamed.name) == ("get_weather", "forecast")
    assert (plain.description, renamed.description) == ("Forecast for a city.", "Other words.")
    assert (plain.strict, renamed.strict) == (None, True)
    assert renamed.definition().parameters == plain.definition().parameters
    assert renamed.arguments is plain.arguments


def test_each_shared_tool_still_validates_and_coerces() -> None:
    first, second = FunctionTool(get_weather), FunctionTool(get_weather, name="w2")
    assert anyio.run(first.call, {"city": "Oslo", "days": "3"}, _ctx("get_weather")) == "Oslo 3"
    with pytest.raises(ToolArgumentsError) as caught:
        anyio.run(second.call, {"days": 2}, _ctx("w2"))
    assert caught.value.tool_name == "w2"


def test_a_different_signature_never_gets_another_functions_model() -> None:
    def one(city: str) -> str:
        return city

    def two(city: int) -> str:  # same name and parameter, another type
        return str(city)

    two.__name__ = "one"
    a, b = FunctionTool(one), FunctionTool(two)
    assert a.arguments is not b.arguments
    assert a.parameters["properties"]["city"]["type"] == "string"
    assert b.parameters["properties"]["city"]["type"] == "integer"


def test_a_function_changed_after_the_first_tool_is_built_anew() -> None:
    def probe(x: int = 1) -> int:
        """Old text."""
        return x

    before = FunctionTool(probe)
    probe.__doc__ = "New text."
    probe.__defaults__ = (5,)
    after = FunctionTool(probe)
    assert after.arguments is not before.arguments
    assert (before.description, after.description) == ("Old text.", "New text.")
    assert after.parameters["properties"]["x"]["default"] == 5
    assert FunctionTool(probe).arguments is after.arguments


class Calc:
    def __init__(self, factor: int) -> None:
        self.factor = factor

    @tool
    def scale(self, value: int) -> int:
        """Scale a value."""
        return value * self.factor

    def plain(self, value: int) -> int:
        """Plain method."""
        return value + self.factor


def test_a_method_tool_drops_self_and_shares_across_instances() -> None:
    by_class = Calc.scale
    one, two = Calc(2).scale, Calc(3).scale
    assert list(by_class.parameters["properties"]) == ["value"]
    assert one.arguments is two.arguments is by_class.arguments
    assert (one(4), two(4)) == (8, 12)


def test_a_bound_method_shares_with_others_of_its_function() -> None:
    a, b = FunctionTool(Calc(1).plain), FunctionTool(Calc(2).plain)
    assert a.arguments is b.arguments
    assert list(a.parameters["properties"]) == ["value"]
    assert anyio.run(b.call, {"value": 1}, _ctx("plain")) == "3"


def test_a_function_and_a_method_of_it_get_different_schemas() -> None:
    def take(first: int, second: int) -> int:
        return first + second

    as_function = FunctionTool(take)
    as_method = FunctionTool(take.__get__(object()))
    assert list(as_function.parameters["properties"]) == ["first", "second"]
    assert list(as_method.parameters["properties"]) == ["second"]
    assert as_function.arguments is not as_method.arguments


class Reading:
    """A reading for a city."""

    def __init__(self, city: str) -> None:
        self.city = city


def test_a_callable_that_is_no_function_is_built_per_tool() -> None:
    a, b = FunctionTool(Reading, name="r1"), FunctionTool(Reading, name="r2")
    assert a.arguments is not b.arguments
    assert a.parameters == b.parameters
    assert list(a.parameters["properties"]) == ["city"]


def test_the_cache_does_not_keep_a_deleted_function_alive() -> None:
    def make() -> Any:
        def temporary(city: str) -> str:
            return city

        return temporary

    fn = make()
    FunctionTool(fn)
    FunctionTool(fn)
    ref = weakref.ref(fn)
    del fn
    gc.collect()
    assert ref() is None
