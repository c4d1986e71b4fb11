"""Behaviour of session titling (seed 003, "The session names itself once, and only with
text")."""

from __future__ import annotations

import doctest
import importlib

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from robota.core.errors import OverloadedError
from robota.core.messages import SystemMessage, UserMessage
from robota.core.testing.scripted import ScriptedProvider, fail, reached, text, wait_for
from robota.framework.title import (
    MAX_TITLE_CHARS,
    TITLE_INSTRUCTION,
    TitleError,
    TitlePolicy,
    clean_title,
    generate_title,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_title_call_disables_tools_and_cleans_the_answer() -> None:
    provider = ScriptedProvider(['"Fixing the login redirect bug."\nWant another?'])

    title = await generate_title(
        provider, "small-model", "Why does login redirect twice?", "Because of X."
    )

    assert title == "Fixing the login redirect bug"
    [request] = provider.requests
    assert request.model == "small-model"
    assert request.tools == ()
    assert request.hosted_tools == frozenset()
    assert request.settings.tool_choice == "none"
    assert request.settings.max_tokens == 30
    assert request.messages == (
        SystemMessage(content=TITLE_INSTRUCTION),
        UserMessage.of(
            "User:\nWhy does login redirect twice?\n\nAssistant:\nBecause of X.",
        ),
    )


@pytest.mark.anyio
async def test_an_empty_title_is_an_error() -> None:
    with pytest.raises(TitleError):
        await generate_title(ScriptedProvider(['  ""  ']), "m", "hi", "hello")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Refactor the parser", "Refactor the parser"),
        ("# Title: `Add retries to uploads`", "Add retries to uploads"),
        ("\u201cPlan the Q3 launch\u201d.", "Plan the Q3 launch"),
        ("'Debugging flaky tests'", "Debugging flaky tests"),
        ("\n\n  Fix user's login  \nsecond line", "Fix user's login"),
        (
            "A very long title that keeps going well past the sixty character limit for sure",
            "A very long title that keeps going well past the sixty",
        ),
        ('"""', None),
        ("", None),
    ],
)
def test_clean_title(raw: str, expected: str | None) -> None:
    assert clean_title(raw) == expected


@given(st.text(max_size=300))
def test_a_cleaned_title_is_one_short_line_without_quotes(raw: str) -> None:
    title = clean_title(raw)
    if title is None:
        return
    assert title
    assert len(title) <= MAX_TITLE_CHARS
    assert len(title.splitlines()) == 1
    assert '"' not in title
    assert "`" not in title
    assert title[0] not in "'\u2018\u2019"
    assert title[-1] not in "'\u2018\u2019"
    assert title == title.strip()


@pytest.mark.anyio
async def test_named_once_after_the_first_successful_turn_failures_do_not_use_it_up() -> None:
    provider = ScriptedProvider(
        [
            [fail(OverloadedError("busy", provider="scripted", status=529))],
            "Trip planning for Kyoto",
        ]
    )
    policy = TitlePolicy()

    # a failed turn: no call, naming stays open
    assert await policy.after_turn(provider, "m", "hi", "", succeeded=False) is None
    assert provider.requests == []
    # a failed title: naming stays open
    assert await policy.after_turn(provider, "m", "Plan Kyoto", "Sure", succeeded=True) is None
    assert policy.named is False
    assert policy.last_error == "OverloadedError: busy"
    # the next successful turn names it, from its own message
    named = await policy.after_turn(provider, "m", "Kyoto in May?", "Yes", succeeded=True)
    assert named == "Trip planning for Kyoto"
    assert policy.title == "Trip planning for Kyoto"
    assert provider.requests[-1].messages[-1] == UserMessage.of(
        "User:\nKyoto in May?\n\nAssistant:\nYes"
    )
    # never renamed afterwards
    assert await policy.after_turn(provider, "m", "other", "x", succeeded=True) is None
    assert len(provider.requests) == 2
    assert policy.title == "Trip planning for Kyoto"


@pytest.mark.anyio
async def test_an_existing_title_is_kept_and_disabled_naming_makes_no_call() -> None:
    provider = ScriptedProvider()
    kept = TitlePolicy(title="My session")
    assert await kept.after_turn(provider, "m", "hi", "hello", succeeded=True) is None
    assert kept.title == "My session"
    off = TitlePolicy(enabled=False)
    assert await off.after_turn(provider, "m", "hi", "hello", succeeded=True) is None
    assert provider.requests == []


@pytest.mark.anyio
async def test_a_rename_made_while_the_title_is_generated_wins() -> None:
    generating = anyio.Event()
    release = anyio.Event()
    provider = ScriptedProvider([[reached(generating), wait_for(release), text("Generated")]])
    policy = TitlePolicy()
    results: list[str | None] = []

    async with anyio.create_task_group() as group:

        async def turn_end() -> None:
            results.append(await policy.after_turn(provider, "m", "hi", "ok", succeeded=True))

        group.start_soon(turn_end)
        await generating.wait()
        # a second turn ending meanwhile does not start a second generation
        assert await policy.after_turn(provider, "m", "again", "ok", succeeded=True) is None
        policy.rename("Chosen by the user")
        release.set()

    assert results == [None]
    assert policy.title == "Chosen by the user"
    assert len(provider.requests) == 1


@pytest.mark.parametrize(
    "module", ["robota.framework.title.generate", "robota.framework.title.policy"]
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0
    assert result.failed == 0
