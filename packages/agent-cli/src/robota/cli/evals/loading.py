"""``module:attr`` targets of ``robota eval run``: the ``--agent`` to evaluate and the
``--registry`` that resolves user evaluator names.

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
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from robota.core.agent import Agent
from robota.core.errors import ConfigurationError

if TYPE_CHECKING:
    from robota.evals import Task
    from robota.evals.io.registry import EvaluatorFactory, EvaluatorRegistry

__all__ = ["TargetLoadError", "TargetSpecError", "import_target", "load_registry", "load_task"]


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


def load_task(spec: str) -> Task:
    """The task ``--agent spec`` names.

    The attribute may be an ``Agent``, an async function of the case's inputs (returning the
    output, or a ``RunResult`` whose usage and messages the report then keeps), or a
    zero-argument callable returning one of those (called once, before any case runs).

    Raises:
        TargetSpecError: as :func:`import_target`.
        TargetLoadError: as :func:`import_target`; the attribute is none of the above; the
            factory raised or returned something else.
    """
    option = "--agent"
    value = import_target(spec, option=option)
    if isinstance(value, Agent) or _is_async_callable(value):
        return value  # pyright: ignore[reportReturnType]
    if callable(value) and _takes_no_arguments(value):
        made = _call(value, spec, option)
        if isinstance(made, Agent) or _is_async_callable(made):
            return made  # pyright: ignore[reportReturnType]
        if inspect.iscoroutine(made):
            made.close()
        raise TargetLoadError(
            f"{option} {spec}: calling it returned a {type(made).__name__}, not an Agent or an "
            "async function of the inputs"
        )
    raise TargetLoadError(
        f"{option} {spec}: got a value of type {type(value).__name__}, not an Agent, an async "
        "function of the inputs, or a zero-argument callable returning one"
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
