"""Synthetic conversations for the persistence and compaction figures: turns shaped like the
benchmark scenario (a user question, an assistant tool call, its result, an assistant answer),
with deterministic filler text so sizes repeat from run to run."""

from __future__ import annotations

from robota.core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)

__all__ = ["conversation", "turn"]

_WORDS = [
    "weather",
    "time",
    "city",
    "forecast",
    "morning",
    "evening",
    "wind",
    "rain",
    "sunny",
    "cloudy",
    "temperature",
    "humidity",
    "pressure",
    "north",
    "south",
    "river",
    "bridge",
    "market",
    "station",
    "museum",
    "garden",
]


def _filler(seed: int, chars: int) -> str:
    words: list[str] = []
    size = 0
    i = seed
    while size < chars:
        word = _WORDS[(i * 7 + size) % len(_WORDS)]
        words.append(word)
        size += len(word) + 1
        i += 1
    return " ".join(words)[:chars]


def turn(index: int, *, chars: int = 80) -> tuple[Message, ...]:
    """One four-message turn (user, assistant tool call, tool result, assistant text); each
    text is ``chars`` characters long."""
    call = f"call_{index}"
    return (
        UserMessage(parts=(TextPart(text=f"Q{index}: {_filler(index, chars)}"),)),
        AssistantMessage(
            parts=(ToolCallPart(id=call, name="get_weather", arguments={"city": f"City {index}"}),),
            model="bench",
        ),
        ToolResultMessage(
            results=(
                ToolResultPart(
                    call_id=call,
                    name="get_weather",
                    content=(TextPart(text=_filler(index + 1, chars)),),
                ),
            )
        ),
        AssistantMessage(parts=(TextPart(text=_filler(index + 2, chars)),), model="bench"),
    )


def conversation(messages: int, *, chars: int = 80) -> tuple[Message, ...]:
    """``messages`` messages (a multiple of 4 is whole turns) of :func:`turn` s."""
    out: list[Message] = []
    index = 0
    while len(out) < messages:
        out.extend(turn(index, chars=chars))
        index += 1
    return tuple(out[:messages])
