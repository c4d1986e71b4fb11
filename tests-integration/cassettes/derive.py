"""Derive the ``read_file`` cassettes in this folder from real recordings.

No recording in ``../shared/cassettes/pydantic-ai/`` calls a tool named like one of Robota's
built-in tools, so each derived cassette takes a real multi-round recording and changes ONLY the
called tool's name and its arguments, so the model "calls" ``read_file`` with
``{"path": "notes.txt"}`` and the real built-in tool reads a real file. Everything else (text,
ids, usage, signatures, headers, the request records) is kept as recorded.

Run ``uv run python tests-integration/cassettes/derive.py`` to (re)write the files;
``test_cli_e2e_cassettes.py`` checks that every derived file equals this derivation of its
source, so the README's description of what was changed stays true.
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["DERIVATIONS", "SOURCE_ROOT", "Derivation", "derive", "main"]

HERE = Path(__file__).resolve().parent
SOURCE_ROOT = Path(
    os.environ.get("ROBOTA_CASSETTE_DIR")
    or HERE.parents[2] / "shared" / "cassettes" / "pydantic-ai"
)
"""Where the real recordings live: ``ROBOTA_CASSETTE_DIR`` or
``<repo>/../shared/cassettes/pydantic-ai``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Replacement:
    """An exact substring replacement in a raw (Server-Sent Events) response body.

    Attributes:
        interaction: Index of the interaction whose response body is edited.
        old: Exact text to replace.
        new: Its replacement.
        count: How many occurrences there must be (all are replaced).
    """

    interaction: int
    old: str
    new: str
    count: int


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolUseEdit:
    """A structured edit of an Anthropic ``tool_use`` block in a JSON (``parsed_body``)
    response: the block named ``old_name`` gets ``new_name`` and ``new_input``.

    Attributes:
        interaction: Index of the interaction whose response is edited.
        old_name: The recorded tool name.
        new_name: The new tool name.
        new_input: The new tool input object.
    """

    interaction: int
    old_name: str
    new_name: str
    new_input: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True, slots=True)
class Derivation:
    """One derived cassette.

    Attributes:
        target: File name in this folder.
        source: Path of the real recording relative to ``SOURCE_ROOT``.
        edits: The edits, applied in order.
    """

    target: str
    source: str
    edits: Sequence[Replacement | ToolUseEdit]


DERIVATIONS: tuple[Derivation, ...] = (
    Derivation(
        target="anthropic_read_file.yaml",
        source="test_anthropic/test_anthropic_text_output_function.yaml",
        edits=(
            ToolUseEdit(
                interaction=0,
                old_name="get_user_country",
                new_name="read_file",
                new_input={"path": "notes.txt"},
            ),
        ),
    ),
    Derivation(
        target="openai_chat_read_file.yaml",
        source="test_openai/test_run_stream_sync_streams_real_model.yaml",
        edits=(
            Replacement(
                interaction=0, old='"name":"get_capital"', new='"name":"read_file"', count=1
            ),
            Replacement(
                interaction=0,
                old='{"arguments":"country"}',
                new='{"arguments":"path"}',
                count=1,
            ),
            Replacement(
                interaction=0, old='{"arguments":"UK"}', new='{"arguments":"notes.txt"}', count=1
            ),
        ),
    ),
    Derivation(
        target="openai_responses_read_file.yaml",
        source="test_openai_responses/test_openai_responses_stream.yaml",
        edits=(
            Replacement(
                interaction=0, old='"name":"get_capital"', new='"name":"read_file"', count=6
            ),
            Replacement(interaction=0, old='"delta":"country"', new='"delta":"path"', count=1),
            Replacement(interaction=0, old='"delta":"France"', new='"delta":"notes.txt"', count=1),
            Replacement(
                interaction=0,
                old='"arguments":"{\\"country\\":\\"France\\"}"',
                new='"arguments":"{\\"path\\":\\"notes.txt\\"}"',
                count=3,
            ),
            Replacement(
                interaction=1, old='"name":"get_capital"', new='"name":"read_file"', count=3
            ),
        ),
    ),
    Derivation(
        target="google_read_file.yaml",
        source="test_google/test_google_streaming_tool_call_thought_signature.yaml",
        edits=(
            Replacement(
                interaction=0,
                old='"name": "get_country","args": {}',
                new='"name": "read_file","args": {"path": "notes.txt"}',
                count=1,
            ),
        ),
    ),
)
"""Every derived cassette and exactly what was changed."""


def _apply(interactions: list[Any], edit: Replacement | ToolUseEdit, source: str) -> None:
    response = interactions[edit.interaction]["response"]
    if isinstance(edit, Replacement):
        body = response["body"]["string"]
        found = body.count(edit.old)
        if found != edit.count:
            raise ValueError(f"{source}: {edit.old!r} occurs {found} times, expected {edit.count}")
        response["body"]["string"] = body.replace(edit.old, edit.new)
        return
    blocks = [
        block
        for block in response["parsed_body"]["content"]
        if block.get("type") == "tool_use" and block.get("name") == edit.old_name
    ]
    if len(blocks) != 1:
        raise ValueError(f"{source}: {len(blocks)} tool_use blocks named {edit.old_name!r}")
    blocks[0]["name"] = edit.new_name
    blocks[0]["input"] = dict(edit.new_input)


def derive(derivation: Derivation, source_document: Mapping[str, Any]) -> dict[str, Any]:
    """The derived cassette document (the source is not modified).

    Raises:
        ValueError: when an edit does not find exactly what it expects.
    """
    document: dict[str, Any] = copy.deepcopy(dict(source_document))
    for edit in derivation.edits:
        _apply(document["interactions"], edit, derivation.source)
    return document


def main() -> int:
    """Write every derived cassette next to this file."""
    for derivation in DERIVATIONS:
        source = yaml.safe_load((SOURCE_ROOT / derivation.source).read_text(encoding="utf-8"))
        document = derive(derivation, source)
        text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
        (HERE / derivation.target).write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {derivation.target} from {derivation.source}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
