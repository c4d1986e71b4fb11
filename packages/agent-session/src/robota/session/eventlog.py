"""Append-only JSONL event log per session (issue: agent-session).

High-frequency events (text deltas, tool progress) are written here, never into the session
snapshot (seed 003, "Streaming is never written into the main session JSON"). Each line is one
JSON object ``{"seq": n, "ts": iso8601, "type": str, "data": {...}, "session_id": str, "id":
str}``; ``seq`` is the line's 1-based position in the file, ``session_id`` names the log's
session (a line naming another one is ignored on read) and ``id`` is a random entry id that
identifies the line even when the file was truncated or deleted and ``seq`` starts again. Entries of type ``session.created``, ``message.committed`` (with
the full message), ``history.replaced`` (the whole conversation after a compaction, a fork or a
merge) and ``session.title_assigned`` let :meth:`EventLog.rebuild` reconstruct a session whose
snapshot is missing or unreadable, and :func:`replay` apply what was logged after a snapshot
was taken (:mod:`robota.session.recovery`). Files and the folder are created owner-only
(0600 / 0700) in the folder the host names; nothing is written elsewhere. A subagent's
transcript goes to its own log next to its session's (:meth:`EventLog.subagent_log_id`).

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

The log is append-only. A torn last line (a process killed mid-write) is skipped on read. The
next append after one terminates it and writes a ``log.torn_line`` entry right after it, which
tells every later read to skip that line too; any other malformed line (not JSON, invalid
UTF-8, fields of the wrong type) raises :class:`EventLogCorruptError` naming the file and line. Several writers (processes) may append to
one log: the position is re-counted whenever the file changed size behind this object's back.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from robota.core.host.owner_only import ensure_private_dir, open_private_file, private_dir
from robota.core.messages import Message, dump_messages, load_messages
from robota.session.record import SessionRecord
from robota.session.store import SessionStoreError

__all__ = ["EventLog", "EventLogCorruptError", "LogEntry", "replay"]

TORN_LINE = "log.torn_line"
"""Entry type written right after a torn line that an append terminated."""

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
        id: Random entry id (None for a line written before entries carried one).
        session_id: The session the line names (None for a line that names none).
    """

    seq: int
    ts: datetime
    type: str
    data: Mapping[str, Any]
    id: str | None = None
    session_id: str | None = None


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
        # session id -> (last seq, file size, last entry id)
        self._seq: dict[str, tuple[int, int, str | None]] = {}
        self._folder_ready = False

    @property
    def folder(self) -> Path:
        """The folder the log files live in."""
        return self._folder

    @staticmethod
    def subagent_log_id(session_id: str, child_id: str) -> str:
        """The log id of a subagent's transcript: ``<session_id>.<child_id>``, so its file
        ``<session_id>.<child_id>.jsonl`` sits next to the session's own log, named by the
        subagent's run id.

        Raises:
            ValueError: when either id is not a safe file name part.
        """
        log_id = f"{session_id}.{child_id}"
        if not _SAFE_ID.match(log_id):
            raise ValueError(f"unsafe log id {log_id!r}")
        return log_id

    def path(self, session_id: str) -> Path:
        """The log file of ``session_id``."""
        if not _SAFE_ID.match(session_id) or session_id in {".", ".."}:
            raise ValueError(f"unsafe session id {session_id!r}")
        return self._folder / f"{session_id}.jsonl"

    def append(self, session_id: str, type: str, data: Mapping[str, Any]) -> LogEntry:
        """Append one entry (written before returning).

        The folder is ensured owner-only on the first append; the file is created exclusively
        (0600) or verified, and opened ``O_APPEND | O_NOFOLLOW``. When the file changed since
        this object last wrote it (another writer, or a first append), its lines are counted
        again; a torn last line is then terminated and marked with a ``log.torn_line`` entry.

        Raises:
            UnsafeStoreEntryError: the folder or the file is a link or the wrong kind of entry.
            InsecurePermissionsError: the folder or the file is not owner-only.
        """
        path = self.path(session_id)
        if not self._folder_ready:
            ensure_private_dir(self._folder)  # creates it; checks it and its ancestors
            self._folder_ready = True
        # the folder is opened (not followed) and checked again on every append: a link put in
        # its place since the last one is refused; a removed folder is created again
        with private_dir(self._folder, create=True) as folder:
            fd = open_private_file(path, append=True, create=True, dir_fd=folder)
            try:
                size = os.fstat(fd).st_size
                cached = self._seq.get(session_id)
                prefix = b""
                if cached is not None and cached[1] == size:
                    seq = cached[0]
                else:
                    lines, torn, _ = self._scan(path, folder)
                    seq = lines
                    if torn:  # a writer died mid-line: end it and say so
                        seq += 1
                        marker = LogEntry(
                            seq=seq,
                            ts=_now(),
                            type=TORN_LINE,
                            data={"line": lines},
                            id=_new_id(),
                            session_id=session_id,
                        )
                        prefix = b"\n" + _line(marker) + b"\n"
                seq += 1
                entry = LogEntry(
                    seq=seq,
                    ts=_now(),
                    type=type,
                    data=dict(data),
                    id=_new_id(),
                    session_id=session_id,
                )
                payload = prefix + _line(entry) + b"\n"
                os.write(fd, payload)
                self._seq[session_id] = (seq, size + len(payload), entry.id)
            finally:
                os.close(fd)
        return entry

    def last_seq(self, session_id: str) -> int:
        """The ``seq`` of the last entry of a session's log (0 when there is none); a torn
        last line counts, since the next append terminates it.

        Raises:
            UnsafeStoreEntryError: the folder or the file is a link or the wrong kind of entry.
            InsecurePermissionsError: the folder or the file is not owner-only.
        """
        return self.last_position(session_id)[0]

    def last_position(self, session_id: str) -> tuple[int, str | None]:
        """The ``seq`` of the last entry (as :meth:`last_seq`) and the ``id`` of the last
        complete entry (None when there is none, or it carries no id): what a snapshot records
        so resume finds where it was taken even in a log whose ``seq`` started again.

        Raises:
            UnsafeStoreEntryError: the folder or the file is a link or the wrong kind of entry.
            InsecurePermissionsError: the folder or the file is not owner-only.
        """
        path = self.path(session_id)
        try:
            with private_dir(self._folder) as folder:
                fd = open_private_file(path, dir_fd=folder)
                try:
                    size = os.fstat(fd).st_size
                finally:
                    os.close(fd)
                cached = self._seq.get(session_id)
                if cached is not None and cached[1] == size:
                    return cached[0], cached[2]
                lines, _, last_id = self._scan(path, folder)
                return lines, last_id
        except FileNotFoundError:
            return 0, None

    def _scan(self, path: Path, folder: int | None) -> tuple[int, bool, str | None]:
        """(number of non-blank lines, whether the file ends inside a line, the id of the last
        complete line naming this log's session)."""
        fd = open_private_file(path, dir_fd=folder)
        with open(fd, "rb") as handle:
            data = handle.read()
        raw = data.split(b"\n")
        lines = sum(1 for line in raw if line.strip())
        torn = bool(data) and not data.endswith(b"\n")
        complete = raw[:-1]  # the part after the last newline is torn or empty
        last_id: str | None = None
        for line in reversed(complete):
            if not line.strip():
                continue
            entry = _parse(line)
            if entry is not None and entry.session_id in (None, path.stem):
                last_id = entry.id
                break
        return lines, torn, last_id

    def append_message(self, session_id: str, message: Message) -> LogEntry:
        """Append a ``message.committed`` entry carrying the full message."""
        body = json.loads(dump_messages([message]))["messages"][0]
        return self.append(session_id, "message.committed", {"message": body})

    def append_history(self, session_id: str, messages: Sequence[Message]) -> LogEntry:
        """Append a ``history.replaced`` entry carrying the whole conversation (after a
        compaction, a fork or a merge replaced it), so a replay ends where the session is."""
        body = json.loads(dump_messages(list(messages)))["messages"]
        return self.append(session_id, "history.replaced", {"messages": body})

    def _read_lines(self, path: Path) -> list[bytes]:
        """The non-blank lines of a log file (each with its newline, the last one without when
        it is torn), verified and opened without following a link ([] when the file or the
        folder does not exist)."""
        try:
            with private_dir(self._folder) as folder:
                fd = open_private_file(path, dir_fd=folder)
        except FileNotFoundError:
            return []
        with open(fd, "rb") as handle:
            return [line for line in handle if line.strip()]

    def read(self, session_id: str) -> list[LogEntry]:
        """Every entry of a session's log, in order ([] when there is no log). A torn last
        line, and a torn line an append marked with ``log.torn_line``, are skipped (the marker
        entries themselves are returned).

        A line naming another session (``session_id``: a misdirected write, a pasted line) is
        ignored.

        Raises:
            EventLogCorruptError: for any other malformed line (not JSON, not UTF-8, fields of
                the wrong type).
            UnsafeStoreEntryError: the folder or the file is a link or the wrong kind of entry.
            InsecurePermissionsError: the folder or the file is not owner-only.
        """
        path = self.path(session_id)
        lines = self._read_lines(path)
        parsed = [_parse(line) for line in lines]
        entries: list[LogEntry] = []
        for number, (line, entry) in enumerate(zip(lines, parsed, strict=True), start=1):
            if entry is not None:
                if entry.session_id is None or entry.session_id == session_id:
                    entries.append(entry)
                continue
            if number == len(lines) and not line.endswith(b"\n"):
                break  # torn last write
            following = parsed[number] if number < len(parsed) else None
            if following is not None and following.type == TORN_LINE:
                continue  # a torn write an append terminated and marked
            raise EventLogCorruptError(f"{path}:{number}: malformed log line")
        return entries

    def exists(self, session_id: str) -> bool:
        """True when the session has a log file (verified as :meth:`read` does).

        Raises:
            UnsafeStoreEntryError: the folder or the file is a link or the wrong kind of entry.
            InsecurePermissionsError: the folder or the file is not owner-only.
        """
        path = self.path(session_id)
        try:
            with private_dir(self._folder) as folder:
                os.close(open_private_file(path, dir_fd=folder))
        except FileNotFoundError:
            return False
        return True

    def rebuild(self, session_id: str) -> SessionRecord:
        """Rebuild a session record from its log (for a missing or unreadable snapshot).

        The record has the id, model, provider, system prompt, parent id and creation time of
        the ``session.created`` entry, the title of the last ``session.title_assigned`` entry,
        and the conversation :func:`replay` gives; usage totals and host metadata are not in
        the log (they start at zero / empty), and the revision is 0.

        Raises:
            EventLogCorruptError: for a malformed line (other than a torn one).
            SessionStoreError: when the log has no ``session.created`` entry.
        """
        entries = self.read(session_id)
        created = next((e for e in entries if e.type == "session.created"), None)
        if created is None:
            raise SessionStoreError(f"session {session_id}: log has no session.created entry")
        data = created.data
        title = _text(data, "title", created)
        for entry in entries:
            if entry.type == "session.title_assigned":
                title = _text(entry.data, "title", entry)
        return SessionRecord(
            id=session_id,
            created_at=created.ts,
            model=_text(data, "model", created),
            provider=_text(data, "provider", created),
            system_prompt=_text(data, "system_prompt", created),
            parent_id=_text(data, "parent_id", created),
            title=title,
            messages=replay(entries),
        )


def _text(data: Mapping[str, Any], key: str, entry: LogEntry) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise EventLogCorruptError(f"log entry {entry.seq}: {key} is not a string")


def replay(entries: Iterable[LogEntry], messages: Sequence[Message] = ()) -> tuple[Message, ...]:
    """The conversation after applying ``entries`` to ``messages``, in order: a
    ``message.committed`` entry appends its message, a ``history.replaced`` entry replaces the
    whole conversation; other entries change nothing.

    Raises:
        EventLogCorruptError: an entry's message does not parse.
    """
    out = list(messages)
    for entry in entries:
        try:
            if entry.type == "message.committed":
                out.extend(_load([entry.data["message"]]))
            elif entry.type == "history.replaced":
                out = _load(entry.data["messages"])
        except (ValueError, KeyError, TypeError) as exc:
            raise EventLogCorruptError(f"log entry {entry.seq}: unreadable message") from exc
    return tuple(out)


def _load(bodies: Any) -> list[Message]:
    return load_messages(json.dumps({"version": 1, "messages": bodies}))


def _now() -> datetime:
    return datetime.now(UTC)


def _new_id() -> str:
    return secrets.token_hex(8)


def _line(entry: LogEntry) -> bytes:
    doc = {
        "seq": entry.seq,
        "ts": entry.ts.isoformat(),
        "type": entry.type,
        "data": entry.data,
        "session_id": entry.session_id,
        "id": entry.id,
    }
    return json.dumps(doc, separators=(",", ":")).encode()


def _parse(line: bytes) -> LogEntry | None:
    """The entry of one line; None for any malformed line (not UTF-8, not JSON, a field of the
    wrong type)."""
    try:
        raw: Any = json.loads(line.decode("utf-8"))
        if not isinstance(raw, dict):
            return None
        seq, ts, type_, data = raw["seq"], raw["ts"], raw["type"], raw["data"]
        entry_id, session_id = raw.get("id"), raw.get("session_id")
        if (
            not isinstance(seq, int)
            or isinstance(seq, bool)
            or not isinstance(ts, str)
            or not isinstance(type_, str)
            or not isinstance(data, dict)
            or not (entry_id is None or isinstance(entry_id, str))
            or not (session_id is None or isinstance(session_id, str))
        ):
            return None
        return LogEntry(
            seq=seq,
            ts=datetime.fromisoformat(ts),
            type=type_,
            data=data,
            id=entry_id,
            session_id=session_id,
        )
    except (ValueError, KeyError, TypeError):
        return None
