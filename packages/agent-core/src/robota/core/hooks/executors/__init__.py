"""Hook executors: command, HTTP and in-process callable, plus the defaults factory."""

from robota.core.hooks.executors.base import HookExecutor
from robota.core.hooks.executors.callable import CallableHookExecutor
from robota.core.hooks.executors.command import CommandHookExecutor
from robota.core.hooks.executors.defaults import default_executors
from robota.core.hooks.executors.http import HttpHookExecutor

__all__ = [
    "CallableHookExecutor",
    "CommandHookExecutor",
    "HookExecutor",
    "HttpHookExecutor",
    "default_executors",
]
