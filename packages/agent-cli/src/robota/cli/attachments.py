"""``@path`` references in a prompt, attached as context (issue #18).

A line typed to ``robota chat`` or given to ``robota run`` may name files of the workspace:
``explain @src/app.py`` or ``what is in @"screen shot.png"?``. :func:`expand_references` finds
them and returns the prompt's parts: the line as typed, then each file's content.

Syntax (:func:`parse_references`):

* ``@path``: an ``@`` at the start of the line or after whitespace or ``(``, ``[``, ``{``,
  followed by the path up to the next whitespace. Trailing ``.``, ``,``, ``;``, ``:``, ``!``,
  ``?``, quotes and closing brackets are not part of the path (``see @README.md.``); quote a
  path that ends with one.
* ``@"path with spaces"``: a quoted path (no escapes inside; a ``"`` ends it). An unterminated
  quote is not a reference.
* ``a@b.com`` (an ``@`` inside a word) is not a reference, nor is ``\\@x``, which reads as
  ``@x`` with the backslash dropped.
* ``@server:uri``, where ``server`` is the name of a configured MCP server, is that server's
  resource, read through the ``resource_reader`` the host passes.

What is attached (all checks happen where the file is opened, :mod:`._attach_files`):

* A reference that names nothing in the workspace is left as text and listed in
  :attr:`Attachments.unresolved` (as Claude Code does: ``@dataclass`` or ``@team`` in a
  prompt are words, not mistakes); the CLI says it was sent as text.
* A path that leads outside the workspace (``..``, an absolute path elsewhere, a symlink out,
  ``/proc/self/root/...``) is refused with :class:`AttachmentError`, whether or not it exists;
  so is a FIFO, socket or device (before anything is read, so nothing blocks).
* A UTF-8 text file is inlined as a fenced block headed by its path relative to the workspace
  (at most :data:`MAX_TEXT_BYTES` per file, :data:`MAX_TOTAL_TEXT_BYTES` of text per prompt;
  over a limit is an :class:`AttachmentError`, never a silent cut).
* A PNG, JPEG, GIF or WebP image, known by its first bytes whatever its extension, is attached
  as a :class:`~robota.core.messages.MediaPart` (``media_kind="image"``; at most
  :data:`MAX_IMAGE_BYTES`). Any other binary file is refused.
* A directory is attached as a listing of its entries, sorted, at most
  :data:`MAX_LISTING_ENTRIES` of them (directories end with ``/``; the rest is counted).
* Nothing in a ``private`` folder is attached (the CLI passes the Robota home, which holds the
  credentials, sessions and history), even when the workspace holds it (a chat started in the
  home folder) or a symlink leads into it.
* Names are shown with non-printable characters escaped (:func:`robota.cli.mcp_view.shown`), in
  the notices and in the prompt; a heading quotes a name that had characters escaped
  (``Attached file "a\\nb.md":``). A reference that reached its file through a symlink is
  noticed as ``notes.md → docs/notes.md (3 KB)``.

Example:
    >>> parsed = parse_references('fix @src/app.py, see @"my notes.md" and mail a@b.com \\\\@x')
    >>> [reference.target for reference in parsed.references]
    ['src/app.py', 'my notes.md']
    >>> parsed.text
    'fix @src/app.py, see @"my notes.md" and mail a@b.com @x'
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal, cast

import anyio.to_thread
from robota.cli._attach_files import (
    MAX_IMAGE_BYTES,
    MAX_LISTING_ENTRIES,
    MAX_TEXT_BYTES,
    MAX_TOTAL_TEXT_BYTES,
    AttachmentError,
    FileContent,
    fenced,
    read_reference,
    size_text,
)
from robota.cli.terminal_text import shown
from robota.cli.turn import say
from robota.core.messages import MediaPart, TextPart

if TYPE_CHECKING:
    from robota.framework.interactive import InteractiveSession

__all__ = [
    "MAX_IMAGE_BYTES",
    "MAX_LISTING_ENTRIES",
    "MAX_TEXT_BYTES",
    "MAX_TOTAL_TEXT_BYTES",
    "Attached",
    "AttachmentError",
    "Attachments",
    "ParsedLine",
    "Reference",
    "ResourceReader",
    "expand_references",
    "parse_references",
    "prompt_for",
]

ResourceReader = Callable[[str, str], Awaitable[Sequence[TextPart | MediaPart]]]
"""``await reader(server, uri)``: the parts of an MCP server's resource (text and media)."""

AttachedKind = Literal["text", "image", "directory", "resource"]

_OPENERS = "([{"
_TRAILING = ".,;:!?'\")]}"
_SERVER = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.-]*):(.+)", re.DOTALL)


@dataclass(frozen=True, kw_only=True, slots=True)
class Reference:
    """One ``@`` reference found in a line.

    Attributes:
        target: The path (or ``server:uri``) it names, quotes removed.
        written: The reference as it stands in :attr:`ParsedLine.text` (``@a.md``,
            ``@"a b.md"``).
    """

    target: str
    written: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedLine:
    """A line with its references found.

    Attributes:
        text: The line as the model reads it: as typed, with ``\\@`` turned into ``@``.
        references: The references, in order (a target named twice is listed twice).
    """

    text: str
    references: tuple[Reference, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class Attached:
    """One thing attached to a prompt.

    Attributes:
        shown: The path relative to the workspace (a directory ends with ``/``), or
            ``server:uri``; non-printable characters escaped.
        kind: ``text``, ``image``, ``directory`` or ``resource``.
        size: Bytes read (for a directory: the listing's text).
        via: The path as written (escaped) when a symlink led from it to :attr:`shown`, else
            None. Not compared: two attachments of one file are equal however named.
    """

    shown: str
    kind: AttachedKind
    size: int
    via: str | None = field(default=None, compare=False)

    def describe(self) -> str:
        """``README.md (3.1 KB)``, ``shot.png (image, 40 KB)``, ``notes.md → docs/a.md (3
        KB)``: as the notice shows it."""
        name = self.shown if self.via is None else f"{self.via} → {self.shown}"
        if self.kind == "text":
            return f"{name} ({size_text(self.size)})"
        return f"{name} ({self.kind}, {size_text(self.size)})"


@dataclass(frozen=True, kw_only=True, slots=True)
class Attachments:
    """A line with its references expanded.

    Attributes:
        text: The line as the model reads it (see :attr:`ParsedLine.text`).
        parts: The user message's parts: ``text`` first, then each attachment (a text part
            heading it, then its fenced text or its image).
        attached: What was attached, in order (each target once).
        unresolved: References that name nothing, left as text (as written, e.g. ``@foo``).
    """

    text: str
    parts: tuple[TextPart | MediaPart, ...]
    attached: tuple[Attached, ...]
    unresolved: tuple[str, ...] = ()

    @property
    def prompt(self) -> str | tuple[TextPart | MediaPart, ...]:
        """What to submit: :attr:`text` alone when nothing was attached, else :attr:`parts`."""
        return self.parts if self.attached else self.text

    def notices(self) -> tuple[str, ...]:
        """One line for what was attached and one for what was sent as text (none when the
        line had no references), e.g. ``attached: README.md (3.1 KB), shot.png (image, 40
        KB)``."""
        lines: list[str] = []
        if self.attached:
            lines.append("attached: " + ", ".join(a.describe() for a in self.attached))
        if self.unresolved:
            unresolved = ", ".join(shown(written) for written in self.unresolved)
            lines.append("sent as text (no such file): " + unresolved)
        return tuple(lines)


def parse_references(line: str) -> ParsedLine:
    """Find the ``@`` references of ``line`` (syntax: see the module docstring).

    Never raises: what is not a reference is text.
    """
    out: list[str] = []
    references: list[Reference] = []
    index = 0
    while index < len(line):
        char = line[index]
        if char == "\\" and line.startswith("@", index + 1):
            out.append("@")
            index += 2
            continue
        before = line[index - 1] if index > 0 else " "
        if char != "@" or not (before.isspace() or before in _OPENERS):
            out.append(char)
            index += 1
            continue
        target, length = _reference_at(line, index)
        if not target:
            out.append(char)
            index += 1
            continue
        written = line[index : index + length]
        references.append(Reference(target=target, written=written))
        out.append(written)
        index += length
    return ParsedLine(text="".join(out), references=tuple(references))


def _reference_at(line: str, index: int) -> tuple[str, int]:
    """The target of the ``@`` at ``index`` and the reference's length ("" when none)."""
    if line.startswith('"', index + 1):
        end = line.find('"', index + 2)
        if end < 0:
            return "", 0
        return line[index + 2 : end], end + 1 - index
    end = index + 1
    while end < len(line) and not line[end].isspace():
        end += 1
    token = line[index + 1 : end]
    if token.strip("./"):  # `@.` and `@..` keep their dots
        token = token.rstrip(_TRAILING)
    return token, 1 + len(token)


@dataclass(kw_only=True, slots=True)
class _Collected:
    parts: list[TextPart | MediaPart]
    attached: list[Attached]
    unresolved: list[str]
    text_bytes: int = 0

    def add_text(self, reference: Reference, size: int) -> None:
        total = self.text_bytes + size
        if total > MAX_TOTAL_TEXT_BYTES:
            raise AttachmentError(
                reference.written,
                f"the attached text would be {size_text(total)}; at most "
                f"{size_text(MAX_TOTAL_TEXT_BYTES)} of text is attached to one prompt",
            )
        self.text_bytes = total


async def expand_references(
    line: str,
    *,
    workspace: Path,
    resource_reader: ResourceReader | None = None,
    mcp_servers: Collection[str] = (),
    private: Collection[Path] = (),
) -> Attachments:
    """Expand the ``@`` references of ``line`` into attached context (see the module
    docstring for the syntax and the rules).

    Args:
        line: The prompt as typed.
        workspace: The workspace root; every path must stay inside it.
        resource_reader: Reads an MCP resource (``await reader(server, uri)``); without one an
            ``@server:uri`` reference is refused.
        mcp_servers: The configured MCP server names: ``@name:uri`` is a resource reference
            only for these.
        private: Folders never attached, even inside the workspace or through a symlink (the
            CLI passes the Robota home and the sandbox's hidden paths); judged on the real
            path of what was opened.

    Returns:
        The parts to submit and what was attached; a target named twice is attached once.

    Raises:
        AttachmentError: A reference cannot be attached (outside the workspace, in a private
            folder, too large, binary, not a regular file or directory, unreadable, or its MCP
            read failed). It
            names the reference and the reason; nothing of the line should be sent.
    """
    parsed = parse_references(line)
    collected = _Collected(parts=[TextPart(text=parsed.text)], attached=[], unresolved=[])
    seen: set[str] = set()
    for reference in parsed.references:
        if reference.target in seen:
            continue
        seen.add(reference.target)
        match = _SERVER.fullmatch(reference.target)
        if match is not None and match.group(1) in mcp_servers:
            await _attach_resource(
                collected, reference, match.group(1), match.group(2), resource_reader
            )
            continue
        content = await anyio.to_thread.run_sync(
            partial(read_reference, private=private),
            workspace,
            reference.target,
            reference.written,
        )
        if content is None:
            collected.unresolved.append(reference.written)
            continue
        _attach_file(collected, reference, content)
    return Attachments(
        text=parsed.text,
        parts=tuple(collected.parts),
        attached=tuple(collected.attached),
        unresolved=tuple(collected.unresolved),
    )


def _attach_file(collected: _Collected, reference: Reference, content: FileContent) -> None:
    label = f'"{content.shown}"' if content.escaped else content.shown
    if content.kind == "image":
        collected.parts.append(TextPart(text=f"Attached image {label}:"))
        collected.parts.append(
            MediaPart(
                media_kind="image",
                media_type=content.media_type,
                data=content.data,
                name=content.shown,
            )
        )
    else:
        collected.add_text(reference, len(content.data))
        heading = "Attached file" if content.kind == "text" else "Listing of directory"
        body = content.data.decode("utf-8")
        collected.parts.append(TextPart(text=f"{heading} {label}:\n{fenced(body)}"))
    collected.attached.append(
        Attached(shown=content.shown, kind=content.kind, size=len(content.data), via=content.via)
    )


async def _attach_resource(
    collected: _Collected,
    reference: Reference,
    server: str,
    uri: str,
    reader: ResourceReader | None,
) -> None:
    if reader is None:
        raise AttachmentError(reference.written, "this session cannot read MCP resources")
    try:
        parts = tuple(await reader(server, uri))
    except Exception as error:  # an MCP failure of any kind is said, not raised through
        raise AttachmentError(reference.written, str(error) or type(error).__name__) from error
    name = shown(f"{server}:{uri}")
    kept: list[TextPart | MediaPart] = [TextPart(text=f"Attached resource {name}:")]
    text_size = size = 0
    for part in parts:
        if isinstance(part, TextPart):
            text_size += len(part.text.encode())
            kept.append(TextPart(text=fenced(part.text)))
            continue
        data = part.data or b""
        if len(data) > MAX_IMAGE_BYTES:
            raise AttachmentError(
                reference.written,
                f"its {part.media_kind} is {size_text(len(data))}; the limit is "
                f"{size_text(MAX_IMAGE_BYTES)}",
            )
        size += len(data)
        kept.append(part)
    if text_size > MAX_TEXT_BYTES:
        raise AttachmentError(
            reference.written,
            f"its text is {size_text(text_size)}; the limit is {size_text(MAX_TEXT_BYTES)}",
        )
    collected.add_text(reference, text_size)
    collected.parts.extend(kept)
    collected.attached.append(Attached(shown=name, kind="resource", size=size + text_size))


async def prompt_for(
    session: InteractiveSession, line: str
) -> str | tuple[TextPart | MediaPart, ...] | None:
    """What ``robota chat`` and ``robota run`` submit for ``line``: its references expanded
    against the session's workspace and MCP servers (``session.read_mcp_resource`` when the
    session has it), the session's ``sandbox_hidden_paths`` (the Robota home) never attached,
    the notices said on standard error (``robota: attached: ...``).

    Returns:
        The prompt (text alone when nothing was attached), or None after saying
        ``robota: cannot attach @x: <reason>`` when a reference cannot be attached: then
        nothing of the line is to be sent.
    """
    reader = cast("ResourceReader | None", getattr(session, "read_mcp_resource", None))
    try:
        attachments = await expand_references(
            line,
            workspace=session.workspace.root,
            resource_reader=reader,
            mcp_servers=[server.name for server in session.mcp_servers],
            private=tuple(session.config.sandbox_hidden_paths),
        )
    except AttachmentError as error:
        say(error.message)
        return None
    for notice in attachments.notices():
        say(notice)
    return attachments.prompt
