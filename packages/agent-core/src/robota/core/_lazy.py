"""Lazy re-exports for package ``__init__`` files (PEP 562 module ``__getattr__``).

A package that re-exports names from its submodules imports none of them up front: the first
``from package import Name`` (or ``package.Name``) imports the submodule that defines ``Name``
and keeps the object in the package's namespace, so later reads are plain attribute reads and
the object is the very one the submodule holds. Type checkers read the ``if TYPE_CHECKING:``
imports each package keeps beside its ``__all__``.

Attribute access to a submodule that has not been imported yet (``robota.core.agent`` after
``import robota.core``) imports it, as the eager re-exports used to as a side effect.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str,
    namespace: dict[str, Any],
    exports: Mapping[str, Iterable[str]],
    *,
    renamed: Mapping[str, tuple[str, str]] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package with lazy re-exports.

    Args:
        package: The package's ``__name__``.
        namespace: The package's ``globals()`` (resolved names are stored there).
        exports: Submodule (absolute name) → the names it provides to the package.
        renamed: Exported name → ``(submodule, name there)`` for a name exported under
            another name (``DenyCall`` is ``robota.core.agent.pause.Deny``).

    Returns:
        ``(__getattr__, __dir__)`` to assign at module level. ``__getattr__`` raises
        ``AttributeError`` for a name that is neither an export nor a submodule.
    """
    where: dict[str, tuple[str, str]] = {
        name: (module, name) for module, names in exports.items() for name in names
    }
    where.update(renamed or {})

    def __getattr__(name: str) -> Any:
        found = where.get(name)
        if found is not None:
            value = getattr(importlib.import_module(found[0]), found[1])
            namespace[name] = value
            return value
        if not name.startswith("__"):
            submodule = f"{package}.{name}"
            try:
                return importlib.import_module(submodule)
            except ModuleNotFoundError as error:
                if error.name != submodule:
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__
