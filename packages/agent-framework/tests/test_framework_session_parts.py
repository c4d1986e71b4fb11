"""A turn given as text and media parts (issue #18, ``@path`` attachments): the parts reach the
provider unchanged, hooks see the text form, background notices come first, and a stored
session with an image round-trips through save and resume."""

from __future__ import annotations

import doctest
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from robota.core.messages import MediaPart, TextPart, UserMessage
from robota.core.testing.scripted import ScriptedProvider, text
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.interactive._prompt import prompt_text, turn_prompt
from robota.framework.settings import Settings
from robota.session import EventLog, SQLiteSessionStore

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))  # the magic, then bytes no text codec keeps
IMAGE = MediaPart(media_kind="image", media_type="image/png", data=PNG, name="shot.png")


def config(tmp_path: Path, provider: ScriptedProvider, **more: Any) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    base: dict[str, Any] = {
        "provider": provider,
        "model": "m",
        "workspace": workspace,
        "system_prompt": "Base prompt.",
        "store": SQLiteSessionStore(tmp_path / "state" / "sessions.db"),
        "event_log": EventLog(tmp_path / "state" / "logs"),
        "title": False,
        "background_dir": tmp_path / "bg",
    }
    base.update(more)
    return SessionConfig(**base)


def _user_messages(provider: ScriptedProvider, index: int) -> list[UserMessage]:
    return [m for m in provider.requests[index].messages if isinstance(m, UserMessage)]


async def test_parts_reach_the_provider_unchanged_and_survive_save_and_resume(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider([[text("A red square.")], [text("Still red.")]])
    cfg = config(tmp_path, provider)
    parts = (TextPart(text="what is in @shot.png?"), IMAGE)
    async with await InteractiveSession.start(cfg) as session:
        result = await session.submit(parts)
        session_id = session.id
    assert result.text == "A red square."
    [sent] = _user_messages(provider, 0)
    assert sent.parts == parts  # the image went as an image, bytes untouched
    assert cfg.store is not None
    stored = await cfg.store.get(session_id)
    assert stored.messages[0] == UserMessage(parts=parts)
    # the JSON form carries the bytes base64-encoded, not as text
    dumped = json.loads(stored.to_json())
    assert "iVBORw0KGgo" in json.dumps(dumped)  # base64 of the PNG magic
    async with await InteractiveSession.resume(cfg, session_id) as resumed:
        assert resumed.messages[0] == UserMessage(parts=parts)
        await resumed.submit("and now?")
    first, second = _user_messages(provider, 1)
    assert first.parts == parts  # the resumed history sends the image again
    assert second == UserMessage.of("and now?")


async def test_stream_takes_parts_too(tmp_path: Path) -> None:
    provider = ScriptedProvider([[text("ok")]])
    cfg = config(tmp_path, provider)
    async with (
        await InteractiveSession.start(cfg) as session,
        session.stream([TextPart(text="look"), IMAGE]) as events,
    ):
        async for _ in events:
            pass
    [sent] = _user_messages(provider, 0)
    assert sent.parts == (TextPart(text="look"), IMAGE)


async def test_a_user_prompt_submit_hook_sees_the_text_with_media_described(
    tmp_path: Path,
) -> None:
    seen = tmp_path / "seen.json"
    hook = tmp_path / "hook.py"
    hook.write_text(
        f"import json, sys\nopen({str(seen)!r}, 'w').write(json.load(sys.stdin)['prompt'])\n"
    )
    settings = Settings.model_validate(
        {
            "hooks": {
                "UserPromptSubmit": [
                    {"id": "spy", "type": "command", "command": f"{sys.executable} {hook}"}
                ]
            }
        }
    )
    provider = ScriptedProvider([[text("ok")]])
    cfg = config(tmp_path, provider, settings=settings)
    async with await InteractiveSession.start(cfg) as session:
        await session.submit([TextPart(text="what is this?"), IMAGE])
    assert seen.read_text() == "what is this?\n\n[image: shot.png]"


async def test_empty_or_foreign_parts_are_refused_before_anything_runs(tmp_path: Path) -> None:
    provider = ScriptedProvider([[text("never")]])
    cfg = config(tmp_path, provider)
    async with await InteractiveSession.start(cfg) as session:
        with pytest.raises(ValueError, match="at least one part"):
            await session.submit([])
        with pytest.raises(TypeError, match="TextPart or MediaPart"):
            await session.submit([TextPart(text="x"), "y"])  # type: ignore[list-item]
        assert session.messages == ()
    assert provider.requests == []


def test_background_notices_come_first_as_a_text_part() -> None:
    assert turn_prompt("hi", []) == "hi"
    assert turn_prompt("hi", ["task 1 exited"]) == "task 1 exited\n\nhi"
    message = turn_prompt([TextPart(text="look"), IMAGE], ["task 1 exited", "task 2 exited"])
    assert message == UserMessage(
        parts=(TextPart(text="task 1 exited\n\ntask 2 exited"), TextPart(text="look"), IMAGE)
    )
    assert prompt_text([IMAGE, TextPart(text="b")]) == "[image: shot.png]\n\nb"
    unnamed = MediaPart(media_kind="image", media_type="image/gif", data=b"GIF89a")
    assert prompt_text([unnamed]) == "[image: image/gif]"


def test_the_docstring_example_runs() -> None:
    from robota.framework.interactive import _prompt

    assert doctest.testmod(_prompt).failed == 0
