"""Compaction of an interactive session (seed 003): summarizing older turns on request
(:meth:`SessionCompaction.compact`) or after a turn whose input passed
``SessionConfig.auto_compact`` of the context window, under the fallback chain's compaction rule
(:mod:`.chain`). The removed messages are kept in the record's metadata, the summary call is
billed to the model that answered it, and the PreCompact hook runs first.

:class:`SessionCompaction` is a base of
:class:`~robota.framework.interactive.session.InteractiveSession`; it holds no state of its own
(the session sets the attributes declared here).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import anyio
from robota.core.errors import RobotaError
from robota.core.hooks import HookEventName, HookRunner
from robota.core.hooks.events import PreCompactInput
from robota.framework.interactive._wiring import overflow_event
from robota.framework.interactive.chain import compact_with_chain, session_window
from robota.framework.interactive.events import CompactionStarted, SessionCompacted
from robota.framework.interactive.persistence import SessionPersistence
from robota.session.compaction import CompactionRecord

__all__ = ["SessionCompaction"]


class SessionCompaction(SessionPersistence):
    """Manual and automatic compaction (see the module docstring)."""

    _busy: anyio.Lock
    _hooks: HookRunner
    _last_input: int | None  # input tokens of the last model response (None: none yet)

    if TYPE_CHECKING:

        def _hook_common(self) -> dict[str, Any]: ...

    def _context_window(self) -> int | None:
        return session_window(self.config.provider, self.config.model)

    async def _maybe_auto_compact(self) -> None:
        threshold = self.config.auto_compact
        window = self._context_window()
        if threshold is None or window is None or self._last_input is None:
            return
        if self._last_input <= threshold * window:
            return
        try:
            await self._compact(keep_last_turns=2, reason="auto")
        except RobotaError:
            return  # nothing older to compact, or the summary failed: the turn stays as is

    async def compact(
        self, *, keep_last_turns: int = 2, reason: str = "manual"
    ) -> CompactionRecord:
        """Summarize older turns now; the removed messages are kept in the record's metadata.

        Raises:
            RuntimeError: while a turn runs.
            CompactionError: when there is nothing to compact or the summary is empty.
        """
        if self._busy.locked():
            raise RuntimeError("cannot compact while a turn runs")
        async with self._busy:
            await self._claim_lease()
            async with self._renewing():
                return await self._compact(keep_last_turns=keep_last_turns, reason=reason)

    async def _compact(self, *, keep_last_turns: int, reason: str) -> CompactionRecord:
        self._forward(CompactionStarted(owner=self._owner, reason=reason))
        await self._hooks.dispatch(
            HookEventName.PRE_COMPACT,
            PreCompactInput(trigger=reason, **self._hook_common()),
            emit=self._forward,
        )
        record, answered = await compact_with_chain(
            self.config.provider,
            self.config.model,
            self.messages,
            reason=reason,
            keep_last_turns=keep_last_turns,
            workspace=self.config.workspace,
            on_recover=lambda n: self._forward(overflow_event(self._owner, n)),
        )
        usage = replace(record.usage, requests=max(record.usage.requests, 1))
        self._turn_usage = self._turn_usage + usage  # the summary call is billed too
        self._model_usage.add(answered, usage)
        self._replace_history(record.messages)
        history = list(self.record.metadata.get("compactions", []))
        history.append({**record.to_json(), "answered_by": answered})
        self.record = replace(
            self.record, metadata={**self.record.metadata, "compactions": history}
        )
        await self._save()
        self._forward(
            SessionCompacted(
                owner=self._owner, removed=len(record.removed), kept=len(record.messages)
            )
        )
        return record
