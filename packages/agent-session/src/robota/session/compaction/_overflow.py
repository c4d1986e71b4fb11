"""Reactive context-overflow recovery (seed 004, ``context:overflow``; issue #15).

:class:`OverflowRecoveringProvider` is a provider decorator: when a call fails with a
provider-reported :class:`~robota.core.errors.ContextWindowExceededError` before anything was
streamed, it shrinks the request — the view only, never the canonical history — and re-issues
the call, a bounded number of times. Only tool output is shortened by default (seed 004: "It can
only shrink tool-result-heavy histories — a request whose mandatory text alone overflows still
surfaces the error"); every tool result keeps its call id, so pairing is never broken.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace

from robota.core.agent.context import estimate_tokens
from robota.core.errors import ContextWindowExceededError
from robota.core.provider import (
    DelegatingProvider,
    ModelRequest,
    Provider,
    StreamEvent,
)
from robota.session.compaction._fit import ElisionNotes, elide_tool_results, fit_messages

__all__ = ["OverflowRecoveringProvider", "Shrink", "window_budget"]

Shrink = Callable[
    [ModelRequest, ModelRequest, int, ContextWindowExceededError],
    "tuple[ModelRequest, int] | None",
]
"""A recovery strategy: ``(original, refused, attempt, error) -> (smaller request, parts
changed)``, or None when it cannot make the request smaller. ``attempt`` counts from 1;
``refused`` is the request the provider just refused (``original`` on the first attempt)."""

WINDOW_MARGIN = 0.1
"""Share of the context window kept free for the estimate's error (the serialized estimate is
JSON characters / 4; real tokenizers differ by tens of percent on code and non-English text)."""


def window_budget(window: int | None, answer_tokens: int | None) -> int | None:
    """Estimated input tokens a request may take in a ``window``-token context window when
    ``answer_tokens`` are reserved for the answer and :data:`WINDOW_MARGIN` for the estimate's
    error; None when the window is unknown or too small to leave any room."""
    if not window:
        return None
    budget = window - (answer_tokens or 0) - int(window * WINDOW_MARGIN)
    return budget if budget > 0 else None


class OverflowRecoveringProvider(DelegatingProvider):
    """Provider decorator: on a provider-reported context overflow before any event was yielded,
    shrink the request and retry, at most ``max_attempts`` times.

    The default strategy (seed 004, ``context:overflow``): the first pass elides the bodies of
    all tool results but the two newest; when that changes nothing — the newest results are the
    cause — or the request is still over the window, every tool result, the newest too, is
    shortened to its head and tail around a readable marker (oldest and largest first; see
    :func:`~robota.session.compaction.fit_messages`) until the estimate fits the window
    (:func:`window_budget`: the error's ``context_window``, else ``model_info``). When the
    provider refused a request Robota estimated as fitting, or no window is known, the target
    is half (window known) or a quarter (unknown) of the refused request's estimate. A result
    part is never dropped.

    Args:
        inner: The real provider.
        max_attempts: Recovery attempts per call.
        on_recover: Called with the number of tool results (or parts) changed on each attempt.
        shrink: Replaces the default strategy (see :data:`Shrink`).
        notes: Marker texts of the default strategy.

    Raises (from ``stream``):
        ContextWindowExceededError: the last refusal, when the bound is reached or the request
            cannot be made smaller; also any overflow that is not provider-reported or that
            arrives after an event was yielded.
    """

    def __init__(
        self,
        inner: Provider,
        *,
        max_attempts: int = 2,
        on_recover: Callable[[int], None] | None = None,
        shrink: Shrink | None = None,
        notes: ElisionNotes | None = None,
    ) -> None:
        super().__init__(inner)
        self._max_attempts = max_attempts
        self._on_recover = on_recover
        self._shrink: Shrink = shrink or self._shrink_tool_output
        self._notes = notes or ElisionNotes()

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        attempt = 0
        current = request
        while True:
            yielded = False
            try:
                async for event in self.inner.stream(current):
                    yielded = True
                    yield event
                return
            except ContextWindowExceededError as exc:
                if yielded or not exc.provider_reported or attempt >= self._max_attempts:
                    raise
                attempt += 1
                shrunk = self._shrink(request, current, attempt, exc)
                if shrunk is None or shrunk[1] == 0:
                    raise
                current = shrunk[0]
                if self._on_recover is not None:
                    self._on_recover(shrunk[1])

    def _shrink_tool_output(
        self,
        original: ModelRequest,
        refused: ModelRequest,
        attempt: int,
        error: ContextWindowExceededError,
    ) -> tuple[ModelRequest, int] | None:
        refused_tokens = estimate_tokens(refused.messages, refused.tools)
        window = error.context_window
        if window is None:
            info = self.inner.model_info(original.model)
            window = info.context_window if info is not None else None
        budget = window_budget(window, original.settings.max_tokens)
        messages, elided = elide_tool_results(original.messages, keep_last=2)
        tokens = estimate_tokens(messages, original.tools)
        first_pass_enough = budget is None or tokens <= budget
        if attempt == 1 and elided and tokens < refused_tokens and first_pass_enough:
            return replace(original, messages=messages), elided
        if budget is not None and refused_tokens > budget:
            target = budget
        else:  # Robota's estimate said it fits, or nothing is known: shrink by a ratio
            target = refused_tokens // (2 if budget is not None else 4)
        fit = fit_messages(
            messages, target, tools=original.tools, tiers=("tool_output",), notes=self._notes
        )
        if fit.estimated_tokens >= refused_tokens:
            return None
        return replace(original, messages=fit.messages), elided + fit.changed_parts
