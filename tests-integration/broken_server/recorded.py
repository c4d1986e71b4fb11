"""Recorded 200 event streams of model calls (``ROBOTA_CASSETTE_DIR`` or
``../shared/cassettes/pydantic-ai`` beside the repository), found by what they are: a ``POST`` to
a model-call path whose response is an event stream."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from robota.core.testing.cassette import Interaction, load_cassette

from broken_server.harness import Family

__all__ = ["RecordedStream", "cassette_root", "recorded_streams"]


@dataclass(frozen=True, kw_only=True, slots=True)
class RecordedStream:
    family: Family
    source: str
    model: str
    body: bytes


def cassette_root() -> Path:
    env = os.environ.get("ROBOTA_CASSETTE_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    repo = next(p for p in here.parents if (p / "packages").is_dir())
    return repo.parent / "shared" / "cassettes" / "pydantic-ai"


def _family(interaction: Interaction) -> Family | None:
    path = interaction.path
    if path.endswith("/chat/completions"):
        return "openai-chat"
    if path.endswith("/responses"):
        return "openai-responses"
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith(":streamGenerateContent"):
        return "gemini"
    return None


def _model(family: Family, interaction: Interaction) -> str:
    if family == "gemini":
        return urlsplit(interaction.uri).path.rsplit("/", 1)[-1].split(":", 1)[0]
    body = interaction.request_body
    if isinstance(body, dict):
        model = body.get("model")  # pyright: ignore[reportUnknownMemberType]
        if isinstance(model, str):
            return model
    return "unknown-model"


def recorded_streams(root: Path) -> Iterator[RecordedStream]:
    for path in sorted(root.rglob("*.yaml")):
        try:
            cassette = load_cassette(path)
        except ValueError:
            continue
        for index, interaction in enumerate(cassette.interactions):
            family = _family(interaction)
            if (
                family is None
                or interaction.method != "POST"
                or interaction.status != 200
                or not interaction.is_stream
            ):
                continue
            yield RecordedStream(
                family=family,
                source=f"{path.parent.name}/{path.name}#{index}",
                model=_model(family, interaction),
                body=interaction.body,
            )
