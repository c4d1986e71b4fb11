"""Serving many users from one agent definition, offline.

Shows: why one shared ``Agent`` leaks history between callers (it holds one conversation, and
every request carries all of it), and the safe pattern: define the agent once, then give each
user's conversation its own agent with ``agent.new_conversation(deps=..., history=...)``. The
conversations share the provider, tools and settings, keep their own history, and run
concurrently; each tool call sees its own user's dependencies through ``ToolContext[User]``.

Typing: a definition built without ``deps=`` is an ``Agent[None, str]``, on which
``new_conversation(deps=User(...))`` is a type error; say the deps type on the definition,
``support: Agent[User] = Agent(...)`` (``Agent[User, Answer]`` with an output type).
Continuing: store a conversation's full ``history`` and pass all of it back as ``history=`` (its
system message is replaced by the conversation's system prompt). Closing: a conversation owns
nothing; ``await chat.aclose()`` (or ``async with chat:``) only refuses new runs and waits for
running ones, so it is optional; closing the definition closes the gates they share (the
provider is the caller's to close).

``ScriptedProvider`` plays the model, so this runs without a key or a network.

Run: ``uv run python examples/many_users.py``
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
from robota.core import Agent, ToolContext, tool
from robota.core.messages import Message, ToolResultMessage, dump_messages, load_messages
from robota.core.testing.scripted import ScriptedProvider, text, tool_call


@dataclass
class User:
    """Per-user dependencies handed to tool bodies."""

    name: str
    plan: str


@tool
def my_plan(ctx: ToolContext[User]) -> str:
    """The subscription plan of the user asking."""
    return f"{ctx.deps.name} is on the {ctx.deps.plan} plan"


def every_text(messages: tuple[Message, ...]) -> str:
    """All the text of a conversation, for the checks below."""
    return " ".join(str(m) for m in messages)


def shared_agent_leaks() -> None:
    provider = ScriptedProvider(["Noted, Ann.", "Hello!"])
    shared = Agent(provider, system_prompt="You answer billing questions.")
    shared.run_sync("I am Ann, my card ends in 4242")
    shared.run_sync("Hi, I am Bob")  # another user, same agent
    leaked = "4242" in every_text(provider.requests[1].messages)
    print("shared agent: Bob's request carries Ann's messages:", leaked)
    assert leaked


SUPPORT_PROMPT = "You answer billing questions."


async def one_definition_many_conversations() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("a1", "my_plan")],
            [text("You are on the Pro plan, Ann.")],
            [tool_call("b1", "my_plan")],
            [text("You are on the Free plan, Bob.")],
        ]
    )
    # the definition, typed Agent[User] (= Agent[User, str]) since its conversations get the deps
    support: Agent[User] = Agent(provider, system_prompt=SUPPORT_PROMPT, tools=[my_plan])
    answers: dict[str, str] = {}
    for user in (User(name="Ann", plan="Pro"), User(name="Bob", plan="Free")):
        async with support.new_conversation(deps=user, name=f"user-{user.name}") as chat:
            result = await chat.run("Which plan am I on?")
        answers[user.name] = result.output
        said = [
            r.text
            for m in result.new_messages
            if isinstance(m, ToolResultMessage)
            for r in m.results
        ]
        print(f"{user.name}: {result.output}  (the tool said: {said})")
        other = "Bob" if user.name == "Ann" else "Ann"
        assert other not in every_text(chat.history)
    assert answers == {
        "Ann": "You are on the Pro plan, Ann.",
        "Bob": "You are on the Free plan, Bob.",
    }
    assert len(support.history) == 1  # the definition holds its system prompt only
    await support.aclose()  # at shutdown: closes the gates its conversations share


async def concurrent_conversations() -> None:
    names = ["Ann", "Bob", "Cem"]
    support = Agent(ScriptedProvider(["Noted."] * len(names)), system_prompt=SUPPORT_PROMPT)
    histories: dict[str, tuple[Message, ...]] = {}

    async def serve(name: str) -> None:
        chat = support.new_conversation(name=f"user-{name}")
        await chat.run(f"I am {name}")
        histories[name] = chat.history

    async with anyio.create_task_group() as group:  # three conversations at once
        for name in names:
            group.start_soon(serve, name)
    for name, history in sorted(histories.items()):
        print(f"{name}'s conversation: {len(history)} messages")
        assert [m.kind for m in history] == ["system", "user", "assistant"]
        assert all(other not in every_text(history) for other in names if other != name)


async def continue_a_stored_conversation() -> None:
    provider = ScriptedProvider(["Hello Ann.", "You told me your name is Ann."])
    support = Agent(provider, system_prompt=SUPPORT_PROMPT)
    first = support.new_conversation(name="ann")
    await first.run("I am Ann")
    stored = dump_messages(first.history)  # all of it, e.g. saved between two web requests
    later = support.new_conversation(history=load_messages(stored), name="ann")
    assert later.history == first.history  # the stored system message gave way to the prompt
    answer = (await later.run("What is my name?")).output
    print("continued from stored history:", answer)
    assert answer == "You told me your name is Ann."
    assert "I am Ann" in every_text(provider.requests[1].messages)


def main() -> None:
    shared_agent_leaks()
    anyio.run(one_definition_many_conversations)
    anyio.run(concurrent_conversations)
    anyio.run(continue_a_stored_conversation)


if __name__ == "__main__":
    main()
