"""Prompt-cache break detection: :class:`CacheBreakDetector` and the ``cache.break`` event
(seed 004, ``installCacheBreakLogger`` / ``'cache:break'``: "a turn read back materially less
cached prefix than the previous turn established").

A conversation only grows, so a healthy model call reads back from the vendor's prompt cache at
least what the previous call of the same conversation *established* — that call's cache read
plus its cache write (``Usage.cache_read_tokens + Usage.cache_write_tokens``). A call reading
less than ``expected_read_ratio`` of that (default 0.8, the seed's ``expectedReadRatio``: the
slack absorbs tokenizer jitter and an uncached dynamic system block) means something at or
before the last cached message changed — a rewritten system prompt, a changed tool list, a
compacted history, a model switch, or the vendor dropped the prefix (TTL expiry, eviction). The
detector reports it as a :class:`CacheBreak` through the host's callback; it never changes the
run. Usage the adapter marks ``partial`` is neither judged nor used as a baseline.

A conversation is the owner path above the run (``agent:<name>``, plus any session or subagent
segments), so consecutive runs of one agent are one conversation, as its history is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from robota.core.agent.events import ModelResponded, RoundKind, RoundStarted
from robota.core.errors import ConfigurationError
from robota.core.events import Event, OwnerPath
from robota.core.usage import Usage
from robota.plugins.failures import MAX_FAILURES, GuardedSink

__all__ = ["CacheBreak", "CacheBreakDetector"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CacheBreak(Event):
    """A model call read materially less cached prefix than the previous call established.

    ``owner`` is the owner path of the round whose call broke the cache.

    Attributes:
        expected_read_tokens: What the previous call established (its cache read + cache
            write), tokens.
        actual_read_tokens: What this call read from the cache, tokens.
        cache_write_tokens: What this call wrote to the cache (the re-billed prefix), tokens.
        model: The model of this call.
        previous_model: The model of the previous call (a different model has its own cache).
        run_id: The run of this call, when known.
        round: The 1-based round of this call within its run, when known.
        round_kind: ``normal``, ``summary`` or ``final`` (a forced summary call offers no tools,
            so a break there is expected), when known.
    """

    type: ClassVar[str] = "cache.break"
    expected_read_tokens: int
    actual_read_tokens: int
    cache_write_tokens: int
    model: str
    previous_model: str
    run_id: str | None = None
    round: int | None = None
    round_kind: RoundKind | None = None

    @property
    def missed_tokens(self) -> int:
        """Expected minus actual cache read, tokens."""
        return self.expected_read_tokens - self.actual_read_tokens

    @property
    def model_changed(self) -> bool:
        """True when this call went to a different model than the previous one."""
        return self.model != self.previous_model


@dataclass(frozen=True, kw_only=True, slots=True)
class _Baseline:
    established: int
    model: str


def _conversation(owner: OwnerPath) -> str:
    segments = owner.segments
    for index in range(len(segments) - 1, -1, -1):
        if segments[index].kind == "run":
            return str(OwnerPath(segments=segments[:index]))
    return str(owner)


class CacheBreakDetector(GuardedSink):
    """An event sink reporting prompt-cache breaks between consecutive calls of a conversation.

    Args:
        on_break: Called with each :class:`CacheBreak` (e.g. a run's ``emit``, a logger, a UI
            hook). Its failures are recorded in :attr:`failures`, never raised.
        expected_read_ratio: The fraction of the established prefix a call must read back, in
            ``[0, 1]``; 0 reports only total loss (a read of zero).
        min_expected_tokens: Calls whose predecessor established fewer tokens are not judged
            (vendors cache only prefixes of at least ~1024 tokens).

    Raises:
        ConfigurationError: when ``expected_read_ratio`` is outside ``[0, 1]`` or
            ``min_expected_tokens`` is negative.

    Example:
        >>> breaks: list[CacheBreak] = []
        >>> detector = CacheBreakDetector(breaks.append)
        >>> # Agent(provider, sinks=[detector]); breaks fills as calls miss the cache
    """

    def __init__(
        self,
        on_break: Callable[[CacheBreak], object],
        *,
        expected_read_ratio: float = 0.8,
        min_expected_tokens: int = 1,
    ) -> None:
        super().__init__()
        if not 0.0 <= expected_read_ratio <= 1.0:
            raise ConfigurationError("expected_read_ratio must be within [0, 1]")
        if min_expected_tokens < 0:
            raise ConfigurationError("min_expected_tokens must not be negative")
        self.on_break = on_break
        self.expected_read_ratio = expected_read_ratio
        self.min_expected_tokens = min_expected_tokens
        self._baselines: dict[str, _Baseline] = {}
        self._round_kinds: dict[str, RoundKind] = {}
        self._breaks: deque[CacheBreak] = deque(maxlen=MAX_FAILURES)

    @property
    def breaks(self) -> tuple[CacheBreak, ...]:
        """The breaks reported so far, oldest first (the newest 100)."""
        return tuple(self._breaks)

    def handle(self, event: Event) -> None:
        """Remember round kinds; judge each ``model.response`` against its predecessor."""
        if isinstance(event, RoundStarted):
            self._round_kinds[str(event.owner)] = event.kind
        elif isinstance(event, ModelResponded):
            kind = self._round_kinds.pop(str(event.owner), None)
            self._judge(event.owner, event.model, event.usage, kind)

    def _judge(self, owner: OwnerPath, model: str, usage: Usage, kind: RoundKind | None) -> None:
        if usage.partial:
            return
        key = _conversation(owner)
        previous = self._baselines.get(key)
        self._baselines[key] = _Baseline(
            established=usage.cache_read_tokens + usage.cache_write_tokens, model=model
        )
        if previous is None or previous.established < max(self.min_expected_tokens, 1):
            return
        threshold = max(previous.established * self.expected_read_ratio, 1.0)
        if usage.cache_read_tokens >= threshold:
            return
        round_id = owner.find("round")
        found = CacheBreak(
            owner=owner,
            expected_read_tokens=previous.established,
            actual_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            model=model,
            previous_model=previous.model,
            run_id=owner.find("run"),
            round=int(round_id) if round_id is not None and round_id.isdigit() else None,
            round_kind=kind,
        )
        self._breaks.append(found)
        try:
            self.on_break(found)
        except Exception as error:
            self.record_failure("callback", error)

    def forget(self, owner: OwnerPath) -> None:
        """Drop the baseline of the conversation ``owner`` belongs to (e.g. after the host
        deliberately rewrote its history), so its next call is not judged."""
        self._baselines.pop(_conversation(owner), None)

    async def aclose(self) -> None:
        """Drop every baseline; never raises."""
        self._baselines.clear()
        self._round_kinds.clear()
