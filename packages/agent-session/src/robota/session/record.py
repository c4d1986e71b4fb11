"""The session record (issue: agent-session; seed 003, "Session persistence is explicit").

A :class:`SessionRecord` is the durable snapshot of one conversation: identity, timestamps,
title, model, the system prompt exactly as sent, the messages, summed usage, the parent id for
forks and an optimistic ``revision``. High-frequency events (text deltas, tool progress) never
enter the snapshot; they go to the session's append-only JSONL log (:mod:`robota.session.eventlog`).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, cast

from robota.core.messages import Message, dump_messages, load_messages
from robota.core.usage import Usage

__all__ = ["RECORD_FORMAT_VERSION", "SessionRecord", "SessionSummary", "new_session_id"]

RECORD_FORMAT_VERSION = 1
"""Version of :meth:`SessionRecord.to_json` documents."""


def new_session_id() -> str:
    """A fresh session id: ``ses_`` + 20 hex digits of randomness (80 bits)."""
    return "ses_" + secrets.token_hex(10)


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionRecord:
    """One persisted conversation.

    Attributes:
        id: Session id (see :func:`new_session_id`).
        created_at: Creation time (UTC).
        updated_at: Time of the last save (UTC).
        title: Human title, or None until named.
        model: Model id the session last ran on.
        provider: Provider name the session last ran on.
        system_prompt: The assembled system prompt exactly as sent (a fork inherits it verbatim;
            a resume rebuilds it).
        messages: The canonical conversation (no system message; that is ``system_prompt``).
        usage: Usage summed over every run of the session.
        parent_id: The session this one was forked from, if any.
        revision: Optimistic concurrency counter; 0 for a record never stored.
        metadata: Host data (JSON-serializable).
    """

    id: str = field(default_factory=new_session_id)
    created_at: datetime = field(default_factory=_now)
    updated_at: datetime = field(default_factory=_now)
    title: str | None = None
    model: str | None = None
    provider: str | None = None
    system_prompt: str | None = None
    messages: tuple[Message, ...] = ()
    usage: Usage = field(default_factory=Usage)
    parent_id: str | None = None
    revision: int = 0
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])

    def with_messages(
        self, messages: tuple[Message, ...], usage: Usage | None = None
    ) -> SessionRecord:
        """A copy with ``messages`` (and ``usage`` if given) replaced."""
        return replace(self, messages=messages, usage=usage if usage is not None else self.usage)

    def fork(self) -> SessionRecord:
        """A new record with a fresh id, this record's messages and assembled prompt verbatim,
        ``parent_id`` set to this record's id and revision 0. This record is not changed."""
        now = _now()
        return replace(
            self,
            id=new_session_id(),
            created_at=now,
            updated_at=now,
            parent_id=self.id,
            revision=0,
            title=None,
            metadata=dict(self.metadata),
        )

    def to_json(self) -> str:
        """Versioned JSON form."""
        usage = self.usage
        return json.dumps(
            {
                "version": RECORD_FORMAT_VERSION,
                "id": self.id,
                "created_at": self.created_at.isoformat(),
                "updated_at": self.updated_at.isoformat(),
                "title": self.title,
                "model": self.model,
                "provider": self.provider,
                "system_prompt": self.system_prompt,
                "messages": json.loads(dump_messages(self.messages))["messages"],
                "usage": {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "cache_read_tokens": usage.cache_read_tokens,
                    "cache_write_tokens": usage.cache_write_tokens,
                    "reasoning_tokens": usage.reasoning_tokens,
                    "requests": usage.requests,
                    "details": dict(usage.details),
                    "partial": usage.partial,
                },
                "parent_id": self.parent_id,
                "revision": self.revision,
                "metadata": self.metadata,
            },
            separators=(",", ":"),
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> SessionRecord:
        """Parse :meth:`to_json` output.

        Every field is checked for its type (a count that is not an integer, a title that is
        not a string, ...): a record that parses but would fail later is refused here.

        Raises:
            ValueError: for an unknown version or a malformed document.
        """
        doc: Any = json.loads(text)
        if not isinstance(doc, dict) or doc.get("version") != RECORD_FORMAT_VERSION:
            raise ValueError("unsupported session record (expected version 1)")
        fields: dict[str, Any] = doc
        messages = load_messages(
            json.dumps({"version": 1, "messages": fields["messages"]}).encode()
        )
        revision = fields.get("revision", 0)
        if not _is_int(revision):
            raise ValueError("session record: revision is not an integer")
        metadata = fields.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise ValueError("session record: metadata is not an object")
        return cls(
            id=_required_text(fields, "id"),
            created_at=datetime.fromisoformat(_required_text(fields, "created_at")),
            updated_at=datetime.fromisoformat(_required_text(fields, "updated_at")),
            title=_optional_text(fields, "title"),
            model=_optional_text(fields, "model"),
            provider=_optional_text(fields, "provider"),
            system_prompt=_optional_text(fields, "system_prompt"),
            messages=tuple(messages),
            usage=_usage(fields.get("usage", {})),
            parent_id=_optional_text(fields, "parent_id"),
            revision=int(revision),
            metadata=dict(cast("dict[str, Any]", metadata)),
        )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _required_text(doc: dict[str, Any], key: str) -> str:
    value = doc[key]
    if not isinstance(value, str):
        raise ValueError(f"session record: {key} is not a string")
    return value


def _optional_text(doc: dict[str, Any], key: str) -> str | None:
    value = doc.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"session record: {key} is not a string")
    return value


_USAGE_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "requests",
)


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        raise ValueError("session record: usage is not an object")
    doc = cast("dict[str, Any]", raw)
    unknown = set(doc) - {*_USAGE_COUNTS, "details", "partial"}
    if unknown:
        raise ValueError(f"session record: unknown usage fields {sorted(unknown)}")
    counts: dict[str, int] = {}
    for key in _USAGE_COUNTS:
        value = doc.get(key, 0)
        if not _is_int(value):
            raise ValueError(f"session record: usage {key} is not an integer")
        counts[key] = value
    details = doc.get("details", {})
    if not isinstance(details, dict) or not all(
        isinstance(k, str) and _is_int(v) for k, v in cast("dict[object, object]", details).items()
    ):
        raise ValueError("session record: usage details are not integer counts")
    partial = doc.get("partial", False)
    if not isinstance(partial, bool):
        raise ValueError("session record: usage partial is not a boolean")
    return Usage(**counts, details=cast("dict[str, int]", details), partial=partial)


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionSummary:
    """A listing row: what ``robota sessions list`` shows.

    Attributes:
        id: Session id.
        title: Title, if named.
        model: Model id.
        updated_at: Last save time (UTC).
        message_count: Number of messages.
        parent_id: Parent session id for forks.
    """

    id: str
    title: str | None
    model: str | None
    updated_at: datetime
    message_count: int
    parent_id: str | None
