"""The :class:`Agent` (seed 000, "Run Concurrency Contract", "System Prompt", "Disposal
Contract", "Canonical Direct Runtime Tool Invocation").

An agent owns one conversation history and runs prompts against it one at a time (a FIFO slot:
``anyio.Lock`` is fair); separate agents run concurrently. The loop itself lives in
:mod:`robota.core.agent.run`; this class holds configuration, history and the slot. Its other
entry points live in its bases: resume, continue and respond in
:mod:`robota.core.agent._resuming`, direct tool invocation in :mod:`robota.core.agent._direct`,
and what a run needs from the options (run spec, checkpoint, runtime state) in
:mod:`robota.core.agent._run_specs`.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Self, overload

import anyio
import anyio.lowlevel
from robota.core.agent._conversation import Conversations
from robota.core.agent._direct import DirectToolCalls
from robota.core.agent._resuming import ResumeEntryPoints
from robota.core.agent._run_specs import RunSpecBuilder
from robota.core.agent._runs import Prompt, RunEntryPoints
from robota.core.agent._typing import (
    DepsT,
    HostedToolLike,
    OutputT,
    OutputTypeSpec,
    RunOutputT,
    hosted_tool_set,
)
from robota.core.agent.context import ContextTracker
from robota.core.agent.history import History
from robota.core.agent.retries import DEFAULT_RETRY_POLICY
from robota.core.agent.spec import RunControl
from robota.core.agent.texts import AgentTexts
from robota.core.cancellation import CancelToken
from robota.core.errors import AgentClosedError, ConfigurationError, RunCancelledError
from robota.core.events import OwnerPath, emit_all
from robota.core.messages import UserMessage
from robota.core.residency import ToolCatalog
from robota.core.settings import ModelSettings, merge_settings
from robota.core.tools.toolset import resolve_tools

# The run loop (and with it the events, tool batches, gates, journal and pause machinery) is
# imported by the first run, not with the agent: constructing and configuring an agent needs
# none of it (the import cost of ``from robota.core.agent import Agent``, issue 20).
if TYPE_CHECKING:
    from robota.core.agent.output import OutputValidator
    from robota.core.agent.pairing import HistoryProcessor
    from robota.core.agent.pause import RunPaused
    from robota.core.agent.result import RunResult
    from robota.core.capabilities import HostedTool
    from robota.core.events import Event, EventSink
    from robota.core.gate import ToolGate
    from robota.core.journal.port import Journal
    from robota.core.messages import Message
    from robota.core.provider import PayloadCallback, Provider
    from robota.core.retry import RetryPolicy
    from robota.core.tools.base import Tool
    from robota.core.tools.toolset import ToolLike

__all__ = ["Agent"]

_DEFAULT_SETTINGS = ModelSettings()
_DEFAULT_TEXTS = AgentTexts()
_NO_HOSTED_TOOLS: frozenset[HostedTool] = frozenset()
_CONVERSATION_STATE = (
    "_slot_lock",
    "_closed",
    "_close_errors",
    "_closing",
    "_stream_sink",
)
"""Per-conversation run state that starts at the class default (see ``Agent`` below)."""


class Agent(
    RunEntryPoints[DepsT, OutputT],
    ResumeEntryPoints[DepsT, OutputT],
    DirectToolCalls[DepsT],
    RunSpecBuilder,
    Conversations[DepsT],
    Generic[DepsT, OutputT],
):
    """A model, tools and a conversation history, run one prompt at a time.

    ``Agent[DepsT, OutputT]`` is typed by its dependencies (what tool bodies get as
    ``ToolContext[DepsT].deps``; default ``None``) and its output (``RunResult[OutputT].output``;
    default ``str``, the final text). Both are inferred: ``Agent(provider,
    output_type=Weather, deps=Deps(...))`` is an ``Agent[Deps, Weather]``.

    Typing limits (a checker lets these pass): a tool's ``ToolContext[D]`` is not tied to
    ``DepsT`` (``tools=[t]`` with another or no ``deps=`` type-checks); an output function's
    ``OutputContext[D]`` neither (output functions are typed ``Callable[..., T]``);
    ``output_type=Literal["a", "b"]`` types the output as the bare ``Literal`` form — write
    ``agent: Agent[None, Literal["a", "b"]] = Agent(p, output_type=cast(Any, Literal["a",
    "b"]))`` or use a ``StrEnum``. See :mod:`robota.core.agent._typing`.

    One agent holds one conversation. To serve many users from one definition, build the
    definition once and give each conversation its own agent with :meth:`new_conversation`
    (cheap: it shares the provider, tools, gates, sinks, settings, output type and validators,
    and has its own history, FIFO slot and run control)::

        support = Agent(provider, system_prompt="You answer billing questions.", tools=[lookup])

        async def handle(user_id: str, message: str, history: Sequence[Message]) -> str:
            chat = support.new_conversation(history=history, name=f"user-{user_id}")
            return (await chat.run(message)).output

    Args:
        provider: The provider to call.
        model: Model id (defaults to ``provider.default_model``).
        system_prompt: The head system message (None: none). Replace it live through
            :attr:`system_prompt`.
        tools: Tools (names must be unique): :class:`~robota.core.tools.base.Tool` objects,
            plain functions (sync or async, wrapped as with ``@tool``), toolsets (anything with
            a ``tools`` attribute, e.g. ``robota.tools.BuiltinToolset``) and iterables of tools,
            flattened in order.
        settings: Agent-level settings (merged under each run's settings).
        output_type: The output type of every run (a run may override it): a type pydantic
            validates (model, dataclass, ``TypedDict``, ``int``, ``list[A]``, ``A | B``), an
            output function, ``StructuredDict(...)``, or a raw JSON Schema dict (typed
            ``Any``); see :data:`~robota.core.agent._typing.OutputTypeSpec`. None: the output
            is the final text.
        output_validators: Validators of the agent's output type, run in order on every
            validated output (given to ``OutputSpec.of(..., validators=...)``); a validator
            raising ``ModelRetry`` sends its message back to the model within the output
            retry budget. They do not apply to a run that passes its own ``output_type``.
        hosted_tools: Vendor-run tools (:class:`~robota.core.capabilities.HostedTool` or its
            value, e.g. ``"web_search"``) put on every normal request, checked against the
            model's stated capabilities before the first one. A run's ``hosted_tools=``
            replaces this set for that run.
        max_rounds: Round budget per run (0: no cap). Default 25.
        gates: Tool gates, consulted in order.
        sinks: Event sinks.
        deps: Dependencies handed to tool bodies (a run may override).
        name: The agent's id in event owner paths.
        history: Earlier messages to continue from (system messages in it are replaced by
            ``system_prompt``).
        max_parallel_tools: Bound on concurrently running tool bodies in a batch. Default 8.
        output_retries: Validation retries of a structured answer after the first attempt.
        max_identical_tool_calls: Byte-identical invocations of one tool allowed per run before
            :class:`~robota.core.errors.RepeatedToolInputError` (0: no limit). Default 5.
        unknown_tool_rounds: Consecutive rounds with unknown tool calls that trip the loop guard
            (0: off). Default 3.
        context_threshold: Fraction of the context window above which a request is refused.
        tool_result_threshold: Fraction above which later tool results of a batch are replaced.
        texts: Model-facing texts (neutral defaults).
        journal: An execution journal the host owns exclusively (seed 000, "Execution Journal
            and Continuation"). Each run then records its checkpoint before the first model
            call, every response before use, every tool effect (start with the arguments it
            runs with, then its result) and its outcome; a failed write fails the run with
            :class:`~robota.core.errors.JournalError`. See :meth:`continue_run`.
        history_processors: Pure functions ``(messages) -> tuple[Message, ...]`` applied in
            order to the provider-facing view of every request (never to the history itself);
            the pairing repair always runs after them.
        on_payload: Native request/response payload callback put on every
            :class:`~robota.core.provider.ModelRequest` (replay capture).
        defer_tools: Tool residency: True defers deferrable tools, False keeps every tool
            resident, None decides by the catalog's threshold.
        retry: How recoverable provider failures (rate limit, overloaded, 5xx, timeout,
            connection, malformed response) are retried: every model call goes through
            ``RetryingProvider(provider, retry)``. Default: ``RetryPolicy()`` (4 attempts,
            jittered backoff; :class:`~robota.core.retry.RetryPolicy`). None turns retries off. A
            provider that already is (or wraps, through ``inner``) a ``RetryingProvider`` is
            used as is. Nothing is retried once a streamed event reached the loop.
            :attr:`provider` stays the provider given.
        accept_truncated: Use an answer cut off at the output token limit (finish reason
            ``length``; ``RunResult.finish_reason`` then says so) instead of failing with
            :class:`~robota.core.errors.TruncatedResponseError`. Default False; each run may
            override it.

    Every response's finish category is checked before it is used (seed 002, "Model
    contract"): ``length`` with a tool call whose arguments did not parse fails the run with
    :class:`~robota.core.errors.IncompleteToolCallError`, ``length`` otherwise with
    ``TruncatedResponseError`` (unless ``accept_truncated``), ``content_filter`` with
    :class:`~robota.core.errors.ContentFilterError`. The refused response stays in history, and
    each of its tool calls gets an error result.

    Raises:
        ConfigurationError: no model given and the provider has no default; duplicate tool
            names; an unknown hosted tool name.
        TypeError: a ``tools=`` item that is none of the accepted shapes (the message names
            it).

    Example:
        >>> from robota.core.testing.scripted import ScriptedProvider
        >>> agent = Agent(ScriptedProvider(["Hello!"]), system_prompt="Be brief.")
        >>> agent.run_sync("Hi").text
        'Hello!'
    """

    # Private state that starts at a shared immutable class default: an idle agent then has
    # fewer than 30 instance attributes, CPython's limit for key-sharing instance dictionaries,
    # and costs about 300 bytes instead of 1.6 KB. ``__init__`` and the run paths set an
    # instance value only when it differs; reading the attribute is the same either way.
    _defer_tools: bool | None = None
    _owns_gates: bool = True
    _slot_lock: tuple[object, anyio.Lock] | None = None
    """The FIFO slot and the event loop it was made on (one attribute, not two: see above)."""
    _closed: bool = False
    _close_errors: Sequence[BaseException] = ()
    _closing: anyio.Event | None = None
    _stream_sink: tuple[Any, ...] = ()

    @overload
    def __init__(
        self,
        provider: Provider,
        *,
        model: str | None = None,
        system_prompt: str | None = None,
        tools: Iterable[ToolLike] = (),
        settings: ModelSettings | None = None,
        output_type: OutputTypeSpec[OutputT] | None = None,
        output_validators: Sequence[OutputValidator[OutputT]] | tuple[()] = (),
        hosted_tools: Iterable[HostedToolLike] = (),
        max_rounds: int = 25,
        gates: Sequence[ToolGate] = (),
        sinks: Sequence[EventSink] = (),
        deps: DepsT | None = None,
        name: str = "agent",
        history: Sequence[Message] = (),
        max_parallel_tools: int = 8,
        output_retries: int = 2,
        max_identical_tool_calls: int = 5,
        unknown_tool_rounds: int = 3,
        context_threshold: float = 0.95,
        tool_result_threshold: float = 0.9,
        texts: AgentTexts | None = None,
        journal: Journal | None = None,
        history_processors: Sequence[HistoryProcessor] = (),
        on_payload: PayloadCallback | None = None,
        defer_tools: bool | None = None,
        retry: RetryPolicy | None = DEFAULT_RETRY_POLICY,
        accept_truncated: bool = False,
    ) -> None: ...

    @overload
    def __init__(
        self: Agent[Any, Any],
        provider: Provider,
        *,
        model: str | None = None,
        system_prompt: str | None = None,
        tools: Iterable[ToolLike] = (),
        settings: ModelSettings | None = None,
        output_type: Mapping[str, Any],
        output_validators: Sequence[OutputValidator] = (),
        hosted_tools: Iterable[HostedToolLike] = (),
        max_rounds: int = 25,
        gates: Sequence[ToolGate] = (),
        sinks: Sequence[EventSink] = (),
        deps: Any = None,
        name: str = "agent",
        history: Sequence[Message] = (),
        max_parallel_tools: int = 8,
        output_retries: int = 2,
        max_identical_tool_calls: int = 5,
        unknown_tool_rounds: int = 3,
        context_threshold: float = 0.95,
        tool_result_threshold: float = 0.9,
        texts: AgentTexts | None = None,
        journal: Journal | None = None,
        history_processors: Sequence[HistoryProcessor] = (),
        on_payload: PayloadCallback | None = None,
        defer_tools: bool | None = None,
        retry: RetryPolicy | None = DEFAULT_RETRY_POLICY,
        accept_truncated: bool = False,
    ) -> None: ...

    def __init__(
        self,
        provider: Provider,
        *,
        model: str | None = None,
        system_prompt: str | None = None,
        tools: Iterable[ToolLike] = (),
        settings: ModelSettings | None = None,
        output_type: Any = None,
        output_validators: Sequence[OutputValidator] = (),
        hosted_tools: Iterable[HostedToolLike] = (),
        max_rounds: int = 25,
        gates: Sequence[ToolGate] = (),
        sinks: Sequence[EventSink] = (),
        deps: Any = None,
        name: str = "agent",
        history: Sequence[Message] = (),
        max_parallel_tools: int = 8,
        output_retries: int = 2,
        max_identical_tool_calls: int = 5,
        unknown_tool_rounds: int = 3,
        context_threshold: float = 0.95,
        tool_result_threshold: float = 0.9,
        texts: AgentTexts | None = None,
        journal: Journal | None = None,
        history_processors: Sequence[HistoryProcessor] = (),
        on_payload: PayloadCallback | None = None,
        defer_tools: bool | None = None,
        retry: RetryPolicy | None = DEFAULT_RETRY_POLICY,
        accept_truncated: bool = False,
    ) -> None:
        resolved = model or provider.default_model
        if not resolved:
            raise ConfigurationError("no model given and the provider has no default model")
        self.provider = provider
        self.model: str = resolved
        self.settings = settings or _DEFAULT_SETTINGS
        self.output_type: Any = output_type
        self.output_validators: tuple[OutputValidator, ...] = tuple(output_validators)
        self.hosted_tools: frozenset[HostedTool] = (
            _NO_HOSTED_TOOLS
            if isinstance(hosted_tools, tuple) and not hosted_tools
            else hosted_tool_set(hosted_tools)
        )
        self._output_spec(None)  # an unusable output type fails here, not at the first run
        if max_rounds < 0:
            raise ConfigurationError(f"max_rounds must be >= 0 (0: no cap), got {max_rounds}")
        self.max_rounds = max_rounds
        self.gates = tuple(gates)
        self.sinks = tuple(sinks)
        self.deps: DepsT | None = deps
        self.name = name
        self.max_parallel_tools = max_parallel_tools
        self.output_retries = output_retries
        self.max_identical_tool_calls = max_identical_tool_calls
        self.unknown_tool_rounds = unknown_tool_rounds
        self.context_threshold = context_threshold
        self.tool_result_threshold = tool_result_threshold
        self.texts = texts or _DEFAULT_TEXTS
        self.journal = journal
        self.history_processors = tuple(history_processors)
        self.on_payload = on_payload
        self.retry = retry
        self.accept_truncated = accept_truncated
        resolved_tools = resolve_tools(tools)
        names: set[str] = set()
        for tool in resolved_tools:
            if tool.name in names:
                raise ConfigurationError(f"two tools are named {tool.name!r}")
            names.add(tool.name)
        if defer_tools is not None:
            self._defer_tools = defer_tools
        self._fresh_conversation(system_prompt, history, resolved_tools)

    def _fresh_conversation(
        self,
        system_prompt: str | None,
        history: Sequence[Message],
        tools: Sequence[Tool] | None = None,
    ) -> None:
        """Set up the state one conversation owns: history, residency, context tracking, run
        control, the FIFO slot and disposal state (the last two start at their class defaults:
        an instance value copied from the agent this conversation was made from is dropped).

        Args:
            system_prompt: The head system message text, or None.
            history: Earlier messages.
            tools: The registered tools; None (a conversation made from this agent's
                definition): the ones the current catalog holds, in registration order.
        """
        if tools is None:
            search = self._catalog.search_tool
            tools = [t for t in self._catalog.all().values() if t is not search]
            for name in _CONVERSATION_STATE:
                vars(self).pop(name, None)
        info = self.provider.model_info(self.model)
        self._catalog = ToolCatalog(
            tools,
            defer=self._defer_tools,
            context_window=info.context_window if info is not None else None,
        )
        self._control = RunControl()
        self._owner = OwnerPath().child("agent", self.name)
        self._history = History(system_prompt, history, on_commit=self._on_commit)
        self._tracker = ContextTracker()

    def __copy__(self) -> Self:
        """A shallow copy (what :meth:`new_conversation` starts from) whose instance dictionary
        shares its keys with other agents', as one built by ``__init__`` does (the default
        ``copy.copy`` builds a plain dictionary: 1.5 KB more per conversation)."""
        cls = type(self)
        clone = cls.__new__(cls)
        for name, value in vars(self).items():
            object.__setattr__(clone, name, value)
        for klass in cls.__mro__:  # a subclass's slots, if it declares any
            slots: Any = klass.__dict__.get("__slots__", ())
            for slot in (slots,) if isinstance(slots, str) else slots:
                mangled = f"_{klass.__name__.lstrip('_')}{slot}" if slot.startswith("__") else slot
                if slot not in ("__dict__", "__weakref__") and hasattr(self, mangled):
                    object.__setattr__(clone, mangled, getattr(self, mangled))
        return clone

    # --- state ----------------------------------------------------------------------------

    @property
    def _tools(self) -> dict[str, Tool]:  # pyright: ignore[reportIncompatibleVariableOverride]
        """Every tool by name (deferred ones and ``tool_search`` included), a fresh dict read
        from the catalog (not kept on the instance: one attribute fewer keeps an idle
        conversation's dictionary key-shared). The bases declare it as a plain attribute."""
        return self._catalog.all()

    @property
    def system_prompt(self) -> str | None:
        """The system prompt; setting it replaces the history's head message, so the next
        request carries it."""
        return self._history.system_prompt

    @system_prompt.setter
    def system_prompt(self, value: str | None) -> None:
        self._history.system_prompt = value

    @property
    def history(self) -> tuple[Message, ...]:
        """The conversation (system head first), a read-only snapshot."""
        return self._history.messages

    @property
    def tools(self) -> Mapping[str, Tool]:
        """Registered tools by name (deferred ones included)."""
        return self._catalog.all()

    @property
    def closed(self) -> bool:
        """True once :meth:`aclose` started."""
        return self._closed

    @property
    def catalog(self) -> ToolCatalog:
        """The tool catalog (residency: resident, deferred and loaded tools)."""
        return self._catalog

    def steer(self, text: str) -> bool:
        """Queue a user message for the running run; it is committed before the next model
        call (and keeps a run going that would otherwise have ended on that answer).

        Returns:
            True when queued. False, queueing nothing, when no run is in flight, the run's
            cancellation was requested, or the run is ending (its loop ended, or it is making
            its forced last call): a steer never revives a dead run nor leaks into the next
            one (seed 004, steer).
        """
        return self._control.steer(text)

    def cancel_tool(self, call_id: str) -> bool:
        """Cancel one running tool call by Robota's call id (see ``tool.call_started``
        events); its result says it was cancelled and the run goes on. Returns False when no
        such call is running."""
        runner = self._control.runner
        return runner.cancel_call(call_id) if runner is not None else False

    def _on_commit(self, message: Message, index: int) -> None:
        from robota.core.agent.events import HistoryCommitted

        owner = self._owner
        self._emit(HistoryCommitted(owner=owner, message=message, index=index))

    def _emit(self, event: Event) -> None:
        emit_all(self.sinks, event)
        for send in self._stream_sink:
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                send(event)

    def _slot(self) -> anyio.Lock:
        loop = anyio.lowlevel.current_token().native_token
        held = self._slot_lock
        if held is None or held[0] is not loop:
            held = self._slot_lock = (loop, anyio.Lock())
        return held[1]

    # --- runs (run, stream and run_sync: see _runs.py) ----------------------------------

    @overload
    async def run_until_pause(
        self,
        prompt: Prompt,
        *,
        output_type: None = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[OutputT] | RunPaused: ...

    @overload
    async def run_until_pause(
        self,
        prompt: Prompt,
        *,
        output_type: Mapping[str, Any],
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[Any] | RunPaused: ...

    @overload
    async def run_until_pause(
        self,
        prompt: Prompt,
        *,
        output_type: OutputTypeSpec[RunOutputT],
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[RunOutputT] | RunPaused: ...

    async def run_until_pause(
        self,
        prompt: Prompt,
        *,
        output_type: Any = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[Any] | RunPaused:
        """Like :meth:`run`, but a model response calling a tool whose ``execution`` is
        ``approval`` or ``external`` ends the run with :class:`RunPaused` before any call of
        that response executes (seed 002, "Deferred tool execution").

        The history then ends with the assistant message holding the calls (no results yet).
        Continue with :meth:`resume` on this agent or on a fresh one built with the same
        provider and tools (``RunPaused.state`` round-trips through JSON).

        Example:
            >>> from robota.core.agent.pause import Approve
            >>> from robota.core.testing.scripted import ScriptedProvider, tool_call
            >>> from robota.core.tools.function import tool
            >>> @tool
            ... async def delete(path: str) -> str:
            ...     \"\"\"Delete a file.\"\"\"
            ...     return f"deleted {path}"
            >>> delete.execution = "approval"
            >>> provider = ScriptedProvider([[tool_call("c1", "delete", {"path": "a"})], "Done."])
            >>> agent = Agent(provider, tools=[delete])
            >>> paused = anyio.run(agent.run_until_pause, "Delete a")
            >>> (len(paused.pending), paused.pending[0].key, paused.pending[0].name)
            (1, 'c1', 'delete')
            >>> anyio.run(agent.resume, paused.state, {"c1": Approve()}).text
            'Done.'

        On a journaled agent the pause is a durable wait (seed 000, "Execution Journal and
        Continuation"): one request per pending call is saved in the journal under
        ``PendingCall.request_id`` before this returns, and the run stays unfinished there;
        answer it with :meth:`resume` (or :meth:`respond` then :meth:`continue_until_pause`,
        in any process).

        Raises:
            JournalError: a request could not be saved (it wins over the wait).
            The errors of :meth:`run` except ``PauseRequiredError``.
        """
        return await self._run(
            prompt,
            output_type,
            settings,
            max_rounds,
            deps,
            cancel or CancelToken(),
            None,
            run_id,
            pausable=True,
            accept_truncated=accept_truncated,
            hosted_tools=hosted_tools,
        )

    def _refuse_if(self, cancel: CancelToken) -> None:
        if cancel.cancelled:
            reason = cancel.reason
            if isinstance(reason, RunCancelledError):
                raise reason
            raise RunCancelledError("the run was cancelled before it started", reason=reason)

    async def _run(
        self,
        prompt: Prompt,
        output_type: Any,
        settings: ModelSettings | None,
        max_rounds: int | None,
        deps: Any,
        cancel: CancelToken,
        send: Any,
        run_id: str | None = None,
        pausable: bool = False,
        accept_truncated: bool | None = None,
        hosted_tools: Iterable[HostedToolLike] | None = None,
    ) -> RunResult[Any] | RunPaused:
        from robota.core.agent.run import execute_run, execute_until_pause

        if self._closed:
            raise AgentClosedError(f"agent {self.name!r} is closed; it accepts no new runs")
        spec = self._spec(
            output=self._output_spec(output_type),
            settings=merge_settings(self.settings, settings),
            max_rounds=self.max_rounds if max_rounds is None else max_rounds,
            deps=deps,
            run_id=run_id,
            accept_truncated=accept_truncated,
            hosted_tools=None if hosted_tools is None else hosted_tool_set(hosted_tools),
        )
        message = prompt if isinstance(prompt, UserMessage) else UserMessage.of(prompt)
        async with self._slot():
            self._refuse_if(cancel)
            if self.journal is not None:
                spec.run_id = spec.run_id or f"run_{uuid.uuid4().hex[:16]}"
                spec.checkpoint = self._checkpoint(spec, message)
            if send is not None:
                self._stream_sink = (*self._stream_sink, send)
                self._control.streaming = True
            try:
                if pausable:
                    return await execute_until_pause(spec, message, cancel)
                return await execute_run(spec, message, cancel)
            finally:
                if send is not None:
                    self._stream_sink = tuple(s for s in self._stream_sink if s is not send)
                    self._control.streaming = False

    # --- disposal -------------------------------------------------------------------------

    async def aclose(self) -> list[BaseException]:
        """Close the agent: refuse new runs, wait for running and queued runs, close gates
        (not for a conversation made by :meth:`new_conversation`: its gates are shared).

        Idempotent and never raises for a cleanup failure: returns the exceptions the gates
        raised while closing (empty on success; the same list on later calls). The provider is
        not closed (the agent does not own it).
        """
        if self._closing is not None:
            await self._closing.wait()
            return list(self._close_errors)
        self._closed = True
        self._closing = anyio.Event()
        errors: list[BaseException] = []
        try:
            async with self._slot():
                pass
            for gate in self.gates if self._owns_gates else ():
                try:
                    await gate.aclose()
                except Exception as exc:
                    errors.append(exc)
        finally:
            self._close_errors = errors
            self._closing.set()
        return list(errors)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
