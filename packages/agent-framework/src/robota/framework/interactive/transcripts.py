"""Subagent transcripts: each child's events go to its own JSONL log (seed 003, "subagent
transcript chunks — are written to append-only JSONL logs and transcript files, not to the
primary session snapshot"; issue #15).

A child's log sits next to its session's log and is named by the subagent's run id
(``<session_id>.<child_id>.jsonl``, :meth:`~robota.session.EventLog.subagent_log_id`); it is
created owner-only like every log. It holds a ``subagent.started`` entry, the child's committed
messages, text deltas and tool progress, and a ``subagent.finished`` entry with the outcome and
usage. The parent's log records ``subagent.started`` / ``subagent.finished`` with the
transcript's log id, so a reader finds the transcript from the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from robota.core.events import Event
from robota.framework.interactive._wiring import log_event
from robota.framework.subagents import SubagentFinished, SubagentStarted
from robota.session import EventLog

__all__ = ["SubagentTranscripts"]


class SubagentTranscripts:
    """An event sink for :class:`~robota.framework.subagents.SpawnAgentTool`: pass it as both
    ``sinks`` (start/finish) and ``child_sinks`` (the child agent's own events).

    Args:
        log: The event log (the session's).
        session_id: Returns the parent session's id (read at each event).
    """

    def __init__(self, log: EventLog, session_id: Callable[[], str]) -> None:
        self._log = log
        self._session_id = session_id

    def emit(self, event: Event) -> None:
        """Route ``event`` to the parent's log and/or the child's transcript."""
        session_id = self._session_id()
        if isinstance(event, SubagentStarted):
            child = EventLog.subagent_log_id(session_id, event.child_id)
            data: dict[str, Any] = {
                "child_id": event.child_id,
                "agent": event.agent,
                "model": event.model,
                "tools": list(event.tools),
                "transcript": child,
            }
            self._log.append(session_id, event.type, data)
            self._log.append(child, event.type, {**data, "parent_session_id": session_id})
            return
        if isinstance(event, SubagentFinished):
            usage = event.usage
            data = {
                "child_id": event.child_id,
                "agent": event.agent,
                "state": event.state,
                "error": event.error,
                "usage": {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "requests": usage.requests,
                },
                "transcript": EventLog.subagent_log_id(session_id, event.child_id),
            }
            self._log.append(data["transcript"], event.type, data)
            self._log.append(session_id, event.type, data)
            return
        child_id = event.owner.find("agent")
        if child_id is not None and child_id.startswith("sub_"):
            log_event(self._log, EventLog.subagent_log_id(session_id, child_id), event)
