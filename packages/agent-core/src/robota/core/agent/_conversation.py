"""Many conversations from one agent definition (issue 17): :meth:`Conversations.new_conversation`.

:class:`Conversations` is a base of :class:`~robota.core.agent.agent.Agent`; it holds no state of
its own (the agent sets the attributes declared here).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Generic, Self

from robota.core.agent._typing import DepsT
from robota.core.errors import AgentClosedError
from robota.core.messages import Message

__all__ = ["Conversations"]


class Conversations(Generic[DepsT]):
    """Makes fresh conversations from the agent's definition (see the module docstring)."""

    name: str
    deps: DepsT | None
    _closed: bool
    _owns_gates: bool

    if TYPE_CHECKING:

        @property
        def system_prompt(self) -> str | None: ...

        def _fresh_conversation(
            self, system_prompt: str | None, history: Sequence[Message]
        ) -> None: ...

    def new_conversation(
        self,
        *,
        history: Sequence[Message] = (),
        deps: DepsT | None = None,
        name: str | None = None,
        system_prompt: str | None = None,
    ) -> Self:
        """A fresh conversation from this agent's definition: the cheap way to serve many
        users (or sessions) from one agent without sharing history by accident.

        The new agent shares the definition — provider, model, tools (their objects),
        gates, sinks, settings, output type and validators, hosted tools, texts, journal,
        limits and retry policy — and owns its conversation: its history (``history``, empty by
        default), tool residency, context tracking, FIFO slot, steering and run control. Nothing
        mutable is shared with this agent or other conversations, so they run concurrently and
        this agent's history is untouched. Later changes to this agent's attributes do not
        reach conversations already made.

        Closing a conversation waits for its runs but leaves the shared gates open: the agent
        that defined them closes them (:meth:`aclose`).

        Args:
            history: Earlier messages the conversation continues from (system messages in it
                are replaced by the system prompt).
            deps: Dependencies for this conversation's tool bodies (None: this agent's).
            name: The conversation's id in event owner paths (None: this agent's name).
            system_prompt: The conversation's system prompt (None: this agent's current one).

        Raises:
            AgentClosedError: this agent was closed.

        Example:
            >>> from robota.core.testing.scripted import ScriptedProvider
            >>> from robota.core.agent.agent import Agent
            >>> definition = Agent(ScriptedProvider(["Hi Ann.", "Hi Bob."]), system_prompt="Greet.")
            >>> ann = definition.new_conversation(name="ann")
            >>> bob = definition.new_conversation(name="bob")
            >>> ann.run_sync("I am Ann").output, bob.run_sync("I am Bob").output
            ('Hi Ann.', 'Hi Bob.')
            >>> len(ann.history), len(bob.history), len(definition.history)
            (3, 3, 1)
        """
        if self._closed:
            raise AgentClosedError(f"agent {self.name!r} is closed; it makes no conversations")
        conversation = copy.copy(self)
        if deps is not None:
            conversation.deps = deps
        if name is not None:
            conversation.name = name
        conversation._owns_gates = False
        prompt = self.system_prompt if system_prompt is None else system_prompt
        conversation._fresh_conversation(prompt, history)
        return conversation
