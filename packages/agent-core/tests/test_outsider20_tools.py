"""Outsider attacks on issue #20's shared arguments model (``tools/_arguments.py``): tools of
one function share one cached model/schema; it must never be another function's, stale, a
leak, or a channel between tools."""

from __future__ import annotations

import contextlib
import copy
import functools
import gc
import inspect
import threading
import types
import weakref
from typing import Annotated, Any

import pytest
from pydantic import Field
from robota.core.agent import Agent
from robota.core.messages import ToolResultMessage
from robota.core.schema.signature import arguments_model
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools.function import FunctionTool


def props(tool: FunctionTool[..., Any]) -> dict[str, Any]:
    return tool.parameters["properties"]


async def call(tool: FunctionTool[..., Any], arguments: dict[str, Any]) -> Any:
    """Run ``tool`` once through an agent; the tool result's text and error flag."""
    provider = ScriptedProvider([[tool_call("c1", tool.name, arguments)], [text("done")]])
    agent = Agent(provider, tools=[tool], retry=None)
    await agent.run("go")
    results = [m for m in agent.history if isinstance(m, ToolResultMessage)]
    part = results[0].results[0]
    return part.text, part.is_error


# ---------------------------------------------------------------------------------------------
# never another function's schema


def test_closures_of_one_def_get_their_own_defaults() -> None:
    # HELD
    def make(default: int) -> Any:
        def f(x: int = default) -> str:
            return str(x)

        return f

    tools = [FunctionTool(make(d)) for d in (1, 2, 3)]
    assert [props(t)["x"].get("default") for t in tools] == [1, 2, 3]


def test_closures_of_one_def_get_their_own_annotations() -> None:
    # HELD
    def make(kind: type) -> Any:
        def f(x: Any) -> str:
            return str(x)

        f.__annotations__ = {"x": kind, "return": str}
        return f

    a, b = FunctionTool(make(int)), FunctionTool(make(str))
    assert props(a)["x"]["type"] == "integer"
    assert props(b)["x"]["type"] == "string"


def test_functions_with_identical_code_and_name_are_distinct() -> None:
    # HELD
    def f(x: int) -> str:
        return str(x)

    g = types.FunctionType(f.__code__, f.__globals__, "f", (5,))
    g.__annotations__ = {"x": str}
    assert props(FunctionTool(f))["x"]["type"] == "integer"
    assert (
        props(FunctionTool(g))["x"] == {"type": "string", "default": 5}
        or props(FunctionTool(g))["x"]["type"] == "string"
    )


# ---------------------------------------------------------------------------------------------
# a changed function is re-read


def plain(x: int, y: str = "a") -> str:
    """Plain.

    Args:
        x: first.
    """
    return f"{x}{y}"


def fresh() -> Any:
    def f(x: int, y: str = "a", *, z: int = 1) -> str:
        """Doc.

        Args:
            x: first.
        """
        return f"{x}{y}{z}"

    return f


@pytest.mark.parametrize(
    "change",
    [
        "annotation-replace",
        "annotation-in-place",
        "defaults",
        "kwdefaults",
        "signature",
        "docstring",
        "name",
        "code",
        "wrapped",
    ],
)
def test_a_change_after_the_first_tool_is_seen_by_the_next_tool(change: str) -> None:
    # HELD
    f = fresh()
    before = copy.deepcopy(FunctionTool(f).parameters)
    if change == "annotation-replace":
        f.__annotations__ = {"x": str, "y": str, "z": int, "return": str}
    elif change == "annotation-in-place":
        f.__annotations__["x"] = bool
    elif change == "defaults":
        f.__defaults__ = ("b",)
    elif change == "kwdefaults":
        f.__kwdefaults__ = {"z": 9}
    elif change == "signature":
        f.__signature__ = inspect.Signature(
            [inspect.Parameter("q", inspect.Parameter.KEYWORD_ONLY, annotation=int)]
        )
    elif change == "docstring":
        f.__doc__ = "Other.\n\nArgs:\n    x: changed description.\n"
    elif change == "name":
        f.__name__ = "renamed"
    elif change == "code":

        def other(x: int, y: str = "a", *, w: int = 1) -> str:
            return ""

        f.__code__ = other.__code__
        f.__kwdefaults__ = {"w": 1}
    else:

        def target(q: float) -> str:
            return ""

        f.__wrapped__ = target
    after = FunctionTool(f)
    if change == "name":  # the name is not in the schema; the tool takes the new one
        assert after.name == "renamed"
        assert after.arguments.model.__name__ == "renamed_arguments"
    else:
        assert after.parameters != before, change


# HELD (fixed): the fingerprint covers every function along the __wrapped__ chain
@pytest.mark.parametrize("change", ["defaults", "signature"])
def test_change_of_the_wrapped_function_invalidates_the_wrapper(change: str) -> None:
    def inner(x: int = 1) -> str:
        return str(x)

    @functools.wraps(inner)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        return inner(*args, **kwargs)

    first = FunctionTool(wrapper)
    assert props(first)["x"]["default"] == 1
    if change == "defaults":
        inner.__defaults__ = (7,)
    else:
        inner.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter("x", inspect.Parameter.KEYWORD_ONLY, annotation=int, default=7)]
        )
    fresh_schema = FunctionTool(wrapper).parameters
    uncached = arguments_model(wrapper).schema  # what a build without the cache reads
    assert fresh_schema == uncached


# HELD (fixed): a function with a mutable default is not cached (built anew per tool)
def test_mutable_default_changed_in_place() -> None:
    def f(tags: list[str] = []) -> str:  # noqa: B006 - the point of the attack
        return ",".join(tags)

    assert props(FunctionTool(f))["tags"]["default"] == []
    assert f.__defaults__ is not None
    f.__defaults__[0].append("new")
    assert props(FunctionTool(f))["tags"]["default"] == ["new"]


# ---------------------------------------------------------------------------------------------
# the shared parameters dict


def test_tools_of_one_function_share_the_model() -> None:
    # HELD (the promise of the change)
    a, b = FunctionTool(plain), FunctionTool(plain, name="other", description="d")
    assert a.arguments is b.arguments
    assert b.name == "other"
    assert b.description == "d"
    assert a.description == "Plain."


# HELD (fixed): each tool's parameters is its own copy of the shared schema
def test_editing_one_tools_parameters_leaves_another_alone() -> None:
    def f(x: int) -> str:
        return str(x)

    a, b = FunctionTool(f), FunctionTool(f)
    try:
        a.parameters["properties"]["x"]["description"] = "hacked"
    except TypeError:
        return  # read-only: held
    assert "description" not in props(b)["x"]


# HELD (fixed): the agent validates against each tool's own parameters copy
@pytest.mark.anyio
async def test_editing_one_tools_schema_does_not_change_validation_of_another() -> None:
    def pick(x: str) -> str:
        return f"picked {x}"

    narrowed, untouched = FunctionTool(pick), FunctionTool(pick)
    narrowed.parameters["properties"]["x"]["enum"] = ["only"]
    got = await call(untouched, {"x": "anything"})
    assert got == ("picked anything", False)


@pytest.mark.anyio
async def test_validation_uses_own_function_even_with_same_name() -> None:
    # HELD
    def tool_a(x: int) -> str:
        return f"a{x}"

    def tool_b(x: str) -> str:
        return f"b{x}"

    tool_b.__name__ = "tool_a"
    a, b = FunctionTool(tool_a), FunctionTool(tool_b)
    assert props(a)["x"]["type"] == "integer"
    assert props(b)["x"]["type"] == "string"
    assert await call(b, {"x": "hello"}) == ("bhello", False)
    assert (await call(a, {"x": "hello"}))[1] is True


# ---------------------------------------------------------------------------------------------
# callable kinds


class Box:
    def __init__(self, n: int) -> None:
        self.n = n

    def add(self, x: int) -> str:
        """Add."""
        return str(self.n + x)

    @staticmethod
    def st(x: int) -> str:
        return str(x)

    @classmethod
    def cm(cls, x: int) -> str:
        return f"{cls.__name__}{x}"

    def __call__(self, y: str) -> str:
        return y


@pytest.mark.anyio
async def test_bound_methods_of_two_instances_call_their_own_instance() -> None:
    # HELD
    one, two = FunctionTool(Box(1).add), FunctionTool(Box(100).add)
    assert one.arguments is two.arguments
    assert list(props(one)) == ["x"]
    assert await call(one, {"x": 1}) == ("2", False)
    assert await call(two, {"x": 1}) == ("101", False)


def test_method_unbound_and_plain_function_do_not_share_the_drop() -> None:
    # HELD
    def free(self: int, x: int) -> str:
        return str(x)

    as_function = FunctionTool(free)
    as_method = FunctionTool(types.MethodType(free, 3))
    assert list(props(as_function)) == ["self", "x"]
    assert list(props(as_method)) == ["x"]
    assert list(props(FunctionTool(free))) == ["self", "x"]


@pytest.mark.anyio
async def test_classmethod() -> None:
    # HELD (a callable object, like a partial, raises TypeError: pre-existing, see below)
    assert list(props(FunctionTool(Box.cm))) == ["x"]
    assert await call(FunctionTool(Box.cm), {"x": 2}) == ("Box2", False)


# HELD (fixed): a staticmethod read through its (module-level) class keeps its parameters
def test_staticmethod_keeps_its_first_parameter() -> None:
    assert list(props(FunctionTool(Box.st))) == ["x"]


# HELD (fixed): a functools.partial is described by its remaining parameters
def test_partial_gets_its_own_schema() -> None:
    one = FunctionTool(functools.partial(plain, y="zz"), name="p1")
    two = FunctionTool(functools.partial(plain, y="qq"), name="p2")
    assert props(one)["y"]["default"] == "zz"
    assert props(two)["y"]["default"] == "qq"


@pytest.mark.anyio
async def test_async_and_sync_functions_with_same_name_and_code_shape() -> None:
    # HELD
    def same(x: int) -> str:
        return f"sync{x}"

    async def same_async(x: int) -> str:
        return f"async{x}"

    same_async.__name__ = "same"
    s, a = FunctionTool(same), FunctionTool(same_async)
    assert s.arguments is not a.arguments
    assert await call(s, {"x": 1}) == ("sync1", False)
    assert await call(a, {"x": 1}) == ("async1", False)


def test_annotated_field_metadata_changes_invalidate() -> None:
    # HELD
    def f(x: Annotated[int, Field(ge=0)]) -> str:
        return str(x)

    assert props(FunctionTool(f))["x"].get("minimum") == 0
    f.__annotations__["x"] = Annotated[int, Field(ge=5)]
    assert props(FunctionTool(f))["x"].get("minimum") == 5


# ---------------------------------------------------------------------------------------------
# no leak


class Big:
    pass


def test_cache_keeps_neither_the_function_nor_its_closure_alive() -> None:
    # HELD
    def make() -> tuple[Any, weakref.ref[Big]]:
        big = Big()

        def f(x: int) -> str:
            return str(x) + str(id(big))

        return f, weakref.ref(big)

    fn, big_ref = make()
    fn_ref = weakref.ref(fn)
    tool = FunctionTool(fn)
    FunctionTool(fn)
    del fn, tool
    gc.collect()
    assert fn_ref() is None
    assert big_ref() is None


@pytest.mark.filterwarnings("ignore:Default value .* is not JSON serializable")
def test_cache_keeps_a_default_value_or_bound_instance_alive_no_longer_than_the_function() -> None:
    # HELD
    def make() -> tuple[Any, weakref.ref[Big]]:
        big = Big()

        def f(x: int, cfg: Any = big) -> str:
            return str(x)

        f.__annotations__["cfg"] = Any
        return f, weakref.ref(big)

    fn, big_ref = make()
    box = Box(1)
    box_ref = weakref.ref(box)
    FunctionTool(box.add)
    with contextlib.suppress(Exception):
        FunctionTool(fn)
    del fn, box
    gc.collect()
    assert big_ref() is None
    assert box_ref() is None


# ---------------------------------------------------------------------------------------------
# threads


def test_many_threads_building_tools_of_one_function() -> None:
    # HELD
    f = fresh()
    barrier = threading.Barrier(16)
    out: list[Any] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            barrier.wait()
            for _ in range(20):
                out.append(FunctionTool(f).arguments)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert len(out) == 320
    assert all(a.schema == out[0].schema for a in out)
    # after the race settles, one model is shared
    assert FunctionTool(f).arguments is FunctionTool(f).arguments


def test_threads_building_while_another_thread_mutates() -> None:
    # HELD: whatever interleaving, a tool built after the change shows the change
    f = fresh()
    stop = threading.Event()

    def build() -> None:
        while not stop.is_set():
            FunctionTool(f)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        f.__defaults__ = ("changed",)
        assert props(FunctionTool(f))["y"]["default"] == "changed"
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    assert props(FunctionTool(f))["y"]["default"] == "changed"
