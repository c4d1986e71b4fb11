"""The docs site's pages and the example programs run, offline.

Every ```python block of every ``docs/**/*.md`` page runs through ``tools/docs/codeblocks.py``
(fresh namespace, temporary working directory, environment restored, network closed to
non-loopback hosts); every relative link of a page resolves to a file, and every absolute link
under the repository's public URL names a file of this checkout. Every ``examples/*.py`` runs as
its own process with the workspace's Python, the network closed the same way, and must exit 0
within its timeout; each starts with a docstring saying what it shows and a docs page links to it.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.docs.codeblocks import Block, exec_block, python_blocks
from tools.docs.links import BLOB_BASE, broken_links

REPO_ROOT = Path(__file__).resolve().parent.parent
DOCS = REPO_ROOT / "docs"
PAGES = tuple(str(p.relative_to(REPO_ROOT)) for p in sorted(DOCS.rglob("*.md")))
EXAMPLES = tuple(
    str(p.relative_to(REPO_ROOT)) for p in sorted((REPO_ROOT / "examples").glob("*.py"))
)
EXAMPLE_TIMEOUT = 60.0
"""Seconds an example may take before it fails."""

# Runs one example file as __main__ with the network closed to non-loopback hosts.
_RUNNER = (
    "import runpy, sys\n"
    "from tools.docs.codeblocks import offline\n"
    "with offline():\n"
    "    runpy.run_path(sys.argv[1], run_name='__main__')\n"
)


def _page_blocks() -> list[Block]:
    found: list[Block] = []
    for page in PAGES:
        found.extend(python_blocks(page, (REPO_ROOT / page).read_text(encoding="utf-8")))
    return found


PAGE_BLOCKS = _page_blocks()


def test_the_site_and_the_examples_exist() -> None:
    assert (DOCS / "index.md").is_file()
    assert (REPO_ROOT / "mkdocs.yml").is_file()
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize(
    "block", [b for b in PAGE_BLOCKS if b.not_run is None], ids=lambda b: f"{b.path}:{b.line}"
)
def test_docs_python_block_runs(block: Block) -> None:
    exec_block(block, str(REPO_ROOT / block.path))


def test_docs_blocks_that_cannot_run_offline_say_why_and_compile() -> None:
    # A block marked not-run (it needs a key and the network) is not executed, but it must
    # give its reason and be valid Python, so it cannot rot into a syntax error unseen.
    for block in PAGE_BLOCKS:
        if block.not_run is None:
            continue
        assert block.not_run.strip(), f"{block.path}:{block.line}: not-run without a reason"
        compile(block.code, f"{block.path}:{block.line}", "exec")


@pytest.mark.parametrize("page", PAGES)
def test_docs_links_resolve(page: str) -> None:
    assert broken_links(REPO_ROOT / page, absolute_only=False) == []


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_says_what_it_shows_and_is_linked(example: str) -> None:
    source = (REPO_ROOT / example).read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(source))
    assert docstring, f"{example} has no module docstring"
    pages = "".join((REPO_ROOT / page).read_text(encoding="utf-8") for page in PAGES)
    assert f"{BLOB_BASE}{example}" in pages or f"../{example}" in pages, (
        f"no docs page links to {example}"
    )


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_runs_offline(example: str, tmp_path: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith(("_API_KEY", "_BASE_URL")) and not key.startswith("ROBOTA_")
    }
    env["PYTHONPATH"] = str(REPO_ROOT)
    env["HOME"] = str(tmp_path)
    env["ROBOTA_HOME"] = str(tmp_path / "robota-home")
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(REPO_ROOT / example)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=EXAMPLE_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, (
        f"{example} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    )
    assert done.stdout.strip(), f"{example} printed nothing"
