"""Tools from typed functions: FunctionTool and @tool."""

from __future__ import annotations

import doctest
import json
import threading
from dataclasses import dataclass
from datetime import date

import pytest
import robota.core.tools.function as function_module
from pydantic import BaseModel
from robota.core.errors import ConfigurationError, ToolArgumentsError
from robota.core.tools import (
    ArgumentKind,
    FunctionTool,
    PermissionArgument,
    RiskClass,
    ToolContext,
    ToolReturn,
    tool,
)


@dataclass
class Deps:
    prefix: str


def make_ctx(deps: object = None) -> ToolContext[object]:
    return ToolContext(run_id="r1", call_id="c1", tool_call_id="t1", tool_name="x", deps=deps)


class Item(BaseModel):
    name: str
    qty: int


def test_module_docstring_example_runs() -> None:
    result = doctest.testmod(function_module)
    assert result.attempted == 5
    assert result.failed == 0


def test_bare_decorator_uses_name_docstring_and_defaults() -> None:
    @tool
    def read_file(path: str) -> str:
        """Read a file.

        Args:
            path: File path.
        """
        return path

    assert isinstance(read_file, FunctionTool)
    definition = read_file.definition()
    assert definition.name == "read_file"
    assert definition.description == "Read a file."
    assert definition.parameters == {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "File path."}},
        "required": ["path"],
        "additionalProperties": False,
    }
    assert read_file.risk is None
    assert read_file.max_retries == 2


def test_decorator_options_are_kept() -> None:
    @tool(
        name="fetch_url",
        risk=RiskClass.EXECUTE,
        permission_argument=("url", "url"),
        sequential=True,
        timeout=5.0,
        max_retries=1,
        residency="deferred",
        idempotent=True,
    )
    def fetch(url: str) -> str:
        return url

    assert fetch.name == "fetch_url"
    assert fetch.risk is RiskClass.EXECUTE
    assert fetch.permission_argument == PermissionArgument(key="url", kind=ArgumentKind.URL)
    assert (fetch.sequential, fetch.timeout, fetch.max_retries) == (True, 5.0, 1)
    assert (fetch.residency, fetch.idempotent) == ("deferred", True)


def test_unknown_permission_argument_and_bad_name_are_configuration_errors() -> None:
    def f(path: str) -> str:
        return path

    with pytest.raises(ConfigurationError, match="'url' is not a parameter"):
        FunctionTool(f, permission_argument=("url", ArgumentKind.URL))
    with pytest.raises(ConfigurationError, match="must match"):
        FunctionTool(f, name="has space")


@pytest.mark.anyio
async def test_body_gets_coerced_values_and_model_instances() -> None:
    seen: list[object] = []

    @tool
    def order(count: int, item: Item, when: date | None = None) -> str:
        seen.extend([count, item, when])
        return "ok"

    result = await order.call({"count": "3", "item": {"name": "nut", "qty": 2}}, make_ctx())
    assert result == "ok"
    assert seen == [3, Item(name="nut", qty=2), None]


@pytest.mark.anyio
async def test_invalid_arguments_raise_tool_arguments_error() -> None:
    @tool
    def order(count: int) -> str:
        return str(count)

    with pytest.raises(ToolArgumentsError) as info:
        await order.call({"count": "many", "extra": 1}, make_ctx())
    assert info.value.tool_name == "order"
    assert info.value.issues == (
        "$.count: Input should be a valid integer, unable to parse string as an integer",
        "$.extra: Extra inputs are not permitted",
    )


@pytest.mark.anyio
async def test_context_parameter_receives_the_context_and_deps() -> None:
    @tool
    async def greet(ctx: ToolContext[Deps], name: str) -> str:
        return f"{ctx.deps.prefix} {name} ({ctx.call_id})"

    assert list(greet.parameters["properties"]) == ["name"]
    assert await greet.call({"name": "Ada"}, make_ctx(Deps(prefix="Hi"))) == "Hi Ada (c1)"


@pytest.mark.anyio
async def test_sync_body_runs_in_a_worker_thread() -> None:
    @tool
    def where() -> str:
        return threading.current_thread().name

    assert await where.call({}, make_ctx()) != threading.current_thread().name


@pytest.mark.anyio
async def test_return_values_are_converted() -> None:
    @tool
    def as_model() -> Item:
        return Item(name="bolt", qty=1)

    @tool
    def as_dict() -> dict[str, object]:
        return {"day": date(2025, 1, 2), "n": [1, 2]}

    @tool
    def as_return() -> ToolReturn:
        return ToolReturn.text("bad", is_error=True)

    @tool
    async def as_none() -> None:
        return None

    assert json.loads(str(await as_model.call({}, make_ctx()))) == {"name": "bolt", "qty": 1}
    assert await as_dict.call({}, make_ctx()) == '{"day":"2025-01-02","n":[1,2]}'
    assert await as_return.call({}, make_ctx()) == ToolReturn.text("bad", is_error=True)
    assert await as_none.call({}, make_ctx()) == "null"
