"""A real Agent runs every recorded multi-round Gemini tool conversation (tool call → tool result
→ … → answer), discovered from the recordings (``ROBOTA_CASSETTE_DIR`` or the shared folder),
and ends with the recorded final text after exactly the recorded rounds and tool calls."""

from __future__ import annotations

import pytest
from _google_conversations import (  # pyright: ignore[reportImplicitRelativeImport]
    Conversation,
    tool_conversations,
)
from _google_replay import replay_conversation  # pyright: ignore[reportImplicitRelativeImport]

CONVERSATIONS = tool_conversations()


def test_conversations_are_found_in_the_recordings() -> None:
    rounds = sum(len(c.calls) for c in CONVERSATIONS)
    print(f"cassettes(google agent): conversations={len(CONVERSATIONS)} rounds={rounds}")
    assert all(len(c.calls) >= 2 for c in CONVERSATIONS)


@pytest.mark.anyio
@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=[c.id for c in CONVERSATIONS])
async def test_agent_reaches_the_recorded_final_answer(conversation: Conversation) -> None:
    await replay_conversation(conversation)
