"""The model's answer as Markdown, read the way a person must see it: ``rich``'s
:class:`~rich.markdown.Markdown` with two changes.

* Raw HTML is text. ``rich`` drops HTML blocks and inline HTML, so ``List<String>`` or a
  ``<details>`` block would vanish from the answer; here an HTML block is shown as a literal
  code block and inline HTML as its literal text.
* A link whose text is not its target is followed by the target in parentheses
  (``[https://pypi.org/x](https://evil.test/x)`` shows ``https://evil.test/x`` too), and so is
  an image's source: the text cannot say one address while a click opens another.

The text itself must already be safe for a terminal
(:func:`~robota.cli.terminal_text.shown`); :class:`~robota.cli.tui.markdown_stream.MarkdownStream`
does that as it is fed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from markdown_it.token import Token  # rich's parser (declared: the tokens are read here)
from rich.markdown import Markdown as RichMarkdown

__all__ = ["Markdown"]


def _visible(tokens: list[Token]) -> str:
    return "".join(t.content for t in tokens if t.type in ("text", "code_inline"))


def _target_shown(tokens: list[Token]) -> list[Token]:
    """The inline ``tokens`` with `` (target)`` after each link or image whose visible text
    is not its target, and inline HTML turned into text."""
    out: list[Token] = []
    opened: list[tuple[int, str]] = []  # (index in out of the link's first child, href)
    for token in tokens:
        if token.type == "html_inline":
            token = dataclasses.replace(token, type="text")
        out.append(token)
        if token.type == "link_open":
            opened.append((len(out), str(token.attrs.get("href", ""))))
        elif token.type == "link_close" and opened:
            first, href = opened.pop()
            _note_target(out, _visible(out[first:-1]), href, token)
        elif token.type == "image":
            src = str(token.attrs.get("src", ""))
            _note_target(out, _visible(list(token.children or [])), src, token)
    return out


def _note_target(out: list[Token], text: str, target: str, like: Token) -> None:
    text = text.strip()
    if target and target not in (text, f"mailto:{text}"):
        note = dataclasses.replace(
            like, type="text", tag="", nesting=0, attrs={}, children=None, content=f" ({target})"
        )
        out.append(note)


class Markdown(RichMarkdown):
    """``rich``'s Markdown with HTML shown as text and link targets shown (see the module).

    Args:
        markup: The Markdown text.
        **options: ``rich.markdown.Markdown``'s other arguments (``code_theme``, ...).
    """

    def __init__(self, markup: str, **options: Any) -> None:
        super().__init__(markup, **options)
        tokens: list[Token] = []
        for token in self.parsed:
            if token.type == "html_block":
                token = dataclasses.replace(token, type="code_block", tag="code", info="")
            elif token.type == "inline" and token.children:
                token = dataclasses.replace(token, children=_target_shown(token.children))
            tokens.append(token)
        self.parsed = tokens
