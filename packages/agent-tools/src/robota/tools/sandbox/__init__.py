"""OS sandboxes for the shell tool (issue 11): the bubblewrap backend (Linux) and the start-up
probe that verifies what it enforces. The port (``Sandbox``, ``SandboxProfile``,
``SandboxGuarantees``, ``NoSandbox``) is in :mod:`robota.core.host.sandbox`."""

from robota.tools.sandbox.bubblewrap import (
    BACKEND,
    MASKED_SOCKETS,
    BubblewrapSandbox,
    HiddenPath,
    bwrap_arguments,
)
from robota.tools.sandbox.probe import detect_sandbox

__all__ = [
    "BACKEND",
    "MASKED_SOCKETS",
    "BubblewrapSandbox",
    "HiddenPath",
    "bwrap_arguments",
    "detect_sandbox",
]
