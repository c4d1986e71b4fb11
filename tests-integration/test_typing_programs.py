"""The typing suite (issue 17): small user programs in ``tests-integration/typing/`` checked by
basedpyright in strict mode, once for the whole folder.

Every line with ``reveal_type(...)  # revealed: X`` must reveal exactly ``X``; every line with
``# expect-error: ruleA, ruleB`` must carry exactly those errors; no other error or warning may
appear anywhere. A line with ``# LIMIT: reason`` is a documented typing limit (see the ``Agent``
docstring): what it reveals is not compared, and it must carry no error or warning. The programs without expected errors also run (they use the scripted provider,
so what they assert about their results is checked too). The folder has its own
``pyrightconfig.json`` and is excluded from the repository's own basedpyright run, which would
otherwise report the deliberate mistakes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

TYPING = Path(__file__).parent / "typing"
PROGRAMS = sorted(TYPING.glob("*.py"))
REVEALED = re.compile(r"#\s*revealed:\s*(?P<type>.+?)\s*$")
EXPECTED = re.compile(r"#\s*expect-error:\s*(?P<rules>[\w, ]+?)\s*$")
LIMIT = re.compile(r"#\s*LIMIT:\s*\S")
REVEAL_MESSAGE = re.compile(r'^Type of "(?P<expr>.*)" is "(?P<type>.*)"$', re.DOTALL)


def _basedpyright() -> str:
    local = Path(sys.executable).parent / "basedpyright"
    found = str(local) if local.exists() else shutil.which("basedpyright")
    assert found, "basedpyright is not installed (uv sync installs it with the dev group)"
    return found


@cache
def diagnostics() -> dict[tuple[str, int], list[dict[str, Any]]]:
    """basedpyright's diagnostics for the folder, keyed by (file name, 1-based line)."""
    config = TYPING / "pyrightconfig.json"
    done = subprocess.run(
        [_basedpyright(), "--outputjson", "-p", str(config)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = json.loads(done.stdout)
    by_line: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for item in report["generalDiagnostics"]:
        key = (Path(item["file"]).name, item["range"]["start"]["line"] + 1)
        by_line[key].append(item)
    return dict(by_line)


def _marked(path: Path) -> list[tuple[int, str]]:
    return list(enumerate(path.read_text().splitlines(), start=1))


def test_the_folder_holds_programs_of_both_kinds() -> None:
    texts = [p.read_text() for p in PROGRAMS]
    assert sum("# revealed:" in t for t in texts) >= 3
    assert any("# expect-error:" in t for t in texts)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_revealed_types_and_expected_errors_match_the_comments(path: Path) -> None:
    found = diagnostics()
    problems: list[str] = []
    for number, line in _marked(path):
        here = found.get((path.name, number), [])
        reveals = [d for d in here if d["severity"] == "information"]
        errors = sorted(d.get("rule", "?") for d in here if d["severity"] != "information")
        revealed = REVEALED.search(line)
        if revealed:
            got = [REVEAL_MESSAGE.match(d["message"]) for d in reveals]
            types = [m.group("type") for m in got if m]
            if types != [revealed.group("type")]:
                problems.append(
                    f"{path.name}:{number}: revealed {types}, expected {revealed.group('type')!r}"
                )
        elif reveals and not LIMIT.search(line):
            problems.append(
                f"{path.name}:{number}: unmarked reveal_type {[d['message'] for d in reveals]}"
            )
        expected = EXPECTED.search(line)
        want = sorted(r.strip() for r in expected.group("rules").split(",")) if expected else []
        if errors != want:
            messages = [
                d["message"].splitlines()[0] for d in here if d["severity"] != "information"
            ]
            problems.append(f"{path.name}:{number}: errors {errors} {messages}, expected {want}")
    assert not problems, "\n".join(problems)


def test_no_diagnostic_falls_outside_the_programs_lines() -> None:
    lines = {p.name: len(p.read_text().splitlines()) for p in PROGRAMS}
    stray = [key for key in diagnostics() if key[0] not in lines or key[1] > lines[key[0]]]
    assert not stray


@pytest.mark.parametrize(
    "path", [p for p in PROGRAMS if "# expect-error:" not in p.read_text()], ids=lambda p: p.name
)
def test_programs_without_mistakes_run(path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
