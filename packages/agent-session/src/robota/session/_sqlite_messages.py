"""The SQLite session store's layout: a snapshot row per session plus one row per older message.

Schema version 1 (``PRAGMA user_version``; the layout before it, version 0, had only the
``sessions`` row, whose ``body`` held the whole record). A session's messages live in two
places:

* ``messages (session_id, seq, digest, body)``: the first ``k`` messages, one row each, in
  order (``seq`` 0 .. k-1). ``body`` is the message's JSON as
  :func:`~robota.core.messages.dump_messages` writes it. ``digest`` is a chain link (16 bytes):
  BLAKE2b-128 of the session id, ``seq``, the previous row's digest (16 zero bytes for row 0)
  and the body's own BLAKE2b-128, so a row is bound to its session, its position and every row
  before it (:func:`chain`).
* ``sessions.body``: the record (:meth:`~robota.session.record.SessionRecord.to_json`) with only
  the messages after those ``k`` (the tail). With ``k > 0`` it starts with
  :data:`SPLIT_PREFIX` (``version`` :data:`SPLIT_VERSION` instead of 1, so a reader that does
  not know the rows, an older robota, refuses it rather than showing a session that is missing
  messages) followed by ``"rows":k`` and ``"chain":"<hex of row k-1's digest>"``. A read
  recomputes the chain and refuses (:class:`SessionCorruptError`) any disagreement: rows
  swapped, copied, moved from another session, dropped or added.

A save compares the chain of the record's messages with the stored rows' digests, deletes the
rows from the first difference on (a compaction or an edit rewrites history) and keeps the rest;
the new tail stays in the snapshot row until it passes :data:`SPILL_CHARS`, then moves to rows
(the chain extends from the last kept row). So one more turn writes the snapshot row (header and
a tail of at most ``SPILL_CHARS`` plus the turn) and, now and then, the turn's rows: its cost
follows the turn, not the conversation.

Older releases may share the file; they know only ``sessions``. Three triggers keep the rows
consistent with what they write: deleting a ``sessions`` row deletes its message rows, and
writing a ``body`` that does not start with :data:`SPLIT_PREFIX` (a whole record, which this
code writes only for a session without rows) deletes the session's rows, so the session reads as
that release wrote it. A version 0 row is a version 1 row with ``k = 0``: migration adds the
table and the triggers.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Literal

from robota.core.messages import MESSAGES_FORMAT_VERSION, Message, dump_messages, load_messages
from robota.session.record import RECORD_FORMAT_VERSION, SessionRecord
from robota.session.store import SessionCorruptError, SessionNotFoundError, SessionStoreError

__all__ = [
    "SCHEMA_VERSION",
    "SPILL_CHARS",
    "SPLIT_PREFIX",
    "SPLIT_VERSION",
    "MessageRow",
    "StoredRows",
    "chain",
    "encode_messages",
    "migrate",
    "open_connection",
    "read_record",
    "snapshot_body",
    "store_messages",
    "transaction",
]

SCHEMA_VERSION = 1
"""``PRAGMA user_version`` of the layout this module reads and writes."""

SPLIT_VERSION = "1+rows"
"""The snapshot's ``version`` when some of its messages are in the ``messages`` table."""

SPLIT_PREFIX = '{"version":"1+rows",'
"""How every snapshot with message rows starts (and no whole record does: ``to_json`` writes
``version`` 1)."""

SPILL_CHARS = 2048
"""A tail longer than this (characters of message JSON) moves from the snapshot row to rows."""

_WHOLE = f"substr(NEW.body, 1, {len(SPLIT_PREFIX)}) IS NOT '{SPLIT_PREFIX}'"

_TABLES = (
    """CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY,
        revision INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        title TEXT,
        model TEXT,
        parent_id TEXT,
        message_count INTEGER NOT NULL,
        body TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated_at DESC)",
    """CREATE TABLE IF NOT EXISTS leases (
        session_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at REAL NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS messages (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        digest BLOB NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID""",
    # An older release deletes only the sessions row: its message rows go with it.
    """CREATE TRIGGER IF NOT EXISTS messages_of_deleted_session AFTER DELETE ON sessions
    BEGIN DELETE FROM messages WHERE session_id = OLD.id; END""",
    # An older release writes a whole record (save: UPDATE; overwrite: INSERT OR REPLACE, whose
    # implicit delete runs no trigger): the session's rows are no longer part of it.
    f"""CREATE TRIGGER IF NOT EXISTS messages_of_whole_update AFTER UPDATE OF body ON sessions
    WHEN {_WHOLE} BEGIN DELETE FROM messages WHERE session_id = NEW.id; END""",
    f"""CREATE TRIGGER IF NOT EXISTS messages_of_whole_insert AFTER INSERT ON sessions
    WHEN {_WHOLE} BEGIN DELETE FROM messages WHERE session_id = NEW.id; END""",
    "DELETE FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)",
)

MessageRow = tuple[bytes, str]
"""One message as encoded: (BLAKE2b-128 digest of the UTF-8 body, JSON body)."""

StoredRows = tuple[int, bytes]
"""How many of a record's messages are rows (``k``) and row ``k-1``'s digest (the chain's
end; 16 zero bytes when ``k == 0``)."""

_PREFIX = b'{"version":%d,"messages":[' % MESSAGES_FORMAT_VERSION
_NO_LINK = bytes(16)


@contextmanager
def transaction(
    conn: sqlite3.Connection, mode: Literal["DEFERRED", "IMMEDIATE"] = "IMMEDIATE"
) -> Generator[None]:
    """``BEGIN mode`` … ``COMMIT``; ``ROLLBACK`` when the body raises (the error propagates).

    ``IMMEDIATE`` takes the write lock at once (waiting up to the connection's busy timeout),
    so a read-check-write sequence inside cannot interleave with another process's write.
    """
    conn.execute(f"BEGIN {mode}")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _user_version(conn: sqlite3.Connection) -> int:
    [(version,)] = conn.execute("PRAGMA user_version").fetchall()  # done: no lock left held
    return int(version)


def _refuse_newer(conn: sqlite3.Connection) -> int:
    version = _user_version(conn)
    if version > SCHEMA_VERSION:
        raise SessionStoreError(
            f"session database schema version {version} is newer than this robota's "
            f"({SCHEMA_VERSION}): upgrade robota-agent-session to open it"
        )
    return version


def open_connection(conn: sqlite3.Connection) -> None:
    """Prepare a new connection: refuse a newer file, then write-ahead-log mode, then
    :func:`migrate`. The version is read before anything writes, so a refused file is left
    byte for byte as it was.

    Raises:
        SessionStoreError: a newer robota wrote the file.
        sqlite3.Error: SQLite failed.
    """
    _refuse_newer(conn)
    conn.execute("PRAGMA journal_mode = WAL")
    migrate(conn)


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the file to :data:`SCHEMA_VERSION` in one transaction (a no-op when it is there).

    Creates the tables and triggers a fresh file needs; on a version 0 file (written before the
    ``messages`` table existed) adds that table and the triggers, leaving every ``sessions`` row
    as it is (a version 0 row reads as one with no message rows) and deleting message rows of no
    session. Two processes opening one old file at once are safe: the version is checked again
    under the write lock.

    Raises:
        SessionStoreError: the file's version is newer than this code knows (a newer robota
            wrote it); nothing is changed.
        sqlite3.Error: SQLite failed (the caller turns it into its store error).
    """
    if _refuse_newer(conn) == SCHEMA_VERSION:
        return
    with transaction(conn):
        if _user_version(conn) < SCHEMA_VERSION:
            for statement in _TABLES:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _digest(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=16).digest()


def encode_messages(messages: Sequence[Message]) -> list[MessageRow]:
    """Each message's stored form: its :func:`~robota.core.messages.dump_messages` JSON and
    that JSON's digest, in order.

    Raises:
        pydantic.ValidationError: a value is not a message.
    """
    rows: list[MessageRow] = []
    for message in messages:
        document = dump_messages((message,))
        if document.startswith(_PREFIX) and document.endswith(b"]}"):
            body = document[len(_PREFIX) : -2]
        else:  # another byte layout of the same document
            body = json.dumps(json.loads(document)["messages"][0], separators=(",", ":")).encode()
        rows.append((_digest(body), body.decode()))
    return rows


def chain(
    session_id: str, digests: Sequence[bytes], *, start: int = 0, previous: bytes = _NO_LINK
) -> list[bytes]:
    """The stored digests of rows ``start, start+1, …`` of ``session_id`` whose bodies have
    ``digests`` (BLAKE2b-128 each), row ``start-1``'s digest being ``previous``.

    Each is BLAKE2b-128 of (length of the UTF-8 session id as 4 bytes, the id, ``seq`` as 8
    bytes, the previous digest, the body's digest): every field has a fixed length or a length
    before it.
    """
    sid = session_id.encode("utf-8", "surrogatepass")
    head = len(sid).to_bytes(4, "big") + sid
    links: list[bytes] = []
    for seq, digest in enumerate(digests, start):
        previous = hashlib.blake2b(
            head + seq.to_bytes(8, "big") + previous + digest, digest_size=16
        ).digest()
        links.append(previous)
    return links


def store_messages(
    conn: sqlite3.Connection, session_id: str, rows: Sequence[MessageRow], *, keep: bool
) -> StoredRows:
    """Make the session's message rows a prefix of ``rows``; returns how many (``k``) and the
    chain's end.

    With ``keep``, stored rows whose digests equal the chain of ``rows`` from the start are
    kept and the rest deleted; without it, every stored row is deleted (a rewrite: create,
    overwrite). The remaining messages (the tail) are inserted as rows, their chain extending
    the kept rows', when longer than :data:`SPILL_CHARS` (then ``k == len(rows)``); otherwise
    they belong in the snapshot row (:func:`snapshot_body`). Call inside a write transaction.
    """
    links = chain(session_id, [digest for digest, _ in rows])
    stored: list[bytes] = []
    if keep:
        stored = [
            bytes(digest)
            for (digest,) in conn.execute(
                "SELECT digest FROM messages WHERE session_id=? ORDER BY seq", (session_id,)
            )
        ]
    common = 0
    limit = min(len(stored), len(links))
    while common < limit and stored[common] == links[common]:
        common += 1
    if not keep or common < len(stored):
        conn.execute("DELETE FROM messages WHERE session_id=? AND seq>=?", (session_id, common))
    tail = rows[common:]
    if sum(len(body) for _, body in tail) <= SPILL_CHARS:
        return common, links[common - 1] if common else _NO_LINK
    conn.executemany(
        "INSERT INTO messages VALUES (?, ?, ?, ?)",
        ((session_id, seq, links[seq], body) for seq, (_, body) in enumerate(tail, common)),
    )
    return len(rows), links[-1]


def snapshot_body(record: SessionRecord, stored: StoredRows) -> str:
    """The ``sessions.body`` of ``record`` whose first ``k`` messages are rows
    (``stored == (k, chain end)``): its JSON with only the later messages; with ``k > 0``,
    :data:`SPLIT_PREFIX`, ``"rows":k`` and ``"chain":"<hex>"`` first."""
    count, last = stored
    text = replace(record, messages=record.messages[count:]).to_json()
    if not count:
        return text
    document = json.loads(text)
    del document["version"]
    rest = json.dumps(document, separators=(",", ":"), sort_keys=True)
    return f'{SPLIT_PREFIX}"rows":{count},"chain":"{last.hex()}",{rest[1:]}'


def read_record(conn: sqlite3.Connection, session_id: str) -> SessionRecord:
    """The stored record: snapshot row and message rows read in one transaction (one
    consistent state even while another process saves).

    Raises:
        SessionNotFoundError: no such session.
        SessionCorruptError: the snapshot does not parse, has a field of the wrong type,
            names another session or disagrees with its row's revision or message count; or a
            message row is missing, added, out of place, another session's, does not match its
            digest or does not parse; or the snapshot and the rows disagree (a snapshot that
            does not say it has rows, a number of rows or a chain end that is not theirs).
            Such a record is never returned.
    """
    with transaction(conn, "DEFERRED"):
        row = conn.execute(
            "SELECT body, revision, message_count FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        rows: list[Any] = (
            []
            if row is None
            else conn.execute(
                "SELECT seq, digest, body FROM messages WHERE session_id = ? ORDER BY seq",
                (session_id,),
            ).fetchall()
        )
    if row is None:
        raise SessionNotFoundError(f"no session {session_id!r}")
    return _assemble(session_id, row[0], row[1], row[2], rows)


def _corrupt(session_id: str, why: object) -> SessionCorruptError:
    return SessionCorruptError(f"session {session_id}: stored record is corrupt: {why}")


def _assemble(
    session_id: str, body: object, revision: object, count: object, rows: list[Any]
) -> SessionRecord:
    head: list[Message] = []
    text = body if isinstance(body, str) else ""
    if text.startswith(SPLIT_PREFIX):
        text, head = _split(session_id, text, rows)
    elif rows:
        raise _corrupt(session_id, f"it has {len(rows)} message rows its snapshot does not name")
    try:
        record = SessionRecord.from_json(text)
    except (ValueError, KeyError, TypeError) as exc:
        raise _corrupt(session_id, exc) from exc
    if record.id != session_id:
        raise _corrupt(session_id, f"it names session {record.id!r}")
    if record.revision != revision:
        raise _corrupt(
            session_id, f"revision {record.revision} disagrees with the store's {revision!r}"
        )
    if count != len(head) + len(record.messages):
        raise _corrupt(
            session_id,
            f"{len(head)} message rows and {len(record.messages)} snapshot messages, "
            f"but the session lists {count!r}",
        )
    return replace(record, messages=(*head, *record.messages)) if head else record


def _split(session_id: str, text: str, rows: list[Any]) -> tuple[str, list[Message]]:
    """A snapshot with rows: the record's JSON (version 1, tail messages only) and the rows'
    messages, after checking the rows against the snapshot's count and chain end."""
    try:
        document: Any = json.loads(text)
    except ValueError as exc:
        raise _corrupt(session_id, exc) from exc
    if not isinstance(document, dict) or document.get("version") != SPLIT_VERSION:
        raise _corrupt(session_id, "the snapshot's version is not its prefix's")
    fields: dict[str, Any] = document
    count, end = fields.pop("rows", None), fields.pop("chain", None)
    if type(count) is not int or count < 1 or not isinstance(end, str):
        raise _corrupt(session_id, "the snapshot does not say how many message rows it has")
    if len(rows) != count:
        raise _corrupt(session_id, f"{len(rows)} message rows, but the snapshot names {count}")
    head = _head(session_id, rows)
    if rows[-1][1].hex() != end:
        raise _corrupt(session_id, "the message rows do not end where the snapshot says")
    return json.dumps({**fields, "version": RECORD_FORMAT_VERSION}), head


def _head(session_id: str, rows: list[Any]) -> list[Message]:
    digests: list[bytes] = []
    for index, (seq, _, body) in enumerate(rows):
        if seq != index:
            raise _corrupt(session_id, f"message row {index} is missing")
        if not isinstance(body, str):
            raise _corrupt(session_id, f"message row {seq} is not text")
        digests.append(_digest(body.encode()))
    for seq, link in enumerate(chain(session_id, digests)):
        if link != rows[seq][1]:
            raise _corrupt(session_id, f"message row {seq} does not match its digest")
    joined = ",".join(body for _, _, body in rows)
    try:
        messages = load_messages(f'{{"version":{MESSAGES_FORMAT_VERSION},"messages":[{joined}]}}')
    except ValueError as exc:
        raise _corrupt(session_id, f"message rows: {exc}") from exc
    if len(messages) != len(rows):
        raise _corrupt(session_id, f"{len(rows)} message rows hold {len(messages)} messages")
    return messages
