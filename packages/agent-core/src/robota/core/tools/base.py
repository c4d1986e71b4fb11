"""The tool contract (seed 000, "Permission Argument Registry", "Cancellation Contract",
"Tool Residency and Tool Search").

A :class:`Tool` has a model-facing name, description and JSON-Schema ``parameters`` (object root,
Robota's normalized shape), a declared :class:`RiskClass` and the one argument its permission
rules match (:class:`PermissionArgument`). Its body :meth:`Tool.call` receives validated arguments
and a :class:`ToolContext`; it returns a string or a :class:`ToolReturn`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, Literal, TypeVar

from robota.core.messages import JsonValue, MediaPart, TextPart
from robota.core.provider import ToolDefinition

__all__ = [
    "ArgumentKind",
    "PermissionArgument",
    "Residency",
    "RiskClass",
    "Tool",
    "ToolContext",
    "ToolExecution",
    "ToolOutput",
    "ToolReturn",
]

DepsT = TypeVar("DepsT")


class RiskClass(StrEnum):
    """What a tool can do; drives permission modes (seed 000, "Permission System")."""

    INSPECT = "inspect"
    """Reads only (read_file, grep)."""
    MODIFY = "modify"
    """Changes files or state (write_file, edit_file)."""
    EXECUTE = "execute"
    """Runs code or commands, or sends data off the machine (shell, web_fetch)."""


class ArgumentKind(StrEnum):
    """How a permission pattern is matched against a tool's declared argument."""

    PATH = "path"
    URL = "url"
    COMMAND = "command"
    TEXT = "text"


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionArgument:
    """The argument a tool's permission rules match (``Tool(pattern)``).

    Attributes:
        key: Argument name in the tool's parameters, e.g. ``"path"``.
        kind: How the pattern is matched (:class:`ArgumentKind`).
        cwd_key: ``COMMAND`` kind: the argument naming the working directory the command runs
            in (relative to the workspace), e.g. ``"cwd"``; relative paths in the line resolve
            from it. None: the command runs in the workspace root.
        sandboxed_inspect: ``COMMAND`` kind: True only when the tool runs a call decided
            ``inspect`` in a sandbox that enforces a read-only filesystem and no network (the
            shell tool sets it from its sandbox's probed guarantees). Only then may a read-only
            command line be decided ``inspect``; otherwise it keeps the tool's own risk class
            and asks (seed 000 "Permission System", the inspect exception; issue 11).
        environment: ``COMMAND`` kind: variables the tool lays over ``os.environ`` for the
            command (the shell tool's ``env``, e.g. a settings layer's), as ``(name, value)``
            pairs. The read-only classification judges the environment the command really runs
            with (``RIPGREP_CONFIG_PATH``, ``GIT_*``… change what a reading command does).
    """

    key: str
    kind: ArgumentKind
    cwd_key: str | None = None
    sandboxed_inspect: bool = False
    environment: tuple[tuple[str, str], ...] = ()


Residency = Literal["resident", "deferred", "auto"]
"""Whether a tool's schema is always offered (``resident``), withheld until searched for
(``deferred``), or decided by the agent's threshold (``auto``)."""

ToolExecution = Literal["immediate", "approval", "external"]
"""How the loop executes a tool's calls (seed 002, "Deferred tool execution"):
``immediate`` runs the body in the batch; ``approval`` runs the body only after a host approved
the call; ``external`` never runs the body, the host supplies the result. ``approval`` and
``external`` calls need ``Agent.run_until_pause``/``Agent.resume`` (``Agent.run`` refuses to
discard the pause with ``PauseRequiredError``)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolReturn:
    """A tool's result with content parts.

    Attributes:
        content: Text and media parts the model will see.
        is_error: True when the call failed in a way the model should see as an error.
        metadata: Data for hosts/events only (never sent to the model).
    """

    content: tuple[TextPart | MediaPart, ...]
    is_error: bool = False
    metadata: Mapping[str, JsonValue] = field(default_factory=dict[str, JsonValue])

    @classmethod
    def text(cls, text: str, *, is_error: bool = False) -> ToolReturn:
        """A result holding one text part."""
        return cls(content=(TextPart(text=text),), is_error=is_error)


ToolOutput = str | ToolReturn
"""What a tool body returns: plain text, or a :class:`ToolReturn`."""


@dataclass(kw_only=True, slots=True)
class ToolContext(Generic[DepsT]):
    """What a tool body may use while it runs.

    Cancellation is structured: the body runs inside the run's anyio cancel scope, so awaiting
    anything after cancellation raises the backend's cancellation exception; long synchronous
    work should poll :attr:`cancelled` (a callable reading the run's state).

    Attributes:
        run_id: Robota's id of the run.
        call_id: Robota's own unique id for this call (the provider's id is not unique).
        tool_call_id: The provider's opaque call id.
        tool_name: The canonical tool name.
        deps: The typed dependencies the host gave the agent/run.
        round: 1-based round number within the run.
        is_cancelled: Returns True once the run's cancellation was requested.
        emit_progress: Sends a progress note (text) to observers as a ``tool.progress`` event.
        effective_risk: The risk class the permission gate decided this call as (``INSPECT``
            for a read-only command line of an ``EXECUTE`` tool), or None when no gate said.
            The shell tool picks its sandbox profile from it: ``INSPECT`` runs read-only.
    """

    run_id: str
    call_id: str
    tool_call_id: str
    tool_name: str
    deps: DepsT
    round: int = 0
    is_cancelled: Callable[[], bool] = field(default=lambda: False)
    emit_progress: Callable[[str], None] = field(default=lambda _text: None)
    effective_risk: RiskClass | None = None

    @property
    def cancelled(self) -> bool:
        """True once cancellation of the run was requested."""
        return self.is_cancelled()


class Tool(ABC):
    """Base class of every tool.

    Class or instance attributes:
        name: Model-facing name (``^[a-zA-Z0-9_-]{1,64}$``).
        description: Model-facing description.
        parameters: JSON Schema of the arguments, object root.
        risk: :class:`RiskClass`, or None (undeclared: permission evaluation asks).
        permission_argument: The argument permission patterns match, or None.
        sequential: True to never run concurrently with other calls of the same batch.
        timeout: Per-call timeout in seconds, or None for none.
        max_retries: How many invalid-argument attempts the model gets per run before the
            result says to stop retrying (separate from the output-retry budget).
        residency: See :data:`Residency`.
        idempotent: True when re-running after a crash is safe (journal continuation).
        strict: Ask vendors for strict argument adherence where supported.
        execution: See :data:`ToolExecution`. A response with a call to an ``approval`` or
            ``external`` tool pauses the run before any call of that response executes
            (``Agent.run_until_pause`` returns ``RunPaused``); ``Agent.resume`` takes one
            decision per such call. The body of an ``external`` tool is never run by the loop.
    """

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = {"type": "object", "properties": {}}
    risk: RiskClass | None = None
    permission_argument: PermissionArgument | None = None
    sequential: bool = False
    timeout: float | None = None
    max_retries: int = 2
    residency: Residency = "auto"
    idempotent: bool = False
    strict: bool | None = None
    execution: ToolExecution = "immediate"

    @abstractmethod
    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """Run the tool with validated ``arguments``.

        Raise any exception to fail the call: it becomes an error tool result (``is_error``)
        naming the exception type and message. Cancellation propagates.
        """

    @property
    def canonical_name(self) -> str:
        """The name permission rules, hooks and the journal key on. Equal to :attr:`name`
        except for wrappers that give a tool a model-facing alias."""
        return self.name

    def definition(self) -> ToolDefinition:
        """The provider-facing definition."""
        return ToolDefinition(
            name=self.name,
            description=self.description,
            parameters=self.parameters,
            strict=self.strict,
        )
