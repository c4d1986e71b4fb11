"""Append-only JSONL event log per session (issue: agent-session).

High-frequency events (text deltas, tool progress) are written here, never into the session
snapshot. Each line is one JSON object ``{"seq": n, "ts": iso8601, "type": str, "data": {...}}``.
Entries of type ``session.created`` and ``message.committed`` (with the full message) let
:meth:`EventLog.rebuild` reconstruct a session whose snapshot is missing. Files and the folder are
created owner-only (0600 / 0700) in the folder the host names; nothing is written elsewhere.

What already exists is verified before it is used (issue #12, through
:mod:`robota.core.host.owner_only`): the folder must be an owner-only directory of this account
(not a link), and a log file is created exclusively or else must be an owner-only regular file
of this account; it is opened ``O_NOFOLLOW`` (``O_APPEND`` to write), so a planted link is never
followed and a planted FIFO never opened; a log file with more than one hard link is refused.
The folder (and its ancestors) is ensured on the first append, and every append and read then
opens the folder itself (``O_DIRECTORY | O_NOFOLLOW``, verified owner-only) and the log file
relative to that descriptor: a folder renamed away and replaced by a link mid-session is
refused, never followed. A refusal raises
:class:`~robota.core.host.errors.UnsafeStoreEntryError` or
:class:`~robota.core.host.errors.InsecurePermissionsError`, naming the path and the fix.

A torn last line (a process killed mid-write) is skipped on read; a malformed line elsewhere
raises :class:`EventLogCorruptError` naming the file and line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from robota.core.host.owner_only import ensure_private_dir, open_private_file, private_dir
from robota.core.messages import Message, dump_messages, load_messages
from robota.session.record import SessionRecord
from robota.session.store import SessionStoreError

__all__ = ["EventLog", "EventLogCorruptError", "LogEntry"]

_SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


class EventLogCorruptError(SessionStoreError):
    """A log line other than a torn last line is not valid JSON."""

    code = "event_log_corrupt"


@dataclass(frozen=True, kw_only=True, slots=True)
class LogEntry:
    """One log line.

    Attributes:
        seq: 1-based position in the file.
        ts: Write time (UTC).
        type: Event type, e.g. ``model.text_delta``, ``message.committed``.
        data: JSON payload.
    """

    seq: int
    ts: datetime
    type: str
    data: Mapping[str, Any]


class EventLog:
    """JSONL logs, one file per session, in a host-named folder.

    Args:
        folder: Where ``<session_id>.jsonl`` files live (created 0700 if missing; an existing
            one must be an owner-only directory of this account, not a link).

    Raises:
        ValueError: for a session id that is not a safe file name.
        UnsafeStoreEntryError: (from :meth:`append` and :meth:`read`) the folder or a log file
            is a symbolic link or the wrong kind of entry.
        InsecurePermissionsError: (same) the folder or a log file is readable by others or
            belongs to another account.
    """

    def __init__(self, folder: str | Path) -> None:
        self._folder = Path(folder)
        self._seq: dict[str, int] = {}
        self._folder_ready = False

    def path(self, session_id: str) -> Path:
        """The log file of ``session_id``."""
        if not _SAFE_ID.match(session_id) or session_id in {".", ".."}:
            raise ValueError(f"unsafe session id {session_id!r}")
        return self._folder / f"{session_id}.jsonl"

    def append(self, session_id: str, type: str, data: Mapping[str, Any]) -> LogEntry:
        """Append one entry (written and flushed before returning).

        The folder is ensured owner-only on the first append; the file is created exclusively
        (0600) or verified, and opened ``O_APPEND | O_NOFOLLOW``.

        Raises:
            UnsafeStoreEntryError: the folder or the file is a link or the wrong kind of entry.
            InsecurePermissionsError: the folder or the file is not owner-only.
        """
        path = self.path(session_id)
        if not self._folder_ready:
            ensure_private_dir(self._folder)  # creates it; checks it and its ancestors
            self._folder_ready = True
        seq = self._seq.get(session_id)
        if seq is None:
            seq = len(self._read_lines(path))
        seq += 1
        entry = LogEntry(seq=seq, ts=datetime.now(UTC), type=type, data=dict(data))
        line = json.dumps(
            {"seq": seq, "ts": entry.ts.isoformat(), "type": type, "data": entry.data},
            separators=(",", ":"),
        )
        # the folder is opened (not followed) and checked again on every append: a link put in
        # its place since the last one is refused; a removed folder is created again
        with private_dir(self._folder, create=True) as folder:
            fd = open_private_file(path, append=True, create=True, dir_fd=folder)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
        self._seq[session_id] = seq
        return entry

    def append_message(self, session_id: str, message: Message) -> LogEntry:
        """Append a ``message.committed`` entry carrying the full message."""
        body = json.loads(dump_messages([message]))["messages"][0]
        return self.append(session_id, "message.committed", {"message": body})

    def _read_lines(self, path: Path) -> list[str]:
        """The non-blank lines of a log file, verified and opened without following a link
        ([] when the file or the folder does not exist)."""
        try:
            with private_dir(self._folder) as folder:
                fd = open_private_file(path, dir_fd=folder)
        except FileNotFoundError:
            return []
        with open(fd, encoding="utf-8") as handle:
            return [line for line in handle if line.strip()]

    def read(self, session_id: str) -> list[LogEntry]:
        """Every entry of a session's log, in order ([] when there is no log).

        Raises:
            EventLogCorruptError: for a malformed line that is not the last one.
            UnsafeStoreEntryError: the folder or the file is a link or the wrong kind of entry.
            InsecurePermissionsError: the folder or the file is not owner-only.
        """
        path = self.path(session_id)
        lines = self._read_lines(path)
        entries: list[LogEntry] = []
        for number, line in enumerate(lines, start=1):
            try:
                raw = json.loads(line)
                entries.append(
                    LogEntry(
                        seq=int(raw["seq"]),
                        ts=datetime.fromisoformat(raw["ts"]),
                        type=str(raw["type"]),
                        data=raw["data"],
                    )
                )
            except (ValueError, KeyError, TypeError) as exc:
                if number == len(lines) and not line.endswith("\n"):
                    break  # torn last write
                raise EventLogCorruptError(f"{path}:{number}: malformed log line") from exc
        return entries

    def rebuild(self, session_id: str) -> SessionRecord:
        """Rebuild a session record from its log (for a missing snapshot).

        Raises:
            SessionStoreError: when the log has no ``session.created`` entry.
        """
        created: Mapping[str, Any] | None = None
        messages: list[Message] = []
        for entry in self.read(session_id):
            if entry.type == "session.created":
                created = entry.data
            elif entry.type == "message.committed":
                doc = json.dumps({"version": 1, "messages": [entry.data["message"]]})
                messages.extend(load_messages(doc))
        if created is None:
            raise SessionStoreError(f"session {session_id}: log has no session.created entry")
        return SessionRecord(
            id=session_id,
            model=created.get("model"),
            provider=created.get("provider"),
            system_prompt=created.get("system_prompt"),
            parent_id=created.get("parent_id"),
            title=created.get("title"),
            messages=tuple(messages),
        )
