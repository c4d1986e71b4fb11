"""Run code as it would run in an environment without some optional packages.

A package that puts heavy parts behind extras (``robota-agent-tools[mcp]``) promises that the
rest works without them and that the missing part names its extra
(:class:`robota.core.errors.MissingExtraError`). :func:`run_without` checks that promise for real:
it starts a fresh interpreter in which the named top-level packages cannot be imported, as in a
virtual environment where the extra was never installed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterable

_HIDE = """
import importlib.abc as _abc, sys as _sys
class _Hide(_abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
_sys.meta_path.insert(0, _Hide())
"""


def run_without(
    hidden: Iterable[str], code: str, *, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where the ``hidden`` top-level packages look uninstalled.

    Args:
        hidden: Top-level import names (``"mcp"``, ``"opentelemetry"``); importing any of them,
            or a submodule, raises ``ModuleNotFoundError`` as it would without the package.
        code: Python source, dedented before it runs.
        timeout: Seconds before the interpreter is killed.

    Returns:
        The finished process (text mode): check ``returncode``, ``stdout`` and ``stderr``.

    Raises:
        subprocess.TimeoutExpired: when the code runs longer than ``timeout``.
    """
    program = _HIDE.format(hidden=sorted(set(hidden))) + "\n" + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=timeout
    )
