"""The store side of an interactive session (issue #15): the one-writer lease around turns,
saves that merge instead of failing, and reloading what another host saved.

:class:`SessionPersistence` is a base of
:class:`~robota.framework.interactive.session.InteractiveSession`; it holds no state of its own
(the session sets the attributes declared here) and keeps the session module to the
conversation itself. Every turn, compaction and fork first calls :meth:`_claim_lease` (a second
host is refused there, before anything runs) and runs inside :meth:`_renewing`; every save goes
through :meth:`_save`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from robota.core.agent import Agent
from robota.core.cancellation import CancelToken
from robota.core.events import Event, OwnerPath
from robota.core.messages import Message
from robota.core.usage import Usage
from robota.framework.interactive.config import SessionConfig
from robota.framework.interactive.events import (
    SessionLeaseLost,
    SessionMerged,
    SessionReloaded,
    SessionSaved,
)
from robota.framework.interactive.lease import SessionLease
from robota.framework.interactive.recovery import reload_newer, save_record
from robota.framework.interactive.usage import ModelUsage, with_usage_by_model
from robota.session import LoadedSession, SessionLeaseLostError, SessionRecord

__all__ = ["SessionPersistence"]


class SessionPersistence:
    """Lease, save and reload for a session (see the module docstring).

    Attributes:
        recovery: What resume loaded (None for a started or forked session); see
            :attr:`recovered_from`.
    """

    config: SessionConfig
    record: SessionRecord
    agent: Agent
    recovery: LoadedSession | None
    _lease: SessionLease | None
    _saved: tuple[Message, ...]  # what the store has from this session: the merge base
    _turn_usage: Usage
    _model_usage: ModelUsage  # usage per model since the last save (see .usage)
    _named: bool
    _cancel: CancelToken | None

    if TYPE_CHECKING:

        @property
        def id(self) -> str: ...

        @property
        def _owner(self) -> OwnerPath: ...

        @property
        def messages(self) -> tuple[Message, ...]: ...

        def _forward(self, event: Event) -> None: ...

        def _build_agent(self, history: Sequence[Message]) -> Agent: ...

    @property
    def recovered_from(self) -> str | None:
        """``"event_log"`` when resume rebuilt the session from its JSONL log (the snapshot
        was missing or unreadable), ``"snapshot+event_log"`` when it added messages the log
        had beyond the snapshot, None otherwise."""
        if self.recovery is None or not self.recovery.recovered:
            return None
        return self.recovery.source

    @property
    def lease_owner(self) -> str | None:
        """The owner id this session holds the store lease under (``host:pid:nonce``), or
        None without a store."""
        return self._lease.owner if self._lease is not None else None

    def _replace_history(self, messages: Sequence[Message]) -> None:
        """Rebuild the agent on ``messages`` and log them as the new conversation."""
        self.agent = self._build_agent(messages)
        if self.config.event_log is not None:
            self.config.event_log.append_history(self.id, messages)

    async def _claim_lease(self) -> None:
        """Hold the lease before anything runs; reload what another host saved while this
        session had lost it.

        Raises:
            SessionLeaseHeldError: another host holds it.
        """
        if self._lease is not None and await self._lease.ensure():
            await self._reload()

    async def _reload(self) -> None:
        assert self.config.store is not None
        newer = await reload_newer(
            self.config.store,
            replace(self.record, system_prompt=self.agent.system_prompt),
            base=self._saved,
            current=self.messages,
        )
        if newer is None:
            return
        self.record, self._saved = newer
        self._named = self.record.title is not None
        self._replace_history(self.record.messages)
        self._forward(
            SessionReloaded(owner=self._owner, session_id=self.id, revision=self.record.revision)
        )

    def _renewing(self) -> contextlib.AbstractAsyncContextManager[None]:
        if self._lease is None:
            return contextlib.nullcontext()
        return self._lease.renewing(self._lease_lost)

    def _lease_lost(self, lost: SessionLeaseLostError) -> None:
        self._forward(SessionLeaseLost(owner=self._owner, session_id=self.id, holder=lost.holder))
        token = self._cancel
        if token is not None:
            token.cancel("another host took this session's lease")

    async def _save(self) -> None:
        unsaved = self._turn_usage
        unsaved_by_model = self._model_usage.take_unsaved()
        self.record = replace(
            self.record,
            messages=self.messages,
            usage=self.record.usage + unsaved,
            system_prompt=self.agent.system_prompt,
            metadata=with_usage_by_model(self.record.metadata, unsaved_by_model),
        )
        self._turn_usage = Usage()
        if self.config.store is None:
            return
        outcome = await save_record(
            self.config.store,
            self.record,
            base=self._saved,
            unsaved_usage=unsaved,
            unsaved_by_model=unsaved_by_model,
            log=self.config.event_log,
        )
        self.record = outcome.record
        self._saved = outcome.record.messages
        if outcome.appended is not None:  # another writer saved first: go on from both
            self._named = self.record.title is not None
            self._replace_history(self.record.messages)
            self._forward(
                SessionMerged(
                    owner=self._owner,
                    session_id=self.id,
                    appended=outcome.appended,
                    revision=self.record.revision,
                )
            )
        self._forward(
            SessionSaved(owner=self._owner, session_id=self.id, revision=self.record.revision)
        )
