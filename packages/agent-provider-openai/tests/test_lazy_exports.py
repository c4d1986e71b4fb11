"""The package's re-exports are lazy and still the very objects of their submodules (issue 20:
cold import time): the Chat Completions provider does not import the Responses one."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest
import robota.providers.openai as package


def test_every_exported_name_is_the_submodules_object() -> None:
    exports: dict[str, tuple[str, ...]] = getattr(package, "_EXPORTS")  # noqa: B009
    assert {n for names in exports.values() for n in names} == set(package.__all__)
    for source, names in exports.items():
        for name in names:
            assert getattr(package, name) is getattr(importlib.import_module(source), name)
            assert name in dir(package)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = package.nothing_here  # type: ignore[attr-defined]


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def test_the_chat_provider_does_not_import_the_responses_provider() -> None:
    modules = json.loads(
        _run(
            "import json, sys\n"
            "from robota.providers.openai import OpenAIChatProvider\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('robota'))))"
        )
    )
    assert "robota.providers.openai.chat" in modules
    assert "robota.providers.openai.responses" not in modules


def test_a_submodule_is_reachable_as_an_attribute() -> None:
    out = _run("import robota.providers.openai as p\nprint(p.chat.OpenAIChatProvider.__name__)")
    assert out == "OpenAIChatProvider"
