"""Helpers shared by the plugin tests: a real tool and an event recorder."""

from __future__ import annotations

from robota.core.events import Event
from robota.core.tools.base import RiskClass
from robota.core.tools.function import FunctionTool, tool


@tool(risk=RiskClass.INSPECT)
def lookup(query: str) -> str:
    """Look something up.

    Args:
        query: What to look up.
    """
    return f"found {query}"


@tool(risk=RiskClass.INSPECT)
def web_fetch(url: str) -> str:
    """Fetch a page.

    Args:
        url: The address.
    """
    return f"page {url}"


TOOLS: tuple[FunctionTool, ...] = (lookup, web_fetch)


class Recorder:
    """An event sink keeping every event."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
