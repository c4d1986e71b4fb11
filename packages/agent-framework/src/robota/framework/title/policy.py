"""When a session names itself (seed 003, "The session names itself once, and only with text":
"A failed turn or a failed title does not use up the naming ...; once named, it is never
renamed. A name it already has is kept, and a rename made while the title is generated wins")."""

from __future__ import annotations

from robota.core.provider import Provider
from robota.framework.title.generate import generate_title

__all__ = ["TitlePolicy"]


class TitlePolicy:
    """Names a session once, after its first successful turn.

    Args:
        enabled: The host turned naming on.
        title: The session's existing title (kept; no title is generated).

    Attributes:
        last_error: ``ExceptionType: message`` of the last failed generation, or None.

    Example:
        >>> policy = TitlePolicy(title="Release notes")
        >>> policy.named, policy.title
        (True, 'Release notes')
    """

    def __init__(self, *, enabled: bool = True, title: str | None = None) -> None:
        self.enabled = enabled
        self._title = title
        self._generating = False
        self.last_error: str | None = None

    @property
    def title(self) -> str | None:
        """The session's title, or None."""
        return self._title

    @property
    def named(self) -> bool:
        """True once the session has a title (generated or given)."""
        return self._title is not None

    def rename(self, title: str) -> None:
        """Set the title explicitly (a user or host rename). Wins over a generation in flight."""
        self._title = title

    async def after_turn(
        self,
        provider: Provider,
        model: str,
        user_text: str,
        answer: str,
        *,
        succeeded: bool,
    ) -> str | None:
        """Call after every turn; names the session after the first successful one.

        Args:
            provider: The provider the session uses now.
            model: Its model id.
            user_text: This turn's own user message.
            answer: This turn's final answer.
            succeeded: False for a failed or interrupted turn (it does not use up the naming).

        Returns:
            The new title when this call named the session; None otherwise (disabled, already
            named, failed turn, a generation already in flight, the generation failed, or a
            rename arrived while generating). A failed generation leaves naming open for the
            next turn and is recorded in :attr:`last_error`; it never raises.
        """
        if not self.enabled or self._title is not None or not succeeded or self._generating:
            return None
        self._generating = True
        try:
            candidate = await generate_title(provider, model, user_text, answer)
        except Exception as exc:  # a failed title must not fail the session's turn
            self.last_error = f"{type(exc).__name__}: {exc}"
            return None
        finally:
            self._generating = False
        if self._title is not None:
            return None
        self._title = candidate
        self.last_error = None
        return candidate
