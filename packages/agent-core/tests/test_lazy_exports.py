"""Package re-exports are lazy and still the very objects of their submodules (issue 20: cold
import time).

Every name in a package's ``__all__`` resolves (``from package import Name`` and
``package.Name``) to the object its submodule defines; importing one submodule does not import
the package's other re-exports; a submodule not imported yet is reachable as an attribute.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

PACKAGES = [
    "robota.core",
    "robota.core.agent",
    "robota.core.journal",
    "robota.core.residency",
    "robota.core.schema",
    "robota.core.tools",
]


def _where(package: str, name: str) -> object:
    """The object ``name`` is defined as, read from the submodule the package's type-checking
    imports name (robota.core's ``DenyCall`` is the pause ``Deny``)."""
    module = importlib.import_module(package)
    exports: dict[str, tuple[str, ...]] = getattr(module, "_EXPORTS")  # noqa: B009
    renamed: dict[str, tuple[str, str]] = getattr(module, "_RENAMED", {})
    if name in renamed:
        source, original = renamed[name]
        return getattr(importlib.import_module(source), original)
    (source,) = [m for m, names in exports.items() if name in names]
    return getattr(importlib.import_module(source), name)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_is_the_submodules_object(package: str) -> None:
    module = importlib.import_module(package)
    names: list[str] = module.__all__
    exports: dict[str, tuple[str, ...]] = getattr(module, "_EXPORTS")  # noqa: B009
    mapped = {n for ns in exports.values() for n in ns} | set(getattr(module, "_RENAMED", {}))
    assert mapped == set(names)
    for name in names:
        assert getattr(module, name) is _where(package, name), name
        assert name in dir(module)


def test_from_import_of_every_core_name_works() -> None:
    namespace: dict[str, object] = {}
    exec("from robota.core import *", namespace)
    import robota.core

    assert {n for n in namespace if not n.startswith("__")} == set(robota.core.__all__)
    assert namespace["DenyCall"] is importlib.import_module("robota.core.agent.pause").Deny
    assert namespace["Deny"] is importlib.import_module("robota.core.gate").Deny


def test_an_unknown_name_is_an_attribute_error() -> None:
    import robota.core

    with pytest.raises(AttributeError, match="no attribute 'Nonexistent'"):
        _ = robota.core.Nonexistent  # type: ignore[attr-defined]
    with pytest.raises(ImportError):
        exec("from robota.core.tools import nonexistent")


_PROBE = r"""
import json, sys
import {target}
print(json.dumps(sorted(m for m in sys.modules if m.startswith("robota"))))
"""


def _modules_after(target: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(target=target)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_importing_one_submodule_does_not_import_the_agent() -> None:
    modules = _modules_after("robota.core.messages")
    assert "robota.core.messages" in modules
    assert "robota.core.agent" not in modules
    assert "robota.core.tools" not in modules


def test_a_submodule_is_reachable_as_an_attribute() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import robota.core\n"
            "print(robota.core.agent.Agent.__name__, robota.core.schema.normalize.__name__)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.split() == ["Agent", "robota.core.schema.normalize"]
