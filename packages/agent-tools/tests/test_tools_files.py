"""read_file, write_file, edit_file, list_dir: behaviour, containment, bounds."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from _tools_helpers import call, text_of  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.errors import ToolArgumentsError
from robota.core.messages import MediaPart
from robota.core.tools.base import ArgumentKind, RiskClass, ToolContext
from robota.tools import (
    EditFileTool,
    ListDirTool,
    OutputBounds,
    ReadFileTool,
    Workspace,
    WriteFileTool,
)

pytestmark = pytest.mark.anyio

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00"
    b"\x00\x00\x00IEND\xaeB`\x82"
)


def test_declared_risk_and_permission_arguments(workspace: Workspace) -> None:
    read, write, edit, listing = (
        ReadFileTool(workspace),
        WriteFileTool(workspace),
        EditFileTool(workspace),
        ListDirTool(workspace),
    )
    assert (read.risk, write.risk, edit.risk, listing.risk) == (
        RiskClass.INSPECT,
        RiskClass.MODIFY,
        RiskClass.MODIFY,
        RiskClass.INSPECT,
    )
    for tool in (read, write, edit, listing):
        assert tool.permission_argument is not None
        assert tool.permission_argument.key == "path"
        assert tool.permission_argument.kind is ArgumentKind.PATH
        assert tool.parameters["type"] == "object"
        assert "path" in tool.parameters["properties"]
    assert read.parameters["required"] == ["path"]


async def test_read_file_numbers_lines_like_cat_n(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    result = await call(ReadFileTool(workspace), ctx, path="a.txt")
    assert not result.is_error
    assert text_of(result) == "     1\talpha\n     2\tbeta\n     3\tgamma"


async def test_read_file_offset_and_limit_page_through(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = await call(ReadFileTool(workspace), ctx, path="n.txt", offset=4, limit=2)
    assert text_of(result) == (
        "     4\tline 4\n     5\tline 5\n[showed lines 4-5 of 10; continue with offset=6]"
    )
    past = await call(ReadFileTool(workspace), ctx, path="n.txt", offset=20)
    assert past.is_error
    assert "offset 20 is past the end of n.txt, which has 10 lines" in text_of(past)


async def test_read_file_bounds_huge_file_and_long_lines(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "big.txt").write_text("x" * 5000 + "\n" + "short\n" * 100_000)
    tool = ReadFileTool(workspace, bounds=OutputBounds(max_bytes=1000, max_line_chars=100))
    text = text_of(await call(tool, ctx, path="big.txt"))
    first = text.splitlines()[0]
    assert first == "     1\t" + "x" * 100 + "... [4900 more characters on this line]"
    assert len(text.encode()) < 1200
    last_shown = int(text.splitlines()[-2].split("\t")[0])
    assert (
        text.splitlines()[-1]
        == f"[showed lines 1-{last_shown} of 100001; continue with offset={last_shown + 1}]"
    )


async def test_read_file_refuses_binary(workspace: Workspace, ctx: ToolContext[Any]) -> None:
    (workspace.root / "blob.bin").write_bytes(b"ELF\x00\x01\x02" * 10)
    result = await call(ReadFileTool(workspace), ctx, path="blob.bin")
    assert result.is_error
    assert text_of(result) == "Error: blob.bin is a binary file (60 bytes); not shown as text"


async def test_read_file_returns_image_as_media_part(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "dot.png").write_bytes(PNG)
    result = await call(ReadFileTool(workspace), ctx, path="dot.png")
    media = [part for part in result.content if isinstance(part, MediaPart)]
    assert len(media) == 1
    assert media[0].media_kind == "image"
    assert media[0].media_type == "image/png"
    assert media[0].data == PNG
    assert media[0].name == "dot.png"


async def test_read_file_missing_and_directory(workspace: Workspace, ctx: ToolContext[Any]) -> None:
    (workspace.root / "sub").mkdir()
    missing = await call(ReadFileTool(workspace), ctx, path="nope.txt")
    assert missing.is_error
    assert text_of(missing) == "Error: file not found: nope.txt"
    folder = await call(ReadFileTool(workspace), ctx, path="sub")
    assert text_of(folder) == "Error: sub is a directory; use list_dir to see its entries"


async def test_invalid_arguments_raise_tool_arguments_error(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    with pytest.raises(ToolArgumentsError) as caught:
        await ReadFileTool(workspace).call({"path": "a", "offset": 0}, ctx)
    assert caught.value.issues[0].startswith("$.offset")


async def test_symlink_inside_pointing_outside_is_refused(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    os.symlink(secret, workspace.root / "link.txt")
    os.symlink(tmp_path, workspace.root / "escape")
    for tool, arguments in (
        (ReadFileTool(workspace), {"path": "link.txt"}),
        (ReadFileTool(workspace), {"path": "escape/secret.txt"}),
        (WriteFileTool(workspace), {"path": "escape/new.txt", "content": "x"}),
        (EditFileTool(workspace), {"path": "link.txt", "old_string": "top", "new_string": "no"}),
        (ListDirTool(workspace), {"path": "escape"}),
        (ReadFileTool(workspace), {"path": "../secret.txt"}),
        (ReadFileTool(workspace), {"path": str(secret)}),
    ):
        result = await call(tool, ctx, **arguments)
        assert result.is_error, arguments
        assert "outside" in text_of(result)
    assert secret.read_text() == "top secret\n"
    assert not (tmp_path / "new.txt").exists()


async def test_symlink_inside_the_workspace_is_followed(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "real.txt").write_text("hello\n")
    os.symlink("real.txt", workspace.root / "alias.txt")
    result = await call(ReadFileTool(workspace), ctx, path="alias.txt")
    assert text_of(result) == "     1\thello"


async def test_write_file_creates_parents_and_overwrites(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    tool = WriteFileTool(workspace)
    created = await call(tool, ctx, path="deep/dir/f.txt", content="one\ntwo\n")
    assert text_of(created) == "Created deep/dir/f.txt (8 bytes, 2 lines)"
    replaced = await call(tool, ctx, path="deep/dir/f.txt", content="é")
    assert text_of(replaced) == "Overwrote deep/dir/f.txt (2 bytes, 1 lines)"
    assert (workspace.root / "deep/dir/f.txt").read_text() == "é"


async def test_edit_file_unique_replacement(workspace: Workspace, ctx: ToolContext[Any]) -> None:
    target = workspace.root / "code.py"
    target.write_text("def f():\n    return 1\n")
    result = await call(
        EditFileTool(workspace), ctx, path="code.py", old_string="return 1", new_string="return 2"
    )
    assert text_of(result) == "Edited code.py: replaced 1 occurrence"
    assert target.read_text() == "def f():\n    return 2\n"


async def test_edit_file_absent_ambiguous_and_replace_all(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    target = workspace.root / "t.txt"
    target.write_text("x = 1\nx = 1\n")
    tool = EditFileTool(workspace)
    absent = await call(tool, ctx, path="t.txt", old_string="y = 1", new_string="y = 2")
    assert absent.is_error
    assert "old_string not found in t.txt (0 matches)" in text_of(absent)
    ambiguous = await call(tool, ctx, path="t.txt", old_string="x = 1", new_string="x = 2")
    assert ambiguous.is_error
    assert "old_string occurs 2 times in t.txt" in text_of(ambiguous)
    assert target.read_text() == "x = 1\nx = 1\n"
    every = await call(
        tool, ctx, path="t.txt", old_string="x = 1", new_string="x = 2", replace_all=True
    )
    assert text_of(every) == "Edited t.txt: replaced 2 occurrences"
    assert target.read_text() == "x = 2\nx = 2\n"


async def test_edit_file_refuses_noop_and_binary(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "t.txt").write_text("same")
    (workspace.root / "b.bin").write_bytes(b"a\x00b")
    tool = EditFileTool(workspace)
    same = await call(tool, ctx, path="t.txt", old_string="same", new_string="same")
    assert "nothing to change" in text_of(same)
    binary = await call(tool, ctx, path="b.bin", old_string="a", new_string="c")
    assert binary.is_error
    assert "binary" in text_of(binary)
    assert (workspace.root / "b.bin").read_bytes() == b"a\x00b"


async def test_list_dir_lists_sorted_with_kinds(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "b.txt").write_text("abc")
    (workspace.root / "a").mkdir()
    os.symlink("b.txt", workspace.root / "c")
    result = await call(ListDirTool(workspace), ctx)
    assert text_of(result) == "./ (3 entries)\na/\nb.txt  (3 bytes)\nc -> b.txt"


async def test_list_dir_bounds_entries(workspace: Workspace, ctx: ToolContext[Any]) -> None:
    for i in range(5):
        (workspace.root / f"f{i}").write_text("")
    result = await call(ListDirTool(workspace, max_entries=2), ctx, path=".")
    assert text_of(result).splitlines() == [
        "./ (5 entries)",
        "f0  (0 bytes)",
        "f1  (0 bytes)",
        "[3 more entries not shown]",
    ]
