"""``@path`` references through the real ``robota`` console script (issue #18): the request the
local model server receives carries the file's text and, for an image, an image content part
(base64); a reference that cannot be attached is said in one line and nothing is sent; a
resumed session sends the stored image again."""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]
from test_cli_e2e import (  # pyright: ignore[reportImplicitRelativeImport]
    NOTES,
    Host,
    host_fixture,  # noqa: F401  # pyright: ignore[reportUnusedImport]
)
from test_cli_newuser18 import (  # pyright: ignore[reportImplicitRelativeImport]
    _answer,  # pyright: ignore[reportPrivateUsage]
    _robota,  # pyright: ignore[reportPrivateUsage]
    _settings,  # pyright: ignore[reportPrivateUsage]
)

pytestmark = pytest.mark.integration

# a 1x1 PNG, saved under a name that does not say it is one
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def _user_content(request_body: bytes) -> list[Any]:
    messages = json.loads(request_body)["messages"]
    return [m["content"] for m in messages if m["role"] == "user"]


def _image_part(data: bytes) -> dict[str, Any]:
    url = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url}}


def test_run_attaches_a_text_file_and_an_image_and_resume_sends_them_again(host: Host) -> None:
    (host.workspace / "shot one.bin").write_bytes(PNG)
    task = 'describe @notes.txt and @"shot one.bin"'
    with ReplayServer(
        interactions=[_answer("A note and a red dot."), _answer("Still a red dot.")]
    ) as server:
        _settings(host, server.url + "/v1")
        first = _robota(host, "run", "--no-title", "--trust", task)
        assert first.returncode == 0, first.stderr
        session = re.search(r"session=(\S+)", first.stderr)
        assert session is not None, first.stderr
        again = _robota(host, "run", "--no-title", "--trust", "--resume", session[1], "and now?")
        assert again.returncode == 0, again.stderr
    assert first.stdout.strip() == "A note and a red dot."
    assert (
        f"robota: attached: notes.txt ({len(NOTES.encode())} B), shot one.bin (image, {len(PNG)} B)"
        in first.stderr
    )
    attached = [
        {"type": "text", "text": task},
        {"type": "text", "text": f"Attached file notes.txt:\n```\n{NOTES}```"},
        {"type": "text", "text": "Attached image shot one.bin:"},
        _image_part(PNG),
    ]
    first_request, second_request = server.received
    assert _user_content(first_request.body) == [attached]
    # the stored session (SQLite, JSON with the bytes in base64) gives the image back on resume
    assert _user_content(second_request.body) == [attached, "and now?"]


def test_run_refuses_a_path_outside_the_workspace_and_sends_nothing(host: Host) -> None:
    (host.workspace.parent / "secret.txt").write_text("TOP SECRET")
    with ReplayServer(interactions=[_answer("never")]) as server:
        _settings(host, server.url + "/v1")
        run = _robota(host, "run", "--no-title", "--trust", "summarize @../secret.txt")
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines() == [
        "robota: cannot attach @../secret.txt: it is outside the workspace"
    ]
    assert "TOP SECRET" not in run.stdout + run.stderr
    assert server.received == []
    listed = _robota(host, "sessions", "list")
    assert "no sessions yet" in listed.stderr  # nothing ran: no session is kept


def test_chat_says_a_refused_reference_and_sends_the_next_line(host: Host) -> None:
    (host.workspace / "link").symlink_to("/etc")
    with ReplayServer(interactions=[_answer("Two lines of notes.")]) as server:
        _settings(host, server.url + "/v1")
        chat = _robota(
            host,
            "chat",
            "--no-title",
            "--trust",
            stdin="show @link/passwd\nhow long is @notes.txt, mail a@b.com?\n",
        )
    assert chat.returncode == 0, chat.stderr
    assert "robota: cannot attach @link/passwd: it is outside the workspace" in chat.stderr
    assert "robota: attached: notes.txt" in chat.stderr
    assert "Two lines of notes." in chat.stdout
    [request] = server.received  # the refused line sent nothing
    [content] = _user_content(request.body)
    assert content == [
        {"type": "text", "text": "how long is @notes.txt, mail a@b.com?"},
        {"type": "text", "text": f"Attached file notes.txt:\n```\n{NOTES}```"},
    ]
