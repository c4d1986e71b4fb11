"""The chat's status line: ``model · tokens in/out · cost · context used``, for the line
editor's bottom toolbar or printed dim after each turn."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal

from robota.cli.providers import estimate_cost
from robota.core.usage import Usage
from robota.framework.interactive import InteractiveSession
from robota.framework.interactive.breakdown import ContextBreakdown

__all__ = ["StatusLine", "compact_count"]


def compact_count(tokens: int) -> str:
    """A token count in few characters: ``950``, ``12.3k``, ``1.2M``."""
    if tokens < 1000:
        return str(tokens)
    if tokens < 1_000_000:
        return f"{tokens / 1000:.1f}k".replace(".0k", "k")
    return f"{tokens / 1_000_000:.1f}M".replace(".0M", "M")


def _cost(cost: Decimal | None) -> str:
    if cost is None:
        return "cost unknown"
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def _context(breakdown: ContextBreakdown) -> str:
    if not breakdown.context_window:
        return f"context {compact_count(breakdown.total)}"
    share = 100 * breakdown.total / breakdown.context_window
    return f"context {share:.0f}% of {compact_count(breakdown.context_window)}"


class StatusLine:
    """What the status line says, computed when asked.

    The model is the session's (``/model`` changes it); tokens and cost are what ``/cost``
    says (the usage this command saw per model, priced by the provider's table: USD; before
    the first answer the session's model is priced, so a model with no known price says
    ``cost unknown`` from the start rather than ``$0.0000``); the
    context used is the session's estimated breakdown (``/context``) against the model's
    window, recomputed only when the conversation or the model changed.

    Args:
        provider_type: The provider profile's type (``anthropic``, ``openai``, ...), which
            prices the usage.
        usage: Usage per answering model id so far (the printer's ``usage_by_model``).
        model: The model named before a session is followed.

    Example:
        >>> from robota.core.usage import Usage
        >>> status = StatusLine(provider_type="openai-compatible", model="local",
        ...                     usage=lambda: {"local": Usage(input_tokens=1200, output_tokens=40)})
        >>> status.text()
        'local · 1.2k in / 40 out · cost unknown'
        >>> StatusLine(provider_type="openai-compatible", model="local", usage=dict).text()
        'local · 0 in / 0 out · cost unknown'
    """

    def __init__(
        self,
        *,
        provider_type: str,
        usage: Callable[[], Mapping[str, Usage]],
        model: str = "",
    ) -> None:
        self._provider_type = provider_type
        self._usage = usage
        self._model = model
        self._session: InteractiveSession | None = None
        self._context: tuple[tuple[str, int, str], str] | None = None  # (key, text)

    def follow(self, session: InteractiveSession) -> None:
        """Report on ``session`` (the chat's current one) from now on."""
        self._session = session
        self._context = None

    def text(self) -> str:
        """The line, e.g. ``claude-sonnet-4-5 · 12.3k in / 850 out · $0.0495 · context 6% of
        200k``."""
        session = self._session
        model = session.config.model if session is not None else self._model
        usage_by_model = dict(self._usage())
        total = Usage()
        for usage in usage_by_model.values():
            total = total + usage
        parts = [
            model,
            f"{compact_count(total.input_tokens)} in / {compact_count(total.output_tokens)} out",
            _cost(estimate_cost(self._provider_type, usage_by_model or {model: Usage()})),
        ]
        if session is not None:
            parts.append(self._context_text(session))
        return " · ".join(p for p in parts if p)

    def _context_text(self, session: InteractiveSession) -> str:
        key = (session.id, len(session.agent.history), session.config.model)
        if self._context is None or self._context[0] != key:
            self._context = (key, _context(session.context_breakdown()))
        return self._context[1]
