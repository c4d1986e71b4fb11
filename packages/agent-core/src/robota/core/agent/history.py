"""The agent's conversation history (seed 000, "Conversation History Principles", "System
Prompt").

History is append-only: messages are added through :meth:`History.append` and
:meth:`History.commit` only, never edited or removed. The system prompt is the one exception: it
is a single replaceable head message. An assistant message goes through one begin/commit path
(:class:`AssistantDraft`): the complete response when it finished, otherwise what streamed so
far, marked ``interrupted``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from robota.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    ThinkingPart,
)
from robota.core.usage import Usage

__all__ = ["AssistantDraft", "History"]


class AssistantDraft:
    """An assistant message being received (the "begin" half of begin/commit).

    Attributes:
        text: Answer text streamed so far.
        thinking: Reasoning text streamed so far.
        final: The complete message once the provider finished, else None.
        model: The model asked (used on an interrupted message).
        provider: The provider name.
        usage: The latest usage the provider reported before completing
            (:class:`~robota.core.provider.UsageReported`: cumulative for the call), else None.
    """

    __slots__ = ("final", "model", "provider", "text", "thinking", "usage")

    def __init__(self, *, model: str, provider: str) -> None:
        self.text = ""
        self.thinking = ""
        self.final: AssistantMessage | None = None
        self.model = model
        self.provider = provider
        self.usage: Usage | None = None

    def message(self) -> AssistantMessage:
        """The message to commit: ``final`` when complete, else the partial text marked
        interrupted, carrying the last reported usage (tool calls that did not finish streaming
        are dropped, since no result could ever answer them)."""
        if self.final is not None:
            return self.final
        parts: list[TextPart | ThinkingPart] = []
        if self.text:
            parts.append(TextPart(text=self.text))
        usage = self.usage
        if usage is not None and usage.requests == 0:
            usage = replace(usage, requests=1)
        return AssistantMessage(
            parts=tuple(parts),
            interrupted=True,
            model=self.model,
            provider=self.provider,
            usage=usage,
        )


class History:
    """Append-only conversation with a replaceable system head.

    Args:
        system_prompt: The head system message text, or None for no system message.
        messages: Earlier messages to start from (system messages in it are dropped: the head
            is owned by ``system_prompt``).
        on_commit: Called with ``(message, index)`` after every append.
    """

    __slots__ = ("_messages", "_system", "on_commit")

    def __init__(
        self,
        system_prompt: str | None = None,
        messages: Sequence[Message] = (),
        *,
        on_commit: Callable[[Message, int], None] | None = None,
    ) -> None:
        self._system = system_prompt
        self._messages: list[Message] = [m for m in messages if not isinstance(m, SystemMessage)]
        self.on_commit = on_commit

    @property
    def system_prompt(self) -> str | None:
        """The head system message text (None: no system message)."""
        return self._system

    @system_prompt.setter
    def system_prompt(self, value: str | None) -> None:
        self._system = value

    @property
    def messages(self) -> tuple[Message, ...]:
        """All messages, the system head first when there is one (a read-only snapshot)."""
        head: tuple[Message, ...] = (
            (SystemMessage(content=self._system),) if self._system is not None else ()
        )
        return (*head, *self._messages)

    @property
    def body(self) -> tuple[Message, ...]:
        """Messages after the system head."""
        return tuple(self._messages)

    def __len__(self) -> int:
        return len(self._messages) + (1 if self._system is not None else 0)

    def restore(self, messages: Sequence[Message]) -> None:
        """Fill an empty history with ``messages`` (system messages dropped), without commit
        notifications: used by journal continuation to restore a checkpoint.

        Raises:
            ValueError: when the history already has messages (live history is never
                overwritten).
        """
        if self._messages:
            raise ValueError("the history is not empty; a restore never overwrites it")
        self._messages = [m for m in messages if not isinstance(m, SystemMessage)]

    def append(self, message: Message) -> int:
        """Append ``message``; returns its index in :attr:`messages`.

        Raises:
            ValueError: for a :class:`SystemMessage` (set :attr:`system_prompt` instead).
        """
        if isinstance(message, SystemMessage):
            raise ValueError("the system prompt is the head message: set system_prompt instead")
        self._messages.append(message)
        index = len(self) - 1
        if self.on_commit is not None:
            self.on_commit(message, index)
        return index

    def commit(self, draft: AssistantDraft) -> AssistantMessage:
        """Commit ``draft`` (complete or interrupted) and return the committed message."""
        message = draft.message()
        self.append(message)
        return message

    def for_request(
        self, annotation: str, *, system_suffix: str | None = None
    ) -> tuple[Message, ...]:
        """The messages to send to a provider.

        Interrupted assistant messages get ``annotation`` appended to their text so the model
        knows its earlier answer was cut short; ``system_suffix`` (a request-only instruction)
        is appended to the system prompt (or becomes the system message when there is none).
        """
        out: list[Message] = []
        system = self._system
        if system_suffix:
            system = f"{system}\n\n{system_suffix}" if system else system_suffix
        if system is not None:
            out.append(SystemMessage(content=system))
        for message in self._messages:
            if isinstance(message, AssistantMessage) and message.interrupted and annotation:
                out.append(_annotate(message, annotation))
            else:
                out.append(message)
        return tuple(out)


def _annotate(message: AssistantMessage, annotation: str) -> AssistantMessage:
    parts = list(message.parts)
    for i in range(len(parts) - 1, -1, -1):
        part = parts[i]
        if isinstance(part, TextPart):
            sep = "\n" if part.text else ""
            parts[i] = TextPart(text=f"{part.text}{sep}{annotation}")
            return replace(message, parts=tuple(parts))
    return replace(message, parts=(*parts, TextPart(text=annotation)))
