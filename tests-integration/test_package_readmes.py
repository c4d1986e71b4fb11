"""Every ```python block of the package READMEs runs, offline, in a fresh namespace.

The READMEs of agent-core, agent-session, agent-executor, agent-framework and agent-cli are user
documentation; an example that no longer runs is a bug. Each block is executed with ``exec`` in
a new module namespace, from a temporary working directory, with ``os.environ`` restored
afterwards; a block that raises fails its test. A block preceded by an HTML comment
``<!-- not-run: reason -->`` is skipped (allowed only for command-line snippets written as
Python). ```bash blocks are never run. Relative links in the READMEs must point at files that
exist in the repository.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

READMES = (
    "packages/agent-core/README.md",
    "packages/agent-session/README.md",
    "packages/agent-executor/README.md",
    "packages/agent-framework/README.md",
    "packages/agent-cli/README.md",
)

_FENCE = re.compile(r"^```(?P<lang>[A-Za-z0-9_+-]*)[ \t]*$")
_NOT_RUN = re.compile(r"^<!--\s*not-run:\s*(?P<reason>\S.*?)\s*-->$")
_LINK = re.compile(r"\]\((?P<target>[^)\s#]+)(?:#[^)]*)?\)")


@dataclass(frozen=True, kw_only=True, slots=True)
class Block:
    """One fenced code block of a README.

    Attributes:
        readme: Repository-relative README path.
        line: 1-based line of the opening fence.
        lang: The fence's language tag (``""`` when none).
        code: The block's text.
        not_run: The reason from a preceding ``<!-- not-run: ... -->`` comment, or None.
    """

    readme: str
    line: int
    lang: str
    code: str
    not_run: str | None


def extract_blocks(readme: str, text: str) -> list[Block]:
    """The fenced blocks of ``text`` in order.

    Raises:
        ValueError: for a fence that is never closed.
    """
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index].strip())
        if opening is None or lines[index].startswith(" "):
            index += 1
            continue
        start = index
        previous = next((ln.strip() for ln in reversed(lines[:start]) if ln.strip()), "")
        marker = _NOT_RUN.match(previous)
        body: list[str] = []
        index += 1
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index])
            index += 1
        if index >= len(lines):
            raise ValueError(f"{readme}:{start + 1}: unclosed code fence")
        blocks.append(
            Block(
                readme=readme,
                line=start + 1,
                lang=opening.group("lang"),
                code="\n".join(body) + "\n",
                not_run=marker.group("reason") if marker else None,
            )
        )
        index += 1
    return blocks


def _all_blocks() -> list[Block]:
    found: list[Block] = []
    for readme in READMES:
        found.extend(extract_blocks(readme, (REPO_ROOT / readme).read_text(encoding="utf-8")))
    return found


PYTHON_BLOCKS = [b for b in _all_blocks() if b.lang in ("python", "py")]


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


@pytest.mark.parametrize("readme", READMES)
def test_every_readme_has_a_runnable_python_quickstart(readme: str) -> None:
    runnable = [b for b in PYTHON_BLOCKS if b.readme == readme and b.not_run is None]
    assert runnable, f"{readme} has no runnable ```python block"


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=lambda b: f"{b.readme.split('/')[1]}:{b.line}")
def test_python_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if block.not_run is not None:
        pytest.skip(f"not-run: {block.not_run}")
    monkeypatch.chdir(tmp_path)
    saved = dict(os.environ)
    namespace: dict[str, object] = {"__name__": f"readme_block_{block.line}"}
    try:
        # pad so tracebacks name the README's own line numbers
        source = "\n" * block.line + block.code
        code = compile(source, str(REPO_ROOT / block.readme), "exec")
        exec(code, namespace)
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.parametrize("readme", READMES)
def test_relative_links_point_at_existing_files(readme: str) -> None:
    path = REPO_ROOT / readme
    text = path.read_text(encoding="utf-8")
    missing = [
        target
        for target in (m.group("target") for m in _LINK.finditer(text))
        if "://" not in target
        and not target.startswith("mailto:")
        and not (path.parent / target).resolve().exists()
    ]
    assert missing == [], f"{readme} links to missing files: {missing}"
