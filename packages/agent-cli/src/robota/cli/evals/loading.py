"""``module:attr`` targets of ``robota eval run``: the ``--agent`` to evaluate, the
``--registry`` that resolves user evaluator names and the ``--tracer-provider`` trace
evaluators read.

A zero-argument ``--agent`` factory is called once per case run (each repetition, and each
retry attempt, gets a fresh agent: a fresh conversation, a fresh ``ScriptedProvider`` script, a
fresh replayed recording), the first time before any case runs to check what it returns.

A target is imported like uvicorn's and gunicorn's application strings: ``pkg.module:attr``
(``attr`` may be dotted, ``module:obj.agent``), with the current directory first on
``sys.path`` so a module next to the dataset is found without installing it.

Errors are split by who fixes them: :class:`TargetSpecError` (a string that is not
``module:attr`` — command-line usage, exit 2) and :class:`TargetLoadError` (the module is
missing or fails to import, the attribute is missing or of the wrong type — the project's
configuration, exit 3).
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from robota.core.agent import Agent
from robota.core.errors import ConfigurationError
from robota.core.messages import UserMessage

TracerProvider = Any
"""An ``opentelemetry.sdk.trace.TracerProvider``: the SDK is robota-agent-evals' dependency, not
this package's, so the CLI names the type without importing it."""

if TYPE_CHECKING:
    from robota.evals import Task
    from robota.evals.io.registry import EvaluatorFactory, EvaluatorRegistry

__all__ = [
    "AgentTarget",
    "TargetLoadError",
    "TargetSpecError",
    "import_target",
    "load_registry",
    "load_task",
    "load_tracer_provider",
]


class TargetSpecError(ValueError):
    """A target string is not ``module:attr`` (both parts non-empty); exit ``USAGE`` (2)."""


class TargetLoadError(ConfigurationError):
    """A ``module:attr`` target cannot be used: no such module, its import raised, no such
    attribute, or an object of the wrong type; exit ``CONFIGURATION`` (3)."""

    code = "cli_eval_target"


def import_target(spec: str, *, option: str) -> object:
    """The object ``spec`` (``"module:attr"``) names.

    Args:
        spec: ``"package.module:attr"``; ``attr`` may be dotted (``"module:holder.agent"``).
        option: The option the spec came from (``"--agent"``), for messages.

    Returns:
        The attribute's value.

    Raises:
        TargetSpecError: ``spec`` has no ``:`` or an empty side.
        TargetLoadError: the module is not found (current directory and ``sys.path``), its
            import raised (the message names the exception), or it lacks the attribute.
    """
    module_name, colon, attr = spec.partition(":")
    if not colon or not module_name.strip() or not attr.strip():
        raise TargetSpecError(
            f"{option} {spec}: expected MODULE:ATTRIBUTE, e.g. {option} my_agents:agent"
        )
    cwd = os.getcwd()
    if not sys.path or sys.path[0] != cwd:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module_name == missing or module_name.startswith(missing + ".")):
            raise TargetLoadError(
                f"{option} {spec}: no module named {module_name!r} (looked in {cwd} and sys.path)"
            ) from None
        raise TargetLoadError(
            f"{option} {spec}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    except Exception as exc:  # the user's module raised (SyntaxError included)
        raise TargetLoadError(
            f"{option} {spec}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    value: object = module
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise TargetLoadError(
                f"{option} {spec}: module {module_name!r} has no attribute {attr!r}"
            ) from None
    return value


def _is_async_callable(value: object) -> bool:
    if inspect.iscoroutinefunction(value):
        return True
    call = getattr(value, "__call__", None)  # noqa: B004 - an object with an async __call__
    return not inspect.isclass(value) and inspect.iscoroutinefunction(call)


def _takes_no_arguments(value: object) -> bool:
    try:
        inspect.signature(value).bind()  # pyright: ignore[reportArgumentType]
    except (TypeError, ValueError):
        return False
    return True


def _call(factory: Any, spec: str, option: str) -> object:
    try:
        return factory()
    except Exception as exc:
        raise TargetLoadError(
            f"{option} {spec}: calling it failed: {type(exc).__name__}: {exc}"
        ) from exc


def _usable(value: object) -> bool:
    return isinstance(value, Agent) or _is_async_callable(value)


def _refuse(made: object, spec: str) -> TargetLoadError:
    if inspect.iscoroutine(made):
        made.close()
    return TargetLoadError(
        f"--agent {spec}: calling it returned a {type(made).__name__}, not an Agent or an "
        "async function of the inputs"
    )


@dataclass(frozen=True, slots=True)
class AgentTarget:
    """What ``--agent`` names.

    Attributes:
        spec: The ``MODULE:ATTR`` text.
        task: The ``Agent`` or async function the attribute is (None: it is a factory).
        factory: The zero-argument callable the attribute is (None: it is not one).
        first: What the factory's first call returned (an ``Agent`` or an async function),
            kept for the first case run; None when the attribute is not a factory.
    """

    spec: str
    task: Task | None = None
    factory: Callable[[], object] | None = None
    first: object = None

    def task_for(
        self, *, capture: bool, tracer_provider: TracerProvider | None
    ) -> tuple[Task, TracerProvider | None]:
        """The task to hand ``Dataset.evaluate`` and its ``tracer_provider``.

        Args:
            capture: The dataset has trace evaluators (each run's spans must be teed).
            tracer_provider: The ``--tracer-provider`` (None: not given).

        Returns:
            ``(task, tracer_provider)``: the attribute itself, or for a factory an async
            function of the inputs that calls it once per case run; with ``capture``, an
            ``Agent`` factory's provider is the one its first agent's ``OpenTelemetrySink``
            uses.

        Raises:
            TelemetryNotConfiguredError: ``capture``, a factory of agents, and the first agent
                has no ``OpenTelemetrySink`` on an SDK ``TracerProvider`` (or not on
                ``tracer_provider``).
        """
        if self.factory is None:
            assert self.task is not None
            return self.task, tracer_provider
        per_run = PerRunTask(
            self.factory,
            self.spec,
            first=self.first,
            capture=capture,
            tracer_provider=tracer_provider,
        )
        if capture and isinstance(self.first, Agent):
            from robota.evals.run.capture import tracer_providers_of

            agent = cast("Agent[Any, Any]", self.first)
            return per_run, tracer_providers_of(agent, tracer_provider)[0]
        return per_run, tracer_provider


class PerRunTask:
    """An async function of a case's inputs that calls an ``--agent`` factory for each case run
    (each repetition and each retry attempt) and runs what it returns: an ``Agent`` in a fresh
    conversation (its ``RunResult`` gives the report its usage and messages), or an async
    function of the inputs.

    Args:
        factory: The zero-argument callable.
        spec: Its ``MODULE:ATTR``, for messages.
        first: What its first call (made while loading) returned; the first case run uses it,
            so the factory runs exactly once per case run.
        capture: Tee each agent's telemetry for trace evaluators (its ``OpenTelemetrySink``
            providers, which may be new per agent).
        tracer_provider: The ``--tracer-provider``: each agent must send its spans there.
    """

    def __init__(
        self,
        factory: Callable[[], object],
        spec: str,
        *,
        first: object,
        capture: bool,
        tracer_provider: TracerProvider | None,
    ) -> None:
        self._factory = factory
        self._spec = spec
        self._first = first
        self._capture = capture
        self._tracer_provider = tracer_provider
        self.calls = 1 if first is not None else 0
        """How many times the factory was called so far (the load-time call included)."""

    def _next(self) -> object:
        first, self._first = self._first, None
        if first is not None:
            return first
        self.calls += 1
        return _call(self._factory, self._spec, "--agent")

    async def __call__(self, inputs: Any) -> Any:
        """Run one case attempt on a fresh product of the factory.

        Raises:
            TargetLoadError: the factory raised or returned something else this time.
            TelemetryNotConfiguredError: with trace evaluators, this agent has no usable
                ``OpenTelemetrySink``.
            TypeError: an ``Agent`` and inputs that are not a prompt (a ``str``).
        """
        made = self._next()
        if isinstance(made, Agent):
            agent = cast("Agent[Any, Any]", made)
            if self._capture:
                from robota.evals.run.capture import install_capture, tracer_providers_of

                for provider in tracer_providers_of(agent, self._tracer_provider):
                    install_capture(provider)
            if not isinstance(inputs, str | UserMessage):
                raise TypeError(
                    "an Agent task takes the case's inputs as its prompt, a str (or a "
                    f"UserMessage); got {type(inputs).__name__}"
                )
            return await agent.new_conversation().run(inputs)
        if _is_async_callable(made):
            return await cast("Callable[[Any], Any]", made)(inputs)
        raise _refuse(made, self._spec)


def load_task(spec: str) -> AgentTarget:
    """What ``--agent spec`` names.

    The attribute may be an ``Agent``, an async function of the case's inputs (returning the
    output, or a ``RunResult`` whose usage and messages the report then keeps), or a
    zero-argument callable returning one of those. A callable is called here once, to check
    what it returns before any case runs, and then once per case run (see
    :class:`PerRunTask`; the product of this first call serves the first case run).

    Raises:
        TargetSpecError: as :func:`import_target`.
        TargetLoadError: as :func:`import_target`; the attribute is none of the above; the
            factory raised or returned something else.
    """
    option = "--agent"
    value = import_target(spec, option=option)
    if _usable(value):
        return AgentTarget(spec=spec, task=cast("Task", value))
    if callable(value) and _takes_no_arguments(value):
        factory = cast("Callable[[], object]", value)
        made = _call(factory, spec, option)
        if _usable(made):
            return AgentTarget(spec=spec, factory=factory, first=made)
        raise _refuse(made, spec)
    raise TargetLoadError(
        f"{option} {spec}: got a value of type {type(value).__name__}, not an Agent, an async "
        "function of the inputs, or a zero-argument callable returning one"
    )


def load_tracer_provider(spec: str) -> TracerProvider:
    """The OpenTelemetry SDK ``TracerProvider`` ``--tracer-provider spec`` names: the
    attribute is one, or a zero-argument callable returning one (called once).

    Raises:
        TargetSpecError: as :func:`import_target`.
        TargetLoadError: as :func:`import_target`; the attribute (or what calling it returned)
            is not an ``opentelemetry.sdk.trace.TracerProvider``.
    """
    from robota.evals.run.capture import is_sdk_tracer_provider

    option = "--tracer-provider"
    value = import_target(spec, option=option)
    if is_sdk_tracer_provider(value):
        return value
    if callable(value) and _takes_no_arguments(value):
        made = _call(value, spec, option)
        if is_sdk_tracer_provider(made):
            return made
        raise TargetLoadError(
            f"{option} {spec}: calling it returned a {type(made).__name__}, not an "
            "opentelemetry.sdk.trace.TracerProvider"
        )
    raise TargetLoadError(
        f"{option} {spec}: got a value of type {type(value).__name__}, not an "
        "opentelemetry.sdk.trace.TracerProvider or a zero-argument callable returning one"
    )


def load_registry(spec: str) -> EvaluatorRegistry:
    """The evaluator registry ``--registry spec`` names.

    The attribute may be an ``EvaluatorRegistry``, a list or tuple of evaluator classes or
    factories (registered under their names beside the built-ins), or a zero-argument function
    returning one of those.

    Raises:
        TargetSpecError: as :func:`import_target`.
        TargetLoadError: as :func:`import_target`; the attribute is none of the above; a list
            entry is not callable or has no usable name.
    """
    from robota.evals.io.registry import EvaluatorRegistry

    option = "--registry"
    value = import_target(spec, option=option)
    if not isinstance(value, EvaluatorRegistry | list | tuple) and inspect.isfunction(value):
        if not _takes_no_arguments(value):
            raise TargetLoadError(
                f"{option} {spec}: the function {value.__name__} takes arguments; a registry "
                "function is called with none"
            )
        value = _call(value, spec, option)
    if isinstance(value, EvaluatorRegistry):
        return value
    if isinstance(value, list | tuple):
        entries: Sequence[Any] = value  # pyright: ignore[reportUnknownVariableType]
        registry = EvaluatorRegistry()
        for index, entry in enumerate(entries):
            if not callable(entry):
                raise TargetLoadError(
                    f"{option} {spec}: item {index} is of type {type(entry).__name__}, not an "
                    "evaluator class or factory"
                )
            try:
                registry.register(cast("EvaluatorFactory", entry))
            except ValueError as exc:
                raise TargetLoadError(f"{option} {spec}: item {index}: {exc}") from None
        return registry
    raise TargetLoadError(
        f"{option} {spec}: got a value of type {type(value).__name__}, not an "
        "EvaluatorRegistry, a list of evaluator classes or factories, or a function returning one"
    )
