"""Every Robota error survives pickle (``multiprocessing`` results, DBOS workflow errors): same
type, message, ``args`` and attributes, whatever keyword-only arguments its constructor takes
(issue 20 outsider finding: ``ProviderError`` failed with "missing keyword-only argument
'provider'")."""

from __future__ import annotations

import copy
import importlib
import inspect
import multiprocessing
import pickle
import pkgutil
from typing import Any

import pytest
import robota.core
from robota.core import errors
from robota.core.agent import Agent
from robota.core.agent.pause import PauseRequiredError
from robota.core.errors import ErrorCategory, RateLimitError, RobotaError
from robota.core.hooks.outcome import HookOutcome
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools import tool

SAMPLES: dict[str, Any] = {
    # errors.py
    "provider": "anthropic",
    "status": 429,
    "vendor_type": "rate_limit_error",
    "request_id": "req_1",
    "retry_after": 2.5,
    "body": {"error": {"type": "rate_limit_error"}},
    "missing": "[DONE] after the last chunk",
    "api": "chat.completions",
    "setting": "temperature",
    "model": "m-1",
    "module": "mcp",
    "distribution": "robota-agent-tools",
    "extra": "mcp",
    "tool_name": "search",
    "issues": ["$.q: required"],
    "count": 3,
    "attempts": 2,
    "estimated_tokens": 9000,
    "context_window": 8192,
    "provider_error": RateLimitError("inner", provider="openai", retry_after=1.0),
    "reason": "stopped by the user",
    # other robota.core modules
    "field": "properties.x",
    "hook_name": "guard",
    "hook_type": "command",
    "rule": "Bash(rm:*)",
    "behavior": "deny",
    "run_id": "run-1",
    "key": "k-1",
    "root": "/srv",
    "candidate": "/etc/passwd",
    "path": "/srv/store/x",
    "fix": "chmod 600 /srv/store/x",
    "mode": 0o644,
    "uid": 1000,
    "problem": "symlink",
    "found": "symbolic link",
    "errno": 40,
    "limit": 1024,
    "timeout": 5.0,
    "backend": "bubblewrap",
    "differences": (),
    "steps": (1, 2),
    "keys": ["d1"],
    "outcome": HookOutcome(event_name="UserPromptSubmit", decision="deny", reason="no"),
}
"""A value for every constructor argument name an error class takes (every keyword one is
given, so each attribute holds a non-default value)."""

NEEDS_A_RUN = {PauseRequiredError}
"""Built by a real run below (its argument is a pause)."""


def _all_subclasses(cls: type[RobotaError]) -> list[type[RobotaError]]:
    out: list[type[RobotaError]] = []
    for sub in cls.__subclasses__():
        out.extend([sub, *_all_subclasses(sub)])
    return list(dict.fromkeys(out))


def _core_error_classes() -> list[type[RobotaError]]:
    for info in pkgutil.walk_packages(robota.core.__path__, "robota.core."):
        importlib.import_module(info.name)
    classes = [RobotaError, *_all_subclasses(RobotaError)]
    return sorted(
        (c for c in classes if c.__module__.startswith("robota.core.")),
        key=lambda c: (c.__module__, c.__qualname__),
    )


def _build(cls: type[RobotaError]) -> RobotaError:
    arguments: list[Any] = []
    keywords: dict[str, Any] = {}
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    for parameter in parameters:
        if parameter.name in ("code", "category", "recoverable"):
            continue  # the base's per-instance overrides: checked separately
        if parameter.kind is parameter.KEYWORD_ONLY:
            assert parameter.name in SAMPLES, f"add a sample for {cls.__name__}({parameter.name})"
            keywords[parameter.name] = SAMPLES[parameter.name]
        elif parameter.name in ("message", "reason"):
            arguments.append(f"{cls.__name__} failed")
        else:
            arguments.append(SAMPLES[parameter.name])
    return cls(*arguments, **keywords)


def _assert_same(back: BaseException, error: BaseException) -> None:
    assert type(back) is type(error)
    assert back.args == error.args
    assert str(back) == str(error)
    assert repr(back) == repr(error)
    assert vars(back).keys() == vars(error).keys()
    for name, value in vars(error).items():
        restored = getattr(back, name)
        if isinstance(value, BaseException):
            _assert_same(restored, value)
        else:
            assert restored == value, name
    for name in ("errno", "strerror", "filename", "name", "path"):
        if hasattr(error, name):
            assert getattr(back, name) == getattr(error, name), name


ERRORS_PY = [
    value
    for name in errors.__all__
    if isinstance(value := getattr(errors, name), type) and issubclass(value, BaseException)
]


@pytest.mark.parametrize("cls", ERRORS_PY, ids=lambda c: c.__name__)
def test_every_error_of_errors_py_round_trips(cls: type[Exception]) -> None:
    error = _build(cls) if issubclass(cls, RobotaError) else cls("try again")
    back = pickle.loads(pickle.dumps(error))
    _assert_same(back, error)
    _assert_same(copy.deepcopy(error), error)


def test_the_parametrization_holds_every_error_class_of_errors_py() -> None:
    defined = {
        value
        for value in vars(errors).values()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
    }
    assert defined == set(ERRORS_PY)
    names = {c.__name__ for c in ERRORS_PY}
    assert {"ProviderError", "MalformedResponseError", "ModelRetry", "RobotaError"} <= names


@pytest.mark.parametrize(
    "cls",
    [c for c in _core_error_classes() if c not in NEEDS_A_RUN],
    ids=lambda c: f"{c.__module__.removeprefix('robota.core.')}.{c.__name__}",
)
def test_every_robota_error_in_core_round_trips(cls: type[RobotaError]) -> None:
    error = _build(cls)
    back = pickle.loads(pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL))
    _assert_same(back, error)


def test_provider_error_keeps_its_facts() -> None:
    error = errors.MalformedResponseError(
        "cut stream",
        provider="openai",
        missing="[DONE] after the last chunk",
        api="chat.completions",
        status=200,
        recoverable=False,
    )
    back = pickle.loads(pickle.dumps(error))
    assert isinstance(back, errors.MalformedResponseError)
    assert (back.provider, back.missing, back.api, back.status) == (
        "openai",
        "[DONE] after the last chunk",
        "chat.completions",
        200,
    )
    assert back.recoverable is False  # the per-instance override, not the class default
    assert back.error_code == "malformed_response"
    assert back.category is ErrorCategory.PROVIDER


def test_import_and_os_error_bases_keep_their_builtin_attributes() -> None:
    from robota.core.host.errors import UnsafeStoreEntryError

    missing = pickle.loads(pickle.dumps(_build(errors.MissingExtraError)))
    assert isinstance(missing, ImportError)
    assert missing.name == "mcp"
    unsafe = pickle.loads(pickle.dumps(_build(UnsafeStoreEntryError)))
    assert isinstance(unsafe, OSError)
    assert (unsafe.errno, unsafe.filename) == (40, "/srv/store/x")


def test_notes_are_kept() -> None:
    error = errors.ProviderError("x", provider="p")
    error.add_note("while calling model m-1")
    assert pickle.loads(pickle.dumps(error)).__notes__ == ["while calling model m-1"]


@pytest.mark.anyio
async def test_a_pause_required_error_from_a_real_run_round_trips() -> None:
    @tool(execution="approval")
    def delete(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    provider = ScriptedProvider([[tool_call("c1", "delete", {"path": "a.txt"})]])
    with pytest.raises(PauseRequiredError) as caught:
        await Agent(provider, tools=[delete]).run("clean up")
    back = pickle.loads(pickle.dumps(caught.value))
    assert type(back) is PauseRequiredError
    assert str(back) == str(caught.value)
    assert back.paused == caught.value.paused
    assert [p.name for p in back.paused.pending] == ["delete"]


def _raise_rate_limit() -> None:
    raise RateLimitError("slow down", provider="openai", status=429, retry_after=3.0)


def test_an_error_crosses_a_process_boundary() -> None:
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool, pytest.raises(RateLimitError) as caught:
        pool.apply(_raise_rate_limit)
    assert (caught.value.provider, caught.value.status, caught.value.retry_after) == (
        "openai",
        429,
        3.0,
    )
