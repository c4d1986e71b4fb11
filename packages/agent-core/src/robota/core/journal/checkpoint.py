"""The checkpoint a journaled run starts from, and the refusal of an incompatible continuation
(seed 000, "Execution Journal and Continuation").

``Journal.start_run`` stores a :class:`Checkpoint` as JSON before the first model call: the
history before the run (``dump_messages`` form), the prompt, the system prompt, the model, and the
run options that decide what the loop does (round budget, merged settings, output schema, the
tools offered at the start), the tool residency the run started with (which deferred tools were
loaded) and fingerprints of the runtime state that decides calls (the agent's own settings, the
gates). Continuation restores history and residency from it and keeps the limits the run started
with; whatever does not match is refused with :class:`ContinuationError` (or its subclass
:class:`~robota.core.journal.reconcile.ReconciliationError`), never guessed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from robota.core.errors import ErrorCategory, RobotaError
from robota.core.messages import JsonValue, Message, UserMessage, dump_messages, load_messages
from robota.core.settings import ModelSettings

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["CHECKPOINT_VERSION", "Checkpoint", "ContinuationError", "RefusalReason"]

CHECKPOINT_VERSION = 2
"""Version of the checkpoint JSON document (version 1 documents, written before residency and
fingerprints were saved, are still read; what they lack is not compared)."""

RefusalReason = Literal[
    "no_journal",
    "unknown_run",
    "finished",
    "conflicting_history",
    "incompatible",
    "corrupt",
    "unrecorded_model_call",
    "state_drift",
    "wait",
]
"""Why a continuation was refused (the last three come with
:class:`~robota.core.journal.reconcile.ReconciliationError`)."""


class ContinuationError(RobotaError):
    """A continuation was refused for reconciliation rather than guessed (seed 000, "Execution
    Journal and Continuation": an unknown or finished run, live history that conflicts with the
    saved checkpoint, runtime state that differs from the saved one).

    Attributes:
        reason: See :data:`RefusalReason`.
        run_id: The run asked for.
    """

    code = "continuation_refused"
    default_category = ErrorCategory.SYSTEM

    def __init__(self, message: str, *, reason: RefusalReason, run_id: str) -> None:
        super().__init__(message)
        self.reason: RefusalReason = reason
        self.run_id = run_id

    def __reduce__(self) -> tuple[Any, ...]:
        # picklable with its keyword-only fields (a durable engine stores the exception a run
        # ended with, e.g. DBOS)
        return (_rebuilt, (type(self), self.args, dict(self.__dict__)))


def _rebuilt(cls: type[Exception], args: tuple[Any, ...], state: dict[str, Any]) -> Exception:
    error = Exception.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


@cache
def _settings_adapter() -> TypeAdapter[ModelSettings]:
    from pydantic import TypeAdapter

    return TypeAdapter(ModelSettings)


def settings_json(settings: ModelSettings) -> JsonValue:
    """JSON form of merged settings (unset fields omitted)."""
    value: Any = _settings_adapter().dump_python(settings, mode="json", exclude_none=True)
    return value


def messages_json(messages: tuple[Message, ...]) -> JsonValue:
    """``dump_messages`` form of ``messages`` as a JSON value."""
    value: Any = json.loads(dump_messages(messages))
    return value


@dataclass(frozen=True, kw_only=True, slots=True)
class Checkpoint:
    """What a journaled run started from.

    Attributes:
        history: Messages before the run, without the system head.
        system_prompt: The system prompt (None: none).
        prompt: The run's user message.
        model: Model id.
        max_rounds: The run's round budget (0: no cap).
        settings: The run's merged settings.
        output_schema: JSON Schema of the run's structured output, or None.
        tools: Names of the tools offered at the start of the run, sorted.
        loaded: Deferred tools loaded when the run started, in load order (residency).
        deferred: Names of every tool that resolved deferred, sorted (None: not saved).
        agent_settings: The agent's own settings (under the run's), or None when not saved.
        gates: Fingerprint of the gates (``[{"gate": ..., "state": ...}]``), or None when not
            saved.
    """

    history: tuple[Message, ...]
    system_prompt: str | None
    prompt: UserMessage
    model: str
    max_rounds: int
    settings: ModelSettings
    output_schema: Mapping[str, Any] | None
    tools: tuple[str, ...]
    loaded: tuple[str, ...] = ()
    deferred: tuple[str, ...] | None = None
    agent_settings: ModelSettings | None = None
    gates: JsonValue = None

    def to_json(self) -> JsonValue:
        """The JSON document ``start_run`` stores."""
        schema: Any = dict(self.output_schema) if self.output_schema is not None else None
        return {
            "version": CHECKPOINT_VERSION,
            "history": messages_json(self.history),
            "system_prompt": self.system_prompt,
            "prompt": messages_json((self.prompt,)),
            "model": self.model,
            "max_rounds": self.max_rounds,
            "settings": settings_json(self.settings),
            "output_schema": schema,
            "tools": list(self.tools),
            "loaded": list(self.loaded),
            "deferred": list(self.deferred) if self.deferred is not None else None,
            "agent_settings": (
                settings_json(self.agent_settings) if self.agent_settings is not None else None
            ),
            "gates": self.gates,
        }

    @classmethod
    def from_json(cls, value: JsonValue, *, run_id: str) -> Checkpoint:
        """Parse a stored checkpoint.

        Raises:
            ContinuationError: (``corrupt``) for a document this version cannot read.
        """
        try:
            if not isinstance(value, dict) or value.get("version") not in (1, CHECKPOINT_VERSION):
                raise ValueError(f"expected a version 1 or {CHECKPOINT_VERSION} checkpoint")
            prompt = load_messages(json.dumps(value["prompt"]))
            if len(prompt) != 1 or not isinstance(prompt[0], UserMessage):
                raise ValueError("the prompt is not one user message")
            system = value["system_prompt"]
            max_rounds = value["max_rounds"]
            model = value["model"]
            schema = value["output_schema"]
            tools = value["tools"]
            if system is not None and not isinstance(system, str):
                raise ValueError("system_prompt is not a string")
            if not isinstance(max_rounds, int) or not isinstance(model, str):
                raise ValueError("max_rounds/model have the wrong type")
            if schema is not None and not isinstance(schema, dict):
                raise ValueError("output_schema is not an object")
            if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
                raise ValueError("tools is not a list of names")
            loaded = _names(value.get("loaded", []), "loaded")
            deferred_value = value.get("deferred")
            deferred = None if deferred_value is None else _names(deferred_value, "deferred")
            agent_settings_value = value.get("agent_settings")
            agent_settings = (
                None
                if agent_settings_value is None
                else _settings_adapter().validate_python(agent_settings_value)
            )
            return cls(
                history=tuple(load_messages(json.dumps(value["history"]))),
                system_prompt=system,
                prompt=prompt[0],
                model=model,
                max_rounds=max_rounds,
                settings=_settings_adapter().validate_python(value["settings"]),
                output_schema=schema,
                tools=tuple(str(t) for t in tools),
                loaded=loaded,
                deferred=deferred,
                agent_settings=agent_settings,
                gates=value.get("gates"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ContinuationError(
                f"run {run_id}: the saved checkpoint cannot be read ({exc})",
                reason="corrupt",
                run_id=run_id,
            ) from exc


def _names(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{what} is not a list of names")
    items: list[Any] = value
    if not all(isinstance(n, str) for n in items):
        raise ValueError(f"{what} is not a list of names")
    return tuple(str(n) for n in items)
