"""Replay every recorded api.anthropic.com interaction through the provider and compare what a
user sees — the answer, or the typed error — with values read independently from the recorded
bytes (``_anthropic_wire``). Nothing here names a recording: the folder comes from
``ROBOTA_CASSETTE_DIR`` and any set of recordings must pass (``test_anthropic_cassette_harness``
runs the same judge over recordings written on the spot)."""

from __future__ import annotations

import pytest
from _anthropic_replay import (  # pyright: ignore[reportImplicitRelativeImport]
    agent_conversations,
    replay_conversation,
    summarize,
)
from _anthropic_wire import (  # pyright: ignore[reportImplicitRelativeImport]
    anthropic_interactions,
    cassette_root,
)

# The anthropic SDK warns (DeprecationWarning, from messages.create) on every call whose model is
# in its own table ``anthropic._data.DEPRECATED_MODELS``; these recordings were made with
# claude-sonnet-4-5 before it was listed, and a replay must send the recorded model id.
pytestmark = pytest.mark.filterwarnings(
    r"ignore:The model 'claude-sonnet-4-5(-\d{8})?' is deprecated:DeprecationWarning"
)


@pytest.mark.anyio
async def test_every_recorded_anthropic_interaction_decodes() -> None:
    interactions = anthropic_interactions()
    if not interactions:
        pytest.skip(f"no anthropic recordings under {cassette_root()}")
    line, failures = await summarize(interactions)
    print(line)
    assert failures == []


@pytest.mark.anyio
async def test_agent_runs_recorded_tool_conversations_to_the_recorded_answer() -> None:
    conversations = agent_conversations()
    if not conversations:
        pytest.skip(f"no buffered tool conversations under {cassette_root()}")
    for name, its in conversations:
        await replay_conversation(name, its)
    print(f"agent conversations replayed: {len(conversations)}")
