"""Slash commands and hosted web search in the real ``robota`` command (issue #18): ``/help``
generated from the command table, a suggestion for a mistyped command, ``/context`` and
``/tools``, ``/resume`` continuing a stored session in the running chat (the next request
carries its history), and ``--web-search`` / ``/web-search`` putting the provider's hosted web
search in the request body the loopback server receives — or refusing, exit 3, before any
request when the model does not offer it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.cli.chat_commands import COMMAND_TABLE
from robota.core.messages import AssistantMessage, TextPart, UserMessage
from robota.core.testing.cassette import Interaction, load_cassette
from robota.session import SessionRecord, SQLiteSessionStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]
from test_cli_e2e import (  # pyright: ignore[reportImplicitRelativeImport]
    SOURCE_ROOT,
    Host,
    host_fixture,  # noqa: F401  # pyright: ignore[reportUnusedImport]
)
from test_cli_newuser18 import (  # pyright: ignore[reportImplicitRelativeImport]
    Terminal,
    _answer,  # pyright: ignore[reportPrivateUsage]
    _robota,  # pyright: ignore[reportPrivateUsage]
    _sessions,  # pyright: ignore[reportPrivateUsage]
    _settings,  # pyright: ignore[reportPrivateUsage]
    _user_texts,  # pyright: ignore[reportPrivateUsage]
)

pytestmark = pytest.mark.integration

RESPONSES_ANSWER = "test_openai_responses/test_openai_responses_moderation_stream.yaml"
ANTHROPIC_ANSWER = "test_anthropic/test_anthropic_model_instructions.yaml"


def _profile(host: Host, **profile: str) -> None:
    settings = {"providers": {"rec": {"api_key": "test", **profile}}, "provider": "rec"}
    (host.home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def _recorded(name: str) -> Interaction:
    return load_cassette(SOURCE_ROOT / name).interactions[0]


def _seed(host: Host, title: str, question: str, answer: str) -> str:
    """Store a finished session (one question, one answer) as an earlier chat left it."""
    record = SessionRecord(
        title=title,
        model="gpt-4o-mini",
        provider="openai",
        messages=(
            UserMessage(parts=(TextPart(text=question),)),
            AssistantMessage(parts=(TextPart(text=answer),)),
        ),
    )

    async def write() -> str:
        async with SQLiteSessionStore(host.home / "sessions.db") as store:
            return (await store.create(record)).id

    return anyio.run(write)


def _said(stderr: str, prefix: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(prefix)]


# -- /help, a mistyped command, arguments ----------------------------------------------------


def test_help_lists_every_command_and_a_typo_gets_a_suggestion(host: Host) -> None:
    with ReplayServer(interactions=[]) as server:
        _settings(host, server.url + "/v1")
        lines = "/help\n/contxt\n/resum\n/frobnicate\n/cost extra\n/exit\n"
        done = _robota(host, "chat", "--no-title", stdin=lines)
    assert done.returncode == 0, done.stderr
    assert server.received == []
    err = done.stderr.splitlines()
    start = err.index("slash commands:")
    listed = err[start + 1 : start + 1 + len(COMMAND_TABLE.commands)]
    assert [line.split()[0].rstrip(",") for line in listed] == [
        c.name for c in COMMAND_TABLE.commands
    ]
    for name in ("/context", "/tools", "/resume [ID]", "/web-search [on|off]", "/model [NAME]"):
        assert any(line.lstrip().startswith(name) for line in listed), name
    assert any(line.lstrip().startswith("/exit, /quit") for line in listed)
    unknown = _said(done.stderr, "robota: unknown command")
    assert unknown == [
        "robota: unknown command '/contxt'; did you mean /context? /help lists the commands "
        "(start a message with // to send a literal /)",
        "robota: unknown command '/resum'; did you mean /resume? /help lists the commands "
        "(start a message with // to send a literal /)",
        "robota: unknown command '/frobnicate'; /help lists the commands "
        "(start a message with // to send a literal /)",
    ]
    assert "robota: usage: /cost" in err


# -- /context and /tools -----------------------------------------------------------------------


def test_context_and_tools_in_plain_lines(host: Host) -> None:
    with ReplayServer(interactions=[_answer("Hello.")]) as server:
        _settings(host, server.url + "/v1")
        done = _robota(host, "chat", "--no-title", stdin="/context\nhi\n/context\n/tools\n")
    assert done.returncode == 0, done.stderr
    heads = re.findall(
        r"^context of gpt-4o-mini: ([\d,]+) of 128,000 tokens \([\d.]+%\), ([\d,]+) free "
        r"\(estimated\)$",
        done.stderr,
        re.MULTILINE,
    )
    assert len(heads) == 2
    (before, free_before), (after, _) = [
        (int(a.replace(",", "")), int(b.replace(",", ""))) for a, b in heads
    ]
    assert after > before  # the turn's messages now count
    assert before + free_before == 128_000
    rows = re.findall(
        r"^  (system prompt|tool definitions|conversation|free space) +([\d,]+) +(<?[\d.]+)%$",
        done.stderr,
        re.MULTILINE,
    )
    first = {name: int(tokens.replace(",", "")) for name, tokens, _ in rows[:4]}
    assert first["conversation"] == 0
    assert first["system prompt"] + first["tool definitions"] == before
    assert first["free space"] == free_before
    tools = done.stderr.split("tools (", 1)[1].splitlines()
    assert re.match(r"\d+\):$", tools[0])
    read_file = next(line for line in tools if line.split()[:1] == ["read_file"])
    assert read_file.split()[1] == "built-in"
    hosted = _said(done.stderr, "hosted tools:")
    assert hosted == [
        "hosted tools: none on; web search: off (the model does not offer it)"
    ]  # Chat Completions runs web search only on *-search-* models


def test_context_is_a_table_at_a_terminal(host: Host) -> None:
    with ReplayServer(interactions=[]) as server:
        _settings(host, server.url + "/v1")
        chat = Terminal(host, "chat", "--no-title", "--trust")
        chat.expect("> ")
        chat.type(b"/context\r")
        chat.expect("context of gpt-4o-mini:")
        chat.expect("share of window")
        chat.expect("free space")
        chat.expect("> ")
        chat.type(b"\x04")
        assert chat.wait() == 0, chat.screen
    assert "━" in chat.screen or "─" in chat.screen  # a drawn table, not plain lines


# -- /resume -----------------------------------------------------------------------------------


def test_resume_picker_continues_the_chosen_session(host: Host) -> None:
    alpha = _seed(host, "Alpha notes", "Remember the word cobalt.", "Noted: cobalt.")
    beta = _seed(host, "Beta plans", "Plan a picnic.", "Bring bread.")
    with ReplayServer(interactions=[_answer("The word was cobalt.")]) as server:
        _settings(host, server.url + "/v1")
        chat = Terminal(host, "chat", "--no-title", "--trust")
        chat.expect("> ")
        chat.type(b"/resume\r")
        chat.expect("resume which? [1-2, Enter: none]")
        listing = chat.screen
        assert re.search(r"\d\. Beta plans — just now, 2 messages  \(" + beta + r"\)", listing)
        [number] = re.findall(r"(\d)\. Alpha notes — just now, 2 messages  \(" + alpha, listing)
        chat.type(number.encode() + b"\r")
        chat.expect(f"resumed session {alpha} (Alpha notes, 2 messages)")
        chat.expect("> ")
        chat.type(b"Which word?\r")
        chat.expect("The word was cobalt.")
        chat.expect("> ")
        chat.type(b"\x04")
        assert chat.wait() == 0, chat.screen
    [request] = server.received
    assert _user_texts(request.body) == ["Remember the word cobalt.", "Which word?"]
    assert [m["content"] for m in request.json()["messages"] if m["role"] == "assistant"] == [
        "Noted: cobalt."
    ]
    stored = {record.id: record for record in _sessions(host)}
    assert set(stored) == {alpha, beta}  # the chat's own unanswered session was not kept
    texts = [
        "".join(p.text for p in m.parts if isinstance(p, TextPart))
        for m in stored[alpha].messages
        if isinstance(m, (UserMessage, AssistantMessage))
    ]
    assert texts == [
        "Remember the word cobalt.",
        "Noted: cobalt.",
        "Which word?",
        "The word was cobalt.",
    ]
    assert len(stored[beta].messages) == 2


def test_resume_by_id_prefix_and_the_errors(host: Host) -> None:
    alpha = _seed(host, "Alpha notes", "Remember the word cobalt.", "Noted: cobalt.")
    with ReplayServer(interactions=[_answer("Cobalt.")]) as server:
        _settings(host, server.url + "/v1")
        lines = f"/resume nope\n/resume {alpha[:10]}\n/resume {alpha}\nWhich word?\n"
        done = _robota(host, "chat", "--no-title", stdin=lines)
    assert done.returncode == 0, done.stderr
    assert _said(done.stderr, "robota: no session") == [
        "robota: no session 'nope' (robota sessions list shows them)"
    ]
    assert f"robota: resumed session {alpha} (Alpha notes, 2 messages); the next turns " in (
        done.stderr
    )
    assert f"robota: already in session {alpha}" in done.stderr
    [request] = server.received
    assert _user_texts(request.body) == ["Remember the word cobalt.", "Which word?"]
    assert done.stdout == "Cobalt.\n"


# -- hosted web search -------------------------------------------------------------------------


def _tools_sent(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in body.get("tools", []) if t.get("type") != "function" and "type" in t]


def test_web_search_reaches_the_openai_responses_request(host: Host) -> None:
    with ReplayServer(interactions=[_recorded(RESPONSES_ANSWER)]) as server:
        _profile(host, type="openai", base_url=server.url + "/v1", model="gpt-4o")
        done = _robota(host, "run", "--no-title", "--web-search", "What is new?")
    assert done.returncode == 0, done.stderr
    [request] = server.received
    assert request.path == "/v1/responses"
    assert _tools_sent(request.json()) == [{"type": "web_search"}]


def test_web_search_reaches_the_anthropic_request(host: Host) -> None:
    with ReplayServer(interactions=[_recorded(ANTHROPIC_ANSWER)]) as server:
        _profile(host, type="anthropic", base_url=server.url, model="claude-sonnet-4-5")
        done = _robota(host, "run", "--no-title", "--web-search", "What is new?")
    assert done.returncode == 0, done.stderr
    [request] = server.received
    hosted = [(t["type"], t["name"]) for t in request.json()["tools"] if "input_schema" not in t]
    assert hosted == [("web_search_20250305", "web_search")]  # the last tool: a cache breakpoint


@pytest.mark.parametrize("command", ["run", "chat"])
def test_web_search_on_a_model_without_it_exits_3_before_any_request(
    host: Host, command: str
) -> None:
    with ReplayServer(interactions=[_answer("never")]) as server:
        _settings(host, server.url + "/v1")  # openai-chat, gpt-4o-mini
        args = [command, "--no-title", "--web-search", *(["hi"] if command == "run" else [])]
        done = _robota(host, *args, stdin="hi\n")
        local = _robota(
            host, command, "--base-url", server.url + "/v1", "--web-search", "--no-title",
            *(["hi"] if command == "run" else []), stdin="hi\n",
        )  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines() == [
        "robota: --web-search: hosted tool(s) web_search are not available on openai model "
        "'gpt-4o-mini' (it offers: none); the hosted tools guide lists the models that offer it"
    ]
    assert local.returncode == 3, local.stderr
    [line] = local.stderr.splitlines()
    assert "--web-search: hosted tool(s) web_search are not available on llamacpp model " in line
    assert server.received == []
    assert _sessions(host) == []


def test_slash_web_search_switches_the_hosted_tool_between_turns(host: Host) -> None:
    answer = _recorded(RESPONSES_ANSWER)
    with ReplayServer(interactions=[answer, answer]) as server:
        _profile(host, type="openai", base_url=server.url + "/v1", model="gpt-4o")
        lines = "/web-search\n/web-search on\n/tools\nfirst\n/web-search off\nsecond\n"
        done = _robota(host, "chat", "--no-title", stdin=lines)
    assert done.returncode == 0, done.stderr
    assert _said(done.stderr, "robota: web search:") == [
        "robota: web search: off (the provider's hosted web search, from the next turn on)",
        "robota: web search: on (the provider's hosted web search, from the next turn on)",
        "robota: web search: off (the provider's hosted web search, from the next turn on)",
    ]
    assert _said(done.stderr, "hosted tools:") == [
        "hosted tools: web_search on; web search: on (/web-search off to stop)"
    ]
    first, second = (r.json() for r in server.received)
    assert _tools_sent(first) == [{"type": "web_search"}]
    assert _tools_sent(second) == []


def test_slash_web_search_on_a_model_without_it_stays_off(host: Host) -> None:
    with ReplayServer(interactions=[_answer("Plain.")]) as server:
        _settings(host, server.url + "/v1")
        done = _robota(host, "chat", "--no-title", stdin="/web-search on\nhi\n")
    assert done.returncode == 0, done.stderr
    assert _said(done.stderr, "robota: /web-search:") == [
        "robota: /web-search: hosted tool(s) web_search are not available on openai model "
        "'gpt-4o-mini' (it offers: none); the hosted tools guide lists the models that offer it"
    ]
    [request] = server.received
    assert "web_search_options" not in request.json()


def test_a_search_model_on_chat_completions_sends_web_search_options(host: Host) -> None:
    with ReplayServer(interactions=[_answer("Searched.", model="gpt-4o-search-preview")]) as server:
        _profile(
            host, type="openai-chat", base_url=server.url + "/v1", model="gpt-4o-search-preview"
        )
        lines = "/web-search on\nWhat is new?\n/model gpt-4o-mini\n"
        done = _robota(host, "chat", "--no-title", stdin=lines)
    assert done.returncode == 0, done.stderr
    [request] = server.received
    assert request.json()["web_search_options"] == {}
    assert _said(done.stderr, "robota: web search is on:") == [
        "robota: web search is on: hosted tool(s) web_search are not available on openai model "
        "'gpt-4o-mini' (it offers: none); the hosted tools guide lists the models that offer it "
        "(/web-search off, or another model)"
    ]
