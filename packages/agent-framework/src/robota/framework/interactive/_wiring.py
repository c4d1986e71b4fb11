"""Wiring helpers of the interactive session: hook configs from settings, and the sinks that
forward agent events to subscribers and to the JSONL log."""

from __future__ import annotations

from typing import Protocol

from robota.core.agent.events import HistoryCommitted, ModelTextDelta, ToolProgress
from robota.core.events import Event, OwnerPath
from robota.core.hooks import HookConfig, HookEventName
from robota.core.messages import SystemMessage
from robota.framework.interactive.config import SessionConfig
from robota.framework.interactive.events import ContextOverflowRecovered
from robota.framework.settings import Settings
from robota.session import EventLog

__all__ = ["hooks_of"]


class _Forwarding(Protocol):
    def _forward(self, event: Event) -> None: ...


class _Logged(Protocol):
    config: SessionConfig

    @property
    def id(self) -> str: ...


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

    def __init__(self, session: _Logged) -> None:
        self._session = session

    def emit(self, event: Event) -> None:
        log = self._session.config.event_log
        if log is not None:
            log_event(log, self._session.id, event)


def log_event(log: EventLog, log_id: str, event: Event) -> None:
    """Write one agent event to the log ``log_id`` when it is one the log keeps: committed
    messages (not the system message), text deltas and tool progress."""
    if isinstance(event, HistoryCommitted):
        if not isinstance(event.message, SystemMessage):
            log.append_message(log_id, event.message)
    elif isinstance(event, ModelTextDelta):
        log.append(log_id, event.type, {"text": event.text})
    elif isinstance(event, ToolProgress):
        log.append(log_id, event.type, {"call_id": event.call_id, "text": event.text})


def overflow_event(owner: OwnerPath, elided: int) -> Event:
    return ContextOverflowRecovered(owner=owner, elided_results=elided)
