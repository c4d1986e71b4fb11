"""Optional dependencies behind a distribution's extras (``pip install "dist[extra]"``).

A module that needs a heavy optional package guards its import, so a user without the extra gets
a :class:`~robota.core.errors.MissingExtraError` (an ``ImportError``) naming the install command
instead of a bare ``ModuleNotFoundError``::

    try:
        import mcp
    except ImportError as error:
        raise_missing_extra(error, module="mcp", distribution="robota-agent-tools", extra="mcp")

or, where the module object itself is enough, ``require_extra("yaml", ...)``.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import NoReturn

from robota.core.errors import MissingExtraError

__all__ = ["install_hint", "raise_missing_extra", "require_extra"]


def install_hint(distribution: str, extra: str) -> str:
    """The pip command that installs ``distribution`` with ``extra``, quoted for POSIX shells:
    ``pip install "robota-agent-tools[mcp]"``."""
    return f'pip install "{distribution}[{extra}]"'


def _installed(top: str) -> bool:
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def raise_missing_extra(
    error: ImportError, *, module: str, distribution: str, extra: str
) -> NoReturn:
    """Re-raise ``error`` as a :class:`MissingExtraError` when it is about ``module``.

    Args:
        error: The ``ImportError`` caught around the optional import.
        module: The optional third-party module (dotted names allowed), e.g. ``"mcp"``; an error
            about any module of the same top-level package counts.
        distribution: The Robota distribution declaring the extra, e.g. ``"robota-agent-tools"``.
        extra: The extra's name in that distribution's ``[project.optional-dependencies]``.

    Raises:
        MissingExtraError: ``error`` concerns ``module``'s top-level package (not installed, or
            installed at a version too old to have what Robota imports).
        ImportError: ``error`` itself, unchanged, when it is about another package (a broken
            install, not a missing extra).
    """
    top = module.partition(".")[0]
    missing = error.name or ""
    if missing and missing != top and not missing.startswith(top + "."):
        raise error
    state = "is too old or incomplete" if _installed(top) else "is not installed"
    raise MissingExtraError(
        f"{top!r} {state}; {distribution} needs its {extra!r} extra for this: "
        f"{install_hint(distribution, extra)}",
        module=top,
        distribution=distribution,
        extra=extra,
    ) from error


def require_extra(module: str, *, distribution: str, extra: str) -> ModuleType:
    """Import ``module`` (a dotted name) and return it, or fail naming the extra that provides it.

    Args:
        module: The optional third-party module, e.g. ``"yaml"``.
        distribution: The Robota distribution declaring the extra, e.g. ``"robota-agent-core"``.
        extra: The extra's name.

    Raises:
        MissingExtraError: as :func:`raise_missing_extra`.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise_missing_extra(error, module=module, distribution=distribution, extra=extra)
