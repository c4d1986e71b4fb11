"""Generating a session title (seed 003, "The session names itself once, and only with text":
"The title-generation call always disables tool use, so hosted web tools can never be invoked
merely to generate a title").

:func:`generate_title` makes one provider call with no function tools, no hosted tools and
``tool_choice="none"``, a neutral instruction and a small output budget, then cleans the answer
with :func:`clean_title` into one line of at most :data:`MAX_TITLE_CHARS` characters without
quotes.
"""

from __future__ import annotations

import re

from robota.core.errors import ErrorCategory, RobotaError
from robota.core.messages import SystemMessage, UserMessage
from robota.core.provider import ModelRequest, Provider
from robota.core.settings import ModelSettings

__all__ = ["MAX_TITLE_CHARS", "TITLE_INSTRUCTION", "TitleError", "clean_title", "generate_title"]

MAX_TITLE_CHARS = 60
"""Longest title kept, in characters."""

TITLE_INSTRUCTION = (
    "Write a short title (3 to 7 words) for the conversation below, in the language of the "
    "user's message. Reply with the title only: no quotes, no punctuation at the end, no "
    "explanation."
)
"""The neutral instruction sent as the system message."""

_QUOTES = "\"'`\u201c\u201d\u2018\u2019\u00ab\u00bb\u300c\u300d"
_INNER_QUOTES = re.compile('["`\u201c\u201d\u00ab\u00bb\u300c\u300d]')
_PREFIX = re.compile(r"^(?:title|session title)\s*[:\-\u2013\u2014]\s*", re.IGNORECASE)
_MARKERS = re.compile(r"^(?:[#>*_\-\u2022]+\s*)+")
_TRAILING = ".:;,!-\u2013\u2014 "


class TitleError(RobotaError):
    """The model's answer held no usable title (empty after cleaning)."""

    code = "title_empty"
    default_category = ErrorCategory.PROVIDER
    default_recoverable = True


_SPECIAL_TOKENS = re.compile(r"<\|[^|<>]{1,40}\|>")
"""Chat-template control tokens a small or base model may echo (``<|im_end|>``)."""

_TERMINAL_SEQUENCES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI (ESC [ or C1 CSI) ... final byte
    r"|(?:\x1b[\]P_^X]|[\x90\x9d\x9e\x9f\x98])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC/DCS/...
    r"|\x1b[ -/]*[0-~]?"  # any other escape
)
"""Terminal escape sequences (ECMA-48): a title is shown on terminals, so they are removed whole
(the model chose the text)."""


def _printable(text: str) -> str:
    """``text`` without terminal escape sequences and without characters that are not
    printable (controls, bidirectional overrides, zero-width characters); whitespace of any
    kind becomes a space."""
    text = _TERMINAL_SEQUENCES.sub("", text)
    return "".join(c if c.isprintable() else " " if c.isspace() else "" for c in text)


def clean_title(raw: str) -> str | None:
    """Turn a model's answer into a title.

    Takes the first non-blank line; drops terminal escape sequences and every character that is
    not printable (a control character, a bidirectional override, a zero-width space); drops
    markdown markers, a leading ``Title:``, every double
    quote and backtick (and enclosing single quotes), collapses whitespace and trailing
    punctuation; shortens to at most :data:`MAX_TITLE_CHARS` characters at a word boundary when
    there is one in the last half.

    Returns:
        The title, or None when nothing is left.

    Example:
        >>> clean_title('**Title:** "Fixing the login redirect bug."\\nHope that helps!')
        'Fixing the login redirect bug'
    """
    raw = _SPECIAL_TOKENS.sub("\n", raw)
    line = next((ln for ln in raw.splitlines() if ln.strip()), "")
    text = " ".join(_printable(line).split())
    for _ in range(3):
        text = _MARKERS.sub("", text).strip().strip("*_").strip()
        text = _PREFIX.sub("", text).strip()
        text = text.strip(_QUOTES).strip()
    text = _INNER_QUOTES.sub("", text)
    text = " ".join(text.split()).rstrip(_TRAILING).strip(_QUOTES).strip()
    if len(text) > MAX_TITLE_CHARS:
        cut = text[:MAX_TITLE_CHARS]
        space = cut.rfind(" ")
        text = cut[:space] if space >= MAX_TITLE_CHARS // 2 else cut
        text = text.rstrip(_TRAILING).strip(_QUOTES).strip()
    return text or None


async def generate_title(
    provider: Provider,
    model: str,
    first_user_text: str,
    first_answer: str,
    *,
    max_tokens: int = 30,
    max_input_chars: int = 2000,
) -> str:
    """Ask ``provider`` for a title of a conversation's first exchange.

    Args:
        provider: The provider the session is using now.
        model: Its model id.
        first_user_text: The first turn's user message (truncated to ``max_input_chars``).
        first_answer: The first turn's final answer (truncated to ``max_input_chars``).
        max_tokens: Output budget of the call, in tokens.
        max_input_chars: Characters kept of each text.

    Returns:
        The cleaned title (one line, at most :data:`MAX_TITLE_CHARS` characters, no quotes).

    Raises:
        TitleError: the answer was empty after cleaning.
        ProviderError: the call failed.
    """
    exchange = (
        f"User:\n{first_user_text[:max_input_chars]}\n\n"
        f"Assistant:\n{first_answer[:max_input_chars]}"
    )
    request = ModelRequest(
        model=model,
        messages=(SystemMessage(content=TITLE_INSTRUCTION), UserMessage.of(exchange)),
        tools=(),
        settings=ModelSettings(tool_choice="none", max_tokens=max_tokens),
        hosted_tools=frozenset(),
    )
    response = await provider.complete(request)
    title = clean_title(response.message.text)
    if title is None:
        raise TitleError("the model answered no usable title")
    return title
