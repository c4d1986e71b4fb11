"""``@path`` references (issue #18): the syntax, every way a path could leave the workspace
(refused where the file is opened), special files refused before a byte is read, the size and
kind rules, MCP resources through a reader, and what the CLI says. The real command is driven in
``tests-integration/test_cli_attachments_e2e.py``."""

from __future__ import annotations

import doctest
import importlib
import os
import socket
import string
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from robota.cli import _attach_files, attachments
from robota.cli.attachments import (
    MAX_IMAGE_BYTES,
    MAX_LISTING_ENTRIES,
    MAX_TEXT_BYTES,
    Attached,
    AttachmentError,
    Attachments,
    expand_references,
    parse_references,
    prompt_for,
)
from robota.core.host.paths import resolve_inside
from robota.core.messages import MediaPart, TextPart, UserMessage
from robota.core.testing.scripted import ScriptedProvider, text
from robota.framework.interactive import InteractiveSession, SessionConfig

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(64)
GIF = b"GIF89a\x01\x00\x01\x00" + bytes(64)
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(64)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with a README, beside a folder holding a secret."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("# Demo\nhello\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET")
    return root


def expand(line: str, workspace: Path, **more: Any) -> Attachments:
    return anyio.run(lambda: expand_references(line, workspace=workspace, **more))


def refused(line: str, workspace: Path, **more: Any) -> AttachmentError:
    with pytest.raises(AttachmentError) as caught:
        expand(line, workspace, **more)
    assert "TOP SECRET" not in str(caught.value)
    return caught.value


def texts(result: Attachments) -> list[str]:
    return [p.text for p in result.parts if isinstance(p, TextPart)]


class TestSyntax:
    @pytest.mark.parametrize(
        ("line", "targets"),
        [
            ("explain @src/app.py", ["src/app.py"]),
            ("@a.md first", ["a.md"]),
            ('open @"my notes.md" now', ["my notes.md"]),
            ("see @README.md.", ["README.md"]),
            ("(see @README.md), then @b.txt; @c?", ["README.md", "b.txt", "c"]),
            ("mail me at a@b.com or x.y@z.org", []),
            (r"not \@this", []),
            ('unterminated @"quote here', []),
            ("a lone @ and @ spaced", []),
            ("up @.. here @.", ["..", "."]),
            ("tabs\t@x\t@y", ["x", "y"]),
            ("[@x] {@y}", ["x", "y"]),
            ("docs @files:file:///README.md", ["files:file:///README.md"]),
        ],
    )
    def test_references_found(self, line: str, targets: list[str]) -> None:
        assert [r.target for r in parse_references(line).references] == targets

    def test_an_escaped_at_reads_as_a_plain_at(self) -> None:
        parsed = parse_references(r"tag \@alice and \@bob")
        assert parsed.text == "tag @alice and @bob"
        assert parsed.references == ()

    @given(st.text())
    def test_parsing_never_raises_and_keeps_a_line_without_backslashes(self, line: str) -> None:
        parsed = parse_references(line)
        if "\\" not in line:
            assert parsed.text == line
        for reference in parsed.references:
            assert reference.written in parsed.text

    @given(
        st.lists(
            st.text(string.ascii_letters + string.digits + "/_-", min_size=1, max_size=12),
            max_size=5,
        )
    )
    def test_every_spaced_reference_is_found_in_order(self, targets: list[str]) -> None:
        line = " and ".join(f"@{t}" for t in targets)
        assert [r.target for r in parse_references(line).references] == targets

    @given(
        st.text(string.ascii_letters + string.digits + "._-", min_size=1),
        st.text(string.ascii_letters + string.digits + "._-", min_size=1),
    )
    def test_an_email_address_is_never_a_reference(self, user: str, host: str) -> None:
        assert parse_references(f"write to {user}@{host} today").references == ()


class TestLeavingTheWorkspace:
    def test_dot_dot(self, ws: Path) -> None:
        error = refused("read @../outside/secret.txt", ws)
        assert str(error) == "cannot attach @../outside/secret.txt: it is outside the workspace"
        assert error.reference == "@../outside/secret.txt"

    def test_dot_dot_to_nothing_is_refused_too(self, ws: Path) -> None:
        refused("@../no/such/file", ws)

    def test_an_absolute_path_outside(self, ws: Path) -> None:
        refused(f"@{ws.parent / 'outside' / 'secret.txt'}", ws)
        refused("@/etc/passwd", ws)

    def test_an_absolute_path_inside_is_fine(self, ws: Path) -> None:
        result = expand(f"@{ws / 'README.md'}", ws)
        assert result.attached == (Attached(shown="README.md", kind="text", size=13),)

    def test_a_symlinked_file_pointing_out(self, ws: Path) -> None:
        (ws / "link.txt").symlink_to(ws.parent / "outside" / "secret.txt")
        refused("@link.txt", ws)

    def test_a_symlinked_directory_in_the_middle(self, ws: Path) -> None:
        (ws / "docs").symlink_to(ws.parent / "outside")
        refused("@docs/secret.txt", ws)

    def test_a_dangling_symlink_pointing_out(self, ws: Path) -> None:
        (ws / "later").symlink_to(ws.parent / "outside" / "not-yet")
        refused("@later", ws)

    def test_a_symlink_that_stays_inside_is_followed(self, ws: Path) -> None:
        (ws / "alias.md").symlink_to("README.md")
        result = expand("@alias.md", ws)
        assert result.attached == (Attached(shown="README.md", kind="text", size=13),)

    def test_proc_self_root(self, ws: Path) -> None:
        refused(f"@/proc/self/root{ws.parent}/outside/secret.txt", ws)
        (ws / "root").symlink_to("/proc/self/root")
        refused("@root/etc/passwd", ws)

    def test_a_directory_swapped_for_a_symlink_after_the_check_is_caught_at_open(
        self, ws: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (ws / "docs").mkdir()
        (ws / "docs" / "secret.txt").write_text("harmless")
        real = resolve_inside

        def check_then_swap(root: Path, candidate: str) -> Path:
            answer = real(root, candidate)  # the check passes: docs/ is a real directory
            (ws / "docs" / "secret.txt").unlink()
            (ws / "docs").rmdir()
            (ws / "docs").symlink_to(ws.parent / "outside")  # ...then docs/ leads out
            return answer

        monkeypatch.setattr(_attach_files, "resolve_inside", check_then_swap)
        error = refused("@docs/secret.txt", ws)
        assert error.reason == "it is outside the workspace (its path changed while being attached)"

    def test_a_file_swapped_for_a_symlink_after_the_check_is_not_followed(
        self, ws: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        real = resolve_inside

        def check_then_swap(root: Path, candidate: str) -> Path:
            answer = real(root, candidate)
            (ws / "README.md").unlink()
            (ws / "README.md").symlink_to(ws.parent / "outside" / "secret.txt")
            return answer

        monkeypatch.setattr(_attach_files, "resolve_inside", check_then_swap)
        error = refused("@README.md", ws)
        assert error.reason == "it changed while being attached (a symlink now); not followed"

    def test_a_file_swapped_for_a_symlink_just_before_the_open_is_not_followed(
        self, ws: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        real = _attach_files._lstat  # pyright: ignore[reportPrivateUsage]

        def look_then_swap(path: Path) -> os.stat_result:
            answer = real(path)  # a regular file when looked at...
            path.unlink()
            path.symlink_to(ws.parent / "outside" / "secret.txt")  # ...a link when opened
            return answer

        monkeypatch.setattr(_attach_files, "_lstat", look_then_swap)
        error = refused("@README.md", ws)
        assert error.reason == "it changed while being attached (a symlink now); not followed"


class TestSpecialFiles:
    def test_a_fifo_is_refused_without_blocking(self, ws: Path) -> None:
        os.mkfifo(ws / "pipe")  # no writer: a blocking open or read would never return
        error = refused("@pipe", ws)
        assert error.reason == "it is a FIFO, not a file"

    def test_a_fifo_swapped_in_after_the_check_does_not_block(
        self, ws: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        real = resolve_inside

        def check_then_swap(root: Path, candidate: str) -> Path:
            answer = real(root, candidate)
            (ws / "README.md").unlink()
            os.mkfifo(ws / "README.md")
            return answer

        monkeypatch.setattr(_attach_files, "resolve_inside", check_then_swap)
        error = refused("@README.md", ws)
        assert error.reason == "it is a FIFO, not a file"

    def test_a_fifo_swapped_in_just_before_the_open_does_not_block(
        self, ws: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        real = _attach_files._lstat  # pyright: ignore[reportPrivateUsage]

        def look_then_swap(path: Path) -> os.stat_result:
            answer = real(path)
            path.unlink()
            os.mkfifo(path)  # opened O_NONBLOCK, then refused by fstat
            return answer

        monkeypatch.setattr(_attach_files, "_lstat", look_then_swap)
        error = refused("@README.md", ws)
        assert error.reason == "it changed while being attached (a FIFO)"

    def test_a_socket_is_refused(self, ws: Path) -> None:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(ws / "sock"))
            error = refused("@sock", ws)
        assert error.reason == "it is a socket, not a file"

    def test_a_device_is_refused(self, ws: Path) -> None:
        try:
            os.mknod(ws / "null", 0o600 | 0o020000, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("this account cannot make a device node")
        error = refused("@null", ws)
        assert error.reason == "it is a character device, not a file"


def _notice(result: Attachments) -> str:
    return result.notices()[0]


class TestContent:
    def test_a_text_file_is_a_fenced_block_headed_by_its_path(self, ws: Path) -> None:
        (ws / "src").mkdir()
        (ws / "src" / "app.py").write_text("print('```')\n")
        result = expand("explain @src/app.py please", ws)
        assert result.parts == (
            TextPart(text="explain @src/app.py please"),
            TextPart(text="Attached file src/app.py:\n````\nprint('```')\n````"),
        )
        assert _notice(result) == "attached: src/app.py (13 B)"

    def test_the_notice_names_sizes_and_images(self, ws: Path) -> None:
        (ws / "README.md").write_text("x" * 3174)
        (ws / "shot.png").write_bytes(PNG + bytes(40 * 1024 - len(PNG)))
        result = expand("@README.md @shot.png", ws)
        assert _notice(result) == "attached: README.md (3.1 KB), shot.png (image, 40 KB)"

    @pytest.mark.parametrize(
        ("data", "media_type"),
        [(PNG, "image/png"), (JPEG, "image/jpeg"), (GIF, "image/gif"), (WEBP, "image/webp")],
    )
    def test_an_image_is_known_by_its_bytes_not_its_name(
        self, ws: Path, data: bytes, media_type: str
    ) -> None:
        (ws / "notes.txt").write_bytes(data)
        result = expand("what is @notes.txt", ws)
        assert result.parts[1:] == (
            TextPart(text="Attached image notes.txt:"),
            MediaPart(media_kind="image", media_type=media_type, data=data, name="notes.txt"),
        )

    def test_a_text_file_named_png_is_text(self, ws: Path) -> None:
        (ws / "fake.png").write_text("not an image")
        assert expand("@fake.png", ws).attached[0].kind == "text"

    @pytest.mark.parametrize(
        "data", [b"\x00\x01\x02binary", b"caf\xe9 latin-1", b"\x7fELF\x02\x01\x01\x00"]
    )
    def test_another_binary_is_refused(self, ws: Path, data: bytes) -> None:
        (ws / "blob.bin").write_bytes(data)
        error = refused("@blob.bin", ws)
        assert error.reason == (
            "it is a binary file (not UTF-8 text, nor a PNG, JPEG, GIF or WebP image)"
        )

    def test_a_text_file_at_the_cap_is_attached_one_byte_more_is_refused(self, ws: Path) -> None:
        (ws / "big.txt").write_bytes(b"a" * MAX_TEXT_BYTES)
        assert expand("@big.txt", ws).attached[0].size == MAX_TEXT_BYTES
        (ws / "big.txt").write_bytes(b"a" * (MAX_TEXT_BYTES + 1))
        error = refused("@big.txt", ws)
        assert error.reason == "it is 256 KB; the limit for a text file is 256 KB"

    def test_a_huge_sparse_file_is_refused_without_reading_it(self, ws: Path) -> None:
        with (ws / "huge.log").open("wb") as handle:
            handle.truncate(50 * 1024**3)  # 50 GiB of holes: reading it would never end
        error = refused("@huge.log", ws)
        assert error.reason == "it is 51200 MB; the limit for a text file is 256 KB"

    def test_an_image_over_its_cap_is_refused(self, ws: Path) -> None:
        (ws / "big.png").write_bytes(PNG + bytes(MAX_IMAGE_BYTES))
        error = refused("@big.png", ws)
        assert error.reason.endswith("the limit for an image is 5 MB")

    def test_more_than_a_mebibyte_of_text_in_one_prompt_is_refused(self, ws: Path) -> None:
        names = [f"part{i}.txt" for i in range(5)]
        for name in names:
            (ws / name).write_bytes(b"b" * (250 * 1024))
        error = refused(" ".join(f"@{n}" for n in names), ws)
        assert error.reference == "@part4.txt"
        assert error.reason == (
            "the attached text would be 1.2 MB; at most 1 MB of text is attached to one prompt"
        )

    def test_a_missing_file_is_left_as_text_and_said(self, ws: Path) -> None:
        result = expand("use @dataclass and @README.md", ws)
        assert result.unresolved == ("@dataclass",)
        assert result.notices() == (
            "attached: README.md (13 B)",
            "sent as text (no such file): @dataclass",
        )
        assert texts(result)[0] == "use @dataclass and @README.md"

    def test_nothing_attached_submits_plain_text(self, ws: Path) -> None:
        result = expand(r"hi \@all, see @nobody", ws)
        assert result.prompt == "hi @all, see @nobody"

    def test_a_reference_named_twice_is_attached_once(self, ws: Path) -> None:
        result = expand("@README.md vs @README.md", ws)
        assert len(result.attached) == 1
        assert len(result.parts) == 2

    def test_a_quoted_path_with_spaces(self, ws: Path) -> None:
        (ws / "my notes.md").write_text("spaced")
        result = expand('read @"my notes.md"', ws)
        assert texts(result)[1] == "Attached file my notes.md:\n```\nspaced\n```"

    def test_a_directory_is_a_bounded_sorted_listing(self, ws: Path) -> None:
        (ws / "many").mkdir()
        for i in range(MAX_LISTING_ENTRIES + 50):
            (ws / "many" / f"f{i:03}").write_text("")
        (ws / "many" / "sub").mkdir()
        result = expand("@many", ws)
        listing = texts(result)[1].splitlines()
        assert listing[0] == "Listing of directory many/:"
        assert listing[2:5] == ["f000", "f001", "f002"]
        assert listing[-2] == "… and 51 more"
        assert result.attached[0].kind == "directory"
        empty = ws / "empty"
        empty.mkdir()
        assert texts(expand("@empty", ws))[1] == "Listing of directory empty/:\n```\n(empty)\n```"

    def test_the_workspace_itself_lists_subdirectories_with_a_slash(self, ws: Path) -> None:
        (ws / "src").mkdir()
        assert texts(expand("@.", ws))[1] == "Listing of directory ./:\n```\nREADME.md\nsrc/\n```"


class TestResources:
    @staticmethod
    def reader(calls: list[tuple[str, str]], parts: Sequence[TextPart | MediaPart]) -> Any:
        async def read(server: str, uri: str) -> Sequence[TextPart | MediaPart]:
            calls.append((server, uri))
            return parts

        return read

    def test_a_configured_server_s_resource_is_read_through_the_reader(self, ws: Path) -> None:
        calls: list[tuple[str, str]] = []
        image = MediaPart(media_kind="image", media_type="image/png", data=PNG, name="logo")
        reader = self.reader(calls, [TextPart(text="# Guide"), image])
        result = expand(
            "summarize @docs:docs://guide", ws, resource_reader=reader, mcp_servers=["docs"]
        )
        assert calls == [("docs", "docs://guide")]
        assert result.parts[1:] == (
            TextPart(text="Attached resource docs:docs://guide:"),
            TextPart(text="```\n# Guide\n```"),
            image,
        )
        assert result.attached == (
            Attached(shown="docs:docs://guide", kind="resource", size=7 + len(PNG)),
        )

    def test_a_name_that_is_not_a_configured_server_is_a_path(self, ws: Path) -> None:
        calls: list[tuple[str, str]] = []
        result = expand(
            "@other:thing", ws, resource_reader=self.reader(calls, []), mcp_servers=["docs"]
        )
        assert calls == []
        assert result.unresolved == ("@other:thing",)

    def test_without_a_reader_a_resource_is_refused(self, ws: Path) -> None:
        error = refused("@docs:docs://guide", ws, mcp_servers=["docs"])
        assert error.reason == "this session cannot read MCP resources"

    def test_a_failing_read_is_said_with_its_reason(self, ws: Path) -> None:
        async def broken(server: str, uri: str) -> Sequence[TextPart | MediaPart]:
            raise LookupError(f"{server} has no resource {uri}")

        error = refused("@docs:x://y", ws, resource_reader=broken, mcp_servers=["docs"])
        assert str(error) == "cannot attach @docs:x://y: docs has no resource x://y"

    def test_an_oversized_resource_is_refused(self, ws: Path) -> None:
        reader = self.reader([], [TextPart(text="z" * (MAX_TEXT_BYTES + 1))])
        error = refused("@docs:x://big", ws, resource_reader=reader, mcp_servers=["docs"])
        assert error.reason == "its text is 256 KB; the limit is 256 KB"


@pytest.fixture
def session(ws: Path, tmp_path: Path) -> tuple[ScriptedProvider, SessionConfig]:
    provider = ScriptedProvider([[text("seen")]])
    config = SessionConfig(
        provider=provider,
        model="m",
        workspace=ws,
        title=False,
        background_dir=tmp_path / "bg",
        checkpoint_dir=tmp_path / "cp",
    )
    return provider, config


class TestPromptFor:
    @pytest.mark.anyio
    async def test_an_attachment_reaches_the_model_and_is_said(
        self,
        ws: Path,
        session: tuple[ScriptedProvider, SessionConfig],
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        provider, config = session
        (ws / "shot.gif").write_bytes(GIF)
        async with await InteractiveSession.start(config) as chat:
            prompt = await prompt_for(chat, "look at @README.md and @shot.gif")
            assert prompt is not None
            await chat.submit(prompt)
        [sent] = [m for m in provider.requests[0].messages if isinstance(m, UserMessage)]
        assert sent.parts[1] == TextPart(text="Attached file README.md:\n```\n# Demo\nhello\n```")
        assert sent.parts[3] == MediaPart(
            media_kind="image", media_type="image/gif", data=GIF, name="shot.gif"
        )
        assert capsys.readouterr().err == (
            "robota: attached: README.md (13 B), shot.gif (image, 74 B)\n"
        )

    @pytest.mark.anyio
    async def test_a_refused_reference_is_said_in_one_line_and_nothing_is_sent(
        self,
        ws: Path,
        session: tuple[ScriptedProvider, SessionConfig],
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        _, config = session
        async with await InteractiveSession.start(config) as chat:
            assert await prompt_for(chat, "read @../outside/secret.txt") is None
            assert chat.messages == ()
        assert capsys.readouterr().err == (
            "robota: cannot attach @../outside/secret.txt: it is outside the workspace\n"
        )


@pytest.mark.parametrize("module", ["robota.cli.attachments", "robota.cli._attach_files"])
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0


def test_the_public_names_are_exported() -> None:
    assert set(attachments.__all__) >= {"AttachmentError", "Attachments", "expand_references"}
