"""glob and grep: nested .gitignore (negation, directory rules), filters, context, bounds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _tools_helpers import call, text_of  # pyright: ignore[reportImplicitRelativeImport]
from hypothesis import given
from hypothesis import strategies as st
from robota.core.tools.base import ArgumentKind, RiskClass, ToolContext
from robota.tools import GlobTool, GrepTool, OutputBounds, Workspace
from robota.tools._walk import IgnoreStack

pytestmark = pytest.mark.anyio


def make_tree(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


@pytest.fixture
def repo(workspace: Workspace) -> Workspace:
    make_tree(
        workspace.root,
        {
            ".gitignore": "*.log\n!keep.log\nbuild/\n",
            "app.py": "import os\nTODO = 1\n",
            "debug.log": "TODO in log\n",
            "keep.log": "TODO kept\n",
            "build/out.py": "TODO built\n",
            "src/.gitignore": "generated_*.py\n!generated_ok.py\n",
            "src/main.py": "def main():\n    pass  # TODO\n",
            "src/generated_x.py": "TODO generated\n",
            "src/generated_ok.py": "TODO ok\n",
            "src/deep/.gitignore": "!*.log\n",
            "src/deep/trace.log": "TODO trace\n",
            "src/deep/image.bin": b"TODO\x00\x01binary",
            ".git/HEAD": "ref: TODO\n",
        },
    )
    return workspace


def test_search_tools_are_inspect_with_path_argument(workspace: Workspace) -> None:
    for tool in (GlobTool(workspace), GrepTool(workspace)):
        assert tool.risk is RiskClass.INSPECT
        assert tool.permission_argument is not None
        assert (tool.permission_argument.key, tool.permission_argument.kind) == (
            "path",
            ArgumentKind.PATH,
        )


async def test_glob_honours_nested_gitignore_and_negation(
    repo: Workspace, ctx: ToolContext[Any]
) -> None:
    result = await call(GlobTool(repo), ctx, pattern="**/*.{py,log}")
    assert text_of(result).splitlines() == [
        "app.py",
        "keep.log",
        "src/deep/trace.log",
        "src/generated_ok.py",
        "src/main.py",
    ]


async def test_glob_include_ignored_and_sub_path(repo: Workspace, ctx: ToolContext[Any]) -> None:
    everything = await call(GlobTool(repo), ctx, pattern="*.py", include_ignored=True)
    assert text_of(everything).splitlines() == [
        "app.py",
        "build/out.py",
        "src/generated_ok.py",
        "src/generated_x.py",
        "src/main.py",
    ]
    under_src = await call(GlobTool(repo), ctx, pattern="*.py", path="src")
    assert text_of(under_src).splitlines() == ["src/generated_ok.py", "src/main.py"]
    none = await call(GlobTool(repo), ctx, pattern="*.rs")
    assert text_of(none) == "No files match '*.rs'"


async def test_glob_bounds_results(workspace: Workspace, ctx: ToolContext[Any]) -> None:
    make_tree(workspace.root, {f"f{i}.txt": "" for i in range(5)})
    result = await call(GlobTool(workspace, max_results=3), ctx, pattern="*.txt")
    assert text_of(result).splitlines() == [
        "f0.txt",
        "f1.txt",
        "f2.txt",
        "[2 more matches not shown; narrow the pattern]",
    ]


async def test_glob_outside_workspace_refused(workspace: Workspace, ctx: ToolContext[Any]) -> None:
    result = await call(GlobTool(workspace), ctx, pattern="*", path="..")
    assert result.is_error
    assert "outside" in text_of(result)


async def test_grep_skips_ignored_and_binary_files(repo: Workspace, ctx: ToolContext[Any]) -> None:
    result = await call(GrepTool(repo), ctx, pattern="TODO")
    assert text_of(result).splitlines() == [
        "app.py:2:TODO = 1",
        "keep.log:1:TODO kept",
        "src/generated_ok.py:1:TODO ok",
        "src/main.py:2:    pass  # TODO",
        "src/deep/trace.log:1:TODO trace",
    ]


async def test_grep_include_exclude_and_ignore_case(repo: Workspace, ctx: ToolContext[Any]) -> None:
    only_py = await call(
        GrepTool(repo),
        ctx,
        pattern="todo",
        include=["*.py"],
        exclude=["src/generated_*"],
        ignore_case=True,
    )
    assert text_of(only_py).splitlines() == ["app.py:2:TODO = 1", "src/main.py:2:    pass  # TODO"]
    none = await call(GrepTool(repo), ctx, pattern="todo")
    assert text_of(none) == "No matches for 'todo'"


async def test_grep_context_lines_and_separators(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    make_tree(workspace.root, {"f.txt": "a\nb\nMATCH1\nc\nd\ne\nf\nMATCH2\ng\n"})
    result = await call(GrepTool(workspace), ctx, pattern="MATCH", context=1)
    assert text_of(result).splitlines() == [
        "f.txt-2-b",
        "f.txt:3:MATCH1",
        "f.txt-4-c",
        "--",
        "f.txt-7-f",
        "f.txt:8:MATCH2",
        "f.txt-9-g",
    ]


async def test_grep_single_file_and_invalid_regex(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    make_tree(workspace.root, {"f.txt": "x1\ny\nx2\n", "other.txt": "x3\n"})
    result = await call(GrepTool(workspace), ctx, pattern=r"x\d", path="f.txt")
    assert text_of(result).splitlines() == ["f.txt:1:x1", "f.txt:3:x2"]
    bad = await call(GrepTool(workspace), ctx, pattern="(unclosed")
    assert bad.is_error
    assert text_of(bad).startswith("Error: invalid regular expression '(unclosed'")


async def test_grep_output_is_bounded(workspace: Workspace, ctx: ToolContext[Any]) -> None:
    make_tree(workspace.root, {"big.txt": ("hit " + "y" * 500 + "\n") * 1000})
    tool = GrepTool(
        workspace, bounds=OutputBounds(max_bytes=2000, max_line_chars=50), max_matches=100
    )
    text = text_of(await call(tool, ctx, pattern="hit"))
    lines = text.splitlines()
    assert lines[0] == "big.txt:1:hit " + "y" * 36 + "... [464 more characters on this line]"
    assert "[output truncated:" in lines[-1]
    assert len(text.encode()) < 2300
    stopped = text_of(await call(GrepTool(workspace, max_matches=3), ctx, pattern="hit"))
    assert stopped.splitlines()[-1] == (
        "[search stopped after 3 matching lines; narrow the pattern or path]"
    )


@given(
    name=st.from_regex(r"[a-z]{1,8}\.(log|txt)", fullmatch=True),
    sub=st.sampled_from(["d", "d/e"]),
)
def test_deeper_gitignore_negation_wins(name: str, sub: str) -> None:
    stack = IgnoreStack().with_lines("", ["*.log"]).with_lines("d", ["!*.log"])
    assert stack.ignored(name, is_dir=False) is name.endswith(".log")
    assert stack.ignored(f"{sub}/{name}", is_dir=False) is False
    assert stack.ignored(f"other/{name}", is_dir=False) is name.endswith(".log")
