"""A turn's prompt: text, or text and media parts (issue #18, ``@path`` attachments).

:meth:`~robota.framework.interactive.InteractiveSession.submit` and ``stream`` take either a
string or a sequence of :class:`~robota.core.messages.TextPart` /
:class:`~robota.core.messages.MediaPart`. A string goes to the agent as it always did; parts go
unchanged as one :class:`~robota.core.messages.UserMessage`, so an image reaches the provider
as an image. Hooks and titles see the text form (:func:`prompt_text`).

Example:
    >>> from robota.core.messages import MediaPart, TextPart
    >>> prompt_text([TextPart(text="what is this?"),
    ...              MediaPart(media_kind="image", media_type="image/png", data=b"x",
    ...                        name="shot.png")])
    'what is this?\\n\\n[image: shot.png]'
"""

from __future__ import annotations

from collections.abc import Sequence

from robota.core.messages import MediaPart, TextPart, UserMessage

__all__ = ["UserPrompt", "prompt_text", "turn_prompt"]

UserPrompt = str | Sequence[TextPart | MediaPart]
"""What a turn is given: text, or the parts of the user message (text and media)."""


def _parts(prompt: Sequence[TextPart | MediaPart]) -> tuple[TextPart | MediaPart, ...]:
    parts = tuple(prompt)
    if not parts:
        raise ValueError("a prompt of parts needs at least one part")
    for part in parts:
        if not isinstance(part, (TextPart, MediaPart)):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"a prompt part is a TextPart or MediaPart, not {type(part).__name__}")
    return parts


def _describe(part: TextPart | MediaPart) -> str:
    if isinstance(part, TextPart):
        return part.text
    return f"[{part.media_kind}: {part.name or part.media_type}]"


def prompt_text(prompt: UserPrompt) -> str:
    """The text form of ``prompt``, as ``UserPromptSubmit`` hooks see it: a string as is; parts
    joined by a blank line, each media part as ``[image: name]`` (its kind, and its name or else
    its media type).

    Raises:
        ValueError: an empty sequence of parts.
        TypeError: a part that is neither a ``TextPart`` nor a ``MediaPart``.
    """
    if isinstance(prompt, str):
        return prompt
    return "\n\n".join(_describe(part) for part in _parts(prompt))


def turn_prompt(prompt: UserPrompt, notices: Sequence[str]) -> str | UserMessage:
    """What the agent runs: ``prompt`` with the background-task ``notices`` before it.

    A string with no notices stays a string (as before parts were accepted); a string with
    notices becomes the notices and the string joined by blank lines. Parts become one
    :class:`~robota.core.messages.UserMessage`, the notices prepended as one text part and the
    parts kept unchanged (media bytes are not copied or re-encoded).

    Raises:
        ValueError: an empty sequence of parts.
        TypeError: a part that is neither a ``TextPart`` nor a ``MediaPart``.
    """
    if isinstance(prompt, str):
        return "\n\n".join([*notices, prompt]) if notices else prompt
    parts = _parts(prompt)
    if notices:
        parts = (TextPart(text="\n\n".join(notices)), *parts)
    return UserMessage(parts=parts)
