r"""Text that someone else chose (a model's answer, a tool's result, a tool call's arguments, an
MCP server's names and descriptions, a session title), made safe to write to a terminal.

One rule for all of it, :func:`shown`: a character that could make the terminal do something
instead of showing it — or show something other than the text — is written as its Python
escape (``\x1b``, ``\x9b``, ``\u202e``), so the reader sees that it is there and the terminal
does nothing with it. Those characters are:

* C0 controls (ESC, CR, BS, BEL, ...), DEL and the C1 controls (``\x80``-``\x9f``: ``\x9b``
  is a CSI on many terminals); ``\n`` and ``\t`` are kept when the caller lays text out in
  lines (``keep_lines=True``);
* format characters (Unicode category Cf): bidirectional overrides, embeddings and isolates
  (U+202A-U+202E, U+2066-U+2069), marks (U+200E, U+200F, U+061C), zero-width space, joiners
  and the word joiner, the BOM, soft hyphen, tag characters; a zero-width joiner between two
  symbols (an emoji sequence such as 👩‍💻) is kept;
* the line and paragraph separators (U+2028, U+2029) and lone surrogates.

Everything else, spaces of every script and private-use characters included, passes unchanged.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["shown"]

_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_ZWJ = "\u200d"
_SUSPECT = re.compile(r"[^\x20-\x7e]+")
"""Runs of characters that are not printable ASCII: only these are looked at one by one."""


def _escape(char: str) -> str:
    return char.encode("unicode_escape", "backslashreplace").decode("ascii")


def _symbol(char: str) -> bool:
    return unicodedata.category(char) in ("So", "Sk") or char == "\ufe0f"


def shown(text: str, *, keep_lines: bool = False) -> str:
    r"""``text`` with every character a terminal would act on written as its escape.

    Args:
        text: Text someone else chose.
        keep_lines: Keep ``\n`` and ``\t`` (the caller lays the text out in lines); a ``\r``
            before ``\n`` or at the end of ``text`` is then dropped (a CRLF line end, perhaps
            split between two chunks of a stream). False: they are escaped too (one line).

    Returns:
        The text as it may be written to a terminal; ``text`` itself when nothing is escaped.

    Example:
        >>> shown("srv \x1b[2K\r\u202eok")
        'srv \\x1b[2K\\r\\u202eok'
        >>> shown("a\r\nb\tc\x9b", keep_lines=True)
        'a\nb\tc\\x9b'
    """
    if text.isascii() and text.isprintable():
        return text

    def replace(match: re.Match[str]) -> str:
        run = match.group()
        start = match.start()
        out: list[str] = []
        for index, char in enumerate(run):
            if keep_lines and char in "\n\t":
                out.append(char)
            elif (
                keep_lines and char == "\r" and text[start + index + 1 : start + index + 2] in "\n"
            ):
                continue  # a CRLF line end, or a CR closing the chunk
            elif unicodedata.category(char) not in _ESCAPED_CATEGORIES or (
                char == _ZWJ
                and 0 < start + index < len(text) - 1
                and _symbol(text[start + index - 1])
                and _symbol(text[start + index + 1])
            ):
                out.append(char)
            else:
                out.append(_escape(char))
        return "".join(out)

    return _SUSPECT.sub(replace, text)
