"""The reason of a failure as a user reads it (issue #18): the operating system's words found
under exception groups, causes and contexts, as a failed MCP server, a failed ``robota mcp
login`` and a failed model call say them."""

from __future__ import annotations

import asyncio
import doctest
import socket

import anyio
import httpx
import pytest
from robota.framework import failure_reason as module
from robota.framework.failure_reason import failure_reason, innermost_error, os_failure

pytestmark = pytest.mark.anyio


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def _refused_in_a_task_group() -> BaseException:
    """What anyio gives when a task's connection is refused: an ExceptionGroup whose member
    is the OSError, whose context is the cancellation of the group."""
    port = _closed_port()
    try:
        async with anyio.create_task_group() as group:

            async def connect() -> None:
                await anyio.connect_tcp("127.0.0.1", port)

            group.start_soon(connect)
            await anyio.sleep_forever()
    except BaseExceptionGroup as error:
        return error
    raise AssertionError("the connection was not refused")


async def test_a_refused_connection_under_a_task_group_says_connection_refused() -> None:
    error = await _refused_in_a_task_group()
    assert isinstance(error, BaseExceptionGroup)
    assert failure_reason(error) == "connection refused"
    assert isinstance(os_failure(error), OSError)
    assert not isinstance(innermost_error(error), BaseExceptionGroup)


def _chained(outer: Exception, *inner: BaseException) -> Exception:
    """``outer`` whose cause is ``inner[0]``, whose cause is ``inner[1]``..."""
    current: BaseException = outer
    for next_ in inner:
        current.__cause__ = next_
        current = next_
    return outer


def test_an_unknown_host_says_the_resolvers_words_in_lower_case() -> None:
    request = httpx.Request("POST", "http://h.example/mcp")
    error = ExceptionGroup(
        "unhandled errors in a TaskGroup",
        [
            _chained(
                httpx.ConnectError("[Errno -2] Name or service not known", request=request),
                socket.gaierror(-2, "Name or service not known"),
            )
        ],
    )
    error.__context__ = asyncio.CancelledError("Cancelled via cancel scope 7f00")
    assert failure_reason(error) == "name or service not known"
    assert isinstance(os_failure(error), socket.gaierror)


def test_without_an_os_reason_the_innermost_message_is_said_and_cancellations_are_not() -> None:
    error = ExceptionGroup("in a TaskGroup", [_chained(RuntimeError("outer"), ValueError("inner"))])
    error.__context__ = asyncio.CancelledError("Cancelled via cancel scope 7f00")
    assert failure_reason(error) == "inner"
    assert os_failure(error) is None
    assert repr(innermost_error(error)) == "RuntimeError('outer')"
    # a library's OSError with only a message and a bare TimeoutError are no OS failure
    assert os_failure(OSError("All connection attempts failed")) is None
    assert os_failure(TimeoutError("not ready within 10 s")) is None
    assert failure_reason(TimeoutError("not ready within 10 s")) == "not ready within 10 s"


def test_a_loop_of_contexts_ends() -> None:
    first, second = RuntimeError("a"), RuntimeError("b")
    first.__context__, second.__context__ = second, first
    assert failure_reason(first) == "b"


def test_docstring_examples_run() -> None:
    assert doctest.testmod(module, raise_on_error=True).attempted >= 2


async def test_the_oauth_login_names_the_address_it_could_not_reach() -> None:
    pytest.importorskip("mcp")
    from robota.framework.mcp.oauth import _cause  # pyright: ignore[reportPrivateUsage]

    refused = await _refused_in_a_task_group()
    assert _cause(refused, "http://127.0.0.1:9/mcp?key=secret") == (
        "cannot connect to http://127.0.0.1:9/mcp: connection refused"
    )
    request = httpx.Request("GET", "http://user:pw@auth.example:8443/.well-known/x?k=1")
    unknown = _chained(
        httpx.ConnectError("boom", request=request),
        socket.gaierror(-2, "Name or service not known"),
    )
    assert _cause(ExceptionGroup("g", [unknown]), "http://h.example/mcp") == (
        "cannot connect to http://auth.example:8443/.well-known/x: name or service not known"
    )
