"""Shared pieces of the contenders: the runner protocol, the scenario's tools, the client."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import httpx

__all__ = [
    "PROMPT",
    "Contender",
    "Runner",
    "get_time",
    "get_weather",
    "http_client",
    "installed",
    "openai_client",
    "optional_module",
]

PROMPT = "What is the weather and the time in Paris?"

Api = Literal["chat", "responses"]


class Runner(Protocol):
    """Runs the scenario once for one model id (``bench-rN``).

    ``run`` returns the ``time.perf_counter()`` instant of the first text delta the caller saw
    (None on a non-streaming path).
    """

    async def run(self, model: str) -> float | None: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class Contender:
    """One loop implementation under test.

    Attributes:
        name: Row label, e.g. ``robota/chat/stream``.
        family: ``wire``, ``raw``, ``robota``, ``pydantic_ai`` or ``openai_agents``.
        api: Which OpenAI API it speaks.
        streaming: Whether it streams (its floors are the wire and raw loops with the same api
            and mode).
        requires: Importable module names it needs (a peer in the ``bench`` group).
        make: Builds a runner from the server's base URL and the shared httpx client.
    """

    name: str
    family: str
    api: Api
    streaming: bool
    requires: tuple[str, ...]
    make: Callable[[str, httpx.AsyncClient], Runner]

    @property
    def available(self) -> bool:
        """True when every required module can be imported."""
        return all(installed(m) for m in self.requires)

    @property
    def mode(self) -> str:
        """``stream`` or ``buffered``."""
        return "stream" if self.streaming else "buffered"

    @property
    def floor(self) -> str:
        """Name of the raw-SDK contender this one is compared with."""
        return f"raw/{self.api}/{self.mode}"

    @property
    def wire_floor(self) -> str:
        """Name of the wire contender (httpx and json alone) this one is compared with."""
        return f"wire/{self.api}/{self.mode}"


def installed(module: str) -> bool:
    """True when ``module`` is importable in this interpreter."""
    return importlib.util.find_spec(module) is not None


def optional_module(name: str) -> Any:
    """Import a peer module that may not be installed (typed Any on purpose: the peers live in
    the optional ``bench`` group, so the type checker must not need them)."""
    return importlib.import_module(name)


async def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 21 C in {city}"


async def get_time(city: str) -> str:
    """Local time in a city."""
    return f"12:00 in {city}"


TOOL_BODIES: dict[str, Callable[..., Any]] = {"get_weather": get_weather, "get_time": get_time}


def http_client(connections: int = 256) -> httpx.AsyncClient:
    """The httpx client a contender's runner uses (keep-alive pool of ``connections``); every
    contender gets the same settings (see :func:`tools.bench._measure.concurrency` for how the
    concurrent load spreads runs over several such clients)."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    # No pool timeout: with many concurrent runs, waiting for a pooled connection is the point.
    return httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(600.0, pool=None))


def openai_client(base_url: str, client: httpx.AsyncClient) -> Any:
    """An ``openai.AsyncOpenAI`` on the loopback server, retries off, on the shared client."""
    openai = importlib.import_module("openai")
    return openai.AsyncOpenAI(api_key="bench", base_url=base_url, http_client=client, max_retries=0)
