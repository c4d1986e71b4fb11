"""The typed API's user documentation passes a user's strict type check (issue 17).

The ```python blocks of ``docs/guides/typed-api.md``, ``docs/quickstart.md``, the root
``README.md``, ``packages/agent-core/README.md`` and the evaluations guide and README are
extracted with
``tools/docs/codeblocks.py`` (a ``not-run`` block is still checked; a block marked
``<!-- not-typed: reason -->`` is not) and checked by basedpyright with a temporary
``pyrightconfig.json`` holding only ``"typeCheckingMode": "strict"`` — a user's default strict,
``reportUnknown*`` on, none of this repository's relaxations — against the workspace's virtual
environment. Each block becomes its own module, padded so that a diagnostic's line is the
Markdown page's own line: the runner executes each block in a fresh namespace, so blocks of one
page do not see each other (one module per page would report the same ``import`` and
``class Weather`` of two blocks as redeclarations). A doctest block is checked through its
examples' source. Any error or warning fails the page's test, listed as ``page:line: rule:
message``.
"""

from __future__ import annotations

import doctest
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tools.docs.codeblocks import Block, python_blocks

REPO_ROOT = Path(__file__).resolve().parent.parent
PAGES = (
    "docs/guides/typed-api.md",
    "docs/quickstart.md",
    "README.md",
    "packages/agent-core/README.md",
    "docs/guides/evals.md",
    "packages/agent-evals/README.md",
)


def _basedpyright() -> str:
    local = Path(sys.executable).parent / "basedpyright"
    found = str(local) if local.exists() else shutil.which("basedpyright")
    assert found, "basedpyright is not installed (uv sync installs it with the dev group)"
    return found


def _module_source(block: Block) -> str:
    """The block as a module whose line N is the page's line N (a doctest: its examples)."""
    if not block.code.lstrip().startswith(">>>"):
        return "\n" * block.line + block.code
    # a doctest shows values by leaving expressions unused: that is its point
    lines = ["# pyright: reportUnusedExpression=false", *[""] * (block.line - 1)]
    for example in doctest.DocTestParser().get_examples(block.code):
        first = block.line + 1 + example.lineno  # the example's first line on the page
        lines.extend([""] * (first - 1 - len(lines)))
        lines.extend(example.source.splitlines())
    return "\n".join(lines) + "\n"


def _module_name(page: str, line: int) -> str:
    return re.sub(r"\W", "_", page) + f"__{line}.py"


def check_pages(pages: Sequence[tuple[str, str]], workdir: Path) -> dict[str, list[str]]:
    """Type-check the Python blocks of Markdown pages in strict mode.

    Args:
        pages: ``(name, Markdown text)`` pairs; the name is used in the report.
        workdir: An empty folder for the modules and the ``pyrightconfig.json``.

    Returns:
        Per page name, every error and warning as ``"page:line: rule: message"`` (line: the
        page's own), in order; an empty list for a clean page.
    """
    owner: dict[str, str] = {}
    for name, text in pages:
        for block in python_blocks(name, text):
            if block.not_typed is None:
                module = _module_name(name, block.line)
                (workdir / module).write_text(_module_source(block), encoding="utf-8")
                owner[module] = name
    venv = Path(sys.prefix)
    config = {
        "include": ["."],
        "pythonVersion": f"{sys.version_info.major}.{sys.version_info.minor}",
        "typeCheckingMode": "strict",
        "venvPath": str(venv.parent),
        "venv": venv.name,
    }
    (workdir / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    done = subprocess.run(
        [_basedpyright(), "--outputjson", "-p", str(workdir / "pyrightconfig.json")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    found: dict[str, list[str]] = {name: [] for name, _ in pages}
    for item in report["generalDiagnostics"]:
        if item["severity"] not in ("error", "warning"):
            continue
        module = Path(item["file"]).name
        line = item["range"]["start"]["line"] + 1
        message = item["message"].splitlines()[0]
        found[owner[module]].append(f"{owner[module]}:{line}: {item.get('rule', '?')}: {message}")
    return found


@pytest.fixture(scope="module")
def diagnostics(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    pages = [(page, (REPO_ROOT / page).read_text(encoding="utf-8")) for page in PAGES]
    return check_pages(pages, tmp_path_factory.mktemp("docs-typecheck"))


def test_every_page_has_blocks_to_check() -> None:
    for page in PAGES:
        blocks = python_blocks(page, (REPO_ROOT / page).read_text(encoding="utf-8"))
        assert [b for b in blocks if b.not_typed is None], f"{page}: no block is type-checked"


def test_a_wrong_block_is_reported_at_its_page_line_unless_marked_not_typed(
    tmp_path: Path,
) -> None:
    page = (
        "# Page\n"
        "\n"
        "```python\n"
        "from robota.core import Agent\n"
        "from robota.core.testing.scripted import ScriptedProvider\n"
        "\n"
        "result = Agent(ScriptedProvider(['hi'])).run_sync('?')\n"
        "length: int = result.output\n"
        "```\n"
        "\n"
        "<!-- not-run: checked, not run -->\n"
        "```python\n"
        "def f(x):\n"
        "    return x\n"
        "```\n"
        "\n"
        "<!-- not-run: an illustration -->\n"
        "<!-- not-typed: a deliberate mistake -->\n"
        "```python\n"
        "count: int = 'three'\n"
        "```\n"
        "\n"
        "```python\n"
        ">>> total: int = 1 + 1\n"
        ">>> total\n"
        "2\n"
        ">>> words: list[str] = [total]\n"
        "```\n"
    )
    found = check_pages(
        [("guide.md", page), ("clean.md", "```python\nx: int = 1\n```\n")], tmp_path
    )
    assert found["clean.md"] == []
    lines = [entry.split(": ", 2)[:2] for entry in found["guide.md"]]
    assert ["guide.md:8", "reportAssignmentType"] in lines
    assert ["guide.md:13", "reportMissingParameterType"] in lines
    assert ["guide.md:27", "reportAssignmentType"] in lines  # the doctest's third example
    assert not [entry for entry in found["guide.md"] if entry.startswith("guide.md:20:")]
    assert not [entry for entry in found["guide.md"] if entry.startswith("guide.md:25:")]


@pytest.mark.parametrize("page", PAGES)
def test_page_passes_a_strict_type_check(page: str, diagnostics: dict[str, list[str]]) -> None:
    assert diagnostics[page] == [], "\n".join(diagnostics[page])
