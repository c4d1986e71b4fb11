"""Every ```python block of every README runs, offline, in a fresh namespace; links hold.

The root README and every package's README are user documentation; an example that no longer
runs is a bug. Blocks are extracted and run by ``tools/docs/codeblocks.py`` (the same runner as
``python tools/docs/codeblocks.py run FILE.md``): each block is executed with ``exec`` in a new
module namespace, from a temporary working directory, with ``os.environ`` restored afterwards and
the network closed to non-loopback hosts; a block that raises fails its test. A block preceded by
an HTML comment ``<!-- not-run: reason -->`` is skipped. ```bash blocks are never run.

Package READMEs are published on the package index, where relative links point nowhere: every
link in them is absolute, and one under the repository's public URL (``tools/docs/links.py``)
must name a file or folder of this checkout; one under the docs site must name a page of
``docs/``. The root README may link relatively; its relative links must resolve.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.docs.codeblocks import Block, exec_block, extract_blocks, python_blocks
from tools.docs.links import DOCS_URL, REPO_URL, broken_links

REPO_ROOT = Path(__file__).resolve().parent.parent

PACKAGE_READMES = tuple(
    str(p.relative_to(REPO_ROOT)) for p in sorted(REPO_ROOT.glob("packages/*/README.md"))
)
READMES = ("README.md", *PACKAGE_READMES)


def _all_python_blocks() -> list[Block]:
    found: list[Block] = []
    for readme in READMES:
        found.extend(python_blocks(readme, (REPO_ROOT / readme).read_text(encoding="utf-8")))
    return found


PYTHON_BLOCKS = _all_python_blocks()


def test_every_package_readme_is_covered() -> None:
    packages = sorted(REPO_ROOT.glob("packages/*/pyproject.toml"))
    assert len(PACKAGE_READMES) == len(packages) > 0


def test_extractor_finds_blocks_and_opt_outs() -> None:
    text = (
        "intro\n```python\nx = 1\n```\n\n<!-- not-run: a CLI call -->\n```python\nmain()\n```\n"
        "```bash\nrobota run hi\n```\n"
    )
    blocks = extract_blocks("R.md", text)
    assert [(b.lang, b.line, b.code, b.not_run) for b in blocks] == [
        ("python", 2, "x = 1\n", None),
        ("python", 7, "main()\n", "a CLI call"),
        ("bash", 10, "robota run hi\n", None),
    ]
    with pytest.raises(ValueError, match=r"R\.md:1: unclosed code fence"):
        extract_blocks("R.md", "```python\nx = 1\n")


def test_link_checker_flags_relative_and_missing_targets(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("home\n")
    page = tmp_path / "README.md"
    page.write_text(
        f"[a]({REPO_URL}/blob/main/README.md) [b]({REPO_URL}/blob/main/no/such.md) "
        f"[c](../x.md) [d]({DOCS_URL}) [e]({DOCS_URL}no-such-page/) [f](https://example.com)\n"
        "[g](README.md)\n"
    )
    assert broken_links(page, absolute_only=False, repo_root=tmp_path) == [
        f"{REPO_URL}/blob/main/no/such.md",
        "../x.md",
        f"{DOCS_URL}no-such-page/",
    ]
    assert broken_links(page, absolute_only=True, repo_root=tmp_path) == [
        f"{REPO_URL}/blob/main/no/such.md",
        "../x.md (relative)",
        f"{DOCS_URL}no-such-page/",
        "README.md (relative)",
    ]


@pytest.mark.parametrize("readme", READMES)
def test_every_readme_has_a_runnable_python_block(readme: str) -> None:
    runnable = [b for b in PYTHON_BLOCKS if b.path == readme and b.not_run is None]
    assert runnable, f"{readme} has no runnable ```python block"


@pytest.mark.parametrize(
    "block", [b for b in PYTHON_BLOCKS if b.not_run is None], ids=lambda b: f"{b.path}:{b.line}"
)
def test_python_block_runs(block: Block) -> None:
    exec_block(block, str(REPO_ROOT / block.path))


def test_readme_blocks_that_cannot_run_offline_say_why_and_compile() -> None:
    # A block marked not-run (a live API key) is not executed, but it gives its reason and is
    # valid Python, so it cannot rot into a syntax error unseen.
    for block in PYTHON_BLOCKS:
        if block.not_run is None:
            continue
        assert block.not_run.strip(), f"{block.path}:{block.line}: not-run without a reason"
        compile(block.code, f"{block.path}:{block.line}", "exec")


@pytest.mark.parametrize("readme", PACKAGE_READMES)
def test_package_readme_links_are_absolute_and_exist(readme: str) -> None:
    assert broken_links(REPO_ROOT / readme, absolute_only=True) == []


def test_root_readme_links_exist() -> None:
    assert broken_links(REPO_ROOT / "README.md", absolute_only=False) == []
