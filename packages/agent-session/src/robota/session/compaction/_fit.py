"""Fitting messages into a token budget by shortening their large parts (issue #15; seed 000,
"Context Window Tracking"; seed 004, ``context:overflow``).

:func:`fit_messages` measures messages with the project's one token estimate
(:func:`robota.core.agent.context.estimate_tokens`: JSON characters / 4) and, while they exceed
the budget, shortens their large parts tier by tier — tool output first, then the other
conversation parts, then the system prompt. Within a tier every part longer than a cap is cut to
its head and tail around a marker the model can read (``[… 812,345 characters of tool output
elided for the summary …]``); the cap is the largest that fits, found by bisection, and grows
linearly with recency (the oldest message's cap is half the newest's), so the largest and the
oldest parts are cut first. Images and other media over the cap are replaced by a marker;
reasoning and provider-details parts over the cap are dropped.

Tool pairing is never changed: a tool result keeps its call id, name and error flag — only its
content is shortened — and a tool call keeps its id and name. Nothing here mutates its input.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Literal

from robota.core.agent.context import CHARS_PER_TOKEN, estimate_tokens
from robota.core.messages import (
    AssistantMessage,
    HostedToolResultPart,
    JsonValue,
    MediaPart,
    Message,
    ProviderDetailsPart,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
    dump_messages,
)
from robota.core.provider import ToolDefinition

__all__ = [
    "ALL_TIERS",
    "ELIDED_TEXT",
    "ElisionNotes",
    "FitResult",
    "Tier",
    "elide_tool_results",
    "fit_messages",
    "flatten_to_transcript",
]

Tier = Literal["tool_output", "conversation", "system"]
"""What :func:`fit_messages` may shorten: ``tool_output`` — the content of tool results;
``conversation`` — user and assistant text, media, reasoning, tool-call arguments, hosted tool
results and provider details; ``system`` — the system prompt."""

ALL_TIERS: tuple[Tier, ...] = ("tool_output", "conversation", "system")
"""Every tier, in the order they are shortened."""

ELIDED_TEXT = "[tool output elided to fit the context window]"
"""Body :func:`elide_tool_results` gives an elided tool result."""

_EMPTY_CHARS = len(dump_messages([]))
_EMPTY_TEXT_CHARS = len(dump_messages([SystemMessage(content="")]))


@dataclass(frozen=True, kw_only=True, slots=True)
class ElisionNotes:
    """The model-facing markers that stand in for elided content.

    Neutral mechanism text by default; a product layer may override any of them (seed 000,
    "every string it can place in front of a model ... defaults to ... neutral mechanism text,
    with an explicit override seam"). Templates are :meth:`str.format` strings.

    Attributes:
        why: Why content was elided, appended to every marker.
        tool_output: Marker inside a shortened tool result; fields ``count`` (characters
            removed) and ``why``.
        text: Marker inside shortened user or assistant text; ``count``, ``why``.
        system: Marker inside a shortened system prompt; ``count``, ``why``.
        argument: Marker inside a shortened string of tool-call arguments or a hosted tool
            result; ``count``, ``why``.
        media: Replaces an image, audio clip, document or binary; ``kind`` (media kind),
            ``media_type`` (IANA type), ``count`` (bytes, or characters of its URL), ``why``.
        dropped: Replaces an assistant message left empty once its reasoning and provider
            details were dropped; ``why``.
    """

    why: str = "to fit the context window"
    tool_output: str = "[… {count:,} characters of tool output elided {why} …]"
    text: str = "[… {count:,} characters of message text elided {why} …]"
    system: str = "[… {count:,} characters of the system prompt elided {why} …]"
    argument: str = "[… {count:,} characters elided {why} …]"
    media: str = "[… {media_type} {kind} of {count:,} bytes elided {why} …]"
    dropped: str = "[reasoning elided {why}]"


@dataclass(frozen=True, kw_only=True, slots=True)
class FitResult:
    """The outcome of :func:`fit_messages`.

    Attributes:
        messages: The (possibly shortened) messages, same length and order as the input.
        budget_tokens: The budget asked for (tokens).
        original_tokens: Estimated tokens of the input (messages and tools).
        estimated_tokens: Estimated tokens of :attr:`messages` (with the tools).
        changed_parts: Parts shortened, replaced or dropped (a tool result counts once).
        fits: ``estimated_tokens <= budget_tokens``. False means even the shortest form
            allowed by the tiers and ``protected`` exceeds the budget.
    """

    messages: tuple[Message, ...]
    budget_tokens: int
    original_tokens: int
    estimated_tokens: int
    changed_parts: int
    fits: bool


def fit_messages(
    messages: Sequence[Message],
    budget_tokens: int,
    *,
    tools: Sequence[ToolDefinition] = (),
    tiers: Sequence[Tier] = ALL_TIERS,
    protected: frozenset[int] = frozenset(),
    notes: ElisionNotes | None = None,
) -> FitResult:
    """Shorten the largest and oldest parts of ``messages`` until their estimated size, with
    ``tools``, is at most ``budget_tokens``.

    Tiers are tried in order; a later tier is touched only when the previous one, fully elided,
    is not enough. The estimate is :func:`~robota.core.agent.context.estimate_tokens` (the one
    the agent's pre-send guard uses; seed 000, "Context Window Tracking").

    Args:
        messages: The messages (not modified).
        budget_tokens: Estimated tokens the result may take, tools included.
        tools: Tool schemas sent with the messages (counted, never shortened).
        tiers: What may be shortened, in order (see :data:`Tier`).
        protected: Indexes of messages never shortened (e.g. a final instruction).
        notes: Marker texts (default :class:`ElisionNotes`).

    Returns:
        The :class:`FitResult`; check :attr:`FitResult.fits`.

    Example:
        >>> from robota.core.messages import UserMessage
        >>> fit = fit_messages([UserMessage.of("x" * 40_000)], 1_000)
        >>> fit.fits, fit.original_tokens > 10_000, fit.estimated_tokens <= 1_000
        (True, True, True)
    """
    notes = notes or ElisionNotes()
    msgs = list(messages)
    original = estimate_tokens(msgs, tools)
    limit = budget_tokens * CHARS_PER_TOKEN - _tool_chars(tools)
    sizes = [_size(m) for m in msgs]
    changed = 0
    if _total(sizes) > limit:
        for tier in tiers:
            candidates = [i for i, m in enumerate(msgs) if i not in protected and _in_tier(m, tier)]
            if not candidates:
                continue
            trial = _Trial(msgs, sizes, candidates, tier, notes)
            shortest = trial.at(0)
            if shortest.total > limit:
                changed += shortest.apply(msgs, sizes)
                continue
            low, high = 0, max(sizes[i] for i in candidates) + 1  # low fits, high does not
            best = shortest
            while high - low > 1:
                middle = (low + high) // 2
                attempt = trial.at(middle)
                if attempt.total <= limit:
                    low, best = middle, attempt
                else:
                    high = middle
            changed += best.apply(msgs, sizes)
            break
    out = tuple(msgs)
    estimated = estimate_tokens(out, tools)
    if changed and estimated >= original:
        # Shorter in characters but not in estimated tokens: the elision markers cost what
        # they saved, so keep the messages as they were rather than mangle them for nothing.
        out, estimated, changed = tuple(messages), original, 0
    return FitResult(
        messages=out,
        budget_tokens=budget_tokens,
        original_tokens=original,
        estimated_tokens=estimated,
        changed_parts=changed,
        fits=estimated <= budget_tokens,
    )


def elide_tool_results(
    messages: Sequence[Message], *, keep_last: int
) -> tuple[tuple[Message, ...], int]:
    """Replace the bodies of all but the last ``keep_last`` tool-result messages with
    :data:`ELIDED_TEXT` (seed 004, ``context:overflow``: tail elision of older tool results).

    Each result keeps its call id, name and error flag, so pairing is unchanged.

    Returns:
        The new messages and how many results were elided (already-elided ones not counted).
    """
    positions = [i for i, m in enumerate(messages) if isinstance(m, ToolResultMessage)]
    targets = set(positions[: max(0, len(positions) - keep_last)])
    elided = 0
    body = (TextPart(text=ELIDED_TEXT),)
    body_chars = _content_chars(body)
    out: list[Message] = []
    for i, message in enumerate(messages):
        if i in targets and isinstance(message, ToolResultMessage):
            results: list[ToolResultPart] = []
            for result in message.results:
                # an elision never grows a result: one already shorter than the marker is kept
                if result.content != body and _content_chars(result.content) > body_chars:
                    elided += 1
                    result = replace(result, content=body)
                results.append(result)
            message = ToolResultMessage(results=tuple(results))
        out.append(message)
    return tuple(out), elided


def flatten_to_transcript(
    messages: Sequence[Message], *, keep_last: int = 1, everything: bool = False
) -> tuple[Message, ...]:
    """``messages`` with every run of tool exchanges (assistant messages that call tools and
    tool-result messages) before the last ``keep_last`` messages replaced by one user message
    holding a plain-text transcript of that run (calls and results as readable lines).

    A transcript has no tool calls or results, so pairing cannot break, and it is one text part
    that :func:`fit_messages` can cut to a single marker: the last resort for a history whose
    *structure* alone (thousands of tiny tool calls) exceeds a window. With ``everything``,
    every message before the last ``keep_last`` goes into one transcript (thousands of tiny
    plain turns: then the whole older history is one part that can be cut to head and tail).
    """
    msgs = list(messages)
    end = max(0, len(msgs) - max(0, keep_last))
    out: list[Message] = []
    run: list[Message] = []

    def flush() -> None:
        if run:
            lines = [line for m in run for line in _transcript_lines(m)]
            out.append(UserMessage(parts=(TextPart(text="\n".join(lines) or "(no content)"),)))
            run.clear()

    for message in msgs[:end]:
        if (
            everything
            or isinstance(message, ToolResultMessage)
            or (
                isinstance(message, AssistantMessage)
                and any(isinstance(p, ToolCallPart) for p in message.parts)
            )
        ):
            run.append(message)
        else:
            flush()
            out.append(message)
    flush()
    return (*out, *msgs[end:])


def _media_label(part: MediaPart) -> str:
    return f"[{part.media_type} {part.media_kind}]"


def _transcript_lines(message: Message) -> list[str]:
    if isinstance(message, SystemMessage):
        return [f"system: {message.content}"]
    if isinstance(message, UserMessage):
        texts = [p.text if isinstance(p, TextPart) else _media_label(p) for p in message.parts]
        return ["user: " + "\n".join(texts)]
    if isinstance(message, AssistantMessage):
        out: list[str] = []
        for part in message.parts:
            if isinstance(part, TextPart):
                out.append(f"assistant: {part.text}")
            elif isinstance(part, ToolCallPart):
                arguments = (
                    json.dumps(part.arguments, default=str)
                    if part.arguments is not None
                    else part.raw_arguments
                )
                out.append(f"assistant called tool {part.name} ({part.id}): {arguments}")
            elif isinstance(part, HostedToolResultPart):
                out.append(f"hosted tool result: {json.dumps(part.content, default=str)}")
        return out
    out = []
    for result in message.results:
        texts = [p.text if isinstance(p, TextPart) else _media_label(p) for p in result.content]
        flag = " (error)" if result.is_error else ""
        out.append(f"tool {result.name} ({result.call_id}) result{flag}: " + "\n".join(texts))
    return out


# --- measuring --------------------------------------------------------------------------------


def _size(message: Message) -> int:
    """Characters ``message`` adds to :func:`dump_messages` output (without the separator)."""
    return len(dump_messages([message])) - _EMPTY_CHARS


def _text_chars(text: str) -> int:
    """Characters ``text`` takes in :func:`dump_messages` output (UTF-8 bytes, escapes
    included) -- what the estimate counts, not ``len(text)``."""
    return len(dump_messages([SystemMessage(content=text)])) - _EMPTY_TEXT_CHARS


def _total(sizes: Sequence[int]) -> int:
    return _EMPTY_CHARS + sum(sizes) + max(0, len(sizes) - 1)


def _tool_chars(tools: Sequence[ToolDefinition]) -> int:
    # the same serialization estimate_tokens uses for tool schemas
    return len(json.dumps([asdict(t) for t in tools], default=str)) if tools else 0


def _in_tier(message: Message, tier: Tier) -> bool:
    if tier == "tool_output":
        return isinstance(message, ToolResultMessage)
    if tier == "conversation":
        return isinstance(message, UserMessage | AssistantMessage)
    return isinstance(message, SystemMessage)


@dataclass(frozen=True, kw_only=True, slots=True)
class _Outcome:
    total: int
    replaced: dict[int, tuple[Message, int, int]]  # index -> (message, size, parts changed)

    def apply(self, msgs: list[Message], sizes: list[int]) -> int:
        changed = 0
        for i, (message, size, count) in self.replaced.items():
            msgs[i], sizes[i] = message, size
            changed += count
        return changed


class _Trial:
    """Shortens one tier at a given base cap; older messages get smaller caps."""

    def __init__(
        self,
        msgs: Sequence[Message],
        sizes: Sequence[int],
        candidates: Sequence[int],
        tier: Tier,
        notes: ElisionNotes,
    ) -> None:
        self.msgs = msgs
        self.sizes = sizes
        self.candidates = candidates
        self.tier = tier
        self.notes = notes
        self.base = _total(sizes)
        self.count = max(1, len(msgs))

    def at(self, cap: int) -> _Outcome:
        total = self.base
        replaced: dict[int, tuple[Message, int, int]] = {}
        for i in self.candidates:
            own_cap = cap + (cap * i) // self.count
            if self.sizes[i] <= own_cap:
                continue  # no part of it can be longer than the cap
            message, count = _shorten(self.msgs[i], own_cap, self.notes)
            if count:
                size = _size(message)
                if size >= self.sizes[i]:
                    continue  # never grow a message (_shorten already guards each part)
                replaced[i] = (message, size, count)
                total += size - self.sizes[i]
        return _Outcome(total=total, replaced=replaced)


# --- shortening -------------------------------------------------------------------------------


def _cut(text: str, cap: int, template: str, notes: ElisionNotes) -> str | None:
    """Head and tail of ``text`` (``cap`` characters together) around a marker, or None when
    that would not be shorter as serialized (a marker of non-ASCII ``…`` can take more bytes
    than a short ASCII text it replaces)."""
    length = len(text)
    if length <= cap:
        return None
    tail = cap // 2
    head = cap - tail
    note = template.format(count=length - cap, why=notes.why)
    pieces = [text[:head], note, text[length - tail :] if tail else ""]
    out = "\n".join(p for p in pieces if p)
    return out if _text_chars(out) < _text_chars(text) else None


def _media_size(part: MediaPart) -> int:
    if part.data is not None:
        return -(-len(part.data) // 3) * 4  # base64, as dump_messages writes it
    return len(part.url or "")


def _media_note(part: MediaPart, cap: int, notes: ElisionNotes) -> TextPart | None:
    size = _media_size(part)
    if size <= cap:
        return None
    count = len(part.data) if part.data is not None else size
    note = notes.media.format(
        kind=part.media_kind, media_type=part.media_type, count=count, why=notes.why
    )
    text = TextPart(text=note)
    return text if _content_chars((text,)) < _content_chars((part,)) else None


def _part_chars(part: TextPart | MediaPart) -> int:
    return len(part.text) if isinstance(part, TextPart) else _media_size(part)


def _merged(
    parts: Sequence[TextPart | MediaPart], cap: int, template: str, notes: ElisionNotes
) -> TextPart:
    """All of ``parts`` as one text part of about ``cap`` characters: the texts joined (media
    replaced by their markers), cut to head and tail around one marker."""
    pieces: list[str] = []
    for part in parts:
        if isinstance(part, TextPart):
            pieces.append(part.text)
        else:
            note = _media_note(part, 0, notes)
            pieces.append(note.text if note is not None else "")
    text = "\n".join(pieces)
    return TextPart(text=_cut(text, cap, template, notes) or text)


def _user_parts(
    parts: Sequence[TextPart | MediaPart], cap: int, template: str, notes: ElisionNotes
) -> tuple[tuple[TextPart | MediaPart, ...], int]:
    """Every part longer than ``cap`` shortened; when the content is made of several parts that
    together still exceed ``cap`` (e.g. 50,000 small blocks an MCP server returned), the whole
    content becomes one text part of about ``cap`` characters, so any content can be reduced
    to one marker."""
    out: list[TextPart | MediaPart] = []
    changed = 0
    for part in parts:
        new: TextPart | MediaPart | None
        if isinstance(part, TextPart):
            text = _cut(part.text, cap, template, notes)
            new = TextPart(text=text) if text is not None else None
        else:
            new = _media_note(part, cap, notes)
        if new is None:
            out.append(part)
        else:
            out.append(new)
            changed += 1
    if len(out) > 1 and sum(_part_chars(p) for p in out) > cap:
        merged = _merged(parts, cap, template, notes)
        if _content_chars((merged,)) < _content_chars(out):
            return (merged,), max(1, changed)
    return tuple(out), changed


def _content_chars(parts: Sequence[TextPart | MediaPart]) -> int:
    """Serialized characters of ``parts`` (as :func:`dump_messages` writes a tool result's
    content)."""
    return len(dump_messages([UserMessage(parts=tuple(parts))]))


def _json_leaves(value: JsonValue, cap: int, notes: ElisionNotes) -> tuple[JsonValue, int]:
    """Shorten every string in a JSON value longer than ``cap``."""
    if isinstance(value, str):
        text = _cut(value, cap, notes.argument, notes)
        return (value, 0) if text is None else (text, 1)
    if isinstance(value, list):
        items: list[JsonValue] = []
        changed = 0
        for item in value:
            new, count = _json_leaves(item, cap, notes)
            items.append(new)
            changed += count
        return (items, changed) if changed else (value, 0)
    if isinstance(value, dict):
        fields: dict[str, JsonValue] = {}
        changed = 0
        for key, item in value.items():
            new, count = _json_leaves(item, cap, notes)
            fields[key] = new
            changed += count
        return (fields, changed) if changed else (value, 0)
    return value, 0


def _json_chars(value: JsonValue) -> int:
    return len(json.dumps(value, default=str))


AssistantPart = TextPart | ThinkingPart | ToolCallPart | HostedToolResultPart | ProviderDetailsPart


def _assistant_part(
    part: AssistantPart, cap: int, notes: ElisionNotes
) -> tuple[AssistantPart | None, int]:
    """The shortened part (None: dropped) and 1 when it changed."""
    if isinstance(part, TextPart):
        text = _cut(part.text, cap, notes.text, notes)
        return (part, 0) if text is None else (TextPart(text=text), 1)
    if isinstance(part, ThinkingPart | ProviderDetailsPart):
        # a signature or an opaque vendor block cannot be shortened validly: drop it whole
        size = (
            len(part.text) + len(part.signature or "")
            if isinstance(part, ThinkingPart)
            else _json_chars(part.data)
        )
        return (part, 0) if size <= cap else (None, 1)
    if isinstance(part, ToolCallPart):
        if part.arguments is None:
            raw = _cut(part.raw_arguments, cap, notes.argument, notes)
            if raw is None:
                return part, 0
            cut = replace(part, arguments={"raw_arguments": raw}, raw_arguments="")
            return (cut, 1) if _part_size(cut) < _part_size(part) else (part, 0)
        if max(_json_chars(part.arguments), len(part.raw_arguments)) <= cap:
            return part, 0
        arguments, count = _json_leaves(part.arguments, cap, notes)
        if not count or not isinstance(arguments, dict):
            return part, 0
        # raw_arguments is what some adapters send verbatim: clear it so the cut ones are sent
        cut = replace(part, arguments=arguments, raw_arguments="")
        return (cut, 1) if _part_size(cut) < _part_size(part) else (part, 0)
    content, count = _json_leaves(part.content, cap, notes)
    return (replace(part, content=content), 1) if count else (part, 0)


def _part_size(part: AssistantPart) -> int:
    return _size(AssistantMessage(parts=(part,)))


def _shorten(message: Message, cap: int, notes: ElisionNotes) -> tuple[Message, int]:
    """``message`` with every part longer than ``cap`` shortened; and how many parts changed."""
    if isinstance(message, ToolResultMessage):
        results: list[ToolResultPart] = []
        changed = 0
        for result in message.results:
            content, count = _user_parts(result.content, cap, notes.tool_output, notes)
            if count:
                changed += 1
                result = replace(result, content=content)
            results.append(result)
        return (ToolResultMessage(results=tuple(results)), changed) if changed else (message, 0)
    if isinstance(message, UserMessage):
        parts, changed = _user_parts(message.parts, cap, notes.text, notes)
        return (UserMessage(parts=parts), changed) if changed else (message, 0)
    if isinstance(message, AssistantMessage):
        kept: list[AssistantPart] = []
        changed = 0
        for part in message.parts:
            new, count = _assistant_part(part, cap, notes)
            changed += count
            if new is not None:
                kept.append(new)
        if not changed:
            return message, 0
        if not kept:
            kept.append(TextPart(text=notes.dropped.format(why=notes.why)))
        shortened = replace(message, parts=tuple(kept))
        # the marker for dropped reasoning may be longer than a little reasoning it replaces
        return (shortened, changed) if _size(shortened) < _size(message) else (message, 0)
    content = _cut(message.content, cap, notes.system, notes)
    return (message, 0) if content is None else (SystemMessage(content=content), 1)
