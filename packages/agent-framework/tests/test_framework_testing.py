"""robota.framework.testing: real interactive sessions over scripted and recorded traffic."""

from __future__ import annotations

import doctest
import os
from pathlib import Path

import pytest
import robota.framework.testing as testing_module
from robota.core.errors import ConfigurationError
from robota.core.messages import (
    AssistantMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from robota.core.permissions import PermissionMode
from robota.core.testing.cassette import Cassette, load_cassette
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools.base import RiskClass
from robota.core.tools.function import tool
from robota.framework.testing import cassette_session, scripted_session
from robota.session import SQLiteSessionStore

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[3]
CASSETTES = Path(
    os.environ.get("ROBOTA_CASSETTE_DIR") or REPO.parent / "shared" / "cassettes" / "pydantic-ai"
)


async def test_scripted_session_runs_the_real_read_file_and_saves(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("launch code 7319\n", encoding="utf-8")
    provider = ScriptedProvider(
        [[tool_call("c1", "read_file", {"path": "notes.txt"})], [text("The code is 7319.")]]
    )
    async with scripted_session(provider, workspace=tmp_path) as session:
        result = await session.submit("What is the code?")
        assert session.config.store is not None
        stored = await session.config.store.get(session.id)
    assert result.text == "The code is 7319."
    user, call, results, answer = stored.messages
    assert isinstance(user, UserMessage)
    assert isinstance(call, AssistantMessage)
    assert [(c.name, c.arguments) for c in call.tool_calls] == [
        ("read_file", {"path": "notes.txt"})
    ]
    assert isinstance(results, ToolResultMessage)
    assert results.results[0].text == "     1\tlaunch code 7319"
    assert not results.results[0].is_error
    assert isinstance(answer, AssistantMessage)
    assert answer.text == "The code is 7319."
    # The model saw the real tool output in its second call.
    second = provider.requests[1].messages
    assert any(
        isinstance(m, ToolResultMessage) and "launch code 7319" in m.results[0].text for m in second
    )
    assert stored.model == "scripted-model"
    assert stored.title is None


async def test_default_workspace_is_a_temporary_folder_removed_on_exit() -> None:
    turns = [[tool_call("c1", "write_file", {"path": "a.txt", "content": "hi"})], "Written."]
    async with scripted_session(turns, permission_mode=PermissionMode.BYPASS) as session:
        root = session.config.workspace
        result = await session.submit("Write a.txt")
        assert (root / "a.txt").read_text(encoding="utf-8") == "hi"
    assert result.text == "Written."
    assert not root.exists()


async def test_real_permissions_deny_an_edit_without_an_approver(tmp_path: Path) -> None:
    turns = [[tool_call("c1", "write_file", {"path": "a.txt", "content": "hi"})], "Could not."]
    async with scripted_session(turns, workspace=tmp_path) as session:
        result = await session.submit("Write a.txt")
    assert result.text == "Could not."
    assert not (tmp_path / "a.txt").exists()
    [results] = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    assert results.results[0].is_error


async def test_config_fields_pass_through_to_the_session(tmp_path: Path) -> None:
    provider = ScriptedProvider(["Hello."])
    async with scripted_session(
        provider, workspace=tmp_path, model="m-1", system_prompt="Be terse."
    ) as session:
        await session.submit("Hi")
    [request] = provider.requests
    assert request.model == "m-1"
    system = request.messages[0]
    assert isinstance(system, SystemMessage)
    assert system.content.startswith("Be terse.")


async def test_unknown_config_field_is_a_type_error(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        async with scripted_session(["x"], workspace=tmp_path, no_such_field=1):
            pass


async def test_persist_false_means_no_store_and_no_resume(tmp_path: Path) -> None:
    async with scripted_session(["ok"], workspace=tmp_path, persist=False) as session:
        assert session.config.store is None
        assert (await session.submit("go")).text == "ok"
    with pytest.raises(ConfigurationError):
        async with scripted_session(["x"], workspace=tmp_path, persist=False, resume="ses_x"):
            pass


async def test_resume_with_a_caller_owned_store_continues_the_conversation(
    tmp_path: Path,
) -> None:
    async with SQLiteSessionStore(tmp_path / "sessions.db") as store:
        async with scripted_session(["First answer."], workspace=tmp_path, store=store) as first:
            await first.submit("First question")
            session_id = first.id
        provider = ScriptedProvider(["Second answer."])
        async with scripted_session(
            provider, workspace=tmp_path, store=store, resume=session_id
        ) as second:
            assert second.id == session_id
            await second.submit("Second question")
        record = await store.get(session_id)
    assert [m.kind for m in record.messages] == ["user", "assistant", "user", "assistant"]
    assert [m.text for m in record.messages if isinstance(m, AssistantMessage)] == [
        "First answer.",
        "Second answer.",
    ]
    sent = provider.requests[0].messages
    assert [m.kind for m in sent if m.kind != "system"] == ["user", "assistant", "user"]


@tool(risk=RiskClass.INSPECT)
def get_user_country() -> str:
    """The user's country."""
    return "Mexico"


async def test_cassette_session_replays_a_real_recording(tmp_path: Path) -> None:
    replay = pytest.importorskip("robota.providers.anthropic.replay")
    cassette = load_cassette(
        CASSETTES / "test_anthropic" / "test_anthropic_text_output_function.yaml"
    )
    async with cassette_session(
        cassette,
        replay.replay_provider,
        model="claude-sonnet-4-6",
        workspace=tmp_path,
        additional_tools=[get_user_country],
    ) as session:
        result = await session.submit("What is the largest city in the user country?")
        assert session.config.store is not None
        stored = await session.config.store.get(session.id)
    assert cassette.served == 2
    assert result.text.startswith("Based on the result, you are located in Mexico.")
    [results] = [m for m in stored.messages if isinstance(m, ToolResultMessage)]
    assert results.results[0].name == "get_user_country"
    assert results.results[0].text == "Mexico"
    final = stored.messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.text == result.text


class _ClosingProvider(ScriptedProvider):
    def __init__(self) -> None:
        super().__init__(["Replayed."])
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


async def test_cassette_session_closes_only_the_provider_it_built(tmp_path: Path) -> None:
    cassette = Cassette(path=tmp_path / "empty.yaml", interactions=[])
    built: list[_ClosingProvider] = []

    def factory(given: Cassette) -> _ClosingProvider:
        assert given is cassette
        built.append(_ClosingProvider())
        return built[-1]

    async with cassette_session(cassette, factory, model="m", workspace=tmp_path) as session:
        assert (await session.submit("go")).text == "Replayed."
    assert built[0].closed == 1

    mine = _ClosingProvider()
    async with cassette_session(cassette, mine, model="m", workspace=tmp_path) as session:
        await session.submit("go")
    assert mine.closed == 0


async def test_cassette_session_reads_a_path(tmp_path: Path) -> None:
    file = tmp_path / "c.yaml"
    file.write_text("interactions: []\nversion: 1\n", encoding="utf-8")
    seen: list[Cassette] = []

    def factory(given: Cassette) -> ScriptedProvider:
        seen.append(given)
        return ScriptedProvider(["ok"])

    async with cassette_session(file, factory, model="m", workspace=tmp_path):
        pass
    assert seen[0].path == file
    assert seen[0].interactions == []

    (tmp_path / "bad.yaml").write_text("just: text\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a vcrpy cassette"):
        async with cassette_session(tmp_path / "bad.yaml", factory, model="m"):
            pass


def test_module_docstring_example_runs() -> None:
    failures, attempted = doctest.testmod(testing_module, raise_on_error=False)
    assert attempted > 0
    assert failures == 0
