"""Reading the file an ``@path`` reference names, checked where it is opened
(:mod:`robota.cli.attachments`; seed 000, "Path Containment").

:func:`read_reference` resolves the path with the core containment helper
(:func:`robota.core.host.paths.resolve_inside`: ``..``, absolute paths elsewhere and symlinks
leaving the workspace are refused, ``/proc/self/root`` and other magic links are read as the
text they hold), then closes the gap between that answer and the ``open``:

* the entry is ``lstat``-ed first, and anything but a regular file or a directory (a FIFO,
  socket or device) is refused before it is opened, so nothing blocks;
* it is opened ``O_NOFOLLOW | O_NONBLOCK | O_NOCTTY``: a final component swapped for a symlink
  fails the open instead of being followed, a FIFO swapped in does not block;
* the opened descriptor is ``fstat``-ed (still a regular file, or still a directory) and its
  real path is asked of the kernel (``/proc/self/fd/N`` on Linux, ``F_GETPATH`` on macOS) and
  must lie inside the workspace, and outside every folder the caller keeps private (the Robota
  home): a directory in the middle of the path swapped for a symlink between the check and the
  open is caught here, after the open and before a byte is read
  (:func:`robota.cli._open_inside.open_inside`, shared with the diff snapshots).

Only what was read through that descriptor is attached. Names (the file's, a listing's entries)
are shown with every non-printable character escaped (:func:`robota.cli.mcp_view.shown`): a
control character, a line separator, a bidirectional override or a byte that is not UTF-8 (a
surrogate escape) never reaches the terminal or the prompt's text raw.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from robota.cli._open_inside import CHANGED, OpenRefused, kind_of, open_inside
from robota.cli.terminal_text import shown
from robota.core.errors import ErrorCategory, RobotaError
from robota.core.host.errors import InvalidPathError, PathOutsideRootError
from robota.core.host.paths import canonical_path, resolve_inside
from robota.core.media import IMAGE_SNIFF_BYTES, image_media_type

__all__ = [
    "MAX_IMAGE_BYTES",
    "MAX_LISTING_ENTRIES",
    "MAX_TEXT_BYTES",
    "MAX_TOTAL_TEXT_BYTES",
    "AttachmentError",
    "FileContent",
    "fenced",
    "read_reference",
    "size_text",
]

MAX_TEXT_BYTES = 256 * 1024
"""Largest text file attached, in bytes (256 KiB)."""
MAX_TOTAL_TEXT_BYTES = 1024 * 1024
"""Most text attached to one prompt, in bytes (1 MiB): files, listings and resources."""
MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Largest image attached, in bytes (5 MiB, Anthropic's per-image limit)."""
MAX_LISTING_ENTRIES = 200
"""Entries shown of a directory; the rest are counted (up to :data:`_MAX_SCANNED`)."""
_MAX_SCANNED = 10_000

_BINARY = "it is a binary file (not UTF-8 text, nor a PNG, JPEG, GIF or WebP image)"


class AttachmentError(RobotaError):
    """An ``@`` reference cannot be attached; nothing of its prompt should be sent.

    The message reads ``cannot attach @x: <reason>``, non-printable characters escaped.

    Attributes:
        reference: The reference as written (``@src/app.py``, ``@"a b.png"``).
        reason: Why, in words (``it is outside the workspace``, ``it is 300 KB; the limit
            for a text file is 256 KB``).
    """

    code = "attachment"
    default_category = ErrorCategory.USER

    def __init__(self, reference: str, reason: str) -> None:
        super().__init__(f"cannot attach {shown(reference)}: {shown(reason)}")
        self.reference = reference
        self.reason = reason


@dataclass(frozen=True, kw_only=True, slots=True)
class FileContent:
    """What was read for a reference.

    Attributes:
        shown: The path relative to the workspace (a directory ends with ``/``; the root is
            ``./``), non-printable characters escaped (``\\x1b``, ``\\udcff`` for a byte that
            is not UTF-8).
        kind: ``text`` (UTF-8 bytes), ``image`` or ``directory`` (the listing, UTF-8).
        data: The bytes read.
        media_type: ``text/plain``, or the image's type (``image/png``, ``image/jpeg``,
            ``image/gif``, ``image/webp``).
        escaped: True when :attr:`shown` had characters escaped (the prompt quotes it).
        via: The path as written, escaped, when it led elsewhere through a symlink (its
            resolved spelling differs from :attr:`shown`); else None.
    """

    shown: str
    kind: Literal["text", "image", "directory"]
    data: bytes
    media_type: str
    escaped: bool = False
    via: str | None = None


def size_text(size: int) -> str:
    """``size`` bytes in words: ``812 B``, ``3.1 KB``, ``5 MB`` (1 KB = 1024 bytes)."""
    if size < 1024:
        return f"{size} B"
    for unit, scale in (("KB", 1024), ("MB", 1024 * 1024)):
        if size < scale * 1024 or unit == "MB":
            return f"{size / scale:.1f}".removesuffix(".0") + f" {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


def fenced(text: str) -> str:
    """``text`` in a Markdown code fence longer than any run of backticks inside it."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    newline = "" if not text or text.endswith("\n") else "\n"
    return f"{fence}\n{text}{newline}{fence}"


def read_reference(
    workspace: Path, target: str, written: str, *, private: Collection[Path] = ()
) -> FileContent | None:
    """Read what ``target`` names inside ``workspace`` (blocking: run it in a worker thread).

    Args:
        workspace: The workspace root.
        target: The path, relative to the root or absolute.
        written: The reference as written, for the error.
        private: Folders never attached, even inside the workspace (the Robota home): what
            is opened must not lie under one of them (judged on the opened descriptor's real
            path, so a symlink into one is refused too).

    Returns:
        The content, or None when nothing is there (the reference stays text).

    Raises:
        AttachmentError: see :func:`robota.cli.attachments.expand_references`.
    """
    try:
        root = canonical_path(workspace)
        path = resolve_inside(root, target)
    except PathOutsideRootError:
        raise AttachmentError(written, "it is outside the workspace") from None
    except InvalidPathError as error:
        raise AttachmentError(written, error.message) from error
    try:
        info = _lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise AttachmentError(written, _reason(error)) from error
    if stat.S_ISLNK(info.st_mode):  # resolve_inside resolved every link: this one is new
        raise AttachmentError(written, CHANGED)
    directory = stat.S_ISDIR(info.st_mode)
    if not (directory or stat.S_ISREG(info.st_mode)):
        raise AttachmentError(written, f"it is a {kind_of(info.st_mode)}, not a file")
    try:
        opened = open_inside(root, path, directory=directory)
    except OpenRefused as error:
        raise AttachmentError(written, error.reason) from error
    try:
        _refuse_private(opened.real, private, written)
        relative = opened.relative
        spelled = os.path.normpath(os.path.join(root, target))  # the path before links
        via = None if spelled == opened.real else shown(target)
        if directory:
            name = f"{relative}/" if relative else "./"
            return _listing(opened.fd, shown(name), escaped=shown(name) != name, via=via)
        os.set_blocking(opened.fd, True)
        name = shown(relative)
        return _file(opened.fd, opened.info, name, written, escaped=name != relative, via=via)
    finally:
        os.close(opened.fd)


def _lstat(path: Path) -> os.stat_result:
    """``lstat`` of the resolved path (a seam: tests change the entry right after it)."""
    return os.lstat(path)


def _refuse_private(real: str, private: Collection[Path], written: str) -> None:
    """Refuse ``real`` (an opened descriptor's path) when it lies in a private folder."""
    for folder in private:
        top = os.path.realpath(folder)
        if real == top or real.startswith(top.rstrip("/") + "/"):
            raise AttachmentError(
                written, f"it is in {top}, the folder Robota keeps private; never attached"
            )


def _file(
    fd: int, info: os.stat_result, name: str, written: str, *, escaped: bool, via: str | None
) -> FileContent:
    media_type = image_media_type(os.pread(fd, IMAGE_SNIFF_BYTES, 0))
    limit = MAX_IMAGE_BYTES if media_type else MAX_TEXT_BYTES
    what = "an image" if media_type else "a text file"
    if info.st_size > limit:
        raise AttachmentError(written, _too_large(info.st_size, what, limit))
    data = _read_up_to(fd, limit + 1)
    if len(data) > limit:  # it grew since fstat
        raise AttachmentError(written, _too_large(len(data), what, limit))
    if media_type is not None:
        return FileContent(
            shown=name, kind="image", data=data, media_type=media_type, escaped=escaped, via=via
        )
    if b"\0" in data:
        raise AttachmentError(written, _BINARY)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise AttachmentError(written, _BINARY) from None
    return FileContent(
        shown=name, kind="text", data=data, media_type="text/plain", escaped=escaped, via=via
    )


def _listing(fd: int, name: str, *, escaped: bool, via: str | None) -> FileContent:
    """The listing of the open directory ``fd``, each entry's name escaped (a name holding a
    newline stays one line; one that is not UTF-8 is shown with surrogate escapes)."""
    names: list[str] = []
    more = False
    with os.scandir(fd) as entries:
        for entry in entries:
            if len(names) >= _MAX_SCANNED:
                more = True
                break
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            names.append(shown(entry.name) + ("/" if is_dir else ""))
    names.sort()
    lines = names[:MAX_LISTING_ENTRIES]
    rest = len(names) - len(lines)
    if rest or more:
        lines.append(f"… and {rest}{'+' if more else ''} more")
    data = ("\n".join(lines) if lines else "(empty)").encode()
    return FileContent(
        shown=name, kind="directory", data=data, media_type="text/plain", escaped=escaped, via=via
    )


def _too_large(size: int, what: str, limit: int) -> str:
    return f"it is {size_text(size)}; the limit for {what} is {size_text(limit)}"


def _read_up_to(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while offset < size:
        chunk = os.pread(fd, min(1 << 20, size - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _reason(error: OSError) -> str:
    return error.strerror or str(error)
