"""The shell smuggling corpus (tests/data/shell_corpus.yaml): no line that tries to hide a
denied command behind an allowed one is allowed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from robota.core.permissions import PermissionCall, PermissionContext, evaluate_permission
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass

_DATA = yaml.safe_load((Path(__file__).parent / "data" / "shell_corpus.yaml").read_text())
_DEFAULTS: dict[str, Any] = _DATA["defaults"]
_CASES: list[dict[str, Any]] = _DATA["cases"]
_ARG = PermissionArgument(key="command", kind=ArgumentKind.COMMAND)


def _decide(case: dict[str, Any], workspace: Path) -> str:
    context = PermissionContext.from_rules(
        workspace,
        allow=case.get("allow", _DEFAULTS["allow"]),
        deny=case.get("deny", _DEFAULTS["deny"]),
        ask=case.get("ask", []),
        home=workspace / "home",
    )
    call = PermissionCall(
        tool_name="Bash",
        risk=RiskClass.EXECUTE,
        argument=_ARG,
        arguments={"command": case["line"]},
        parameters=frozenset({"command"}),
    )
    return evaluate_permission(call, context).behavior.value


def test_corpus_has_at_least_sixty_smuggling_lines() -> None:
    assert sum(1 for case in _CASES if case["expect"] != "allow") >= 60


@pytest.mark.parametrize("case", _CASES, ids=[repr(c["line"])[:60] for c in _CASES])
def test_shell_corpus_case(case: dict[str, Any], tmp_path: Path) -> None:
    assert _decide(case, tmp_path) == case["expect"]


def test_shell_corpus_summary(tmp_path: Path) -> None:
    tried = 0
    bypassed: list[str] = []
    for case in _CASES:
        if case["expect"] == "allow":
            continue
        tried += 1
        if _decide(case, tmp_path) == "allow":
            bypassed.append(case["line"])
    print(f"shell corpus: tried={tried} bypassed={len(bypassed)}")
    assert bypassed == []
