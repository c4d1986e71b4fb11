"""Wiring helpers of the interactive session: hook configs from settings, and the sinks that
forward agent events to subscribers and to the JSONL log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from robota.core.agent.events import HistoryCommitted, ModelTextDelta, ToolProgress
from robota.core.events import Event, OwnerPath
from robota.core.hooks import HookConfig, HookEventName
from robota.core.messages import SystemMessage
from robota.framework.interactive.events import ContextOverflowRecovered
from robota.framework.settings import Settings

if TYPE_CHECKING:
    from robota.framework.interactive.session import InteractiveSession

__all__ = ["hooks_of"]


class _Forwarding(Protocol):
    def _forward(self, event: Event) -> None: ...


def hooks_of(settings: Settings) -> list[HookConfig]:
    """Hook configurations from merged settings (ids kept so layers can disable them)."""
    configs: list[HookConfig] = []
    for event, entries in settings.hooks.items():
        for entry in entries:
            configs.append(
                HookConfig(
                    event=HookEventName(event),
                    type=entry.type,
                    matcher="" if entry.matcher == "*" else entry.matcher,
                    command=entry.command,
                    url=entry.url,
                    timeout=entry.timeout,
                    id=entry.id,
                )
            )
    return configs


class Forwarder:
    """Delivers agent and hook events to the session's subscribers."""

    def __init__(self, session: _Forwarding) -> None:
        self._session = session

    def emit(self, event: Event) -> None:
        self._session._forward(event)


class LogSink:
    """Writes high-frequency events and committed messages to the session's JSONL log."""

    def __init__(self, session: InteractiveSession) -> None:
        self._session = session

    def emit(self, event: Event) -> None:
        log = self._session.config.event_log
        if log is None:
            return
        session_id = self._session.id
        if isinstance(event, HistoryCommitted):
            if not isinstance(event.message, SystemMessage):
                log.append_message(session_id, event.message)
        elif isinstance(event, ModelTextDelta):
            log.append(session_id, event.type, {"text": event.text})
        elif isinstance(event, ToolProgress):
            log.append(session_id, event.type, {"call_id": event.call_id, "text": event.text})


def overflow_event(owner: OwnerPath, elided: int) -> Event:
    return ContextOverflowRecovered(owner=owner, elided_results=elided)
