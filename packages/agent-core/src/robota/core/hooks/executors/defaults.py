"""The built-in executors factory (seed 003, "Hook executor registration is replace-vs-extend")."""

from __future__ import annotations

import httpx
from robota.core.hooks.executors.base import HookExecutor
from robota.core.hooks.executors.callable import CallableHookExecutor
from robota.core.hooks.executors.command import CommandHookExecutor
from robota.core.hooks.executors.http import HttpHookExecutor

__all__ = ["default_executors"]


def default_executors(*, http_client: httpx.AsyncClient | None = None) -> dict[str, HookExecutor]:
    """The built-in executors: ``{"command": ..., "http": ..., "callable": ...}``.

    To *extend* the defaults, pass ``{**default_executors(), "prompt": mine}`` to
    :class:`~robota.core.hooks.runner.HookRunner`; a mapping given there replaces the defaults
    entirely (seed 003: restriction must be asked for, extension is explicit).

    Args:
        http_client: Client for the HTTP executor (None: it creates and owns one).
    """
    return {
        "command": CommandHookExecutor(),
        "http": HttpHookExecutor(http_client),
        "callable": CallableHookExecutor(),
    }
