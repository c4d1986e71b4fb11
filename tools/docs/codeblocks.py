"""Run the Python code blocks of Markdown files, offline, and report each one.

Usage::

    python tools/docs/codeblocks.py run FILE.md [FILE.md ...]

Every fenced block tagged ```python or ```py is executed with ``exec`` in a fresh module
namespace, from a temporary working directory (deleted afterwards), with ``os.environ`` restored
and the network closed to anything but loopback while it runs. A block preceded (blank lines
aside) by an HTML comment ``<!-- not-run: reason -->`` is skipped and reported with its reason.
A ``<!-- not-typed: reason -->`` comment (alone, or on its own line next to a ``not-run`` one)
keeps a block out of ``tests-integration/test_docs_typecheck.py``'s strict type check; a
``not-run`` block is still type-checked.
A block whose first line starts with ``>>>`` is a doctest: its examples run
and their output must match (``ELLIPSIS`` on). Other languages (```bash, ```toml…) are never run.

One line per block: ``ok FILE:LINE``, ``skip FILE:LINE (reason)`` or ``FAIL FILE:LINE`` followed by
the traceback, whose frames name the Markdown file's own line numbers. The exit status is 1 when
any block fails or a file has a fence that is never closed, 2 on a usage error, otherwise 0.

Standard library only; ``tests-integration/test_package_readmes.py`` and
``tests-integration/test_docs_blocks.py`` use the same extractor and runner.
"""

from __future__ import annotations

import argparse
import contextlib
import doctest
import io
import ipaddress
import os
import re
import socket
import sys
import tempfile
import traceback
import types
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "PYTHON_LANGS",
    "Block",
    "BlockOutcome",
    "extract_blocks",
    "main",
    "offline",
    "python_blocks",
    "run_block",
]

PYTHON_LANGS = frozenset({"python", "py"})
"""The fence language tags whose blocks are executed."""

_FENCE = re.compile(r"^```(?P<lang>[A-Za-z0-9_+-]*)[ \t]*$")
_NOT_RUN = re.compile(r"^<!--\s*not-run:\s*(?P<reason>\S.*?)\s*-->$")
_NOT_TYPED = re.compile(r"^<!--\s*not-typed:\s*(?P<reason>\S.*?)\s*-->$")


@dataclass(frozen=True, kw_only=True, slots=True)
class Block:
    """One fenced code block of a Markdown file.

    Attributes:
        path: The file's name as given to :func:`extract_blocks` (used in reports and
            tracebacks).
        line: 1-based line of the opening fence.
        lang: The fence's language tag (``""`` when none).
        code: The block's text, ending with a newline.
        not_run: The reason from a preceding ``<!-- not-run: ... -->`` comment, or None.
        not_typed: The reason from a preceding ``<!-- not-typed: ... -->`` comment, or None
            (such a block is left out of the docs' strict type check).
    """

    path: str
    line: int
    lang: str
    code: str
    not_run: str | None
    not_typed: str | None = None

    @property
    def is_python(self) -> bool:
        """Whether the block is tagged ```python or ```py."""
        return self.lang in PYTHON_LANGS


@dataclass(frozen=True, kw_only=True, slots=True)
class BlockOutcome:
    """What running one block gave.

    Attributes:
        block: The block.
        status: ``"ok"``, ``"skip"`` (a ``not-run`` block) or ``"FAIL"``.
        detail: The traceback for a failure, the reason for a skip, ``""`` otherwise.
    """

    block: Block
    status: str
    detail: str


def extract_blocks(path: str, text: str) -> list[Block]:
    """The fenced blocks of ``text``, in order.

    A fence is a line starting (unindented) with three backticks and an optional language tag;
    it closes at the next line that is exactly three backticks (surrounding spaces ignored).
    The ``not-run`` and ``not-typed`` markers are read from the comment lines just above the
    fence (blank lines between them ignored), in either order.

    Args:
        path: The file's name, recorded in each block and in error messages.
        text: The Markdown text.

    Returns:
        Every block, whatever its language.

    Raises:
        ValueError: for a fence that is never closed (``"PATH:LINE: unclosed code fence"``).
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
        markers = _markers_above(lines, start)
        body: list[str] = []
        index += 1
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index])
            index += 1
        if index >= len(lines):
            raise ValueError(f"{path}:{start + 1}: unclosed code fence")
        blocks.append(
            Block(
                path=path,
                line=start + 1,
                lang=opening.group("lang"),
                code="\n".join(body) + "\n",
                not_run=markers.get("not_run"),
                not_typed=markers.get("not_typed"),
            )
        )
        index += 1
    return blocks


def _markers_above(lines: list[str], start: int) -> dict[str, str]:
    """The ``not-run`` / ``not-typed`` reasons of the marker comments just above line ``start``."""
    found: dict[str, str] = {}
    for line in reversed(lines[:start]):
        stripped = line.strip()
        if not stripped:
            continue
        not_run = _NOT_RUN.match(stripped)
        not_typed = _NOT_TYPED.match(stripped)
        if not_run is not None and "not_run" not in found:
            found["not_run"] = not_run.group("reason")
        elif not_typed is not None and "not_typed" not in found:
            found["not_typed"] = not_typed.group("reason")
        else:
            break
    return found


def python_blocks(path: str, text: str) -> list[Block]:
    """The ```python / ```py blocks of ``text`` (see :func:`extract_blocks`).

    Raises:
        ValueError: for a fence that is never closed.
    """
    return [block for block in extract_blocks(path, text) if block.is_python]


def _is_loopback(host: object) -> bool:
    if host is None:
        return True
    name = host.decode() if isinstance(host, bytes) else str(host)
    if name in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(name.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


@contextlib.contextmanager
def offline() -> Generator[None]:
    """Refuse name resolution and connections to anything but loopback while inside.

    Raises (inside the block):
        OSError: for ``socket.getaddrinfo`` or ``socket.socket.connect`` towards a
            non-loopback host.
    """
    real_getaddrinfo = socket.getaddrinfo
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_loopback(host):
            raise OSError(f"network disabled while running documentation blocks: {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    def _check(address: Any) -> None:
        if isinstance(address, tuple) and address and not _is_loopback(address[0]):
            raise OSError(f"network disabled while running documentation blocks: {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        _check(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _check(address)
        return real_connect_ex(self, address)

    socket.getaddrinfo = getaddrinfo
    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.getaddrinfo = real_getaddrinfo
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]


def exec_block(block: Block, filename: str) -> None:
    """Execute one block in a fresh module namespace, from a temporary working directory.

    ``os.environ`` and the working directory are restored afterwards and the temporary
    directory is deleted; the network is closed to non-loopback hosts while it runs.

    Args:
        block: The block to run (its ``not_run`` marker is not consulted here).
        filename: The name compiled into the code object, so tracebacks name this file at the
            Markdown file's own line numbers.

    Raises:
        BaseException: whatever the block raises.
    """
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    # a real module in sys.modules while the block runs, as a program's own module would be
    # (dataclasses and pydantic look a class's module up there to resolve its annotations)
    module = types.ModuleType(f"docs_block_{block.line}")
    namespace: dict[str, object] = module.__dict__
    # pad so line numbers in tracebacks are the Markdown file's own (the code starts on the
    # line after the fence)
    source = "\n" * block.line + block.code
    is_doctest = block.code.lstrip().startswith(">>>")
    code = None if is_doctest else compile(source, filename, "exec")
    with tempfile.TemporaryDirectory(prefix="docs-block-") as workdir:
        os.chdir(workdir)
        sys.modules[module.__name__] = module
        try:
            with offline():
                if code is None:
                    _run_doctest(block, filename, namespace)
                else:
                    exec(code, namespace)
        finally:
            sys.modules.pop(module.__name__, None)
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)


def _run_doctest(block: Block, filename: str, namespace: dict[str, object]) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(
        block.code, namespace, f"{filename}:{block.line}", filename, block.line
    )
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS, verbose=False)
    runner.run(test, out=report.write, clear_globs=False)
    if runner.failures:
        raise AssertionError(f"{runner.failures} doctest example(s) failed:\n{report.getvalue()}")


def run_block(block: Block, filename: str | None = None) -> BlockOutcome:
    """Run one block (see :func:`exec_block`) and say how it went; never raises.

    Args:
        block: The block.
        filename: The name for tracebacks; ``block.path`` when None.

    Returns:
        ``skip`` for a ``not-run`` block, ``FAIL`` with the traceback when it raised (including
        ``SystemExit`` and ``KeyboardInterrupt``), else ``ok``.
    """
    if block.not_run is not None:
        return BlockOutcome(block=block, status="skip", detail=block.not_run)
    try:
        exec_block(block, filename or block.path)
    except BaseException as exc:
        tb = exc.__traceback__
        # drop this runner's own frames: the report starts at the block
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next
        detail = "".join(traceback.format_exception(type(exc), exc, tb))
        return BlockOutcome(block=block, status="FAIL", detail=detail)
    return BlockOutcome(block=block, status="ok", detail="")


def _run_files(files: Sequence[str]) -> int:
    failed = 0
    for name in files:
        path = Path(name)
        try:
            text = path.read_text(encoding="utf-8")
            blocks = python_blocks(name, text)
        except (OSError, ValueError) as exc:
            print(f"FAIL {exc}" if isinstance(exc, ValueError) else f"FAIL {name}: {exc}")
            failed += 1
            continue
        filename = str(path.resolve())
        for block in blocks:
            outcome = run_block(block, filename)
            where = f"{name}:{block.line}"
            if outcome.status == "ok":
                print(f"ok {where}", flush=True)
            elif outcome.status == "skip":
                print(f"skip {where} ({outcome.detail})", flush=True)
            else:
                failed += 1
                print(f"FAIL {where}\n{outcome.detail.rstrip()}", flush=True)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``run FILE.md [FILE.md ...]``.

    Returns:
        0 when every block ran (or was skipped), 1 when one failed or a fence is unclosed.
    """
    parser = argparse.ArgumentParser(
        prog="codeblocks.py", description="Run the Python blocks of Markdown files, offline."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="execute every ```python / ```py block")
    run.add_argument("files", nargs="+", metavar="FILE.md")
    args = parser.parse_args(argv)
    files: list[str] = args.files
    return _run_files(files)


if __name__ == "__main__":
    sys.exit(main())
