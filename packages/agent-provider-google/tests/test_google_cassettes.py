"""Replay every recorded Gemini / Vertex interaction through the provider and compare what a user
sees with values read independently from the recording: the answer (text, thinking, tool calls,
usage, finish reason, signatures), or — for an error status, a cut stream, a blocked prompt, an
unusable finish — the typed error with the vendor's facts. Works on any folder of recordings
(``ROBOTA_CASSETTE_DIR``); no assertion names a recording."""

from __future__ import annotations

import pytest
from _google_cassette_reader import cassette_root  # pyright: ignore[reportImplicitRelativeImport]
from _google_replay import replay_all  # pyright: ignore[reportImplicitRelativeImport]


@pytest.mark.anyio
async def test_every_recorded_google_interaction_decodes() -> None:
    summary = await replay_all()
    assert summary.total, f"no Google cassettes under {cassette_root()}"
    print(summary.line)
    for line in summary.skipped:
        print("  not covered:", line)
    assert not summary.failures, "\n".join(summary.failures)
    assert summary.decoded + len(summary.skipped) == summary.total
